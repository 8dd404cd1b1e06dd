/**
 * What the HTTP benchmarks share: the app started as production runs it, the closed and open load
 * loops, autocannon, the figures' table, CPU per operation from /proc, and the deck's raw baseline.
 * Used by bench/deck.ts and bench/events.ts.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { type SeedOptions, type SeedResult, seed } from '../scripts/seed';
import { DECK_PAGE_SIZE } from '../shared/constants';
import { CUSTOM_PLAN_SESSION, deckPoolSize, GENERIC_PLAN_SESSION, openDatabase } from '../server/db/client';
import { deckStatement, deckValues, type ViewerFit, viewerFitStatement } from '../server/features/deck/queries';
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
  /** Completed operations (the CPU figures are divided by it). */
  count: number;
  /** CPU milliseconds spent during the run, by whom (`CpuMeter`), when it was measured. */
  cpu?: CpuSpent;
}

export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * The garbage collections in a `--trace-gc-nvp` trace, those between `from` and `to` (ms since the
 * traced process began) when given: each scavenge's time, the bytes it promoted to the old generation
 * and the bytes that survived it, and how many full GCs there were.
 */
export function gcTrace(trace: string, window?: { from: number; to: number }) {
  const at = (line: string) => Number(/\]\s+(\d+) ms: /.exec(line)?.[1] ?? -1);
  const field = (line: string, name: string) => Number(new RegExp(` ${name}=(\\d+)`).exec(line)?.[1] ?? 0);
  const lines = trace.split('\n').filter((line) => !window || (at(line) >= window.from && at(line) <= window.to));
  return {
    scavenges: lines
      .filter((line) => line.includes('gc=s '))
      .map((line) => ({ at: at(line), promoted: field(line, 'promoted'), survived: field(line, 'new_space_survived') })),
    fullGcs: lines.filter((line) => line.includes('gc=mc ')).length,
  };
}

