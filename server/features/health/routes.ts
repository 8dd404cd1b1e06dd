import { sql } from 'drizzle-orm';
import type { FastifyPluginAsync } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Checks `/readyz` runs; infrastructure plugins add theirs (the database's, Redis's). */
    readinessChecks: Map<string, () => Promise<void>>;
  }
}

/** A check that has not answered by then counts as failing: a hung database must not hang /readyz. */
export const READINESS_TIMEOUT_MS = 2000;

function withTimeout(check: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('readiness check timed out')), READINESS_TIMEOUT_MS);
  });
  return Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
}

const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, 'ok' | 'failing'> = {};
    const results = await Promise.allSettled(
      [['database', () => app.db.execute(sql`select 1`).then(() => {})] as const, ...app.readinessChecks].map(
        async ([name, check]) => {
          await withTimeout(check);
          return name;
        },
      ),
    );
    const names = ['database', ...app.readinessChecks.keys()];
    results.forEach((result, index) => {
      checks[names[index]!] = result.status === 'fulfilled' ? 'ok' : 'failing';
    });
    const ready = Object.values(checks).every((state) => state === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
};

export default healthRoutes;
