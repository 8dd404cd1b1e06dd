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
 * Environment: RATES_PAIRS (200), RATES ("50,200,1000"), RATES_SECONDS (6), RATES_CPU ("1000,4000").
 */
import { dueCount, lateDueCount } from '../loadtest/pacer';
import { relayLoad, relaySockets, startServerProcess } from './relay-load';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const PAIRS = Number(env('RATES_PAIRS', '200'));
const RATES = env('RATES', '50,200,1000').split(',').map(Number);
const SECONDS = Number(env('RATES_SECONDS', '6'));
const CPU_RATES = env('RATES_CPU', '1000,4000').split(',').filter(Boolean).map(Number);

const relay = await startServerProcess(true);
try {
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const sides = await relaySockets(relay.url, PAIRS * 2);
  global.gc?.();
  const heapPerSocket = (process.memoryUsage().heapUsed - heapBefore) / sides.length;
  // Warm-up: compiled code and the relay's pools are not part of the first rate's figures.
  await relayLoad(sides, 500, 2, dueCount);

  const fmt = (value: number) => value.toFixed(2).padStart(7);
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

  if (CPU_RATES.length) {
    console.log(`\nThe generator's own cost (this process; one message = emit, ack, message:new at both sockets):\n`);
    console.log('| msg/s | delivered | p50 ms | p99 ms | generator µs CPU/msg | Artillery anchor | ratio |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const rate of CPU_RATES) {
      const result = await relayLoad(sides, rate, SECONDS, dueCount);
      // Artillery 2's socketio engine on this app: ~200 µs at 1,000 msg/s, ~96 µs at ~10,000 (its saturation).
      const anchor = rate <= 1000 ? 200 : rate >= 10_000 ? 96 : 200 + ((96 - 200) * (rate - 1000)) / 9000;
      console.log(
        `| ${rate} | ${result.delivered}/${result.total} | ${fmt(result.fromSchedule.percentile(50))} | ${fmt(result.fromSchedule.percentile(99))} | ${result.cpuMicrosPerMessage.toFixed(0)} | ${anchor.toFixed(0)} | ${(result.cpuMicrosPerMessage / anchor).toFixed(2)}× |`,
      );
    }
  }
  console.log(`\nHeap per connected lean socket: ${(heapPerSocket / 1024).toFixed(2)} KB (Artillery: ~20 KB per virtual user)`);
  for (const socket of sides) socket.close();
} finally {
  await relay.close();
}
process.exit(0);
