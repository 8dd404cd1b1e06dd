/**
 * `npm run bench:party`: a simulated party (loadtest/party.ts) of PARTY_ATTENDEES (2,000) on one app
 * instance for PARTY_MINUTES (2), then the bare Socket.IO relay (bench/realtime-server.ts) at the party's
 * own chat rate over as many lean sockets, in the same run. Prints the party's match overlay and
 * message delivery p99 against the relay's p99 at that rate (target: ≤ 2×, 0 lost, 0 duplicated).
 *
 * The app runs as `npm run serve` would run it (bench/realtime-server.ts, the server's runtime flags) on a
 * fresh PostgreSQL database, with RATE_LIMIT_MULTIPLIER=1000 (one address plays the whole party) and
 * cheap password hashing (registering 2,000 attendees is setup, not what is measured).
 * Environment: PARTY_ATTENDEES, PARTY_MINUTES, PARTY_RELAY_SECONDS (the party's length: the relay's p99
 * then comes from as many messages as the party's), PARTY_SLOT_MS (the load tool's wheel slot),
 * PARTY_ARRIVE_OVER (seconds over which the attendees arrive, check in and start: a venue filling
 * rather than every phone at once), PARTY_KEEP_DATABASE (keep the party's database for EXPLAIN; its
 * URL is printed), BENCH_PROFILE_DIR (a V8
 * CPU profile of the app during the party), BENCH_PROMOTION_DIR (a heap profile of what the app promoted
 * to the old generation during the party: bench/realtime-server.ts), PARTY_NODE_FLAGS (more node flags
 * for the app, e.g. "--trace-gc-nvp"), PARTY_ACTIVITY (what PostgreSQL's backends were doing in the run's
 * busiest seconds, from pg_stat_activity every 100 ms; seconds counted as the progress lines count; and
 * which statements they were seen running over the whole run), PARTY_STATEMENTS (PostgreSQL's time by
 * statement during the party, planning apart, from pg_stat_statements where the server loads it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { errorsText, heapText, runParty, toolWaitsText } from '../loadtest/party';
import { createPostgresDatabase } from '../tests/helpers/database';
import { sampleActivity } from './activity-sampler';
import { APP_CONNECTIONS, CpuMeter, type CpuSpent, namedConnections, perOperation } from './lib';
import { relayLoad, relaySockets } from './relay-load';
import { type ServerStats, startServerProcess } from './server-process';
import { statementStats } from './statement-stats';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const ATTENDEES = Number(env('PARTY_ATTENDEES', '2000'));
const MINUTES = Number(env('PARTY_MINUTES', '2'));
const RELAY_SECONDS = Number(env('PARTY_RELAY_SECONDS', String(MINUTES * 60)));

const load = () => os.loadavg().map((n) => n.toFixed(1)).join(' ');
console.log(`Party benchmark: ${ATTENDEES} attendees on one instance for ${MINUTES} min, then the bare relay at the same chat rate`);
console.log(`${os.cpus().length} CPUs, load average at start ${load()}\n`);

const database = await createPostgresDatabase();
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-bench-party-'));
const stateFile = path.join(dataDir, 'loadtest-state.json');
let party;
const app = await startServerProcess('app', {
  DATABASE_URL: namedConnections(database.url, APP_CONNECTIONS),
  REDIS_URL: '',
  DATA_DIR: dataDir,
  RATE_LIMIT_MULTIPLIER: '1000',
  ARGON2_MEMORY_KIB: '1024',
  ARGON2_TIME_COST: '1',
}, (process.env.PARTY_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean));
// What the party itself costs the app and PostgreSQL: from its first second to its drain.
const meter = new CpuMeter(database.url, app.child.pid!);
const partyCost: { begun?: Promise<() => Promise<CpuSpent>>; ended?: Promise<[CpuSpent, ServerStats]> } = {};
const endPartyCost = () => {
  if (partyCost.begun) partyCost.ended ??= Promise.all([partyCost.begun.then((end) => end()), app.stats()]);
};
/** When the load tool started, in ms since the epoch: its progress lines count from here. */
let runStartedAt = 0;
const activity = process.env.PARTY_ACTIVITY ? sampleActivity(database.url) : null;
let statements = process.env.PARTY_STATEMENTS ? await statementStats(database.url) : null;
if (statements && 'unavailable' in statements) {
  console.log(`PARTY_STATEMENTS: ${statements.unavailable}; not counted\n`);
  statements = null;
}
try {
  let last = 0;
  runStartedAt = performance.timeOrigin + performance.now();
  party = await runParty({
    url: app.url,
    attendees: ATTENDEES,
    minutes: MINUTES,
    stateFile,
    setupConcurrency: 32,
    log: (line) => console.log(`  ${line}`),
    arriveOverSeconds: Number(env('PARTY_ARRIVE_OVER', '0')),
    slotMs: process.env.PARTY_SLOT_MS ? Number(process.env.PARTY_SLOT_MS) : undefined,
    onProgress: (p) => {
      if (p.phase === 'party' && !partyCost.begun) {
        partyCost.begun = meter.begin();
        void statements?.begin();
        // The first stats() starts BENCH_PROFILE_DIR's profile and the event loop's histogram afresh.
        void app.stats();
      }
      if (p.phase === 'drain') endPartyCost();
      if (p.elapsedSeconds - last < 10) return;
      last = p.elapsedSeconds;
      const recent = (value: number | null) => (value === null ? '—' : value.toFixed(0));
      console.log(
        `  ${p.elapsedSeconds.toFixed(0)} s ${p.phase}: connected ${p.connected}, check-ins ${p.checkIns}, swipes ${p.swipes}, matches ${p.matches}, messages ${p.messagesDelivered}/${p.messagesSent}; ` +
          `p99 over the last second, ms: REST ${recent(p.recentP99.rest)}, overlay ${recent(p.recentP99.matchOverlay)}, message ${recent(p.recentP99.messageDelivery)}`,
      );
    },
  });
  // A drain shorter than a progress tick ends the measure here.
  endPartyCost();
} finally {
  const [spent, stats] = (await partyCost.ended) ?? [];
  await meter.close();
  if (activity) {
    const lines = (all: string[]) => all.map((line) => `  ${line}`).join('\n');
    console.log(`\nPostgreSQL's busiest seconds (PARTY_ACTIVITY):\n${lines(await activity.worst(8))}`);
    console.log(`\nThe statements PostgreSQL's backends were seen running (PARTY_ACTIVITY):\n${lines(await activity.statements(12))}`);
  }
  if (statements) console.log(`\nPostgreSQL's time by statement during the party (PARTY_STATEMENTS):\n${(await statements.top(12)).join('\n')}`);
  await app.close();
  if (process.env.PARTY_KEEP_DATABASE) console.log(`\nthe party's database is kept: ${database.url}`);
  else await database.drop();
  if (spent && stats && party) {
    const seconds = MINUTES * 60;
    const requests = Object.values(party.latency_ms.rest).reduce((sum, route) => sum + route.count, 0);
    console.log(
      `\nthe party's CPU: app ${((spent.app ?? 0) / seconds / 10).toFixed(0)} %, PostgreSQL ${(spent.postgres / seconds / 10).toFixed(0)} %, ` +
        `the tool ${(spent.generator / seconds / 10).toFixed(0)} % of a core; per REST request (${requests}): ` +
        `app ${perOperation(spent.app, requests)} µs, PostgreSQL ${perOperation(spent.postgres, requests)} µs; the app's event-loop delay p99 ${stats.loopDelay.p99.toFixed(1)} ms, max ${stats.loopDelay.max.toFixed(0)} ms`,
    );
    // Each full GC's helper threads take the other core for a few hundred ms: the party's tail latencies gather there.
    const full = stats.gcPauses.filter((pause) => pause.full);
    const at = full.map((pause) => `${((pause.at - runStartedAt) / 1000).toFixed(1)} s`);
    console.log(
      `the app's full GCs: ${full.length}${full.length ? ` (pauses ${Math.min(...full.map((pause) => pause.ms)).toFixed(0)}–${Math.max(...full.map((pause) => pause.ms)).toFixed(0)} ms), at ${at.join(', ')} as the progress lines count` : ''}`,
    );
    // The table upkeep's ANALYZEs run tens of ms in a busy party, with a burst of slow requests.
    const runs = stats.jobRuns.map(
      (run) =>
        `${run.name} at ${((run.at - runStartedAt) / 1000).toFixed(1)} s (${Object.entries(run.report)
          .map(([what, count]) => `${what} ${count}`)
          .join(', ')}; ${run.ms.toFixed(0)} ms)`,
    );
    console.log(`the app's background jobs that did something: ${runs.length ? runs.join(', ') : 'none'}`);
  }
}

