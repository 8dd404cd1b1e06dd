import fp from 'fastify-plugin';
import type { Config } from '../config';
import { type Database, type Db, openDatabase } from '../db/client';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    database: Database;
  }
}

/**
 * Opens PGlite or PostgreSQL as configured, applies the committed migrations, closes on shutdown.
 * A database handed in already open (a test's memory PGlite) is used as it is, and stays its owner's to close.
 */
export default fp(
  async (app, opts: { config: Config; database?: Database }) => {
    const { config } = opts;
    const database = opts.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, maxConnections: config.databasePoolSize }));
    app.decorate('database', database);
    app.decorate('db', database.db);
    if (!opts.database) {
      app.addHook('onClose', async () => {
        await database.close();
      });
    }
    app.log.info({ driver: database.driver }, 'database ready');
  },
  { name: 'database' },
);
