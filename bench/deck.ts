/**
 * The deck and the message history at 100,000 users and ~3,000,000 reactions on PostgreSQL:
 * the HTTP endpoint (the real app in its own process, driven by autocannon) beside the same SQL run
 * directly (postgres.js, same statement text and parameters, same pool size), at full load and at
 * half of the endpoint's measured maximum; then EXPLAIN ANALYZE of both queries.
 *
 *   npm run bench:deck                       # seeds bench_deck once, then reuses it
 *   npm run bench:deck -- --fresh            # drop and seed again
 *   npm run bench:deck -- --duration 15 --connections 16
 *   npm run bench:deck -- --only deck --profile /tmp/prof   # one endpoint; the app writes a CPU profile
 *
 * BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres) is the admin connection;
 * BENCH_NODE_FLAGS adds node flags to the app's process, after `npm run serve`'s own (e.g. "--trace-gc").
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, get } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { DECK_PAGE_SIZE, MESSAGES_PAGE_SIZE } from '../shared/constants';
import { openDatabase } from '../server/db/client';
import { messagePage } from '../server/features/conversations/queries';
import { deckQuery, type ViewerFit, viewerFitStatement } from '../server/features/deck/queries';
import { hashToken, newToken } from '../server/lib/tokens';
import { seed } from '../scripts/seed';
import { freePort } from '../tests/helpers/ports';
import { SERVER_NODE_FLAGS } from '../scripts/start.mjs';

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

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    fresh: { type: 'boolean', default: false },
    users: { type: 'string', default: '100000' },
    'reactions-per-user': { type: 'string', default: '31' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    only: { type: 'string' },
    profile: { type: 'string' },
  },
});
if (args.only && !['deck', 'history'].includes(args.only)) throw new Error('--only takes deck or history');
const USERS = Number(args.users);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
// The app's own pool size (server/db/client.ts): the raw loop gets the same.
const POOL = 10;
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'bench_deck';
const dbUrl = (() => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DB_NAME}`;
  return url.toString();
})();
const dialect = new PgDialect();
const toQuery = (query: SQL) => dialect.sqlToQuery(query);

async function ensureDatabase(dataDir: string) {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const [exists] = await admin`select 1 from pg_database where datname = ${DB_NAME}`;
  if (exists && args.fresh) await admin.unsafe(`drop database ${DB_NAME} with (force)`);
  if (!exists || args.fresh) await admin.unsafe(`create database ${DB_NAME}`);
  await admin.end();

  const database = await openDatabase({ databaseUrl: dbUrl, dataDir, maxConnections: 2 });
  try {
    const [counts] = await database.db.execute<{ users: string; reactions: string }>(
      sql`select (select count(*) from users) as users, (select count(*) from reactions) as reactions`,
    );
    if (Number(counts?.users) >= USERS) {
      console.log(`Reusing ${DB_NAME}: ${counts?.users} users, ${counts?.reactions} reactions (--fresh to reseed).`);
      return;
    }
    console.log(`Seeding ${DB_NAME} with ${USERS} users…`);
    const result = await seed(database.db, {
      users: USERS,
      reactionsPerUser: Number(args['reactions-per-user']),
      matchRate: 0.2,
      photos: 24,
      dataDir,
      log: (line) => console.log(`  ${line}`),
    });
    // Index-only scans and fresh statistics, as autovacuum would leave them.
    await database.db.execute(sql`vacuum (analyze)`);
    console.log(`  ${result.reactions} reactions, ${result.conversations} matches, ${result.messages} messages`);
  } finally {
    await database.close();
  }
}

async function startApp(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const profiling = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args.profile)}`] : [];
  const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  // The server as production runs it: the bundle of scripts/build-server.mjs, built from the sources now.
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: root, stdio: 'inherit' });
  // The server's runtime flags (scripts/start.mjs); BENCH_NODE_FLAGS come after them, so they can also undo one.
  const child = spawn(process.execPath, [...profiling, ...SERVER_NODE_FLAGS, ...extraFlags, 'dist/server/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CLIENT_DIR: path.join(dataDir, 'no-client'),
      NODE_ENV: 'production',
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

interface Figures {
  label: string;
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * Runs `task` for `seconds`: closed loop with `concurrency` workers, or open loop at `rate` per second
 * (latency measured from the scheduled start, so queueing counts, as autocannon corrects it too).
 */
