/**
 * Realtime load benchmark. `npm run bench:realtime`.
 *
 * Open loop: N connected pairs, messages scheduled at a fixed total rate whatever the server answers
 * (latency is measured from the *scheduled* send time, so a stalled server cannot hide its queue).
 * Each message is timed from its send to its arrival as `message:new` on the partner's socket.
 * The same load runs, in this one run, against:
 *   baseline  a bare Socket.IO relay (no auth, no database, no Redis) — the floor on this machine
 *   app ×1    the real app, one instance, in-process adapter, PostgreSQL
 *   app ×2    two instances on one PostgreSQL and Redis (sharded adapter), every pair split across them
 * Then a saturation ladder (rising rates until a message goes missing or p99 > 100 ms twice at one
 * rate, then one step between the last good rate and the failed one), and 10,000 idle sockets, authenticated on one app
 * instance and on the bare relay, for heap per socket. Every phase starts once the servers are quiet,
 * so that none starts behind the backlog of a failed step before it.
 * CPU per message is counted where it is spent: the server processes' own (process.cpuUsage() over
 * IPC), the PostgreSQL backends serving the run's database (/proc/<pid>/stat) and, for two instances, a
 * Redis of the run's own (`INFO cpu`); never the load generator's. Each figure is also given as a ratio
 * to the bare relay's at the same rate, in the same run: the machine's other work moves the absolute
 * figures, much less the ratios. Beside them, how many messages each commit stored (from the rows'
 * xmin) and how long the backends waited for a CPU (/proc/<pid>/schedstat): on two shared cores the
 * latency tails are mostly the database's wait for its turn.
 * The clients speak the Socket.IO protocol straight over ws (./lean-socket.ts): with socket.io-client
 * the generator took a core of the two, away from the servers it measures.
 *
 * Environment: BENCH_PAIRS (1000), BENCH_RATE (1000), BENCH_SECONDS (10), BENCH_STEP_SECONDS (5),
 * BENCH_WARMUP_SECONDS (0; e.g. 5: unmeasured load at BENCH_RATE before each server's first row),
 * BENCH_LADDER ("2000,4000,6000,8000,10000,12000"; past its top, on by its last step until a step
 * fails, up to BENCH_LADDER_CEILING, 30000), BENCH_HIGH_RATE (8000: the second rate CPU per message
 * is compared at, or the highest rate the relay holds if lower), BENCH_IDLE (10000),
 * BENCH_ONLY (baseline,app1,app2,idle), BENCH_REDIS_URL (a Redis to use for two instances instead of a
 * redis-server started for the run; its CPU then includes whatever else uses it),
 * BENCH_SOAK_MINUTES (only a soak of one app instance, minute by minute, at BENCH_SOAK_RATE msg/s or,
 * without it, half the saturation a ladder measures first),
 * BENCH_HEAP_SNAPSHOTS (a directory: the idle rows' heap snapshots, before and after, and the soak's after each minute), BENCH_PROFILE (a directory: each server process writes a V8 CPU profile of the measured phases there,
 * start-up and connections left out), BENCH_NODE_FLAGS (more
 * node flags for the server processes, e.g. "--trace-gc"), BENCH_TIMELINE=1 (after each phase, its
 * worst latency per 100 ms beside the servers' and the generator's full GCs and long pauses).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { createClient } from 'redis';
import type { ServerToClientEvents } from '../shared/events';
import { hashToken } from '../server/lib/tokens';
import { createPostgresDatabase } from '../tests/helpers/database';
import { freePort } from '../tests/helpers/ports';
import { LeanSocket } from '../loadtest/lean-socket';
import { pace } from '../loadtest/pacer';
import { processCpuMs, processRunDelayMs } from './lib';
import { type GcPause, MIN_PAUSE_MS, watchGcPauses } from './gc-pauses';
import { type ServerKind, type ServerProcess, startServerProcess } from './server-process';

type ClientSocket = LeanSocket;

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const PAIRS = Number(env('BENCH_PAIRS', '1000'));
const RATE = Number(env('BENCH_RATE', '1000'));
const SECONDS = Number(env('BENCH_SECONDS', '10'));
const STEP_SECONDS = Number(env('BENCH_STEP_SECONDS', '5'));
const LADDER = env('BENCH_LADDER', '2000,4000,6000,8000,10000,12000').split(',').map(Number);
const LADDER_CEILING = Number(env('BENCH_LADDER_CEILING', '30000'));
const HIGH_RATE = Number(env('BENCH_HIGH_RATE', '8000'));
const IDLE = Number(env('BENCH_IDLE', '10000'));
const ONLY = new Set(env('BENCH_ONLY', 'baseline,app1,app2,idle').split(','));
const WARMUP_SECONDS = Number(env('BENCH_WARMUP_SECONDS', '0'));
const SOAK_MINUTES = Number(env('BENCH_SOAK_MINUTES', '0'));
const SOAK_RATE = process.env.BENCH_SOAK_RATE ? Number(process.env.BENCH_SOAK_RATE) : null;
/** Each server process writes a V8 CPU profile of the measured phases here (bench/realtime-server.ts). */
const PROFILE_DIR = process.env.BENCH_PROFILE;
/** The idle rows write heap snapshots here, before and after their sockets connect (to diff what a socket holds). */
const SNAPSHOT_DIR = process.env.BENCH_HEAP_SNAPSHOTS;
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const SATURATION_P99_MS = 100;
/** After the last send, how long stragglers may still arrive before they count as lost. */
const DRAIN_MS = 5000;
/** Before a phase, the servers must be quiet: under QUIET_SHARE of a core together over QUIET_WINDOW_MS (`quiet`). */
const QUIET_SHARE = 0.1;
const QUIET_WINDOW_MS = 500;
const QUIET_LIMIT_MS = 60_000;

