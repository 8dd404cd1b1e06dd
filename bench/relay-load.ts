/**
 * The bare Socket.IO relay (bench/realtime-server.ts, BENCH_RELAY=1) in a child process, and open-loop
 * message load over lean sockets against it: the baseline of bench/lean-client-rates.ts and bench/party.ts.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Histogram } from '../loadtest/histogram';
import { LeanSocket } from '../loadtest/lean-socket';
import { dueCount, pace } from '../loadtest/pacer';
import { SERVER_NODE_FLAGS } from '../scripts/start.mjs';
import { freePort } from '../tests/helpers/ports';

const root = path.resolve(import.meta.dirname, '..');

/** bench/realtime-server.ts in a child: the relay, or the app (`relay: false`) with `env` (DATABASE_URL …). */
export async function startServerProcess(relay: boolean, env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess; close(): Promise<void> }> {
  const port = await freePort();
  const child = fork(path.join(root, 'bench/realtime-server.ts'), {
    cwd: root,
    execArgv: [...SERVER_NODE_FLAGS, '--import', 'tsx'],
    env: { ...process.env, LOG_LEVEL: 'error', ...env, PORT: String(port), BENCH_RELAY: relay ? '1' : '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${relay ? 'relay' : 'app'} exited with ${code}`)));
    child.on('message', (message: { type: string }) => message.type === 'ready' && resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'close' });
      await exited;
    },
  };
}

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

/**
 * Messages at `rate` per second for `seconds` over the pairs, open loop; each timed from its scheduled
 * send and from the moment it was written to the partner's `message:new`.
 */
export async function relayLoad(sockets: RelayClient[], rate: number, seconds: number, due: typeof dueCount = dueCount, firstUser = 0) {
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
  await pace(
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