// The party's chat rate over its whole length (messages are rarer early, before people match).
const rate = Math.max(1, party.counts.messages.sent / (MINUTES * 60));
console.log(`\n▶ relay: ${ATTENDEES} sockets, ${rate.toFixed(1)} msg/s for ${RELAY_SECONDS} s`);
const relay = await startServerProcess('relay');
const sockets = await relaySockets(relay.url, ATTENDEES - (ATTENDEES % 2));
await relayLoad(sockets, Math.max(rate, 100), 3); // warm-up
const baseline = await relayLoad(sockets, rate, RELAY_SECONDS);
for (const socket of sockets) socket.close();
await relay.close();
await rm(dataDir, { recursive: true, force: true });

// The party times each message from the moment it was written, so the relay's "from send" is its match.
const relayP99 = baseline.fromSend.percentile(99);
const rows = [
  ['match overlay (like → match:new on the other phone)', party.latency_ms.match_overlay],
  ['message delivery (send → message:new at the recipient)', party.latency_ms.message_delivery],
] as const;
const ms = (value: number | null) => (value === null || !Number.isFinite(value) ? '—' : value.toFixed(1));
console.log(`\n| ${'series'.padEnd(56)} | count | p50 ms | p99 ms | relay p99 ms | ratio |`);
console.log(`|${'-'.repeat(58)}|------:|-------:|-------:|-------------:|------:|`);
for (const [name, s] of rows) {
  console.log(`| ${name.padEnd(56)} | ${String(s.count).padStart(5)} | ${ms(s.p50).padStart(6)} | ${ms(s.p99).padStart(6)} | ${ms(relayP99).padStart(12)} | ${s.p99 === null ? '—' : `${(s.p99 / relayP99).toFixed(2)}×`} |`);
}
console.log(`| ${'bare relay, same sockets and rate'.padEnd(56)} | ${String(baseline.delivered).padStart(5)} | ${ms(baseline.fromSend.percentile(50)).padStart(6)} | ${ms(relayP99).padStart(6)} | | |`);
const m = party.counts.messages;
const o = party.counts.match_overlays;
console.log(`\nmessages sent ${m.sent}, acknowledged ${m.acknowledged}, delivered ${m.delivered}, recovered ${m.recovered}, lost ${m.lost}, duplicated ${m.duplicated}, unanswered ${m.unanswered}`);
console.log(`match overlays expected ${o.expected}, delivered ${o.delivered}, recovered ${o.recovered}, lost ${o.lost}; swipes ${party.counts.swipes}, reconnects ${party.counts.reconnects}`);
console.log(`dropped sockets ${party.counts.drops}; errors: ${errorsText(party.counts.errors)}`);
console.log(
  `REST during the party: ${['GET /api/users/matching-profiles/', 'POST /api/matching/']
    .map((route) => `${route} ×${party.latency_ms.rest[route]?.count ?? 0} p50 ${ms(party.latency_ms.rest[route]?.p50 ?? null)} / p95 ${ms(party.latency_ms.rest[route]?.p95 ?? null)} / p99 ${ms(party.latency_ms.rest[route]?.p99 ?? null)} ms`)
    .join(', ')}`,
);
console.log(
  `the tool: ${party.tool.cpu_us_per_operation} µs CPU per operation, ${heapText(party.tool.heap_kb_per_attendee)}, ${toolWaitsText(party.tool)}`,
);
// A p99 from a party's few hundred messages is loose, the relay's as much: say whether the verdict
// holds across both intervals or could go either way in another run. Below 368 samples nothing bounds
// a p99 from above (the summary's null, the histogram's Infinity).
const [relayLow, relayHigh] = baseline.fromSend.percentileInterval(99);
const range = (low: number | null, high: number | null) =>
  high === null || !Number.isFinite(high) ? `${ms(low)} ms – unbounded (too few samples)` : `${ms(low)}–${ms(high)} ms`;
