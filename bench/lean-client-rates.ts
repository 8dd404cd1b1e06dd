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
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { freePort } from '../tests/helpers/ports';
import { LeanSocket } from '../loadtest/lean-socket';
import { dueCount, lateDueCount, pace } from '../loadtest/pacer';
import { Histogram } from '../loadtest/histogram';
import { SERVER_NODE_FLAGS } from '../scripts/start.mjs';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const PAIRS = Number(env('RATES_PAIRS', '200'));
const RATES = env('RATES', '50,200,1000').split(',').map(Number);
const SECONDS = Number(env('RATES_SECONDS', '6'));
const CPU_RATES = env('RATES_CPU', '1000,4000').split(',').filter(Boolean).map(Number);
const root = path.resolve(import.meta.dirname, '..');

async function startRelay(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = fork(path.join(root, 'bench/realtime-server.ts'), {
    cwd: root,
    execArgv: [...SERVER_NODE_FLAGS, '--import', 'tsx'],
    env: { ...process.env, PORT: String(port), BENCH_RELAY: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`relay exited with ${code}`)));
    child.on('message', (message: { type: string }) => message.type === 'ready' && resolve());
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

interface Side {
  socket: LeanSocket;
  partner: number;
}

async function run(sides: Side[], rate: number, seconds: number, due: typeof dueCount) {
  const total = Math.round(rate * seconds);
  const scheduled = new Map<string, { at: number; sentAt: number }>();
  const fromSchedule = new Histogram();
  const fromSend = new Histogram();
  let delivered = 0;
  let acked = 0;
  const handlers = sides.map((side, index) => {
    const handler = ({ message }: { message: { sender: number; client_id: string | null } }) => {
      if (message.sender === index || !message.client_id) return;
      const entry = scheduled.get(message.client_id);
      if (!entry) return;
      scheduled.delete(message.client_id);
      const now = performance.now();
      fromSchedule.record(now - entry.at);
      fromSend.record(now - entry.sentAt);
      delivered += 1;
    };
    side.socket.on('message:new', handler as never);
    return handler;
  });
  const cpuBefore = process.cpuUsage();
  await pace(
    rate,
    total,
    (k, at) => {
      // Each pair sends in turn, direction alternating per round.
      const pair = k % (sides.length / 2);
      const forward = Math.floor(k / (sides.length / 2)) % 2 === 0;
      const from = forward ? 2 * pair : 2 * pair + 1;
      const clientId = randomUUID();
      scheduled.set(clientId, { at, sentAt: performance.now() });
      sides[from]!.socket.emit('message:send', { conversation_id: pair + 1, content: `m${k}`, client_id: clientId }, () => {
        acked += 1;
      });
    },
    due,
  );
  const deadline = performance.now() + 5000;
  while ((delivered < total || acked < total) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  const cpu = process.cpuUsage(cpuBefore);
  sides.forEach((side, index) => side.socket.off('message:new', handlers[index] as never));
  return { total, delivered, acked, fromSchedule, fromSend, cpuMicrosPerMessage: (cpu.user + cpu.system) / Math.max(1, delivered) };
}

const relay = await startRelay();
try {
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const sides: Side[] = [];
  for (let i = 0; i < PAIRS * 2; i += 1) {
    const partner = i % 2 === 0 ? i + 1 : i - 1;
    // The relay's ids: the socket's own number and its partner's.
    sides.push({ socket: await LeanSocket.open(relay.url, { user: i, partner }), partner });
  }
  global.gc?.();
  const heapPerSocket = (process.memoryUsage().heapUsed - heapBefore) / sides.length;
  // Warm-up: compiled code and the relay's pools are not part of the first rate's figures.
  await run(sides, 500, 2, dueCount);

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
      const result = await run(sides, rate, SECONDS, due);
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
      const result = await run(sides, rate, SECONDS, dueCount);
      // Artillery 2's socketio engine on this app: ~200 µs at 1,000 msg/s, ~96 µs at ~10,000 (its saturation).
      const anchor = rate <= 1000 ? 200 : rate >= 10_000 ? 96 : 200 + ((96 - 200) * (rate - 1000)) / 9000;
      console.log(
        `| ${rate} | ${result.delivered}/${result.total} | ${fmt(result.fromSchedule.percentile(50))} | ${fmt(result.fromSchedule.percentile(99))} | ${result.cpuMicrosPerMessage.toFixed(0)} | ${anchor.toFixed(0)} | ${(result.cpuMicrosPerMessage / anchor).toFixed(2)}× |`,
      );
    }
  }
  console.log(`\nHeap per connected lean socket: ${(heapPerSocket / 1024).toFixed(2)} KB (Artillery: ~20 KB per virtual user)`);
  for (const side of sides) side.socket.close();
} finally {
  relay.child.kill();
}
process.exit(0);
