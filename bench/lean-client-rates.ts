/**
 * `npm run bench:lean-rates`: the lean load client (loadtest/lean-socket.ts) against the bare Socket.IO
 * relay (bench/realtime-server.ts, BENCH_RELAY=1) at several message rates, to show that the generator
 * adds no delay of its own: the relay's p50 should be flat across rates.
 *
 * Each rate runs twice over the same sockets: with the pacing `bench/realtime.ts` used
 * (`due = floor(elapsed × rate)`: item k leaves when item k+1 is due, one interval late) and with
 * loadtest/pacer.ts's (`floor(elapsed × rate) + 1`). Latency is from the scheduled send to the partner's
 * `message:new`, as in bench/realtime.ts; "from send" is from the moment the frame was written.
 * Then the generator's own CPU per message and heap per socket, for comparison with Artillery's anchor
 * (~200 µs of CPU per message at 1,000 msg/s, ~96 µs at 10,000, ~20 KB of heap per virtual user).
 *
 * RATES_COMPARE=<git revision> measures the client as it was at that revision beside today's, in the
 * same run: its loadtest/lean-socket.ts is copied next to today's, each gets its own sockets (users) on
 * the same relay, and the two take turns at each of RATES_CPU, RATES_ROUNDS (3) rounds each, so that the
 * machine's drift falls on both alike; the ratio is of the medians.
 *
 * RATES_ARTILLERY=<artillery's bin/run> with RATES_ARTILLERY_NODE=<a Node ≥ 22 binary> measures Artillery 2
 * itself in the same run (bench/artillery.ts): at each of RATES_CPU, today's client and an Artillery process
 * take turns for RATES_ROUNDS rounds over the same number of pairs on the same relay, and the ratio is of
 * the medians. Without it, the ratios are to an anchor measured once on another machine.
 *
 * Environment: RATES_PAIRS (200), RATES ("50,200,1000"; empty: none), RATES_SECONDS (6), RATES_CPU
 * ("1000,4000"), RATES_COMPARE, RATES_ROUNDS, RATES_PROFILE=<dir> (a V8 CPU profile of the generator at
 * each of RATES_CPU, `generator-<rate>.cpuprofile`; perf sees more of it, see bench/README.md),
 * RATES_ARTILLERY, RATES_ARTILLERY_NODE, RATES_SLOT_MS (the load tool's wheel slot in that comparison; default: the tool's).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LeanSocket } from '../loadtest/lean-socket';
import { dueCount, lateDueCount, pace } from '../loadtest/pacer';
import { ARTILLERY_FITS, type ArtilleryInstall, artilleryHeapPerUser, artilleryRound, artilleryVersion } from './artillery';
import { type RelayClient, relayLoad, relaySockets, wheelPacing } from './relay-load';
import { startServerProcess } from './server-process';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const PAIRS = Number(env('RATES_PAIRS', '200'));
const RATES = env('RATES', '50,200,1000').split(',').filter(Boolean).map(Number);
const SECONDS = Number(env('RATES_SECONDS', '6'));
const CPU_RATES = env('RATES_CPU', '1000,4000').split(',').filter(Boolean).map(Number);
const PROFILE_DIR = process.env.RATES_PROFILE;
const COMPARE = process.env.RATES_COMPARE;
const ROUNDS = Number(env('RATES_ROUNDS', '3'));
const ARTILLERY: ArtilleryInstall | null = process.env.RATES_ARTILLERY
  ? { artillery: process.env.RATES_ARTILLERY, node: env('RATES_ARTILLERY_NODE', process.execPath) }
  : null;
if (ARTILLERY && !ARTILLERY_FITS) {
  console.error(`RATES_ARTILLERY: the comparison is written for two CPUs (Artillery splits its users over cpus − 1 workers), this machine has ${os.cpus().length}`);
  process.exit(2);
}
const ARTILLERY_NAME = ARTILLERY ? artilleryVersion(ARTILLERY) : '';
/** The load tool's wheel slot for the comparison with Artillery (default: the tool's own). */
const SLOT_MS = process.env.RATES_SLOT_MS ? Number(process.env.RATES_SLOT_MS) : undefined;
/** Artillery's virtual users for its heap figure. */
const ARTILLERY_USERS = 2000;
const root = path.resolve(import.meta.dirname, '..');
const load = () => os.loadavg().map((n) => n.toFixed(1)).join(' ');

