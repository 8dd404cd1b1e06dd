/**
 * Realtime load benchmark (issue 4). `npm run bench:realtime`.
 *
 * Open loop: N connected pairs, messages scheduled at a fixed total rate whatever the server answers
 * (latency is measured from the *scheduled* send time, so a stalled server cannot hide its queue).
 * Each message is timed from its send to its arrival as `message:new` on the partner's socket.
 * The same load runs, in this one run, against:
 *   baseline  a bare Socket.IO relay (no auth, no database, no Redis) — the floor on this machine
 *   app ×1    the real app, one instance, in-process adapter, PostgreSQL
 *   app ×2    two instances on one PostgreSQL and Redis (sharded adapter), every pair split across them
 * Then a saturation ladder (rising rates until p99 > 100 ms or a message goes missing), and 10,000 idle
 * authenticated sockets on one instance for heap per socket.
 * Server CPU is the server processes' own (process.cpuUsage() over IPC), not the load generator's.
 * The clients speak the Socket.IO protocol straight over ws (./lean-socket.ts): with socket.io-client
 * the generator took a core of the two, away from the servers it measures.
 *
 * Environment: BENCH_PAIRS (1000), BENCH_RATE (1000), BENCH_SECONDS (10), BENCH_STEP_SECONDS (5),
 * BENCH_LADDER ("2000,4000,6000,8000,10000,12000"), BENCH_IDLE (10000), BENCH_ONLY (baseline,app1,app2,idle),
 * BENCH_PROFILE (a directory: each server process writes a V8 CPU profile there), BENCH_NODE_FLAGS (more
 * node flags for the server processes, e.g. "--trace-gc").
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { ServerToClientEvents } from '../shared/events';
import { hashToken } from '../server/lib/tokens';
import { createPostgresDatabase } from '../tests/helpers/database';
import { REDIS_URL } from '../tests/helpers/services';
import { freePort } from '../tests/helpers/ports';
import { LeanSocket } from '../loadtest/lean-socket';
import { SERVER_NODE_FLAGS } from '../scripts/start.mjs';

type ClientSocket = LeanSocket;

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const PAIRS = Number(env('BENCH_PAIRS', '1000'));
const RATE = Number(env('BENCH_RATE', '1000'));
const SECONDS = Number(env('BENCH_SECONDS', '10'));
const STEP_SECONDS = Number(env('BENCH_STEP_SECONDS', '5'));
const LADDER = env('BENCH_LADDER', '2000,4000,6000,8000,10000,12000').split(',').map(Number);
const IDLE = Number(env('BENCH_IDLE', '10000'));
const ONLY = new Set(env('BENCH_ONLY', 'baseline,app1,app2,idle').split(','));
/** Each server process writes a V8 CPU profile here when it exits. */
const PROFILE_DIR = process.env.BENCH_PROFILE;
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const SATURATION_P99_MS = 100;
/** After the last send, how long stragglers may still arrive before they count as lost. */
const DRAIN_MS = 5000;

const root = path.resolve(import.meta.dirname, '..');

// ---------------------------------------------------------------- server processes

interface ServerProcess {
  url: string;
  child: ChildProcess;
  stats(gc?: boolean): Promise<{ cpuMicros: number; heapUsed: number; rss: number }>;
  close(): Promise<void>;
}

/** A busy machine can push an app's boot past Fastify's plugin timeout: one more try before giving up. */
async function startServer(kind: 'relay' | 'app', extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
  try {
    return await startServerOnce(kind, extraEnv);
  } catch (error) {
    console.error(`  ${kind} server did not start (${(error as Error).message}); trying once more`);
    return startServerOnce(kind, extraEnv);
  }
}

async function startServerOnce(kind: 'relay' | 'app', extraEnv: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = fork(path.join(root, 'bench/realtime-server.ts'), {
    cwd: root,
    execArgv: [
      ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : []),
      // The server's runtime flags (scripts/start.mjs) for both servers; NODE_FLAGS come after them, so they can undo one.
      ...SERVER_NODE_FLAGS,
      '--import',
      'tsx',
      '--expose-gc',
      ...NODE_FLAGS,
    ],
    env: {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: 'error',
      BENCH_RELAY: kind === 'relay' ? '1' : '0',
      // Thousands of messages a second through a few thousand users: the per-user limits are not what is measured.
      RATE_LIMIT_MULTIPLIER: '1000',
      ...extraEnv,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
    child.on('message', (message: { type: string }) => {
      if (message.type === 'ready') resolve();
    });
  });
  // A server that dies mid-run makes every figure after it meaningless: stop there, loudly.
  child.once('exit', (code) => {
    if (code !== 0) {
      console.error(`\n✖ ${kind} server exited with ${code} during the run`);
      process.exit(1);
    }
  });
  let nextId = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stats(gc = false) {
      const id = (nextId += 1);
      return new Promise((resolve) => {
        const listener = (message: { type: string; id: number; cpuMicros: number; heapUsed: number; rss: number }) => {
          if (message.type !== 'stats' || message.id !== id) return;
          child.off('message', listener);
          resolve(message);
        };
        child.on('message', listener);
        child.send({ type: 'stats', id, gc });
      });
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'close' });
      await exited;
    },
  };
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

