import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyServerOptions } from 'fastify';
import { buildApp, type App } from '../../server/app';
import { type Config, loadConfig } from '../../server/config';
import { createPostgresDatabase } from './database';
import { hasPostgres } from './services';

export type Backend = 'pglite' | 'postgres';

/** The backends a server test runs on: PGlite always, PostgreSQL when the machine has it. */
export const backends: Backend[] = (await hasPostgres()) ? ['pglite', 'postgres'] : ['pglite'];

export interface TestServer {
  app: App;
  url: string;
  config: Config;
  backend: Backend;
  close(): Promise<void>;
}

/**
 * The real app listening on a free port, with its own database (memory PGlite or a fresh
 * PostgreSQL database) and its own data folder. Test-friendly settings: cheap argon2, no logs.
 */
export async function startServer(
  options: {
    backend?: Backend;
    databaseUrl?: string;
    dataDir?: string;
    config?: Partial<Config>;
    /** A logger of the test's own (to read what the server logs); silent by default. */
    logger?: FastifyServerOptions['logger'];
  } = {},
): Promise<TestServer> {
  const backend = options.backend ?? 'pglite';
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'eventmatch-test-')));
  const ownsDataDir = !options.dataDir;
  const database = backend === 'postgres' && !options.databaseUrl ? await createPostgresDatabase() : null;

  const config: Config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: options.databaseUrl ?? database?.url ?? null,
    inMemoryDatabase: backend === 'pglite',
    clientDir: null,
    logLevel: 'silent',
    argon2: { memoryCost: 1024, timeCost: 1 },
    loginThrottle: { perIp: 1000, perAccount: 1000, windowMs: 60_000 },
    ...options.config,
  };
  const app = await buildApp(config, { logger: options.logger ?? false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no port');
  const url = `http://127.0.0.1:${address.port}`;
  // The port is only known now: links the app makes (checkout return URLs) point back at this server.
  if (options.config?.publicUrl === undefined) app.config.publicUrl = url;
  return {
    app,
    url,
    config: app.config,
    backend,
    async close() {
      await app.close();
      await database?.drop();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
