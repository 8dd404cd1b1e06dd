import { hkdfSync, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import fp from 'fastify-plugin';
import type { Db } from '../db/client';
import { serverSecrets } from '../db/schema';
import { type Cursors, createCursors } from '../lib/cursor';
import { createSealer, type Sealer } from '../lib/sealed';

declare module 'fastify' {
  interface FastifyInstance {
    /** Seals values every instance can open (join passes); keyed by `SECRET_KEY` or the database's own. */
    sealer: Sealer;
    /** Opaque list cursors on top of the sealer. */
    cursors: Cursors;
    /** A key of its own for `purpose`, derived from the deployment's secret: the same on every instance. */
    keyFor(purpose: string): Buffer;
  }
}

const SECRET_NAME = 'secret_key';

/**
 * The deployment's secret: made once by whichever instance starts first and kept in the database, so
 * that every instance behind a load balancer opens what another sealed, and a restart keeps them valid.
 */
export async function storedSecret(db: Db): Promise<Buffer> {
  await db
    .insert(serverSecrets)
    .values({ name: SECRET_NAME, value: randomBytes(32).toString('base64') })
    .onConflictDoNothing();
  const [row] = await db.select().from(serverSecrets).where(eq(serverSecrets.name, SECRET_NAME));
  if (!row) throw new Error('the secret key could not be stored');
  return Buffer.from(row.value, 'base64');
}

export default fp(
  async (app) => {
    const secret = app.config.secretKey ? Buffer.from(app.config.secretKey, 'utf8') : await storedSecret(app.db);
    const sealer = createSealer(secret);
    app.decorate('sealer', sealer);
    app.decorate('cursors', createCursors(sealer));
    app.decorate('keyFor', (purpose: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `eventmatch:key:${purpose}`, 32)));
  },
  { name: 'secrets', dependencies: ['database'] },
);