/** The LeanSocket of an earlier revision, copied beside today's so that its imports resolve; removed at exit. */
async function clientAt(revision: string): Promise<{ open: (url: string, auth: object) => Promise<RelayClient>; remove: () => Promise<void> }> {
  const source = execFileSync('git', ['show', `${revision}:loadtest/lean-socket.ts`], { cwd: root, encoding: 'utf8' });
  const file = path.join(root, 'loadtest', `.lean-socket-${revision.replace(/[^\w.-]/g, '_')}.ts`);
  await writeFile(file, source);
  const module = (await import(pathToFileURL(file).href)) as { LeanSocket: typeof LeanSocket };
  return { open: (url, auth) => module.LeanSocket.open(url, auth), remove: () => rm(file, { force: true }) };
}
type Run = Awaited<ReturnType<typeof relayLoad>> & { user: number; system: number; wakeups: number; load: string };

/** Artillery 2's socketio engine on this app, measured once on another machine: ~200 µs at 1,000 msg/s, ~96 µs at ~10,000 (its saturation). */
const artillery = (rate: number) => (rate <= 1000 ? 200 : rate >= 10_000 ? 96 : 200 + ((96 - 200) * (rate - 1000)) / 9000);

/** How many times this (main) thread went to sleep: at these rates, each is one event-loop wakeup. */
const mainThreadSleeps = () => Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync('/proc/thread-self/status', 'utf8'))?.[1] ?? Number.NaN);

/**
 * The CPU one event-loop wakeup costs this process with nothing to do: a 1 ms timer loop for `ms`.
 * On a VM, sleeping and waking (timer reprogramming, the context switches) is dear, and a generator at
 * 1,000 msg/s wakes at least twice a message: to send, and for the answers.
 */
async function bareWakeup(ms: number): Promise<number> {
  const cpu = process.cpuUsage();
  const end = performance.now() + ms;
  let wakeups = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      wakeups += 1;
      if (performance.now() < end) setTimeout(tick, 1);
      else resolve();
    };
    setTimeout(tick, 1);
  });
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / wakeups;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs `work` under the V8 sampling profiler when RATES_PROFILE is set: only the measured phase, not start-up. */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // 100 µs rather than V8's 1 ms: a message's work is a few tens of µs between long idle waits.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(path.join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

