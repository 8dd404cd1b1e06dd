/**
 * The machine's PostgreSQL and Redis. On a bare machine their tests are skipped, loudly;
 * under CI=true a missing service is a failure, never a skip.
 */
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
