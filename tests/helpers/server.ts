import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyServerOptions } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type App } from '../../server/app';
import { type Config, loadConfig } from '../../server/config';
import { createPostgresDatabase, openMemoryDatabase, writeMigratedDataDir } from './database';
import { hasPostgres } from './services';
import { type ProxyDelays, tcpProxy } from './tcp-proxy';

export type Backend = 'pglite' | 'postgres';

/** The backends a server test runs on: PGlite always, PostgreSQL when the machine has it. */
export const backends: Backend[] = (await hasPostgres()) ? ['pglite', 'postgres'] : ['pglite'];

export interface TestServer {
  app: App;
  /** Where the test reaches it (127.0.0.1). */
  url: string;
  /** Where the links it makes point: `config.publicUrl` if the test gave one, else http://localhost:<port>. */
  publicUrl: string;
  config: Config;
  backend: Backend;
  close(): Promise<void>;
}

/** A logger for `startServer` that appends each line the server logs at `level` or above (pino's JSON) to `lines`. */
export function loggerInto(lines: string[], level: string): FastifyServerOptions['logger'] {
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { level, stream };
}

/**
 * The real app listening on a free port, with its own database (memory PGlite or a fresh
 * migrated PostgreSQL database) and its own data folder. Test-friendly settings: cheap argon2, no logs.
 */
export async function startServer(
  options: {
    backend?: Backend;
    databaseUrl?: string;
    dataDir?: string;
    /**
     * PGlite in `dataDir/db` as the server opens it itself, instead of a memory one of the test's;
     * started from a copy of the run's migrated database where there is none there yet (`writeMigratedDataDir`).
     */
    onDisk?: boolean;
    config?: Partial<Config>;
    /** A logger of the test's own (to read what the server logs); silent by default. */
    logger?: FastifyServerOptions['logger'];
  } = {},
): Promise<TestServer> {
  const backend = options.backend ?? 'pglite';
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'eventmatch-test-')));
  const ownsDataDir = !options.dataDir;
  const database = backend === 'postgres' && !options.databaseUrl ? await createPostgresDatabase({ migrated: true }) : null;

  const config: Config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: options.databaseUrl ?? database?.url ?? null,
    clientDir: null,
    logLevel: 'silent',
    argon2: { memoryCost: 1024, timeCost: 1 },
    loginThrottle: { perIp: 1000, perAccount: 1000, windowMs: 60_000 },
    // As loadConfig decides it: a Stripe key means Stripe's checkout unless the test names a mode.
    ...(options.config?.stripe?.secretKey ? { checkoutMode: 'stripe' as const } : {}),
    ...options.config,
  };
  const embedded = backend === 'pglite' && !config.databaseUrl;
  const embeddedDir = path.join(dataDir, 'db');
  if (embedded && options.onDisk && !existsSync(path.join(embeddedDir, 'PG_VERSION'))) await writeMigratedDataDir(embeddedDir);
  // PGlite in memory: nothing written under dataDir/db, and gone with the test.
  const memory = embedded && !options.onDisk ? await openMemoryDatabase() : undefined;
  const app = await buildApp(config, { logger: options.logger ?? false, database: memory });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no port');
  return {
    app,
    url: `http://127.0.0.1:${address.port}`,
    publicUrl: app.publicUrl,
    config: app.config,
    backend,
    async close() {
      await app.close();
      await memory?.close();
      await database?.drop();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type ServerOptions = NonNullable<Parameters<typeof startServer>[0]>;

/**
 * One server for the enclosing describe block: started in its beforeAll, closed in its afterAll.
 * It stands for that server wherever the tests read it (`server.url`, `makeUser(server)`) once
 * started; read before, it throws. `options` as a function: read in the beforeAll, after the
 * hooks declared above it (a fake whose address the config names), and awaited (a free port found).
 */
export function serverPerSuite(options: ServerOptions | (() => ServerOptions | Promise<ServerOptions>) = {}): TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startServer(typeof options === 'function' ? await options() : options);
  });
  afterAll(() => started?.close());
  const current = () => {
    if (!started) throw new Error('the suite’s server starts in beforeAll: read it in a hook or a test');
    return started;
  };
  return {
    get app() {
      return current().app;
    },
    get url() {
      return current().url;
    },
    get publicUrl() {
      return current().publicUrl;
    },
    get config() {
      return current().config;
    },
    get backend() {
      return current().backend;
    },
    close: () => current().close(),
  };
}

/**
 * Two app instances of one deployment: one fresh PostgreSQL database (a copy of the run's migrated
 * template, as `startServer`'s: the whole schema's migrations on an empty one cost each suite 1–2 s
 * more on a loaded machine) and, with `redisUrl`, one Redis under a channel prefix of their own.
 * `redisUrlOfTwo`: the same Redis by another way (a slow link), for instance two; or `slowLinkOfTwo`:
 * instance two reaches `redisUrl` through a proxy of its own with those delays, closed with the two.
 */
export async function startTwoInstances(
  options: { redisUrl?: string; redisUrlOfTwo?: string; slowLinkOfTwo?: ProxyDelays; config?: Partial<Config> } = {},
) {
  const slowLink = options.slowLinkOfTwo && options.redisUrl ? await tcpProxy(options.redisUrl, options.slowLinkOfTwo) : undefined;
  try {
    return await startBoth({ ...options, redisUrlOfTwo: slowLink?.url ?? options.redisUrlOfTwo }, slowLink);
  } catch (error) {
    await slowLink?.close();
    throw error;
  }
}

async function startBoth(options: { redisUrl?: string; redisUrlOfTwo?: string; config?: Partial<Config> }, slowLink?: { close(): Promise<void> }) {
  const database = await createPostgresDatabase({ migrated: true });
  const redisPrefix = `test-${randomBytes(6).toString('hex')}`;
  const servers: TestServer[] = [];
  // One after the other: both would otherwise apply the migrations at once.
  for (const redisUrl of [options.redisUrl, options.redisUrlOfTwo ?? options.redisUrl]) {
    servers.push(
      await startServer({ backend: 'postgres', databaseUrl: database.url, config: { ...options.config, redisUrl: redisUrl ?? null, redisPrefix } }),
    );
  }
  const [one, two] = servers as [TestServer, TestServer];
  return {
    one,
    two,
    databaseUrl: database.url,
    redisPrefix,
    async close() {
      await Promise.all(servers.map((server) => server.close()));
      await database.drop();
      await slowLink?.close();
    },
  };
}

export type TwoInstances = Awaited<ReturnType<typeof startTwoInstances>>;