/** The median of what survived the scavenges (the lower one of an even count), 0 when there were none. */
export function survivedMedian(scavenges: Array<{ survived: number }>) {
  const sorted = scavenges.map((scavenge) => scavenge.survived).sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/** A row's figures from its latencies (ms, sorted here) over `seconds`. */
export function figuresOf(label: string, latencies: number[], seconds: number, errors: number): Figures {
  latencies.sort((a, b) => a - b);
  return {
    label,
    count: latencies.length,
    throughput: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

/**
 * Runs `task` for `seconds`: closed loop with `concurrency` workers, or open loop at `rate` per second
 * (latency measured from the scheduled start, so queueing counts, as autocannon corrects it too).
 */
export async function loop(
  label: string,
  task: (i: number) => Promise<unknown>,
  options: { seconds: number; concurrency: number; rate?: number; onLatency?: (i: number, ms: number) => void },
): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  const started = performance.now();
  const end = started + options.seconds * 1000;
  const run = async (scheduled: number) => {
    const index = i++;
    try {
      await task(index);
      const ms = performance.now() - scheduled;
      latencies.push(ms);
      options.onLatency?.(index, ms);
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
  return figuresOf(label, latencies, (performance.now() - started) / 1000, errors);
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
    count: result['2xx'],
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

/**
 * The figures' table; with CPU columns (µs per operation, from `CpuMeter`) when the rows were measured:
 * the PostgreSQL backends serving the app and the raw baseline, the app's process, and the generator.
 */
export function table(title: string, rows: Figures[]) {
  const cpu = rows.some((row) => row.cpu);
  console.log(`\n${title}`);
  console.log(`| run | req/s | p50 ms | p99 ms | errors |${cpu ? ' PostgreSQL CPU µs/op | app CPU µs/op | generator CPU µs/op |' : ''}`);
  console.log(`|---|---:|---:|---:|---:|${cpu ? '---:|---:|---:|' : ''}`);
  for (const row of rows) {
    const costs = cpu
      ? ` ${perOperation(row.cpu?.postgres, row.count)} | ${perOperation(row.cpu?.app, row.count)} | ${perOperation(row.cpu?.generator, row.count)} |`
      : '';
    console.log(
      `| ${row.label} | ${row.throughput.toFixed(0)} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.errors} |${costs}`,
    );
  }
}

const dialect = new PgDialect();

/** A statement with its values written in, as EXPLAIN needs it (the plan is the custom plan's). */
const inlined = (query: SQL | { sql: string; params: unknown[] }) =>
  'sql' in query && typeof query.sql === 'string' ? query : dialect.sqlToQuery((query as SQL).inlineParams());

export async function explain(client: postgres.Sql, query: SQL | { sql: string; params: unknown[] }) {
  const { sql: text, params } = inlined(query);
  const rows = await client.unsafe(`explain (analyze, buffers, costs off) ${text}`, params as never[]);
  return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
}

/** The load average, to print beside each run (the machine is shared). */
export const uptime = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

/**
 * The raw baseline's clients, connected as the app's pools are: `raw` the main pool, `rawDeck` the
 * town-wide deck's (custom plans), `rawEventDeck` the event deck's (generic plans).
 */
export function rawClients(url: string, pool: number) {
  const named = namedConnections(url, RAW_CONNECTIONS);
  return {
    raw: postgres(named, { max: pool, onnotice: () => {} }),
    rawDeck: postgres(named, { max: deckPoolSize(pool), onnotice: () => {}, connection: CUSTOM_PLAN_SESSION }),
    rawEventDeck: postgres(named, { max: deckPoolSize(pool), onnotice: () => {}, connection: GENERIC_PLAN_SESSION }),
  };
}

/**
 * The deck's first page for this viewer sent as the deck service sends it (`getDeck`): its prepared
 * statement's text, built once per shape, and the viewer's values, named, on a client set up as the
 * pool that runs it (`runWithCustomPlan` town-wide, `runWithGenericPlan` within an event). Rendering
 * `deckQuery` instead would cost the generator ~150 µs a query that the app does not spend, and on
 * two shared cores that CPU is taken from the raw baseline's PostgreSQL.
 */
export function sendDeckAsTheAppDoes(client: postgres.Sql, fit: ViewerFit) {
  const statement = deckStatement(fit, null);
  const params = statement.params(deckValues(fit, null, DECK_PAGE_SIZE + 1));
  return client.unsafe(statement.text, params as never[], { prepare: true });
}

/**
 * The deck statement's own timings (EXPLAIN ANALYZE, one viewer at a time, track_io_timing on this
 * connection), the time its execution spent reading pages from outside shared_buffers, and which path
 * the unseen tier's plan took.
 */
export async function statementTimings(client: postgres.Sql, deck: (i: number) => SQL, count: number) {
  const planning: number[] = [];
  const execution: number[] = [];
  const reading: number[] = [];
  const paths = new Map<string, number>();
  const timed = await client.reserve();
  try {
    await timed`set track_io_timing = on`;
    for (let i = 0; i < count; i++) {
      const { sql: text, params } = inlined(deck(i));
      const plan = (await timed.unsafe(`explain (analyze, buffers, costs off) ${text}`, params as never[]))
        .map((row) => String(row['QUERY PLAN']))
        .join('\n');
      planning.push(Number(/Planning Time: ([\d.]+)/.exec(plan)?.[1]));
      execution.push(Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1]));
      // The top node's line holds the whole execution's reads; no line means none.
      const executed = plan.split('\nPlanning')[0] ?? '';
      reading.push(Number(/I\/O Timings:[^\n]*?read=([\d.]+)/.exec(executed)?.[1] ?? 0));
      const unseen = plan.split('SELECT* 2')[1] ?? '';
      const path =
        /Index Scan using profiles_event_deck|Index Scan using profiles_deck|Bitmap Index Scan on profiles_fit|Index Scan using profiles_fit|Bitmap Index Scan on profiles_event_deck|Seq Scan on profiles|Index Scan using attendances_event_open|Bitmap Index Scan on attendances_event_open/.exec(
          unseen,
        )?.[0] ?? 'other';
      paths.set(path, (paths.get(path) ?? 0) + 1);
    }
  } finally {
    timed.release();
  }
  const ms = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (p: number) => percentile(sorted, p).toFixed(2);
    return { p50: at(50), p90: at(90), p99: at(99), max: at(100), median: percentile(sorted, 50) };
  };
  return {
    count: execution.length,
    execution: ms(execution),
    planning: ms(planning),
    reading: ms(reading),
    readingViewers: reading.filter((t) => t > 0).length,
    paths,
  };
}

/**
 * Where PostgreSQL's CPU per deck request goes: the same deck statements sent three ways, EXPLAIN of
 * them (parsed and planned, not executed), the viewer's fit statement and a bare round trip, each a
 * closed loop on fresh raw connections (warmed first), measured by `meter`. Their differences split
 * the statement's cost into parse and analysis (what the named statement saves), planning, and
 * execution. (A generic plan, which would skip planning, cannot see the viewer: tried, it costs the
 * deck 5–7× the CPU of a custom one.)
 */
export async function deckCostRows(options: {
  meter: CpuMeter;
  url: string;
  pool: number;
  seconds: number;
  concurrency: number;
  deck: (i: number) => SQL;
  fitOf: (i: number) => ViewerFit;
}) {
  const named = namedConnections(options.url, RAW_CONNECTIONS);
  // Every way on as many connections as the app's deck pools; the fit on one set up as the event
  // deck's, where the app reads it.
  const connections = deckPoolSize(options.pool);
  const client = (session: Record<string, string> = {}) => postgres(named, { max: connections, onnotice: () => {}, connection: session });
  const deckPlain = client();
  const custom = client(CUSTOM_PLAN_SESSION);
  const generic = client(GENERIC_PLAN_SESSION);
  const unnamed = (text: string, params: unknown[]) => deckPlain.unsafe(text, params as never[], { prepare: false });
  const ways: Array<[string, (i: number) => Promise<unknown>]> = [
    ['A. deck as the app sends it: named, custom plan each time', (i) => sendDeckAsTheAppDoes(custom, options.fitOf(i))],
    [
      'B. deck as sent before: values written in, unnamed (parsed and planned each time)',
      (i) => {
        const { sql: text, params } = inlined(options.deck(i));
        return unnamed(text, params);
      },
    ],
    [
      'C. EXPLAIN of B: parsed and planned, not executed',
      (i) => {
        const { sql: text, params } = inlined(options.deck(i));
        return unnamed(`explain (costs off) ${text}`, params);
      },
    ],
    [
      'D. deck with parameters, unnamed (postgres.js describes first: two round trips)',
      (i) => {
        const { sql: text, params } = dialect.sqlToQuery(options.deck(i));
        return unnamed(text, params);
      },
    ],
    [
      "E. the viewer's fit statement (named, generic plan, as the app sends it)",
      (i) => generic.unsafe(viewerFitStatement.text, viewerFitStatement.params({ userId: options.fitOf(i).user_id }) as never[], { prepare: true }),
    ],
    ['F. a round trip: select 1 (named)', () => deckPlain.unsafe('select 1', [], { prepare: true })],
  ];
  const rows: Figures[] = [];
  try {
    for (const [label, run] of ways) {
      await loop('warm-up', run, { seconds: 1, concurrency: options.concurrency });
      rows.push(await options.meter.measure(() => loop(label, run, { seconds: options.seconds, concurrency: options.concurrency })));
    }
  } finally {
    await Promise.all([deckPlain.end(), custom.end(), generic.end()]);
  }
  table(`Where PostgreSQL's CPU per deck request goes (raw SQL, ${options.concurrency} in flight)`, rows);
  const us = (row: Figures | undefined) => microsPerOperation(row?.cpu?.postgres, row?.count ?? 0);
  const [app, before, planned, , fit, trip] = rows.map(us) as [number, number, number, number, number, number];
  return {
    rows,
    /** The split, against the endpoint's own PostgreSQL CPU per request. */
    print(endpoint: Figures) {
      const perRequest = us(endpoint);
      const line = (what: string, value: number) => console.log(`  ${what}: ${micros(value)} µs`);
      console.log('\nPostgreSQL CPU per deck request, split (µs; differences of noisy figures, each from its own row):');
      line('the endpoint, per request (HTTP, full load)', perRequest);
      line('  the deck statement as the app sends it (A)', app);
      line("  the viewer's fit statement (E)", fit);
      line('  the rest: token lookups (a token is cached 5–10 s), activity writes (once a minute per user)', perRequest - app - fit);
      line('the deck statement sent as before (B)', before);
      line('  parse and analysis, which the named statement saves (B − A)', before - app);
      line('  planning for the viewer (C − (B − A) − F)', planned - (before - app) - trip);
      line('  execution (B − C)', before - planned);
      line('  a bare round trip (F)', trip);
    },
  };
}

export interface TargetRow {
  target: string;
  figure: string;
  met: boolean;
}

export function targetsTable(rows: TargetRow[]) {
  console.log('\nAgainst the targets (this run)');
  console.log('| target | this run | |');
  console.log('|---|---|---|');
  for (const row of rows) console.log(`| ${row.target} | ${row.figure} | ${row.met ? 'met' : '**not met**'} |`);
}

/** The `application_name` of the app's connections and of the raw baseline's, so their backends can be found. */
export const APP_CONNECTIONS = 'bench-app';
export const RAW_CONNECTIONS = 'bench-raw';

/** A database URL whose connections carry this `application_name` (postgres.js passes URL parameters on). */
export function namedConnections(url: string, applicationName: string) {
  const named = new URL(url);
  named.searchParams.set('application_name', applicationName);
  return named.toString();
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** A process's CPU time so far (utime + stime of /proc/<pid>/stat), in ms; null once it has gone. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command (field 2) may hold spaces and parentheses; the fields after its last ')' are fixed:
    // state is field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * How long a process's main thread has been runnable but waiting for a CPU, in ms (the second field of
 * /proc/<pid>/schedstat); null once it has gone, or off Linux. A PostgreSQL backend is one thread.
 */
export function processRunDelayMs(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return null;
  }
}