/**
 * CPU time (µs) of the PostgreSQL backends serving this database, from /proc: the app's database work
 * happens there, outside the app process. Linux only; elsewhere it reads 0.
 */
async function postgresCpuMicros(databaseUrl: string): Promise<Map<number, number>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const rows = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  await sql.end();
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the ")" of the command name: utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS);
    } catch {
      // Not on Linux, or the backend just exited.
    }
  }
  return ticks;
}
const CLOCK_TICKS = 100;

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

async function storedCount(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const [row] = await sql<{ count: string }[]>`select count(*) from messages`;
  await sql.end();
  return Number(row?.count ?? 0);
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
  p50: number;
  p99: number;
  p999: number;
  max: number;
  cpuMicrosPerMessage: number;
  /** This process's CPU per message: the load generator's own cost, on the same cores. */
  generatorMicrosPerMessage: number;
  /** Share of all the machine's CPUs busy during the phase, whoever used them (Redis included). */
  machineBusy: number;
  cpuShare: number;
  /** The PostgreSQL backends' CPU per message (null: no database). */
  pgMicrosPerMessage: number | null;
  stored: number | null;
  storedPerSecond: number | null;
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function runPhase(options: {
  label: string;
  pairs: ConnectedPair[];
  rate: number;
  seconds: number;
  servers: ServerProcess[];
  databaseUrl: string | null;
}): Promise<PhaseResult> {
  const { pairs, rate, seconds } = options;
  const total = Math.round(rate * seconds);
  const scheduledAt = new Map<string, number>();
  const latencies = new Float64Array(total);
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
        latencies[delivered] = performance.now() - at;
        delivered += 1;
      };
      socket.on('message:new', onMessage);
      listeners.push(() => socket.off('message:new', onMessage));
    }
  }

  const storedBefore = options.databaseUrl ? await storedCount(options.databaseUrl) : 0;
  const cpuBefore = await Promise.all(options.servers.map((server) => server.stats()));
  const pgBefore = options.databaseUrl ? await postgresCpuMicros(options.databaseUrl) : new Map<number, number>();
  const generatorBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  const start = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
      while (sent < due) {
        // Scheduled time of this message, not the time the loop got to it.
        const at = start + (sent / rate) * 1000;
        const pair = pairs[sent % pairs.length]!;
        // Alternate direction per round, so each socket sends half of its pair's share.
        const forward = Math.floor(sent / pairs.length) % 2 === 0;
        const socket = forward ? pair.a : pair.b;
        const clientId = randomUUID();
        scheduledAt.set(clientId, at);
        socket.emit('message:send', { conversation_id: pair.conversationId, content: `m${sent}`, client_id: clientId }, (reply) => {
          if (reply.ok) acked += 1;
          else ackErrors[reply.error.code] = (ackErrors[reply.error.code] ?? 0) + 1;
        });
        sent += 1;
      }
      if (sent >= total) return resolve();
      // A 1 ms timer, not setImmediate: a spinning generator would take a whole core from the servers.
      setTimeout(tick, 1);
    };
    tick();
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
  const pgAfter = options.databaseUrl ? await postgresCpuMicros(options.databaseUrl) : new Map<number, number>();
  let pgMicros = 0;
  for (const [pid, after] of pgAfter) pgMicros += after - (pgBefore.get(pid) ?? 0);
  for (const off of listeners) off();

  const cpuMicros = cpuAfter.reduce((sum, after, i) => sum + after.cpuMicros - cpuBefore[i]!.cpuMicros, 0);
  const sorted = latencies.slice(0, delivered).sort();
  const stored = options.databaseUrl ? (await storedCount(options.databaseUrl)) - storedBefore : null;
  return {
    label: options.label,
    rate,
    seconds,
    sent,
    delivered,
    acked,
    ackErrors,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    cpuMicrosPerMessage: delivered ? cpuMicros / delivered : Number.NaN,
    generatorMicrosPerMessage: delivered ? (generator.user + generator.system) / delivered : Number.NaN,
    machineBusy: (machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total),
    cpuShare: cpuMicros / 1e6 / elapsedSeconds,
    pgMicrosPerMessage: options.databaseUrl && delivered ? pgMicros / delivered : null,
    stored,
    // Over the schedule's own length: the generator's 1 ms ticks end the sending a few ms late, which is
    // not the server's doing (a server that falls behind shows in the latencies, which count from the schedule).
    storedPerSecond: stored === null ? null : stored / seconds,
  };
}