/** The issue's targets, as ratios to the bare relay (or to one instance) measured in the same run. */
const TARGETS = {
  cpuAtRate: 2.5,
  cpuAtHigh: 1.5,
  saturation: 0.8,
  twoInstances: 1.3,
  idleHeap: 1.15,
  soakHeapGrowth: 0.1,
  soakP99Drift: 0.2,
  soakLoopDelayMs: 20,
};

const loadAverage = () => os.loadavg()[0]!;

// ---------------------------------------------------------------- server processes

/** Both kinds of server with this run's profile directory and node flags. */
function startServer(kind: ServerKind, extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess(
    kind,
    {
      // Thousands of messages a second through a few thousand users: the per-user limits are not what is measured.
      RATE_LIMIT_MULTIPLIER: '1000',
      ...(PROFILE_DIR ? { BENCH_PROFILE_DIR: path.resolve(PROFILE_DIR) } : {}),
      ...extraEnv,
    },
    NODE_FLAGS,
  );
}

// ---------------------------------------------------------------- data

interface SeededUser {
  id: number;
  token: string;
}
interface SeededPair {
  a: SeededUser;
  b: SeededUser;
  conversationId: number;
}

/** Users with tokens and profiles, and a conversation for each pair, written straight into PostgreSQL. */
async function seed(databaseUrl: string, userCount: number, pairCount: number) {
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  const tag = randomBytes(4).toString('hex');
  const users = await sql<{ id: number }[]>`
    insert into users (email, first_name, last_name)
    select 'bench-' || ${tag} || '-' || g || '@example.com', 'Bench' || g, 'User' from generate_series(1, ${userCount}) g
    returning id`;
  const ids = users.map((row) => row.id).sort((x, y) => x - y);
  await sql`insert into profiles (user_id, name, last_active_at) select unnest(${ids}::int[]), 'Bench', now()`;
  const tokens = ids.map(() => randomBytes(32).toString('base64url'));
  await sql`insert into auth_tokens (token_hash, user_id) select unnest(${tokens.map(hashToken)}::text[]), unnest(${ids}::int[])`;
  const seeded: SeededUser[] = ids.map((id, index) => ({ id, token: tokens[index]! }));

  const lows = Array.from({ length: pairCount }, (_, i) => ids[2 * i]!);
  const highs = Array.from({ length: pairCount }, (_, i) => ids[2 * i + 1]!);
  const conversations = await sql<{ id: number; low: number }[]>`
    insert into conversations (user_low_id, user_high_id) select unnest(${lows}::int[]), unnest(${highs}::int[])
    returning id, user_low_id as low`;
  await sql`
    insert into conversation_members (conversation_id, user_id)
    select id, user_low_id from conversations union all select id, user_high_id from conversations`;
  await sql.end();
  const byLow = new Map(conversations.map((row) => [row.low, row.id]));
  const pairs: SeededPair[] = Array.from({ length: pairCount }, (_, i) => ({
    a: seeded[2 * i]!,
    b: seeded[2 * i + 1]!,
    conversationId: byLow.get(ids[2 * i]!)!,
  }));
  return { users: seeded, pairs };
}

/** A PostgreSQL backend's CPU time and its time waiting for a CPU, µs. */
type BackendTimes = Map<number, { cpu: number; wait: number }>;

/**
 * CPU time (µs) of each PostgreSQL backend serving this database, and how long it waited for a CPU,
 * from /proc: the app's database work happens there, outside the app process. Linux only; elsewhere
 * it is empty.
 */
async function postgresBackendTimes(databaseUrl: string): Promise<BackendTimes> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const rows = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  await sql.end();
  const micros: BackendTimes = new Map();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== null) micros.set(pid, { cpu: ms * 1000, wait: (processRunDelayMs(pid) ?? 0) * 1000 });
  }
  return micros;
}

/**
 * A Redis for the two-instance rows: a redis-server of the run's own (nothing else's commands in its
 * CPU), or BENCH_REDIS_URL's. `cpuMicros` is its `INFO cpu` (main process, user + system).
 */
