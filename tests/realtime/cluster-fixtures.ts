import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { createPostgresDatabase } from '../helpers/database';
import type { Config } from '../../server/config';
import { startServer, type TestServer } from '../helpers/server';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/** The redis-server binary, for tests that stop and restart a Redis of their own (same rules as services.ts). */
export function hasRedisServerBinary(): boolean {
  if (existsSync(REDIS_SERVER)) return true;
  const message = `${REDIS_SERVER} is not installed`;
  if (process.env.CI === 'true') throw new Error(`${message}: CI must run every test.`);
  console.warn(`\n⚠️  SKIPPED: ${message}; the Redis outage tests are skipped on this machine.\n`);
  return false;
}

function accepts(port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A throw-away redis-server on its own port, stopped and started by the test. */
export function ownRedis(port: number) {
  let child: ChildProcess | null = null;
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      const deadline = Date.now() + 10_000;
      while (!(await accepts(port))) {
        if (Date.now() > deadline) throw new Error('redis-server did not start');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Two app instances on one fresh PostgreSQL database and one Redis, with a channel prefix of their own.
 * `redisUrlOfTwo`: the same Redis by another way (a slow link), for instance two.
 */
export async function startTwoInstances(redisUrl: string, config: Partial<Config> = {}, options: { redisUrlOfTwo?: string } = {}) {
  const database = await createPostgresDatabase();
  const redisPrefix = `test-${randomBytes(6).toString('hex')}`;
  const servers: TestServer[] = [];
  // One after the other: both would otherwise apply the migrations at once.
  for (const url of [redisUrl, options.redisUrlOfTwo ?? redisUrl]) {
    servers.push(await startServer({ backend: 'postgres', databaseUrl: database.url, config: { ...config, redisUrl: url, redisPrefix } }));
  }
  const [one, two] = servers as [TestServer, TestServer];
  return {
    one,
    two,
    redisPrefix,
    async close() {
      await Promise.all(servers.map((server) => server.close()));
      await database.drop();
    },
  };
}
