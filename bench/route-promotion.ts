/**
 * What each REST route promotes to V8's old generation, through the real app: `npx tsx
 * bench/route-promotion.ts`.
 *
 * The app runs as `npm run serve` runs it (bench/realtime-server.ts, the server's flags) with
 * `--trace-gc-nvp`, on a fresh PostgreSQL database with USERS signed-in users whose profiles are
 * complete. Each route is then called ~RATE times a second for SECONDS, open loop over kept-alive
 * connections (the load tool's REST client), and the trace's young-generation collections in that span
 * give the bytes promoted per request and the median of what survived a collection. A request's
 * objects should die young: what survives a collection is the requests in flight, tens of kilobytes.
 * Far more, on a route and not on the bare `/healthz`, means something keeps that route's dead objects
 * alive until a full GC (bench/README.md, the party's full GCs). Beside it, each route's CPU per
 * request over the same span, the app's process and its PostgreSQL backends (/proc): what a route
 * costs beyond the bare `/healthz`. The `--trace-gc-nvp` lines are in the app's figure too.
 * `bench/pg-promotion.ts` does the same for the database calls alone.
 * Environment: PROMOTION_RATE (400), PROMOTION_SECONDS (10), PROMOTION_ROUTES (a comma-separated subset of
 * the routes below; a route named twice is measured twice, the second time warmer), PROMOTION_PERF_DIR (a
 * Linux `perf` recording of the app over each route's span, `<dir>/<route>-<n>.data`, its JavaScript
 * frames named by node's `--perf-basic-prof`: read it with `bench/perf-summary.ts`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Account } from '../loadtest/setup';
import { Rest } from '../loadtest/rest';
import { ensureAccount, ensureProfile } from '../loadtest/setup';
import { createPostgresDatabase } from '../tests/helpers/database';
import { APP_CONNECTIONS, CpuMeter, gcTrace, namedConnections, perOperation, survivedMedian } from './lib';
import { startServerProcess } from './server-process';

const RATE = Number(process.env.PROMOTION_RATE ?? 400);
const SECONDS = Number(process.env.PROMOTION_SECONDS ?? 10);
const USERS = 200;
const PERF_DIR = process.env.PROMOTION_PERF_DIR ? path.resolve(process.env.PROMOTION_PERF_DIR) : null;

/**
 * Each route's call for the k-th request: `me` asks, about `other` where the route needs someone else;
 * `turn` counts how many times everyone has had a turn, and `events` are two open events (join by code).
 */
interface CallContext {
  turn: number;
  events: [string, string];
}
const ROUTES = {
  healthz: { name: 'GET /healthz (no auth, no database: the baseline)', call: (rest, base) => rest.request(base, 'GET', 'healthz', '/healthz') },
  me: { name: 'GET /api/users/me/', call: (rest, base, me) => rest.request(base, 'GET', 'me', '/api/users/me/', { token: me.token }) },
  deck: {
    name: 'GET /api/users/matching-profiles/',
    call: (rest, base, me) => rest.request(base, 'GET', 'deck', '/api/users/matching-profiles/', { token: me.token }),
  },
  skip: {
    name: 'POST /api/matching/ (a skip)',
    call: (rest, base, me, other) => rest.request(base, 'POST', 'skip', '/api/matching/', { token: me.token, json: { response: 'skip', other: other.id } }),
  },
  like: {
    name: 'POST /api/matching/ (a like)',
    call: (rest, base, me, other) => rest.request(base, 'POST', 'like', '/api/matching/', { token: me.token, json: { response: 'like', other: other.id } }),
  },
  checkin: {
    name: 'POST /api/events/{code}/check-in/ (from the other event)',
    // Everyone goes back and forth between the two events: each check-in leaves one and joins the other.
    call: (rest, base, me, _other, { turn, events }) =>
      rest.request(base, 'POST', 'checkin', `/api/events/${events[turn % 2]}/check-in/`, { token: me.token, json: {} }),
  },
  current: {
    name: 'GET /api/events/current/ (each user at one of the two events once a check-in has run)',
    call: (rest, base, me) => rest.request(base, 'GET', 'current', '/api/events/current/', { token: me.token }),
  },
} satisfies Record<string, { name: string; call: (rest: Rest, base: URL, me: Account, other: Account, context: CallContext) => Promise<{ status: number }> }>;
type Route = keyof typeof ROUTES;

const routes = (process.env.PROMOTION_ROUTES?.split(',') ?? Object.keys(ROUTES)) as Route[];
for (const route of routes) if (!(route in ROUTES)) throw new Error(`unknown route ${route}: one of ${Object.keys(ROUTES).join(', ')}`);

