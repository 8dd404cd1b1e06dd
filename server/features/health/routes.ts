import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorDetail } from '../../../shared/schemas/errors';
import { Health, Readiness } from '../../../shared/schemas/health';
import { z } from '../../../shared/schemas/zod';
import { withoutToken } from '../../plugins/api-docs';

export interface ReadinessCheck {
  check: () => Promise<void>;
  /** A failing required check makes `/readyz` answer 503; the others are only reported. */
  required: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Checks `/readyz` runs beside the database's; infrastructure plugins add theirs (Redis). */
    readinessChecks: Map<string, ReadinessCheck>;
  }
}

/** The check, failing if it has not answered in `timeoutMs` (`config.readinessTimeoutMs`). */
function withTimeout(check: () => Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('readiness check timed out')), timeoutMs);
  });
  return Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
}

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', { schema: { ...withoutToken, response: { 200: Health } } }, async () => ({ status: 'ok' as const }));

  // 503: a required check failing, or the instance draining (`refuseWhileClosing`'s envelope, with Retry-After).
  app.get('/readyz', { schema: { ...withoutToken, response: { 200: Readiness, 503: z.union([Readiness, ErrorDetail]) } } }, async (_request, reply) => {
    const all: Array<[string, ReadinessCheck]> = [
      ['database', { check: () => app.db.execute(sql`select 1`).then(() => {}), required: true }],
      ...app.readinessChecks,
    ];
    const results = await Promise.allSettled(all.map(([, { check }]) => withTimeout(check, app.config.readinessTimeoutMs)));
    const checks: Record<string, 'ok' | 'failing'> = {};
    let ready = true;
    results.forEach((result, index) => {
      const [name, { required }] = all[index]!;
      checks[name] = result.status === 'fulfilled' ? 'ok' : 'failing';
      if (required && result.status === 'rejected') ready = false;
    });
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
};

export default healthRoutes;