/** CPU milliseconds spent during one run. */
export interface CpuSpent {
  /** The PostgreSQL backends of the app's and the raw baseline's connections. */
  postgres: number;
  /** The app's process (null when there is none). */
  app: number | null;
  /** This process: the load generator (autocannon, the loops, postgres.js of the raw baseline). */
  generator: number;
}

interface CpuSample {
  backends: Map<number, number>;
  app: number | null;
  generator: number;
}

/**
 * CPU time per run from /proc: the PostgreSQL backends serving the app and the raw baseline (found in
 * `pg_stat_activity` by `application_name`, on this machine's PostgreSQL), the app's process and this
 * one. A backend that starts during a run counts from zero; one that ends during it is lost (the
 * pools are full and never idle out during a benchmark, so neither happens in the measured rows).
 */
export class CpuMeter {
  readonly #probe: postgres.Sql;

  constructor(
    url: string,
    private readonly appPid: number | null,
  ) {
    this.#probe = postgres(namedConnections(url, 'bench-probe'), { max: 1, onnotice: () => {} });
  }

  async #sample(): Promise<CpuSample> {
    const rows = await this.#probe<{ pid: number }[]>`
      select pid from pg_stat_activity
      where datname = current_database() and application_name in (${APP_CONNECTIONS}, ${RAW_CONNECTIONS})`;
    const backends = new Map<number, number>();
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (ms !== null) backends.set(pid, ms);
    }
    const own = process.cpuUsage();
    return {
      backends,
      app: this.appPid === null ? null : processCpuMs(this.appPid),
      generator: (own.user + own.system) / 1000,
    };
  }

  /** Starts counting; the function it returns tells what was spent since. */
  async begin(): Promise<() => Promise<CpuSpent>> {
    const before = await this.#sample();
    return async () => {
      const after = await this.#sample();
      let spent = 0;
      for (const [pid, ms] of after.backends) spent += ms - (before.backends.get(pid) ?? 0);
      return {
        postgres: spent,
        app: after.app === null || before.app === null ? null : after.app - before.app,
        generator: after.generator - before.generator,
      };
    };
  }

  /** Runs `run` and adds what it cost to its figures. */
  async measure(run: () => Promise<Figures>): Promise<Figures> {
    const end = await this.begin();
    const figures = await run();
    figures.cpu = await end();
    return figures;
  }

  close() {
    return this.#probe.end();
  }
}

/** Microseconds of CPU per operation; NaN where it was not measured. */
export const microsPerOperation = (ms: number | null | undefined, count: number) =>
  ms === null || ms === undefined || count === 0 ? Number.NaN : (1000 * ms) / count;

/** Microseconds, whole, for a table or a line; '–' where they were not measured. */
export const micros = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '–');

/** Microseconds of CPU per operation, for a table. */
export const perOperation = (ms: number | null | undefined, count: number) => micros(microsPerOperation(ms, count));

/**
 * Why an endpoint's throughput ratio to its raw statement reads what it does: with the generator,
 * the app and PostgreSQL on the same two cores, each side's throughput follows the CPU that one
 * operation costs all three, so the ratio is about the raw side's total over the endpoint's. The
 * target lets the endpoint cost the raw side's total over 0.9 (a ninth more), for the app, autocannon
 * and what the endpoint adds in PostgreSQL. The ceiling is the ratio of an endpoint that cost the raw
 * side's total (its statement, and postgres.js sending it) and a bare request's (`bare`: the app and
 * autocannon serving `GET /healthz`), and nothing more: no other statement, no cards to serialise.
 */
export function printBudget(what: string, run: { httpFull: Figures; rawFull: Figures }, bare: Figures) {
  const parts = (row: Figures) => ({
    postgres: microsPerOperation(row.cpu?.postgres, row.count),
    app: microsPerOperation(row.cpu?.app, row.count),
    generator: microsPerOperation(row.cpu?.generator, row.count),
  });
  const endpoint = parts(run.httpFull);
  const raw = parts(run.rawFull);
  const floor = parts(bare);
  const endpointTotal = endpoint.postgres + endpoint.app + endpoint.generator;
  const rawTotal = raw.postgres + raw.generator;
  const allowed = rawTotal / 0.9;
  console.log(
    `\nCPU per ${what} request, full load (µs): the endpoint ${micros(endpointTotal)} (PostgreSQL ${micros(endpoint.postgres)}, ` +
      `the app ${micros(endpoint.app)}, autocannon ${micros(endpoint.generator)}); the raw statement ${micros(rawTotal)} (PostgreSQL ` +
      `${micros(raw.postgres)}, postgres.js ${micros(raw.generator)}). Their ratio predicts a throughput ratio of ` +
      `${(rawTotal / endpointTotal).toFixed(2)}; measured ${(run.httpFull.throughput / run.rawFull.throughput).toFixed(2)}.`,
  );
  console.log(
    `A ratio of 0.9 allows the endpoint ${micros(allowed)} µs: ${micros(allowed - raw.postgres)} beyond the raw statement's PostgreSQL ` +
      `for the app, autocannon and the endpoint's other statements, which took ${micros(endpointTotal - raw.postgres)} here. ` +
      `A bare request (GET /healthz) costs the app ${micros(floor.app)} and autocannon ${micros(floor.generator)} µs: ` +
      `the raw statement and a bare request, and nothing more, would reach ${(rawTotal / (rawTotal + floor.app + floor.generator)).toFixed(2)}.`,
  );
}