console.log(`Promotion to the old generation by REST route, ~${RATE} requests/s for ${SECONDS} s each, one app process\n`);
const database = await createPostgresDatabase();
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-bench-promotion-'));
/** The app's trace, and where each route's span begins and ends in it. */
let trace = '';
const app = await startServerProcess(
  'app',
  {
    DATABASE_URL: namedConnections(database.url, APP_CONNECTIONS),
    REDIS_URL: '',
    DATA_DIR: dataDir,
    RATE_LIMIT_MULTIPLIER: '100000',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
  },
  ['--trace-gc-nvp', ...(PERF_DIR ? ['--perf-basic-prof'] : [])],
  { onStdout: (chunk) => (trace += chunk) },
);
const meter = new CpuMeter(database.url, app.child.pid!);
try {
  const base = new URL(app.url);
  const rest = new Rest(256);
  const accounts: Account[] = [];
  for (let i = 0; i < USERS; i += 1) {
    const account = await ensureAccount(rest, base, null, `Promotion${i}`, 'promotion');
    await ensureProfile(rest, base, account, i);
    accounts.push(account);
  }
  /** An event open now and for a day, joined by its code alone; answers the code. */
  const openEvent = async (name: string) => {
    const now = Date.now();
    const created = await rest.request<{ code: string }>(base, 'POST', 'event', '/api/events/', {
      token: accounts[0]!.token,
      json: { name, starts_at: new Date(now - 60_000).toISOString(), ends_at: new Date(now + 24 * 3_600_000).toISOString(), join_mode: 'code' },
    });
    if (created.status !== 201) throw new Error(`POST /api/events/ answered ${created.status}`);
    return created.body.code;
  };
  const events: [string, string] = [await openEvent('Promotion A'), await openEvent('Promotion B')];
  const rows = [];
  if (PERF_DIR) await mkdir(PERF_DIR, { recursive: true });
  for (const [n, route] of routes.entries()) {
    let k = 0;
    // Everyone in turn, each round about the next one along (a like or a skip of the same pair again
    // is an update), never themselves.
    const call = () => {
      const me = accounts[k % USERS]!;
      const turn = Math.floor(k / USERS);
      const other = accounts[(k + 1 + (turn % (USERS - 1))) % USERS]!;
      k += 1;
      return ROUTES[route].call(rest, base, me, other, { turn, events });
    };
    for (let i = 0; i < 200; i += 1) await call(); // warm: compiled, statements prepared
    const statuses = new Map<number, number>();
    let done = 0;
    trace += `\nMARK begin\n`;
    const perf = PERF_DIR ? await startPerf(app.child.pid!, path.join(PERF_DIR, `${route}-${n + 1}.data`)) : null;
    const spent = await meter.begin();
    const timer = setInterval(() => {
      for (let j = 0; j < RATE / 200; j += 1) {
        void call().then(({ status }) => {
          done += 1;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        });
      }
    }, 5);
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    clearInterval(timer);
    while (done < k - 200) await new Promise((resolve) => setTimeout(resolve, 20));
    const cpu = await spent();
    await perf?.stop();
    trace += `\nMARK end\n`;
    const { scavenges, fullGcs } = gcTrace(trace.slice(trace.lastIndexOf('MARK begin'), trace.lastIndexOf('MARK end')));
    rows.push({
      route,
      done,
      statuses: [...statuses].map(([status, count]) => `${status}: ${count}`).join(', '),
      scavenges: scavenges.length,
      fullGcs,
      promotedPerRequest: scavenges.reduce((sum, scavenge) => sum + scavenge.promoted, 0) / Math.max(1, done),
      survivedMedian: survivedMedian(scavenges),
      appCpu: perOperation(cpu.app, done),
      postgresCpu: perOperation(cpu.postgres, done),
    });
  }
  console.log('| route | requests (status: count) | app CPU µs / request | PostgreSQL CPU µs / request | scavenges | full GCs | promoted bytes / request | survived a scavenge, median |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const survived = `${(row.survivedMedian / 1024).toFixed(0)} KB`;
    console.log(`| ${ROUTES[row.route].name} | ${row.done} (${row.statuses}) | ${row.appCpu} | ${row.postgresCpu} | ${row.scavenges} | ${row.fullGcs} | ${row.promotedPerRequest.toFixed(0)} | ${survived} |`);
  }
  if (PERF_DIR) console.log(`\nperf recordings in ${PERF_DIR}: npx tsx bench/perf-summary.ts <file> [--by module|function|top]`);
} finally {
  await meter.close();
  await app.close();
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
}

/** `perf record` of one process, every thread, sampled at 500 Hz with call stacks, until `stop()`. */
async function startPerf(pid: number, output: string) {
  const child: ChildProcess = spawn('perf', ['record', '-e', 'cpu-clock', '-F', '500', '-g', '-p', String(pid), '-o', output], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk));
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)));
  const started = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('running'), 500))]);
  if (started !== 'running') throw new Error(`perf record did not start: ${errors.trim() || String(started)}`);
  return {
    async stop() {
      child.kill('SIGINT');
      // perf ends on the signal itself once it has written its file, and says so.
      const ended = await exited;
      if (!/Captured and wrote/.test(errors)) throw new Error(`perf record failed (${ended}): ${errors.trim()}`);
    },
  };
}