async function loop(
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

async function http(
  label: string,
  url: string,
  next: () => { path: string; token: string },
  connections = CONNECTIONS,
): Promise<Figures> {
  const result = await autocannon({
    url,
    connections,
    duration: connections === 1 ? Math.max(3, DURATION / 2) : DURATION,
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
function httpGetter(url: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const fetchOne = ({ path: requestPath, token }: { path: string; token: string }) =>
    new Promise<void>((resolve, reject) => {
      get(`${url}${requestPath}`, { agent, headers: { authorization: `Token ${token}` } }, (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))));
      }).on('error', reject);
    });
  return { fetchOne, close: () => agent.destroy() };
}

function table(title: string, rows: Figures[]) {
  console.log(`\n${title}`);
  console.log('| run | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.throughput.toFixed(0)} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.errors} |`,
    );
  }
}

async function explain(client: postgres.Sql, query: { sql: string; params: unknown[] }) {
  const rows = await client.unsafe(`explain (analyze, buffers, costs off) ${query.sql}`, query.params as never[]);
  return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
}

async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-deck-'));
  await ensureDatabase(dataDir);

  const raw = postgres(dbUrl, { max: POOL, onnotice: () => {} });
  // Sample viewers (completed profiles) and conversations with at least a page of history, each
  // with a fresh token, so that the endpoint and the raw loop read the same rows.
  const viewers = (
    await raw<{ id: number }[]>`select user_id as id from profiles where is_completed order by random() limit 1000`
  ).map((row) => ({ id: row.id, token: newToken() }));
  const chats = (
    await raw<{ id: number; user_id: number }[]>`
      select c.id, c.user_low_id as user_id from conversations c
      where (select count(*) from messages m where m.conversation_id = c.id) >= ${MESSAGES_PAGE_SIZE}
      order by random() limit 500`
  ).map((row) => ({ id: row.id, userId: row.user_id, token: newToken() }));
  const tokens = [
    ...viewers.map((v) => ({ token_hash: hashToken(v.token), user_id: v.id })),
    ...chats.map((c) => ({ token_hash: hashToken(c.token), user_id: c.userId })),
  ];
  await raw`insert into auth_tokens ${raw(tokens)}`;
  const [sizes] = await raw`select (select count(*) from users) as users, (select count(*) from reactions) as reactions,
    (select count(*) from conversations) as conversations, (select count(*) from messages) as messages`;
  console.log(
    `Data: ${sizes?.users} users, ${sizes?.reactions} reactions, ${sizes?.conversations} conversations, ${sizes?.messages} messages; ` +
      `${viewers.length} viewers and ${chats.length} conversations (≥ ${MESSAGES_PAGE_SIZE} messages) sampled.`,
  );

  // The endpoint reads the viewer's fit values (a primary-key read) and then runs the deck statement;
  // the raw loop runs only the deck statement, with those values read once up front.
  const fits = new Map<number, ViewerFit>();
  for (const viewer of viewers) {
    const values = { userId: viewer.id };
    const [fit] = await raw.unsafe<ViewerFit[]>(viewerFitStatement.text, viewerFitStatement.params(values) as never[]);
    if (fit) fits.set(viewer.id, fit);
  }
  const deckSql = (i: number) =>
    toQuery(deckQuery(fits.get(viewers[i % viewers.length]!.id)!, null, DECK_PAGE_SIZE + 1));
  const messagesSql = (i: number) => {
    const chat = chats[i % chats.length]!;
    const values = { conversationId: chat.id, userId: chat.userId, bound: 0, limit: MESSAGES_PAGE_SIZE + 1 };
    return { sql: messagePage.newest.text, params: messagePage.newest.params(values) };
  };

  const { url, child } = await startApp(dataDir);
  try {
    // Warm both paths (caches, JIT), then measure.
    await loop('warm-up', (i) => raw.unsafe(deckSql(i).sql, deckSql(i).params as never[]), { seconds: 2, concurrency: CONNECTIONS });
    let n = 0;
    const nextDeck = () => {
      const viewer = viewers[n++ % viewers.length]!;
      return { path: '/api/users/matching-profiles/', token: viewer.token };
    };
    const nextChat = () => {
      const chat = chats[n++ % chats.length]!;
      return { path: `/api/conversations/${chat.id}/messages/`, token: chat.token };
    };
    await http('warm-up', url, nextDeck);

    const endpoints = [
      // Sent the way the app sends each: the deck unnamed, its values written in (planned for its viewer
      // every time), the history as a prepared statement (PreparedStatement).
      ['deck', `Deck (GET /api/users/matching-profiles/, ${DECK_PAGE_SIZE} cards)`, deckSql, false, nextDeck],
      ['history', `Message history (GET /api/conversations/:id/messages/, last ${MESSAGES_PAGE_SIZE})`, messagesSql, true, nextChat],
    ] as const;
    for (const [name, title, rawQuery, prepare, next] of endpoints) {
      if (args.only && args.only !== name) continue;
      const runRaw = (i: number) => {
        const query = rawQuery(i);
        return raw.unsafe(query.sql, query.params as never[], { prepare });
      };
      const rawFull = await loop(
        `raw SQL, ${CONNECTIONS} in flight`,
        runRaw,
        { seconds: DURATION, concurrency: CONNECTIONS },
      );
      const httpFull = await http(`HTTP, ${CONNECTIONS} connections`, url, next);
      const half = Math.max(1, Math.round(httpFull.throughput / 2));
      const getter = httpGetter(url);
      const httpHalf = await loop(`HTTP at half load (${half} req/s)`, () => getter.fetchOne(next()), {
        seconds: DURATION,
        concurrency: CONNECTIONS,
        rate: half,
      });
      getter.close();
      const rawHalf = await loop(
        `raw SQL at the same rate (${half} q/s)`,
        runRaw,
        { seconds: DURATION, concurrency: CONNECTIONS, rate: half },
      );
      // One at a time: the per-request cost with no queueing at all.
      const rawOne = await loop(
        'raw SQL, 1 in flight',
        runRaw,
        { seconds: Math.max(3, DURATION / 2), concurrency: 1 },
      );
      const httpOne = await http('HTTP, 1 connection', url, next, 1);
      table(title, [rawFull, httpFull, httpHalf, rawHalf, rawOne, httpOne]);
      console.log(
        `endpoint/raw throughput: ${((100 * httpFull.throughput) / rawFull.throughput).toFixed(0)} % (target ≥ 50 %); ` +
          `p99 at half load: ${httpHalf.p99.toFixed(2)} ms (target < 15 ms)`,
      );
    }

    // PostgreSQL's own timings do not include waiting for a CPU: on a busy machine they are the
    // steadier figure. Which path each plan took shows how the planner splits the viewers, and the
    // execution's time in reads from outside shared_buffers (track_io_timing, on this connection only)
    // shows how much of it was the disk rather than the statement.
    const planning: number[] = [];
    const execution: number[] = [];
    const reading: number[] = [];
    const paths = new Map<string, number>();
    const timed = await raw.reserve();
    await timed`set track_io_timing = on`;
    for (let i = 0; i < Math.min(400, viewers.length); i++) {
      const query = deckSql(i);
      const plan = (await timed.unsafe(`explain (analyze, buffers, costs off) ${query.sql}`, query.params as never[]))
        .map((row) => String(row['QUERY PLAN']))
        .join('\n');
      planning.push(Number(/Planning Time: ([\d.]+)/.exec(plan)?.[1]));
      execution.push(Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1]));
      // The top node's line holds the whole execution's reads; no line means none.
      const executed = plan.split('\nPlanning')[0] ?? '';
      reading.push(Number(/I\/O Timings:[^\n]*?read=([\d.]+)/.exec(executed)?.[1] ?? 0));
      const unseen = plan.split('SELECT* 2')[1] ?? '';
      const path = /Index Scan using profiles_deck|Bitmap Index Scan on profiles_fit|Index Scan using profiles_fit|Seq Scan on profiles/.exec(unseen)?.[0] ?? 'other';
      paths.set(path, (paths.get(path) ?? 0) + 1);
    }
    timed.release();
    const ms = (values: number[], p: number) => percentile([...values].sort((a, b) => a - b), p).toFixed(2);
    console.log(
      `\nDeck statement over ${execution.length} viewers (EXPLAIN ANALYZE, one at a time): execution p50 ${ms(execution, 50)} ms, ` +
        `p90 ${ms(execution, 90)} ms, p99 ${ms(execution, 99)} ms, max ${ms(execution, 100)} ms; ` +
        `planning p50 ${ms(planning, 50)} ms, p99 ${ms(planning, 99)} ms`,
    );
    console.log(
      `Of the execution, reading pages from outside shared_buffers: p50 ${ms(reading, 50)} ms, p99 ${ms(reading, 99)} ms ` +
        `(in ${reading.filter((t) => t > 0).length} of ${reading.length} viewers)`,
    );
    console.log(`Unseen tier's path: ${[...paths].map(([path, count]) => `${path} × ${count}`).join(', ')}`);

    console.log('\nEXPLAIN ANALYZE, deck of one sampled viewer:\n');
    console.log(await explain(raw, deckSql(0)));
    console.log('\nEXPLAIN ANALYZE, last 50 messages of one sampled conversation:\n');
    console.log(await explain(raw, messagesSql(0)));
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    await raw`delete from auth_tokens where token_hash in ${raw(tokens.map((t) => t.token_hash))}`;
    await raw.end();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
