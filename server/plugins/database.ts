import fp from 'fastify-plugin';
import type { Config } from '../config';
import { type Database, type Db, openDatabase } from '../db/client';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    database: Database;
  }
}

/** Opens PGlite or PostgreSQL, applies the committed migrations, closes on shutdown. */
export default fp(
  async (app, opts: { config: Config }) => {
    const { config } = opts;
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      inMemory: config.inMemoryDatabase,
    });
    app.decorate('database', database);
    app.decorate('db', database.db);
    app.addHook('onClose', async () => {
      await database.close();
    });
    app.log.info({ driver: database.driver }, 'database ready');
  },
  { name: 'database' },
);
