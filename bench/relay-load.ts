/**
 * Open-loop message load over lean sockets against the bare Socket.IO relay (bench/server-process.ts,
 * kind 'relay'): the baseline of bench/lean-client-rates.ts and bench/party.ts.
 */
import { randomUUID } from 'node:crypto';
import { Histogram } from '../loadtest/histogram';
import { LeanSocket } from '../loadtest/lean-socket';
import { dueCount, pace } from '../loadtest/pacer';
import { Wheel } from '../loadtest/wheel';

/** What relayLoad needs of a client: LeanSocket's, or an earlier version's (bench/lean-client-rates.ts compares them). */
export type RelayClient = Pick<LeanSocket, 'emit' | 'on' | 'off' | 'close'>;
type Open = (url: string, auth: object) => Promise<RelayClient>;

/**
 * `count` lean sockets on the relay, in pairs (socket 2k and 2k+1 are each other's partner), as users
 * `firstUser` on: the relay fans out by user, so two sets on one relay need their own users.
 */
export async function relaySockets(url: string, count: number, open: Open = LeanSocket.open, firstUser = 0): Promise<RelayClient[]> {
  const sockets: RelayClient[] = [];
  for (let i = 0; i < count; i += 200) {
    const batch = Array.from({ length: Math.min(200, count - i) }, (_, j) => firstUser + i + j);
    sockets.push(...(await Promise.all(batch.map((id) => open(url, { user: id, partner: id % 2 === 0 ? id + 1 : id - 1 })))));
  }
  return sockets;
}

/** How a load sends its items: `pace` (each on its time, to the timer's millisecond) or `wheelPacing()`. */
export type Pacing = (rate: number, total: number, send: (index: number, scheduledAt: number) => void, due: typeof dueCount) => Promise<void>;

/**
 * The same open-loop schedule sent the way the load tool sends its attendees' actions: through its
 * timer wheel (loadtest/wheel.ts), which runs everything due in one slot at once (`slotMs`: the wheel's
 * default without it). Latencies are then timed from the moment a message leaves, as the load tool times them.
 */
export const wheelPacing =
  (slotMs?: number): Pacing =>
  (rate, total, send) =>
    new Promise((resolve) => {
      const start = performance.now();
      let sent = 0;
      const wheel = new Wheel((index) => {
        send(index, start + (index * 1000) / rate);
        sent += 1;
        if (sent === total) {
          wheel.stop();
          resolve();
        }
      }, slotMs);
      for (let k = 0; k < total; k += 1) wheel.schedule(k, 0, (k * 1000) / rate);
      wheel.start();
    });

/**
 * Messages at `rate` per second for `seconds` over the pairs, open loop; each timed from its scheduled
 * send and from the moment it was written to the partner's `message:new`.
 */
export async function relayLoad(
  sockets: RelayClient[],
  rate: number,
  seconds: number,
  due: typeof dueCount = dueCount,
  firstUser = 0,
  pacing: Pacing = pace,
) {
  const total = Math.round(rate * seconds);
  const scheduled = new Map<string, { at: number; sentAt: number }>();
  const fromSchedule = new Histogram();
  const fromSend = new Histogram();
  let delivered = 0;
  let acked = 0;
  const handlers = sockets.map((socket, index) => {
    const handler = ({ message }: { message: { sender: number; client_id: string | null } }) => {
      if (message.sender === firstUser + index || !message.client_id) return;
      const entry = scheduled.get(message.client_id);
      if (!entry) return;
      scheduled.delete(message.client_id);
      const now = performance.now();
      fromSchedule.record(now - entry.at);
      fromSend.record(now - entry.sentAt);
      delivered += 1;
    };
    socket.on('message:new', handler as never);
    return handler;
  });
  const cpuBefore = process.cpuUsage();
  await pacing(
    rate,
    total,
    (k, at) => {
      // Each pair sends in turn, direction alternating per round.
      const pair = k % (sockets.length / 2);
      const forward = Math.floor(k / (sockets.length / 2)) % 2 === 0;
      const from = forward ? 2 * pair : 2 * pair + 1;
      const clientId = randomUUID();
      scheduled.set(clientId, { at, sentAt: performance.now() });
      sockets[from]!.emit('message:send', { conversation_id: pair + 1, content: `m${k}`, client_id: clientId }, () => {
        acked += 1;
      });
    },
    due,
  );
  const deadline = performance.now() + 5000;
  while ((delivered < total || acked < total) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  const cpu = process.cpuUsage(cpuBefore);
  sockets.forEach((socket, index) => socket.off('message:new', handlers[index] as never));
  return { total, delivered, acked, fromSchedule, fromSend, cpuMicrosPerMessage: (cpu.user + cpu.system) / Math.max(1, delivered) };
}