const relay = await startServerProcess('relay');
const earlier = COMPARE ? await clientAt(COMPARE) : null;
try {
  console.log(`${os.cpus().length} CPUs, load average at start ${load()}`);
  /** Heap per socket after a full GC, for `count` sockets opened with `open` as users from `firstUser`. */
  const openMeasured = async (open: (url: string, auth: object) => Promise<RelayClient>, firstUser: number) => {
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const sockets = await relaySockets(relay.url, PAIRS * 2, open, firstUser);
    global.gc?.();
    return { sockets, heapPerSocket: (process.memoryUsage().heapUsed - heapBefore) / sockets.length };
  };
  const today = await openMeasured((url, auth) => LeanSocket.open(url, auth), 0);
  const sides = today.sockets;
  // The earlier client's users follow today's: the relay fans out by user.
  const before = earlier ? await openMeasured(earlier.open, PAIRS * 2) : null;
  // Warm-up: compiled code and the relay's pools are not part of the first rate's figures.
  await relayLoad(sides, 500, 2, dueCount);
  if (before) await relayLoad(before.sockets, 500, 2, dueCount, PAIRS * 2);

  const fmt = (value: number) => value.toFixed(2).padStart(7);
  if (RATES.length) {
    console.log(`Lean client against the bare relay: ${PAIRS} pairs, ${SECONDS} s per rate; latency in ms (scheduled send → partner's message:new)\n`);
    console.log('| msg/s | pacing | delivered | p50 | p95 | p99 | p50 from send |');
    console.log('|---:|---|---:|---:|---:|---:|---:|');
    const fixed: number[] = [];
    for (const rate of RATES) {
      for (const [name, due] of [
        ['old: floor(t·rate)', lateDueCount],
        ['fixed: floor(t·rate)+1', dueCount],
      ] as const) {
        const result = await relayLoad(sides, rate, SECONDS, due);
        if (due === dueCount) fixed.push(result.fromSchedule.percentile(50));
        console.log(
          `| ${rate} | ${name} | ${result.delivered}/${result.total} | ${fmt(result.fromSchedule.percentile(50))} | ${fmt(result.fromSchedule.percentile(95))} | ${fmt(result.fromSchedule.percentile(99))} | ${fmt(result.fromSend.percentile(50))} |`,
        );
      }
    }
    const spread = Math.max(...fixed) / Math.min(...fixed);
    console.log(`\nFixed pacing: p50 ${fixed.map((v) => v.toFixed(2)).join(' / ')} ms at ${RATES.join(' / ')} msg/s (max/min ${spread.toFixed(2)}×)`);
  }

  if (CPU_RATES.length && before) {
    console.log(`\nThe generator's own CPU per message (this process; one message = emit, ack, message:new at both sockets), ${COMPARE} and today's taking turns, ${ROUNDS} rounds of ${SECONDS} s;`);
    console.log(`wakeups: the main thread's sleeps (voluntary context switches) per message; a bare wakeup: a 1 ms timer loop with nothing to do, measured between rounds.\n`);
    console.log(`| msg/s | client | µs CPU/msg by round | median | × Artillery | user / sys µs | wakeups/msg | p50 / p99 ms from send | load average |`);
    console.log('|---:|---|---|---:|---:|---|---:|---|---|');
    for (const rate of CPU_RATES) {
      const runs = new Map<string, Run[]>([
        [COMPARE!, []],
        ['today', []],
      ]);
      const bare: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const [name, sockets, firstUser] of [
          [COMPARE!, before.sockets, PAIRS * 2],
          ['today', sides, 0],
        ] as const) {
          const usage = process.resourceUsage();
          const sleeps = mainThreadSleeps();
          const result = await relayLoad(sockets, rate, SECONDS, dueCount, firstUser);
          const after = process.resourceUsage();
          const per = (count: number) => count / Math.max(1, result.delivered);
          runs.get(name)!.push({
            ...result,
            user: per(after.userCPUTime - usage.userCPUTime),
            system: per(after.systemCPUTime - usage.systemCPUTime),
            wakeups: per(mainThreadSleeps() - sleeps),
            load: load(),
          });
        }
        bare.push(await bareWakeup(2000));
      }
      const medians: number[] = [];
      for (const [name, results] of runs) {
        const cpu = results.map((result) => result.cpuMicrosPerMessage);
        const middle = results.find((result) => result.cpuMicrosPerMessage === median(cpu))!;
        medians.push(median(cpu));
        console.log(
          `| ${rate} | ${name} | ${cpu.map((v) => v.toFixed(0)).join(', ')} | ${median(cpu).toFixed(0)} | ${(median(cpu) / artillery(rate)).toFixed(2)}× | ${middle.user.toFixed(0)} / ${middle.system.toFixed(0)} | ${middle.wakeups.toFixed(2)} | ${middle.fromSend.percentile(50).toFixed(2)} / ${middle.fromSend.percentile(99).toFixed(2)} | ${middle.load} |`,
        );
        if (results.some((result) => result.delivered < result.total)) console.log(`|  | ${name}: delivered ${results.map((result) => `${result.delivered}/${result.total}`).join(', ')} | | | | | | | |`);
      }
      console.log(`|  | today / ${COMPARE} | | ${(medians[1]! / medians[0]!).toFixed(2)}× | | | | | |`);
      console.log(`|  | a bare wakeup, µs (by round) | ${bare.map((v) => v.toFixed(0)).join(', ')} | ${median(bare).toFixed(0)} | | | | | |`);
    }
    console.log(`\nHeap per connected socket: today ${(today.heapPerSocket / 1024).toFixed(2)} KB, ${COMPARE} ${(before.heapPerSocket / 1024).toFixed(2)} KB`);
  } else if (CPU_RATES.length) {
    console.log(`\nThe generator's own cost (this process; one message = emit, ack, message:new at both sockets):\n`);
    console.log('| msg/s | delivered | p50 ms | p99 ms | generator µs CPU/msg | Artillery anchor | ratio |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const rate of CPU_RATES) {
      const result = await profiled(`generator-${rate}`, () => relayLoad(sides, rate, SECONDS, dueCount));
      const anchor = artillery(rate);
      console.log(
        `| ${rate} | ${result.delivered}/${result.total} | ${fmt(result.fromSchedule.percentile(50))} | ${fmt(result.fromSchedule.percentile(99))} | ${result.cpuMicrosPerMessage.toFixed(0)} | ${anchor.toFixed(0)} | ${(result.cpuMicrosPerMessage / anchor).toFixed(2)}× |`,
      );
    }
  }
  if (ARTILLERY && CPU_RATES.length) {
    console.log(`\nAgainst ${ARTILLERY_NAME} in the same run: its socketio engine, ${PAIRS} pairs of virtual users on the same relay, ${ROUNDS} rounds of ${SECONDS} s;`);
    console.log(`today's client sends on the benchmarks' pacer (each message on its millisecond) and on the load tool's wheel (${SLOT_MS ?? 'its default'} ms slots), the three taking turns.`);
    console.log("Artillery's CPU is its whole process's over a window after every virtual user has connected (bench/artillery.ts); latency (today's): send → partner's message:new.\n");
    console.log('| msg/s asked | client | µs CPU/msg by round | median | × Artillery | p50 / p99 ms | msg/s held | load average |');
    console.log('|---:|---|---|---:|---:|---|---|---|');
    for (const rate of CPU_RATES) {
      type Row = { cpu: number; p50: number; p99: number; rate: number; load: string };
      const rows = new Map<string, Row[]>([
        [ARTILLERY_NAME, []],
        ['today, pacer', []],
        ['today, wheel', []],
      ]);
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const [name, pacing] of [
          ['today, pacer', pace],
          ['today, wheel', wheelPacing(SLOT_MS)],
        ] as const) {
          const result = await relayLoad(sides, rate, SECONDS, dueCount, 0, pacing);
          const p = result.fromSend;
          rows.get(name)!.push({ cpu: result.cpuMicrosPerMessage, p50: p.percentile(50), p99: p.percentile(99), rate: result.delivered / SECONDS, load: load() });
        }
        // Artillery's users follow today's and the earlier client's: the relay fans out by user.
        const result = await artilleryRound(ARTILLERY, { url: relay.url, pairs: PAIRS, firstUser: PAIRS * 4, rate, seconds: SECONDS, relayed: async () => (await relay.stats()).relayed });
        rows.get(ARTILLERY_NAME)!.push({ cpu: result.cpuMicrosPerMessage, p50: Number.NaN, p99: Number.NaN, rate: result.rate, load: result.load });
      }
      const theirs = median(rows.get(ARTILLERY_NAME)!.map((row) => row.cpu));
      for (const [name, results] of rows) {
        const cpu = results.map((row) => row.cpu);
        const middle = results.find((row) => row.cpu === median(cpu))!;
        console.log(
          `| ${rate} | ${name} | ${cpu.map((v) => v.toFixed(0)).join(', ')} | ${median(cpu).toFixed(0)} | ${(median(cpu) / theirs).toFixed(2)}× | ${Number.isNaN(middle.p50) ? '—' : `${middle.p50.toFixed(2)} / ${middle.p99.toFixed(2)}`} | ${results.map((row) => row.rate.toFixed(0)).join(', ')} | ${middle.load} |`,
        );
      }
    }
  }
  if (ARTILLERY) {
    const artilleryHeap = await artilleryHeapPerUser(ARTILLERY, { url: relay.url, count: ARTILLERY_USERS, firstUser: PAIRS * 4 });
    console.log(
      `\nHeap per connected socket after a full GC: today's lean socket ${(today.heapPerSocket / 1024).toFixed(2)} KB (${PAIRS * 2} sockets), ${ARTILLERY_NAME} ${(artilleryHeap / 1024).toFixed(2)} KB per virtual user (${ARTILLERY_USERS} connected and waiting): ${(today.heapPerSocket / artilleryHeap).toFixed(2)}×`,
    );
  } else {
    console.log(`\nHeap per connected lean socket: ${(today.heapPerSocket / 1024).toFixed(2)} KB (Artillery, measured once elsewhere: ~20 KB per virtual user)`);
  }
  console.log(`load average at end ${load()}`);
  for (const socket of [...sides, ...(before?.sockets ?? [])]) socket.close();
} finally {
  await relay.close();
  await earlier?.remove();
}
process.exit(0);
