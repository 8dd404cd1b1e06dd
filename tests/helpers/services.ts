/**
 * The machine's PostgreSQL and Redis. On a bare machine their tests are skipped, loudly;
 * under CI=true a missing service is a failure, never a skip.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const inCi = process.env.CI === 'true';

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function require(name: string, url: string): Promise<boolean> {
  if (await reachable(url)) return true;
  const message = `${name} is not reachable at ${url}`;
  if (inCi) throw new Error(`${message}: CI must run every test (start it as the README's "Tests" section says, or let .ci/run start it).`);
  console.warn(`\n⚠️  SKIPPED: ${message}; the tests that need it are skipped on this machine.\n`);
  return false;
}

let postgres: Promise<boolean> | undefined;
let redis: Promise<boolean> | undefined;
export const hasPostgres = () => (postgres ??= require('PostgreSQL', POSTGRES_ADMIN_URL));
export const hasRedis = () => (redis ??= require('Redis', REDIS_URL));

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/** The redis-server binary, for tests that stop and restart a Redis of their own (same rules as the services above). */
export function hasRedisServerBinary(): boolean {
  if (existsSync(REDIS_SERVER)) return true;
  const message = `${REDIS_SERVER} is not installed`;
  if (inCi) throw new Error(`${message}: CI must run every test.`);
  console.warn(`\n⚠️  SKIPPED: ${message}; the Redis outage tests are skipped on this machine.\n`);
  return false;
}

/** A throw-away redis-server on its own port, stopped and started by the test. */
export function ownRedis(port: number) {
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    async start() {
      child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      const deadline = Date.now() + 10_000;
      while (!(await reachable(url))) {
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
