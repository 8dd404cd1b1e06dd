/**
 * What the HTTP benchmarks share: the app started as production runs it, the closed and open load
 * loops, autocannon, and the figures' table. Used by bench/deck.ts and bench/events.ts.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Agent, get } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { type SeedOptions, type SeedResult, seed } from '../scripts/seed';
import { openDatabase } from '../server/db/client';
import { SERVER_NODE_FLAGS } from '../scripts/start.mjs';
import { freePort } from '../tests/helpers/ports';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface AutocannonResult {
  latency: { p50: number; p99: number; average: number };
  requests: { average: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: { setupRequest: (request: AutocannonRequest) => AutocannonRequest }[];
}) => Promise<AutocannonResult>;
// autocannon ships no types; only the part used here is declared above.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** An admin URL with another database name. */
export function databaseUrl(adminUrl: string, name: string) {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A PostgreSQL database of its own for a benchmark, filled once by the seed generator (bulk SQL) and
 * reused by later runs while it holds `seed.users` users (`fresh`: drop and seed again). Returns the
 * seed's result when it seeded now, null when it reused.
 */
export async function ensureSeeded(options: {
  adminUrl: string;
  name: string;
  fresh: boolean;
  dataDir: string;
  seed: Omit<SeedOptions, 'dataDir' | 'log'>;
}): Promise<SeedResult | null> {
  const admin = postgres(options.adminUrl, { max: 1, onnotice: () => {} });
  const [exists] = await admin`select 1 from pg_database where datname = ${options.name}`;
  if (exists && options.fresh) await admin.unsafe(`drop database ${options.name} with (force)`);
  if (!exists || options.fresh) await admin.unsafe(`create database ${options.name}`);
  await admin.end();

  const database = await openDatabase({ databaseUrl: databaseUrl(options.adminUrl, options.name), dataDir: options.dataDir, maxConnections: 2 });
  try {
    const [counts] = await database.db.execute<{ users: string; reactions: string }>(
      sql`select (select count(*) from users) as users, (select count(*) from reactions) as reactions`,
    );
    if (Number(counts?.users) >= options.seed.users) {
      console.log(`Reusing ${options.name}: ${counts?.users} users, ${counts?.reactions} reactions (--fresh to reseed).`);
      return null;
    }
    console.log(`Seeding ${options.name} with ${options.seed.users} users…`);
    const result = await seed(database.db, { ...options.seed, dataDir: options.dataDir, log: (line) => console.log(`  ${line}`) });
    // Index-only scans and fresh statistics, as autovacuum would leave them.
    await database.db.execute(sql`vacuum (analyze)`);
    console.log(`  ${result.reactions} reactions, ${result.conversations} matches, ${result.messages} messages`);
    return result;
  } finally {
    await database.close();
  }
}

/**
 * The real app in its own process, as production runs it: the bundle of `npm run build:server`
 * (built from the sources now) with `npm run serve`'s flags; BENCH_NODE_FLAGS come after them, so
 * they can also undo one. Resolves once /readyz answers.
 */
export async function startApp(options: {
  databaseUrl: string;
  dataDir: string;
  profileDir?: string;
  env?: Record<string, string>;
}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const profiling = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.profileDir)}`] : [];
  const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: root, stdio: 'inherit' });
  const child = spawn(process.execPath, [...profiling, ...SERVER_NODE_FLAGS, ...extraFlags, 'dist/server/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      DATA_DIR: options.dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CLIENT_DIR: path.join(options.dataDir, 'no-client'),
      NODE_ENV: 'production',
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  throw new Error('the app did not become ready');
}

export interface Figures {
  label: string;
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
}

export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * Runs `task` for `seconds`: closed loop with `concurrency` workers, or open loop at `rate` per second
 * (latency measured from the scheduled start, so queueing counts, as autocannon corrects it too).
 */
export async function loop(
  label: string,
  task: (i: number) => Promise<unknown>,
  options: { seconds: number; concurrency: number; rate?: number },
): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  const started = performance.now();
  const end = started + options.seconds * 1000;
  const run = async (scheduled: number) => {
    try {
      await task(i++);
      latencies.push(performance.now() - scheduled);
    } catch {
      errors++;
    }
  };
  if (options.rate) {
    const interval = 1000 / options.rate;
    const inFlight = new Set<Promise<void>>();
    let next = started;
    while (next < end) {
      const now = performance.now();
      while (next <= now && next < end) {
        const promise = run(next).finally(() => inFlight.delete(promise));
        inFlight.add(promise);
        next += interval;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(5, next - performance.now()))));
    }
    await Promise.all(inFlight);
  } else {
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (performance.now() < end) await run(performance.now());
      }),
    );
  }
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    label,
    throughput: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

/** autocannon against GET paths, each request's path and token from `next`. */
export async function http(
  label: string,
  url: string,
  next: () => { path: string; token: string },
  options: { connections: number; duration: number },
): Promise<Figures> {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    requests: [
      {
        setupRequest: (request) => {
          const { path: requestPath, token } = next();
          return { ...request, method: 'GET', path: requestPath, headers: { authorization: `Token ${token}` } };
        },
      },
    ],
  });
  return {
    label,
    throughput: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/**
 * One GET over a kept-alive connection, for the open-loop rows. autocannon's own rate limit is a budget
 * per second that each connection spends as fast as it can and then waits out: a burst at full load
 * every second, not a steady half load, so the half-load rows pace requests with `loop` instead.
 */
export function httpGetter(url: string, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const fetchOne = ({ path: requestPath, token }: { path: string; token: string }) =>
    new Promise<void>((resolve, reject) => {
      get(`${url}${requestPath}`, { agent, headers: { authorization: `Token ${token}` } }, (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))));
      }).on('error', reject);
    });
  return { fetchOne, close: () => agent.destroy() };
}

export function table(title: string, rows: Figures[]) {
  console.log(`\n${title}`);
  console.log('| run | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.throughput.toFixed(0)} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.errors} |`,
    );
  }
}

export async function explain(client: postgres.Sql, query: { sql: string; params: unknown[] }) {
  const rows = await client.unsafe(`explain (analyze, buffers, costs off) ${query.sql}`, query.params as never[]);
  return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
}