// ---------------------------------------------------------------- report

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
function printTable(results: PhaseResult[]) {
  const rows = results.map((r) => [
    r.label,
    String(r.rate),
    `${r.delivered}/${r.sent}`,
    `${((100 * r.delivered) / Math.max(1, r.sent)).toFixed(2)}%`,
    r.stored === null ? '—' : String(r.stored),
    ms(r.p50),
    ms(r.p99),
    ms(r.p999),
    ms(r.max),
    r.cpuMicrosPerMessage.toFixed(0),
    `${(100 * r.cpuShare).toFixed(0)}%`,
    r.pgMicrosPerMessage === null ? '—' : r.pgMicrosPerMessage.toFixed(0),
    r.generatorMicrosPerMessage.toFixed(0),
    `${(100 * r.machineBusy).toFixed(0)}%`,
    Object.keys(r.ackErrors).length ? JSON.stringify(r.ackErrors) : '',
  ]);
  const header = ['run', 'msg/s', 'delivered', 'ratio', 'stored', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'server µs/msg', 'server CPU', 'PostgreSQL µs/msg', 'generator µs/msg', 'machine busy', 'ack errors'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

const fullyDelivered = (r: PhaseResult) => r.delivered === r.sent && (r.stored === null || r.stored === r.sent);

/** The highest ladder rate that every message made within p99 ≤ 100 ms. */
async function ladder(label: string, run: (rate: number) => Promise<PhaseResult>) {
  const results: PhaseResult[] = [];
  let best: PhaseResult | null = null;
  for (const rate of LADDER) {
    const result = await run(rate);
    results.push(result);
    console.log(`  ${label} @ ${rate}/s: p99 ${ms(result.p99)} ms, delivered ${result.delivered}/${result.sent}, stored ${result.stored ?? '—'}`);
    if (!fullyDelivered(result) || result.p99 > SATURATION_P99_MS) break;
    best = result;
  }
  return { results, best };
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

async function baseline() {
  const relay = await startServer('relay');
  const pairs: ConnectedPair[] = [];
  const sides = await openMany(
    Array.from({ length: PAIRS * 2 }, (_, i) => i + 1),
    (id) => openSocket(relay.url, { user: id, partner: id % 2 === 1 ? id + 1 : id - 1 }),
  );
  for (let i = 0; i < PAIRS; i += 1) pairs.push({ a: sides[2 * i]!, b: sides[2 * i + 1]!, aId: 2 * i + 1, bId: 2 * i + 2, conversationId: i + 1 });
  const steady = await runPhase({ label: 'baseline relay', pairs, rate: RATE, seconds: SECONDS, servers: [relay], databaseUrl: null });
  const sat = await ladder('baseline', (rate) =>
    runPhase({ label: 'baseline relay', pairs, rate, seconds: STEP_SECONDS, servers: [relay], databaseUrl: null }),
  );
  closePairs(pairs);
  await relay.close();
  return { steady, saturation: sat };
}

async function appRun(instances: 1 | 2) {
  const database = await createPostgresDatabase();
  const redisEnv: Record<string, string> =
    instances === 2 ? { REDIS_URL, REDIS_PREFIX: `bench-${randomBytes(4).toString('hex')}` } : { REDIS_URL: '' };
  const common = { DATABASE_URL: database.url, ...redisEnv };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-bench-'));
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < instances; i += 1) servers.push(await startServer('app', { ...common, DATA_DIR: dataDir }));
    const { pairs: seeded } = await seed(database.url, PAIRS * 2, PAIRS);
    // Two instances: every pair is split, so every message crosses Redis.
    const pairs = await connectPairs(seeded, (side) => servers[side === 'a' || instances === 1 ? 0 : 1]!.url);
    const label = instances === 1 ? 'app ×1' : 'app ×2 + Redis';
    const steady = await runPhase({ label, pairs, rate: RATE, seconds: SECONDS, servers, databaseUrl: database.url });
    const sat = await ladder(label, (rate) => runPhase({ label, pairs, rate, seconds: STEP_SECONDS, servers, databaseUrl: database.url }));
    closePairs(pairs);
    return { steady, saturation: sat };
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function idleSockets() {
  const database = await createPostgresDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-bench-'));
  const server = await startServer('app', { DATABASE_URL: database.url, REDIS_URL: '', DATA_DIR: dataDir });
  try {
    const { users } = await seed(database.url, IDLE, 0);
    // Warm the code paths once so that compiled code and pools are not counted per socket.
    const warm = await openMany(users.slice(0, 200), (user) => openSocket(server.url, { token: user.token }));
    for (const socket of warm) socket.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await server.stats(true);
    const started = performance.now();
    const sockets = await openMany(users, (user) => openSocket(server.url, { token: user.token }));
    const connectSeconds = (performance.now() - started) / 1000;
    // Let the connection handlers' async work (presence lookups) settle before measuring.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await server.stats(true);
    for (const socket of sockets) socket.close();
    return {
      sockets: sockets.length,
      heapPerSocketKb: (after.heapUsed - before.heapUsed) / sockets.length / 1024,
      rssPerSocketKb: (after.rss - before.rss) / sockets.length / 1024,
      heapBeforeMb: before.heapUsed / 1e6,
      heapAfterMb: after.heapUsed / 1e6,
      connectPerSecond: sockets.length / connectSeconds,
    };
  } finally {
    await server.close();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- main

const load = () => os.loadavg().map((n) => n.toFixed(1)).join(' ');
console.log(`Realtime benchmark: ${PAIRS} pairs, ${RATE} msg/s for ${SECONDS} s, ladder ${LADDER.join(', ')} (${STEP_SECONDS} s each)`);
// The machine's other work competes for the same cores: its load average is part of every figure.
console.log(`${os.cpus().length} CPUs, load average at start ${load()}`);
const steady: PhaseResult[] = [];
const saturation: Array<{ label: string; best: PhaseResult | null; results: PhaseResult[] }> = [];
for (const [name, run] of [
  ['baseline', baseline],
  ['app1', () => appRun(1)],
  ['app2', () => appRun(2)],
] as const) {
  if (!ONLY.has(name)) continue;
  console.log(`\n▶ ${name}`);
  const result = await run();
  steady.push(result.steady);
  saturation.push({ label: result.steady.label, ...result.saturation });
}

if (steady.length) {
  console.log(`\n## Steady load: ${RATE} msg/s over ${PAIRS} pairs, ${SECONDS} s (latency = scheduled send → partner's message:new)\n`);
  printTable(steady);
  console.log(`\n## Saturation ladder (${STEP_SECONDS} s per step; stops at the first step with p99 > ${SATURATION_P99_MS} ms or a lost message)\n`);
  printTable(saturation.flatMap((s) => s.results));
  console.log('\nSaturation (highest step with every message delivered and p99 ≤ 100 ms):');
  for (const s of saturation) {
    console.log(`  ${s.label.padEnd(16)} ${s.best ? `${s.best.rate} msg/s offered, ${s.best.storedPerSecond?.toFixed(0) ?? '—'} stored/s, p99 ${ms(s.best.p99)} ms` : 'below the first step'}`);
  }

  const base = steady.find((r) => r.label.startsWith('baseline'));
  const one = steady.find((r) => r.label === 'app ×1');
  const two = steady.find((r) => r.label.startsWith('app ×2'));
  const check = (name: string, ok: boolean, detail: string) => console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
  console.log('\nTargets:');
  for (const app of [one, two]) {
    if (!base || !app) continue;
    check(`${app.label} p50 within 2 ms of baseline`, app.p50 - base.p50 <= 2, `${ms(app.p50)} vs ${ms(base.p50)} ms`);
    check(`${app.label} p99 ≤ 2× baseline and < 15 ms`, app.p99 <= 2 * base.p99 && app.p99 < 15, `${ms(app.p99)} vs ${ms(base.p99)} ms`);
    check(`${app.label} every message delivered and stored`, fullyDelivered(app), `${app.delivered}/${app.sent} delivered, ${app.stored} stored`);
  }
  const satOne = saturation.find((s) => s.label === 'app ×1')?.best;
  const satTwo = saturation.find((s) => s.label.startsWith('app ×2'))?.best;
  if (satOne) check('app ×1 saturation ≥ 10,000 stored msg/s', (satOne.storedPerSecond ?? 0) >= 10_000, `${satOne.storedPerSecond?.toFixed(0)} stored/s`);
  if (satOne && satTwo) {
    const ratio = (satTwo.storedPerSecond ?? 0) / (satOne.storedPerSecond ?? 1);
    check('app ×2 keeps ≥ 70% of app ×1 throughput', ratio >= 0.7, `${(100 * ratio).toFixed(0)}%`);
  }
}

if (ONLY.has('idle')) {
  console.log(`\n▶ idle sockets`);
  const idle = await idleSockets();
  console.log(`\n## ${idle.sockets} idle authenticated sockets on one instance\n`);
  console.log(`  heap ${idle.heapBeforeMb.toFixed(1)} MB → ${idle.heapAfterMb.toFixed(1)} MB: ${idle.heapPerSocketKb.toFixed(2)} KB heap per socket (RSS ${idle.rssPerSocketKb.toFixed(2)} KB), connected at ${idle.connectPerSecond.toFixed(0)}/s`);
  console.log(`  ${idle.heapPerSocketKb < 15 ? 'PASS' : 'FAIL'}  under 15 KB heap per socket`);
}
console.log(`\nload average at end ${load()}`);
process.exit(0);