const ratio = (value: number) => (!Number.isFinite(value) ? 'unbounded' : value === 0 ? '0×' : `${value.toFixed(2)}×`);
console.log(`\nthe p99s' 95 % intervals (order statistics): relay ${range(relayLow, relayHigh)}`);
const noise = rows.map(([name, s]) => {
  const low = s.p99_interval[0] ?? 0;
  const high = s.p99_interval[1] ?? Number.POSITIVE_INFINITY;
  const verdict =
    s.count === 0 ? 'no samples'
    : high <= 2 * relayLow ? 'within the target even at its worst'
    : low > 2 * relayHigh ? 'past the target even at its best'
    : 'either side of the target: this run cannot tell';
  console.log(`  ${name.split(' (')[0]} ${range(...s.p99_interval)}: ratio ${ratio(low / relayHigh)}–${ratio(high / relayLow)}, ${verdict}`);
  return verdict;
});
const check = (name: string, ok: boolean) => console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${name}`);
console.log('\nTargets:');
rows.forEach(([name, s], index) => check(`${name.split(' (')[0]} p99 ≤ 2× the relay's p99 (${noise[index]})`, s.p99 !== null && s.p99 <= 2 * relayP99));
check('0 lost, 0 duplicated', party.ok);
console.log(`\nload average at end ${load()}`);
process.exit(0);