async function startRedis(): Promise<{ url: string; cpuMicros(): Promise<number>; close(): Promise<void> }> {
  let child: ChildProcess | null = null;
  let url = process.env.BENCH_REDIS_URL;
  if (!url) {
    const port = await freePort();
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    child.once('error', (error) => {
      console.error(`redis-server could not start (${error.message}): install it, or set BENCH_REDIS_URL`);
      process.exit(1);
    });
    url = `redis://127.0.0.1:${port}`;
  }
  const client = createClient({ url, socket: { reconnectStrategy: (retries) => (retries > 50 ? false : 100) } });
  client.on('error', () => {});
  for (let attempt = 0; ; attempt += 1) {
    try {
      await client.connect();
      break;
    } catch (error) {
      if (attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    async cpuMicros() {
      const info = await client.info('cpu');
      const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
      return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
    },
    async close() {
      await client.quit().catch(() => {});
      if (child && child.exitCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
/** All CPUs' busy and total time from /proc/stat (Linux; elsewhere zeros): how full the machine was. */
function machineTicks(): { busy: number; total: number } {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const values = fields.map(Number);
    const total = values.reduce((sum, value) => sum + value, 0);
    // idle and iowait are the 4th and 5th.
    return { busy: total - values[3]! - values[4]!, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/**
 * The messages stored so far, the newest id, and how many transactions stored those after `since`
 * (each commit stamps its rows with its own xmin; none counted without `since`).
 */
async function storedCount(databaseUrl: string, since: number | null = null) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const [row] = await sql<{ count: string; last: number | null; commits: string }[]>`
    select count(*), max(id) as last, count(distinct xmin::text) filter (where id > ${since}) as commits from messages`;
  await sql.end();
  return { count: Number(row?.count ?? 0), last: row?.last ?? 0, commits: Number(row?.commits ?? 0) };
}

// ---------------------------------------------------------------- clients

const openSocket = (url: string, auth: Record<string, string | number>) => LeanSocket.open(url, auth);

/** Opens sockets a batch at a time: a storm of 10,000 handshakes at once measures the storm, not the server. */
async function openMany<T>(items: T[], open: (item: T) => Promise<ClientSocket>, batch = 200) {
  const sockets: ClientSocket[] = [];
  for (let i = 0; i < items.length; i += batch) {
    sockets.push(...(await Promise.all(items.slice(i, i + batch).map(open))));
  }
  return sockets;
}

interface ConnectedPair {
  a: ClientSocket;
  b: ClientSocket;
  aId: number;
  bId: number;
  conversationId: number;
}

// ---------------------------------------------------------------- load

interface PhaseResult {
  label: string;
  rate: number;
  seconds: number;
  sent: number;
  delivered: number;
  acked: number;
  ackErrors: Record<string, number>;
  /** Scheduled send → the partner's message:new, ms, sorted. */
  latencies: Float64Array;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  /** The server processes' CPU per delivered message (µs). */
  cpuMicrosPerMessage: number;
  /** The PostgreSQL backends' CPU per message (null: no database). */
  pgMicrosPerMessage: number | null;
  /** Redis's CPU per message (null: no Redis). */
  redisMicrosPerMessage: number | null;
  /** Server + PostgreSQL + Redis. */
  totalMicrosPerMessage: number;
  /** This process's CPU per message: the load generator's own cost, on the same cores. */
  generatorMicrosPerMessage: number;
  /** Share of all the machine's CPUs busy during the phase, whoever used them (other work included). */
  machineBusy: number;
  cpuShare: number;
  /** The worst event-loop delay p99 (ms) of the servers during the phase. */
  loopDelayP99: number;
  /** The machine's 1-minute load average at the end of the phase. */
  load: number;
  stored: number | null;
  /** Messages stored per commit (the batches' mean size); null without a database. */
  perCommit: number | null;
  /** Milliseconds per second the database's backends, together, were runnable but waiting for a CPU. */
  pgWaitPerSecond: number | null;
  storedPerSecond: number | null;
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

interface Target {
  servers: ServerProcess[];
  databaseUrl: string | null;
  redis: { cpuMicros(): Promise<number> } | null;
}

/**
 * BENCH_TIMELINE=1: after each phase, the worst latency of each TIMELINE_SLOT_MS where it passed
 * TIMELINE_SHOWN_MS, beside the servers' and the generator's full garbage collections and long pauses.
 */
const TIMELINE = process.env.BENCH_TIMELINE === '1';
const TIMELINE_SLOT_MS = 100;
const TIMELINE_SHOWN_MS = 30;
const generatorGc = watchGcPauses();

function printTimeline(label: string, startedAt: number, worst: number[], pauses: Record<string, GcPause[]>) {
  const seconds = (at: number) => `${(at / 1000).toFixed(1)}s`;
  const slots = worst.flatMap((ms, slot) => (ms > TIMELINE_SHOWN_MS ? [`${seconds(slot * TIMELINE_SLOT_MS)} ${ms.toFixed(0)}`] : []));
  console.log(`  timeline ${label}, worst latency (ms) per ${TIMELINE_SLOT_MS} ms where over ${TIMELINE_SHOWN_MS}: ${slots.join(', ') || 'none'}`);
  for (const [who, list] of Object.entries(pauses)) {
    const full = list.filter((pause) => pause.full).map((pause) => `${seconds(pause.at - startedAt)} (${pause.ms.toFixed(0)} ms)`);
    const other = list.filter((pause) => !pause.full);
    const longest = Math.max(0, ...other.map((pause) => pause.ms));
    console.log(`    ${who}: full GCs ${full.join(', ') || 'none'}; ${other.length} other pauses ≥ ${MIN_PAUSE_MS} ms, the longest ${longest.toFixed(0)} ms`);
  }
}

async function runPhase(options: { label: string; pairs: ConnectedPair[]; rate: number; seconds: number } & Target): Promise<PhaseResult> {
  const { pairs, rate, seconds } = options;
  const total = Math.round(rate * seconds);
  const scheduledAt = new Map<string, number>();
  const latencies = new Float64Array(total);
  /** The worst latency of the messages scheduled in each TIMELINE_SLOT_MS of the phase. */
  const worst: number[] = [];
  let delivered = 0;
  let acked = 0;
  const ackErrors: Record<string, number> = {};

  const listeners: Array<() => void> = [];
  for (const pair of pairs) {
    for (const [socket, self] of [
      [pair.a, pair.aId],
      [pair.b, pair.bId],
    ] as const) {
      const onMessage: ServerToClientEvents['message:new'] = ({ message }) => {
        if (message.sender === self || !message.client_id) return;
        const at = scheduledAt.get(message.client_id);
        if (at === undefined) return;
        scheduledAt.delete(message.client_id);
        const latency = performance.now() - at;
        latencies[delivered] = latency;
        delivered += 1;
        if (TIMELINE) {
          const slot = Math.floor((at - start) / TIMELINE_SLOT_MS);
          worst[slot] = Math.max(worst[slot] ?? 0, latency);
        }
      };
      socket.on('message:new', onMessage);
      listeners.push(() => socket.off('message:new', onMessage));
    }
  }

  await quiet(options.label, options.servers);
  const storedBefore = options.databaseUrl ? await storedCount(options.databaseUrl) : { count: 0, last: 0 };
  const cpuBefore = await Promise.all(options.servers.map((server) => server.stats()));
  const pgBefore = options.databaseUrl ? await postgresBackendTimes(options.databaseUrl) : (new Map() as BackendTimes);
  const redisBefore = options.redis ? await options.redis.cpuMicros() : 0;
  const generatorBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  generatorGc.take();
  const start = performance.now();
  // Open loop on the shared pacer: message k is due at start + k / rate, latency counts from then.
  await pace(rate, total, (index, at) => {
    const pair = pairs[index % pairs.length]!;
    // Alternate direction per round, so each socket sends half of its pair's share.
    const forward = Math.floor(index / pairs.length) % 2 === 0;
    const socket = forward ? pair.a : pair.b;
    const clientId = randomUUID();
    scheduledAt.set(clientId, at);
    socket.emit('message:send', { conversation_id: pair.conversationId, content: `m${index}`, client_id: clientId }, (reply) => {
      if (reply.ok) acked += 1;
      else ackErrors[reply.error.code] = (ackErrors[reply.error.code] ?? 0) + 1;
    });
  });
  const sendEnd = performance.now();
  const drainDeadline = sendEnd + DRAIN_MS;
  const answered = () => acked + Object.values(ackErrors).reduce((sum, n) => sum + n, 0);
  while ((delivered < total || answered() < total) && performance.now() < drainDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const elapsedSeconds = (performance.now() - start) / 1000;
  const generator = process.cpuUsage(generatorBefore);
  const machineAfter = machineTicks();
  const cpuAfter = await Promise.all(options.servers.map((server) => server.stats()));
  const pgAfter = options.databaseUrl ? await postgresBackendTimes(options.databaseUrl) : (new Map() as BackendTimes);
  const redisAfter = options.redis ? await options.redis.cpuMicros() : 0;
  // A backend that appeared during the phase counts whole; one that exited during it is lost (the app's pool keeps its connections).
  let pgMicros = 0;
  let pgWaitMicros = 0;
  for (const [pid, after] of pgAfter) {
    pgMicros += after.cpu - (pgBefore.get(pid)?.cpu ?? 0);
    pgWaitMicros += after.wait - (pgBefore.get(pid)?.wait ?? 0);
  }
  for (const off of listeners) off();
  if (TIMELINE) {
    const servers = cpuAfter.map((after, i) => [cpuAfter.length > 1 ? `server ${i + 1}` : 'server', after.gcPauses] as const);
    printTimeline(`${options.label} @ ${rate}/s`, performance.timeOrigin + start, worst, {
      ...Object.fromEntries(servers),
      generator: generatorGc.take(),
    });
  }

  const cpuMicros = cpuAfter.reduce((sum, after, i) => sum + after.cpuMicros - cpuBefore[i]!.cpuMicros, 0);
  const sorted = latencies.slice(0, delivered).sort();
  const storedAfter = options.databaseUrl ? await storedCount(options.databaseUrl, storedBefore.last) : null;
  const stored = storedAfter ? storedAfter.count - storedBefore.count : null;
  const commits = storedAfter?.commits ?? null;
  const perMessage = (micros: number) => (delivered ? micros / delivered : Number.NaN);
  const pgMicrosPerMessage = options.databaseUrl ? perMessage(pgMicros) : null;
  const redisMicrosPerMessage = options.redis ? perMessage(redisAfter - redisBefore) : null;
  return {
    label: options.label,
    rate,
    seconds,
    sent: total,
    delivered,
    acked,
    ackErrors,
    latencies: sorted,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    cpuMicrosPerMessage: perMessage(cpuMicros),
    pgMicrosPerMessage,
    redisMicrosPerMessage,
    totalMicrosPerMessage: perMessage(cpuMicros) + (pgMicrosPerMessage ?? 0) + (redisMicrosPerMessage ?? 0),
    generatorMicrosPerMessage: perMessage(generator.user + generator.system),
    machineBusy: (machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total),
    cpuShare: cpuMicros / 1e6 / elapsedSeconds,
    loopDelayP99: Math.max(...cpuAfter.map((after) => after.loopDelay.p99)),
    load: loadAverage(),
    stored,
    perCommit: stored !== null && commits ? stored / commits : null,
    pgWaitPerSecond: options.databaseUrl ? pgWaitMicros / 1000 / elapsedSeconds : null,
    // Over the schedule's own length: the generator's 1 ms ticks end the sending a few ms late, which is
    // not the server's doing (a server that falls behind shows in the latencies, which count from the schedule).
    storedPerSecond: stored === null ? null : stored / seconds,
  };
}

// ---------------------------------------------------------------- report

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
const micros = (value: number | null) => (value === null ? '—' : Number.isFinite(value) ? value.toFixed(0) : 'n/a');
const times = (value: number | null) => (value === null || !Number.isFinite(value) ? '—' : `${value.toFixed(2)}×`);

function printTable(header: string[], rows: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

/** Latency, delivery and where the CPU went; `relayAt` finds the bare relay's row to compare a row with. */
function printPhases(results: PhaseResult[], relayAt: (rate: number) => PhaseResult | null | undefined) {
  printTable(
    ['run', 'msg/s', 'delivered', 'stored', 'msgs/commit', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'app µs/msg', 'PostgreSQL µs/msg', 'PostgreSQL CPU wait ms/s', 'Redis µs/msg', 'total µs/msg', '× relay', 'server CPU', 'loop p99 ms', 'generator µs/msg', 'machine busy', 'load', 'ack errors'],
    results.map((r) => {
      const relay = relayAt(r.rate);
      return [
        r.label,
        String(r.rate),
        `${r.delivered}/${r.sent}`,
        r.stored === null ? '—' : String(r.stored),
        r.perCommit === null ? '—' : r.perCommit.toFixed(1),
        ms(r.p50),
        ms(r.p99),
        ms(r.p999),
        ms(r.max),
        micros(r.cpuMicrosPerMessage),
        micros(r.pgMicrosPerMessage),
        r.pgWaitPerSecond === null ? '—' : r.pgWaitPerSecond.toFixed(0),
        micros(r.redisMicrosPerMessage),
        micros(r.totalMicrosPerMessage),
        relay ? times(r.totalMicrosPerMessage / relay.totalMicrosPerMessage) : '—',
        `${(100 * r.cpuShare).toFixed(0)}%`,
        ms(r.loopDelayP99),
        micros(r.generatorMicrosPerMessage),
        `${(100 * r.machineBusy).toFixed(0)}%`,
        r.load.toFixed(1),
        Object.keys(r.ackErrors).length ? JSON.stringify(r.ackErrors) : '',
      ];
    }),
  );
}


/**
 * The ladder's rates: BENCH_LADDER, then on by its last step up to LADDER_CEILING, so that a server
 * that holds the list's top is still taken to the rate it fails at (a saturation ratio against a
 * relay that never failed would only be a bound).
 */
function* ladderRates() {
  yield* LADDER;
  const last = LADDER.at(-1)!;
  const gap = LADDER.length > 1 ? last - LADDER.at(-2)! : last;
  for (let rate = last + gap; rate <= LADDER_CEILING; rate += gap) yield rate;
}

interface Saturation {
  results: PhaseResult[];
  best: PhaseResult | null;
  /** Every step held, up to LADDER_CEILING: the saturation is higher than `best`. */
  unbounded: boolean;
}

/** Every message of a step made it, delivered and stored, whatever its p99. */
const nothingLost = (r: PhaseResult) => r.delivered === r.sent && (r.stored === null || r.stored === r.sent);
const held = (r: PhaseResult) => nothingLost(r) && r.p99 <= SATURATION_P99_MS;

/**
 * The highest rate at which every message made it (delivered, and stored) with p99 ≤ 100 ms: the ladder
 * up to its first failed step, then one step halfway between the last good rate and that one. A step
 * that lost nothing and missed only its p99 is run once more before it counts as failed: a pause of
 * this shared VM (a few hundred ms) fails a five-second step at a rate the server holds, and stopped
 * the ladder there (session 97: the app stopped at 4,000 msg/s, then held 7,000 in the steady row). A
 * lost message is never run again.
 */
async function ladder(label: string, run: (rate: number) => Promise<PhaseResult>): Promise<Saturation> {
  const results: PhaseResult[] = [];
  let best: PhaseResult | null = null;
  const step = async (rate: number) => {
    const result = await run(rate);
    results.push(result);
    console.log(`  ${label} @ ${rate}/s: p99 ${ms(result.p99)} ms, delivered ${result.delivered}/${result.sent}, stored ${result.stored ?? '—'}, load ${result.load.toFixed(1)}`);
    if (held(result)) best = result;
    return result;
  };
  for (const rate of ladderRates()) {
    const first = await step(rate);
    if (held(first) || (nothingLost(first) && held(await step(rate)))) continue;
    const below = (best as PhaseResult | null)?.rate ?? 0;
    const between = Math.round((below + rate) / 2 / 100) * 100;
    if (between > below && between < rate) await step(between);
    return { results, best, unbounded: false };
  }
  return { results, best, unbounded: true };
}

// ---------------------------------------------------------------- scenarios

async function connectPairs(pairs: SeededPair[], urlFor: (side: 'a' | 'b') => string): Promise<ConnectedPair[]> {
  const a = await openMany(pairs, (pair) => openSocket(urlFor('a'), { token: pair.a.token }));
  const b = await openMany(pairs, (pair) => openSocket(urlFor('b'), { token: pair.b.token }));
  return pairs.map((pair, i) => ({ a: a[i]!, b: b[i]!, aId: pair.a.id, bId: pair.b.id, conversationId: pair.conversationId }));
}

function closePairs(pairs: ConnectedPair[]) {
  for (const pair of pairs) {
    pair.a.close();
    pair.b.close();
  }
}

interface RunResult {
  steady: PhaseResult;
  /** At the run's second rate (BENCH_HIGH_RATE, or the relay's saturation if lower). */
  high: PhaseResult | null;
  saturation: Saturation;
}

async function baseline(): Promise<RunResult> {
  const relay = await startServer('relay');
  const target: Target = { servers: [relay], databaseUrl: null, redis: null };
  const pairs: ConnectedPair[] = [];
  const sides = await openMany(
    Array.from({ length: PAIRS * 2 }, (_, i) => i + 1),
    (id) => openSocket(relay.url, { user: id, partner: id % 2 === 1 ? id + 1 : id - 1 }),
  );
  for (let i = 0; i < PAIRS; i += 1) pairs.push({ a: sides[2 * i]!, b: sides[2 * i + 1]!, aId: 2 * i + 1, bId: 2 * i + 2, conversationId: i + 1 });
  await warmUp(pairs, target);
  const label = 'baseline relay';
  const steady = await runPhase({ label, pairs, rate: RATE, seconds: SECONDS, ...target });
  const saturation = await ladder('baseline', (rate) => runPhase({ label, pairs, rate, seconds: STEP_SECONDS, ...target }));
  // The second comparison rate: where the relay still holds, at most BENCH_HIGH_RATE.
  const high = highRowOf(saturation.results, highRate(saturation.best));
  closePairs(pairs);
  await relay.close();
  return { steady, high, saturation };
}

/** BENCH_HIGH_RATE, or the relay's saturation where that is lower (the relay must hold the rate it is compared at). */
const highRate = (relayBest: PhaseResult | null) => (relayBest ? Math.min(HIGH_RATE, relayBest.rate) : HIGH_RATE);
// The last step at the rate: a step run once more (see `ladder`) is read by its second run.
const highRowOf = (results: PhaseResult[], rate: number) => results.findLast((r) => r.rate === rate) ?? null;

async function appRun(instances: 1 | 2, high: number): Promise<RunResult> {
  const database = await createPostgresDatabase();
  const redis = instances === 2 ? await startRedis() : null;
  const redisEnv: Record<string, string> = redis ? { REDIS_URL: redis.url, REDIS_PREFIX: `bench-${randomBytes(4).toString('hex')}` } : { REDIS_URL: '' };
  const common = { DATABASE_URL: database.url, ...redisEnv };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-bench-'));
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < instances; i += 1) servers.push(await startServer('app', { ...common, DATA_DIR: dataDir }));
    const target: Target = { servers, databaseUrl: database.url, redis };
    const { pairs: seeded } = await seed(database.url, PAIRS * 2, PAIRS);
    // Two instances: every pair is split, so every message crosses Redis.
    const pairs = await connectPairs(seeded, (side) => servers[side === 'a' || instances === 1 ? 0 : 1]!.url);
    await warmUp(pairs, target);
    const label = instances === 1 ? 'app ×1' : 'app ×2 + Redis';
    const steady = await runPhase({ label, pairs, rate: RATE, seconds: SECONDS, ...target });
    const saturation = await ladder(label, (rate) => runPhase({ label, pairs, rate, seconds: STEP_SECONDS, ...target }));
    // The comparison at the second rate needs a row there even when the ladder stopped below it.
    const highRow = highRowOf(saturation.results, high) ?? (await runPhase({ label, pairs, rate: high, seconds: STEP_SECONDS, ...target }));
    closePairs(pairs);
    return { steady, high: highRow, saturation };
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    await redis?.close();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

interface IdleResult {
  sockets: number;
  heapPerSocketKb: number;
  rssPerSocketKb: number;
  heapBeforeMb: number;
  heapAfterMb: number;
  connectPerSecond: number;
  load: number;
}

/**
 * The steady load, unmeasured, before the first row: a fresh server process spends its first seconds
 * compiling its hot code (V8's optimizing compiler, on threads `process.cpuUsage()` counts), once per
 * process, so two instances would pay it twice within a row meant to measure CPU per message.
 */
async function warmUp(pairs: ConnectedPair[], target: Target) {
  if (WARMUP_SECONDS <= 0) return;
  await runPhase({ label: 'warm-up', pairs, rate: RATE, seconds: WARMUP_SECONDS, ...target });
}

/**
 * Waits until the servers are quiet (under QUIET_SHARE of a core together over QUIET_WINDOW_MS), for at
 * most QUIET_LIMIT_MS, and says so when that took a while or did not happen. Every phase starts with
 * it: the work a connection starts (presence announcements, event rooms) must not be counted against
 * the first row, and a ladder step that failed can leave tens of thousands of sends still being stored
 * and delivered after its drain time, which the step after it would otherwise start behind.
 */
async function quiet(label: string, servers: ServerProcess[]) {
  const started = performance.now();
  let before = await Promise.all(servers.map((server) => server.stats()));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const after = await Promise.all(servers.map((server) => server.stats()));
    const busy = after.reduce((sum, stats, i) => sum + stats.cpuMicros - before[i]!.cpuMicros, 0) / 1000 / QUIET_WINDOW_MS;
    if (busy < QUIET_SHARE) break;
    if (performance.now() - started > QUIET_LIMIT_MS) {
      console.log(`  ${label}: the servers were still busy after ${QUIET_LIMIT_MS / 1000} s (${(100 * busy).toFixed(0)}% of a core); measuring anyway`);
      break;
    }
    before = after;
  }
  const waited = performance.now() - started;
  if (waited > 3 * QUIET_WINDOW_MS) console.log(`  ${label}: waited ${(waited / 1000).toFixed(1)} s for the servers to be quiet`);
}

/** Waits (up to 30 s) until the server holds `count` connections. */
async function settled(server: ServerProcess, count: number) {
  const deadline = performance.now() + 30_000;
  while ((await server.stats()).sockets !== count && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** Heap per open socket: on the app, authenticated (a token each); on the relay, the same number of bare sockets. */
async function idleSockets(kind: 'relay' | 'app'): Promise<IdleResult> {
  const database = kind === 'app' ? await createPostgresDatabase() : null;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-bench-'));
  const server = database ? await startServer('app', { DATABASE_URL: database.url, REDIS_URL: '', DATA_DIR: dataDir }) : await startServer('relay');
  try {
    const auths: Array<Record<string, string | number>> = database
      ? (await seed(database.url, IDLE, 0)).users.map((user) => ({ token: user.token }))
      : Array.from({ length: IDLE }, (_, i) => ({ user: i + 1, partner: i % 2 === 0 ? i + 2 : i }));
    // Warm the code paths once so that compiled code and pools are not counted per socket.
    const warm = await openMany(auths.slice(0, 200), (auth) => openSocket(server.url, auth));
    for (const socket of warm) socket.close();
    // Until the server has let go of every warm-up socket: one still held would be counted against the run's.
    await settled(server, 0);
    const snapshot = (when: string) => (SNAPSHOT_DIR ? path.resolve(SNAPSHOT_DIR, `${kind}-${when}.heapsnapshot`) : undefined);
    const before = await server.stats(true, snapshot('before'));
    const started = performance.now();
    const sockets = await openMany(auths, (auth) => openSocket(server.url, auth));
    const connectSeconds = (performance.now() - started) / 1000;
    // Let the connection handlers' async work (presence lookups) settle before measuring.
    await settled(server, sockets.length);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await server.stats(true, snapshot('after'));
    for (const socket of sockets) socket.close();
    return {
      sockets: sockets.length,
      heapPerSocketKb: (after.heapUsed - before.heapUsed) / sockets.length / 1024,
      rssPerSocketKb: (after.rss - before.rss) / sockets.length / 1024,
      heapBeforeMb: before.heapUsed / 1e6,
      heapAfterMb: after.heapUsed / 1e6,
      connectPerSecond: sockets.length / connectSeconds,
      load: loadAverage(),
    };
  } finally {
    await server.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** One app instance at a steady rate, minute by minute: does the heap grow, does the p99 drift, does the event loop stall? */
async function soak() {
  const database = await createPostgresDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-bench-'));
  const server = await startServer('app', { DATABASE_URL: database.url, REDIS_URL: '', DATA_DIR: dataDir });
  try {
    const target: Target = { servers: [server], databaseUrl: database.url, redis: null };
    const { pairs: seeded } = await seed(database.url, PAIRS * 2, PAIRS);
    const pairs = await connectPairs(seeded, () => server.url);
    const label = 'app ×1';
    let rate = SOAK_RATE;
    if (rate === null) {
      console.log('  no BENCH_SOAK_RATE: measuring the saturation first');
      const { best } = await ladder(label, (r) => runPhase({ label, pairs, rate: r, seconds: STEP_SECONDS, ...target }));
      if (!best) throw new Error('the app held no step of the ladder: set BENCH_SOAK_RATE');
      rate = Math.max(100, Math.floor((best.storedPerSecond ?? best.rate) / 2 / 100) * 100);
      console.log(`  saturation ${best.storedPerSecond?.toFixed(0)} stored/s: soaking at ${rate} msg/s`);
    } else {
      // Warm-up, not counted: compiled code, pools, the first GCs.
      await runPhase({ label, pairs, rate, seconds: 20, ...target });
    }
    const windows: PhaseResult[] = [];
    const heaps: number[] = [];
    for (let minute = 1; minute <= SOAK_MINUTES; minute += 1) {
      const result = await runPhase({ label: `soak minute ${minute}`, pairs, rate, seconds: 60, ...target });
      const snapshot = SNAPSHOT_DIR ? path.resolve(SNAPSHOT_DIR, `soak-minute-${minute}.heapsnapshot`) : undefined;
      const { heapUsed } = await server.stats(true, snapshot);
      windows.push(result);
      heaps.push(heapUsed);
      console.log(
        `  minute ${minute}: delivered ${result.delivered}/${result.sent}, stored ${result.stored}, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms, loop p99 ${ms(result.loopDelayP99)} ms, PostgreSQL waited for a CPU ${result.pgWaitPerSecond?.toFixed(0) ?? '—'} ms/s, heap ${(heapUsed / 1e6).toFixed(1)} MB, ${micros(result.totalMicrosPerMessage)} µs/msg, load ${result.load.toFixed(1)}`,
      );
    }
    closePairs(pairs);
    return { rate, windows, heaps };
  } finally {
    await server.close();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function mergedP99(results: PhaseResult[]) {
  const all = new Float64Array(results.reduce((sum, r) => sum + r.latencies.length, 0));
  let offset = 0;
  for (const r of results) {
    all.set(r.latencies, offset);
    offset += r.latencies.length;
  }
  return percentile(all.sort(), 99);
}

function printTargets(rows: Array<[string, string, boolean | null]>) {
  console.log('\n## Against the targets (ratios measured in this run)\n');
  printTable(
    ['target', 'measured', 'result'],
    rows.map(([name, figure, ok]) => [name, figure, ok === null ? 'not measured' : ok ? 'met' : 'NOT MET']),
  );
}

// ---------------------------------------------------------------- main

console.log(`Realtime benchmark: ${PAIRS} pairs, ${RATE} msg/s for ${SECONDS} s${WARMUP_SECONDS > 0 ? ` after ${WARMUP_SECONDS} s of warm-up` : ''}, ladder ${LADDER.join(', ')} (${STEP_SECONDS} s each)`);
// The machine's other work competes for the same cores: its load average is part of every figure.
console.log(`${os.cpus().length} CPUs, load average at start ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}`);

if (SOAK_MINUTES > 0) {
  console.log(`\n▶ soak: ${SOAK_MINUTES} minutes`);
  const { rate, windows, heaps } = await soak();
  const half = Math.floor(windows.length / 2);
  const firstP99 = mergedP99(windows.slice(0, Math.max(1, half)));
  const lastP99 = mergedP99(windows.slice(half));
  const growth = (heaps.at(-1)! - heaps[0]!) / heaps[0]!;
  const loopP99 = Math.max(...windows.map((w) => w.loopDelayP99));
  const lost = windows.reduce((sum, w) => sum + w.sent - w.delivered, 0);
  const unstored = windows.reduce((sum, w) => sum + w.sent - (w.stored ?? 0), 0);
  console.log(`\n## Soak: ${windows.length} minutes at ${rate} msg/s, one instance\n`);
  printPhases(windows, () => undefined);
  printTargets([
    [`heap growth ≤ ${100 * TARGETS.soakHeapGrowth}% (after GC, minute 1 → minute ${heaps.length})`, `${(heaps[0]! / 1e6).toFixed(1)} → ${(heaps.at(-1)! / 1e6).toFixed(1)} MB (${(100 * growth).toFixed(1)}%)`, growth <= TARGETS.soakHeapGrowth],
    [`p99 drift ≤ ${100 * TARGETS.soakP99Drift}% (second half against first)`, `${ms(firstP99)} → ${ms(lastP99)} ms (${(100 * (lastP99 / firstP99 - 1)).toFixed(1)}%)`, lastP99 <= firstP99 * (1 + TARGETS.soakP99Drift)],
    [`event-loop delay p99 ≤ ${TARGETS.soakLoopDelayMs} ms (worst minute)`, `${ms(loopP99)} ms`, loopP99 <= TARGETS.soakLoopDelayMs],
    ['every message delivered and stored', `${lost} lost, ${unstored} not stored`, lost === 0 && unstored === 0],
  ]);
  console.log(`\nload average at end ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}`);
  process.exit(0);
}

let base: RunResult | null = null;
let one: RunResult | null = null;
let two: RunResult | null = null;
if (ONLY.has('baseline')) {
  console.log('\n▶ baseline');
  base = await baseline();
}
const high = highRate(base?.saturation.best ?? null);
if (ONLY.has('app1')) {
  console.log('\n▶ app1');
  one = await appRun(1, high);
}
if (ONLY.has('app2')) {
  console.log('\n▶ app2');
  two = await appRun(2, high);
}
const runs = [base, one, two].filter((run): run is RunResult => run !== null);
// The steady rows against the relay's steady row, the second rate's against the relay's row there, a
// ladder step against the relay's step at the same rate.
const relayAt = (rate: number) => base?.saturation.results.findLast((r) => r.rate === rate);

if (runs.length) {
  console.log(`\n## Steady load: ${RATE} msg/s over ${PAIRS} pairs, ${SECONDS} s (latency = scheduled send → partner's message:new; µs of CPU per delivered message)\n`);
  printPhases(runs.map((run) => run.steady), () => base?.steady);
  console.log(`\n## At ${high} msg/s${base && high < HIGH_RATE ? ` (the highest ladder rate the relay held here; ${HIGH_RATE} asked)` : ''}\n`);
  printPhases(runs.flatMap((run) => (run.high ? [run.high] : [])), () => base?.high);
  console.log(`\n## Saturation ladder (${STEP_SECONDS} s per step; stops at the first step with a lost message, or with p99 > ${SATURATION_P99_MS} ms twice running, then tries halfway)\n`);
  printPhases(runs.flatMap((run) => run.saturation.results), relayAt);
  console.log('\nSaturation (highest step with every message delivered and stored, p99 ≤ 100 ms):');
  for (const run of runs) {
    const best = run.saturation.best;
    const bound = run.saturation.unbounded ? ', and it held every step: its saturation is higher (BENCH_LADDER_CEILING)' : '';
    console.log(`  ${run.steady.label.padEnd(16)} ${best ? `${best.rate} msg/s offered, ${best.storedPerSecond?.toFixed(0) ?? '—'} stored/s, p99 ${ms(best.p99)} ms${bound}` : 'below the first step'}`);
  }
}

let idleApp: IdleResult | null = null;
let idleRelay: IdleResult | null = null;
if (ONLY.has('idle')) {
  console.log('\n▶ idle sockets');
  idleRelay = await idleSockets('relay');
  idleApp = await idleSockets('app');
  console.log(`\n## ${idleApp.sockets} idle sockets\n`);
  for (const [name, idle] of [
    ['bare relay', idleRelay],
    ['app, authenticated', idleApp],
  ] as const) {
    console.log(
      `  ${name.padEnd(20)} heap ${idle.heapBeforeMb.toFixed(1)} → ${idle.heapAfterMb.toFixed(1)} MB: ${idle.heapPerSocketKb.toFixed(2)} KB heap per socket (RSS ${idle.rssPerSocketKb.toFixed(2)} KB), connected at ${idle.connectPerSecond.toFixed(0)}/s, load ${idle.load.toFixed(1)}`,
    );
  }
}

const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? null : a / b);
const targetRow = (name: string, value: number | null, limit: number, detail: string, atLeast = false): [string, string, boolean | null] => [
  name,
  value === null ? '—' : `${times(value)} (${detail})`,
  value === null ? null : atLeast ? value >= limit : value <= limit,
];
const cpuAtRate = ratio(one?.steady.totalMicrosPerMessage, base?.steady.totalMicrosPerMessage);
const relayHigh = base?.high;
const cpuAtHigh = ratio(one?.high?.totalMicrosPerMessage, relayHigh?.totalMicrosPerMessage);
const relayBest = base?.saturation.best;
// A relay that held every step up to the ceiling gives only a bound on the ratio: no verdict on it.
const relayUnbounded = base?.saturation.unbounded ?? false;
const saturationRatio = relayBest && one ? (one.saturation.best?.storedPerSecond ?? 0) / relayBest.rate : null;
const twoToOne = ratio(two?.steady.totalMicrosPerMessage, one?.steady.totalMicrosPerMessage);
const idleRatio = ratio(idleApp?.heapPerSocketKb, idleRelay?.heapPerSocketKb);
const delivery = [one, two].filter((run): run is RunResult => run !== null).map((run) => run.steady);
printTargets([
  targetRow(`chat CPU per message at ${RATE} msg/s ≤ ${TARGETS.cpuAtRate}× the relay's`, cpuAtRate, TARGETS.cpuAtRate, `${micros(one?.steady.totalMicrosPerMessage ?? null)} vs ${micros(base?.steady.totalMicrosPerMessage ?? null)} µs`),
  targetRow(
    `chat CPU per message at ${high} msg/s ≤ ${TARGETS.cpuAtHigh}× the relay's${high < HIGH_RATE ? ` (relay's max here, not ${HIGH_RATE})` : ''}`,
    cpuAtHigh,
    TARGETS.cpuAtHigh,
    `${micros(one?.high?.totalMicrosPerMessage ?? null)} vs ${micros(relayHigh?.totalMicrosPerMessage ?? null)} µs${one?.high && !held(one.high) ? `; the app did not hold this rate, p99 ${ms(one.high.p99)} ms` : ''}`,
  ),
  relayUnbounded
    ? [`saturation ≥ ${TARGETS.saturation}× the relay's`, `— (the relay held every step up to ${relayBest?.rate} msg/s, BENCH_LADDER_CEILING)`, null]
    : targetRow(
        `saturation ≥ ${TARGETS.saturation}× the relay's`,
        saturationRatio,
        TARGETS.saturation,
        `${one?.saturation.best?.storedPerSecond?.toFixed(0) ?? 0} stored/s vs the relay's ${relayBest?.rate ?? '—'} msg/s`,
        true,
      ),
  targetRow(`two instances' CPU per message ≤ ${TARGETS.twoInstances}× one's (${RATE} msg/s)`, twoToOne, TARGETS.twoInstances, `${micros(two?.steady.totalMicrosPerMessage ?? null)} vs ${micros(one?.steady.totalMicrosPerMessage ?? null)} µs`),
  targetRow(`idle heap per authenticated socket ≤ ${TARGETS.idleHeap}× the relay's`, idleRatio, TARGETS.idleHeap, `${idleApp?.heapPerSocketKb.toFixed(2) ?? '—'} vs ${idleRelay?.heapPerSocketKb.toFixed(2) ?? '—'} KB`),
  [
    `every message delivered and stored at ${RATE} msg/s`,
    delivery.map((r) => `${r.label}: ${r.delivered}/${r.sent} delivered, ${r.stored} stored`).join('; ') || '—',
    delivery.length ? delivery.every((r) => r.delivered === r.sent && r.stored === r.sent) : null,
  ],
]);
console.log(`\nload average at end ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}`);
process.exit(0);
