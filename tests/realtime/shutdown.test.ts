import net from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { io } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_END_S, openDatabase } from '../../server/db/client';
import { messages, users } from '../../server/db/schema';
import { SEND_LOCK_SPACE } from '../../server/features/conversations/queries';
import { type Job, startJobs } from '../../server/jobs';
import { SHUTDOWN_DEADLINE_MS, stopInOrder } from '../../server/process';
import { rooms } from '../../shared/events';
import { racesOnPostgres, serverConnections } from '../helpers/lock-holder';
import { startServer } from '../helpers/server';
import { hasPostgres } from '../helpers/services';
import { connect, waitForDisconnect, waitUntil } from '../helpers/socket';
import { makeUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { makePair, newClientId } from './fixtures';

// PostgreSQL: the database has to outlive the instance to show what it committed.
describe.skipIf(!(await hasPostgres()))('closing an instance', () => {
  const races = racesOnPostgres({ perTest: true });

  it('finishes the writes in flight, then drops the transports so that clients reconnect on their own', async () => {
    const { server } = races;
    const { a, b, conversationId } = await makePair(server);
    const aSocket = await connect(server.url, a.token, { reconnection: false });
    const bSocket = await connect(server.url, b.token, { reconnection: false });
    const bDropped = waitForDisconnect(bSocket);

    const send = (content: string) => {
      const payload = { conversation_id: conversationId, content, client_id: newClientId() };
      return aSocket
        .timeout(5000)
        .emitWithAck('message:send', payload)
        .then(
          (ack) => ({ payload, ack }),
          () => ({ payload, ack: null }),
        );
    };
    const before = Array.from({ length: 30 }, (_, i) => send(`before ${i}`));
    // Close once the server is busy with them: the first ack is back, the others are queued or on the wire.
    await Promise.race(before);
    const closing = server.app.close();
    const after = Array.from({ length: 10 }, (_, i) => send(`after ${i}`));
    const outcomes = await Promise.all([...before, ...after]);
    await closing;

    // "transport close", not "io server disconnect": socket.io-client reconnects only after the former.
    expect(await bDropped).toBe('transport close');
    const acked = outcomes.filter((o) => o.ack?.ok).map((o) => o.payload.content);
    const refused = outcomes.filter((o) => o.ack && !o.ack.ok);
    for (const outcome of refused) expect(outcome.ack).toMatchObject({ ok: false, error: { code: 'unavailable' } });

    const reader = await openDatabase({ databaseUrl: server.config.databaseUrl, dataDir: '' });
    const stored = (await reader.db.select({ content: messages.content }).from(messages)).map((row) => row.content);
    await reader.close();
    // Every acknowledged send is stored; whatever was stored was sent (a send cut off before its ack
    // is resent by the client with the same client_id, and stored once).
    // The connection stays open while writes drain: what reached the server before the close got an answer.
    expect((await Promise.all(before)).every((o) => o.ack !== null)).toBe(true);
    expect(acked.length).toBeGreaterThan(0);
    for (const content of acked) expect(stored).toContain(content);
    for (const content of stored) expect(outcomes.map((o) => o.payload.content)).toContain(content);
    aSocket.close();
    bSocket.close();
  });

  it('stops within the deadline while a job is stalled on a statement, the database closed and all it stored kept', async () => {
    const { server, holder, hold, waiting } = races;
    const user = await makeUser(server);
    // A job whose statement waits behind a lock held elsewhere: the stop's signal cannot end it.
    const stalled: Job = {
      name: 'stalled-read',
      everyMs: 60_000,
      firstAfterMs: 0,
      scope: 'cluster',
      run: async (app) => {
        await app.db.execute(sql`select count(*) from users`);
        return {};
      },
    };
    const release = await hold('lock table users in access share mode; lock table users in access exclusive mode');
    let stopping: Promise<string> | undefined;
    try {
      const jobs = startJobs(server.app, [stalled]);
      await waitUntil(async () => (await waiting()) >= 1, 5000, 'the job to wait on the lock');
      // Before, the stop waited for the run for as long as it took: the process's deadline exited it
      // with the database open.
      const deadline = new Promise<string>((resolve) => setTimeout(() => resolve('deadline'), SHUTDOWN_DEADLINE_MS).unref());
      stopping = stopInOrder(server.app, jobs).then(() => 'stopped');
      expect(await Promise.race([stopping, deadline])).toBe('stopped');
    } finally {
      await release();
      await stopping;
    }
    // The stalled statement's connection was ended by the close; its backend, waiting on the lock, sees
    // so once the lock is let go.
    await waitUntil(async () => (await serverConnections(holder)) === 0, 5000, 'no connection of the instance left');
    expect((await holder<{ id: number }[]>`select id from users`).map((row) => row.id)).toEqual([user.id]);
  });

  it('stops within the deadline while a request and a socket write are stalled on a lock, the database closed and all it stored kept', async () => {
    const { server, holder, hold, waiting } = races;
    const { a, conversationId } = await makePair(server);
    const aSocket = await connect(server.url, a.token, { reconnection: false });
    const kept = await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'kept', client_id: newClientId() });
    expect(kept.ok).toBe(true);
    // Both wait at their conversation's send lock, held elsewhere (another instance's ban, say) for longer than the stop may take.
    const release = await hold('select pg_advisory_xact_lock($1, $2)', [SEND_LOCK_SPACE, conversationId]);
    let stopping: Promise<string> | undefined;
    try {
      const write = aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'held on the socket', client_id: newClientId() }).catch(() => null);
      const request = fetch(`${server.url}/api/conversations/${conversationId}/messages/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Token ${a.token}` },
        body: JSON.stringify({ content: 'held in a request', client_id: newClientId() }),
      }).catch(() => null);
      await waitUntil(async () => (await waiting()) >= 2, 5000, 'both to wait on the lock');
      // Before, the stop waited for them for as long as the lock was held: the process's deadline
      // exited it with the database open.
      const deadline = new Promise<string>((resolve) => setTimeout(() => resolve('deadline'), SHUTDOWN_DEADLINE_MS).unref());
      stopping = stopInOrder(server.app, null).then(() => 'stopped');
      expect(await Promise.race([stopping, deadline])).toBe('stopped');
      // Not acknowledged: the client sends them again (same client_id) once it reconnects.
      expect((await write)?.ok).not.toBe(true);
      expect((await request)?.ok).not.toBe(true);
    } finally {
      await release();
      await stopping;
      aSocket.close();
    }
    await waitUntil(async () => (await serverConnections(holder)) === 0, 5000, 'no connection of the instance left');
    // A held send may still commit once the lock is let go (its statements had all reached the
    // database): its client's resend, with the same client_id, then finds it stored, once.
    const stored = (await holder<{ content: string }[]>`select content from messages`).map((row) => row.content);
    expect(stored).toContain('kept');
    for (const content of stored) expect(['kept', 'held on the socket', 'held in a request']).toContain(content);
  });

  it('drops a socket whose handshake was still reading its token as the close began, and closes', async () => {
    const { server, hold, waiting } = races;
    const user = await makeUser(server);
    // The handshake's read of its (never used) token waits behind the table's lock.
    const release = await hold('lock table auth_tokens in access exclusive mode');
    const socket = io(server.url, { path: '/socket.io/', auth: { token: user.token }, transports: ['websocket'], reconnection: false, forceNew: true });
    // Let in and then dropped, or dropped in its handshake: either way its transport closes under it.
    const dropped = waitForDisconnect(socket, 10_000);
    let closing: Promise<void> | undefined;
    try {
      await waitUntil(async () => (await waiting()) >= 1, 5000, 'the handshake to wait for its token');
      closing = server.app.close();
      // The close is under way: requests are refused, or the instance no longer listens at all.
      const refusing = () =>
        fetch(`${server.url}/readyz`).then(
          (response) => response.status === 503,
          () => true,
        );
      await waitUntil(async () => !server.app.server.listening || (await refusing()), 5000, 'the close to begin');
    } finally {
      await release();
    }
    // "transport close": the client reconnects on its own, to another instance. Before, it was let in
    // after the close had dropped every socket, and held the close open for as long as it stayed.
    expect(await dropped).toBe('transport close');
    await closing;
    expect(server.app.server.listening).toBe(false);
    socket.close();
  });

  it('answers a request that arrives while it drains in the envelope, 503 with Retry-After, and stores nothing', async () => {
    const { server, holder, hold, stuckOrDone } = races;
    const { a, conversationId } = await makePair(server);
    const aSocket = await connect(server.url, a.token, { reconnection: false });
    // A send held at its conversation's send lock keeps the instance draining.
    const release = await hold('select pg_advisory_xact_lock($1, $2)', [SEND_LOCK_SPACE, conversationId]);
    let closing: Promise<void> | undefined;
    try {
      const held = aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'held', client_id: newClientId() });
      expect(await stuckOrDone(held, 1)).toBe(false);
      closing = server.app.close();
      // Once the socket's events are refused, the shutdown has begun: the request below comes after.
      await waitUntil(async () => !(await aSocket.emitWithAck('presence:list', {})).ok, 5000, 'the shutdown to begin');
      const response = await fetch(`${server.url}/api/conversations/${conversationId}/messages/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Token ${a.token}`, 'Accept-Language': 'es' },
        body: JSON.stringify({ content: 'during the shutdown', client_id: newClientId() }),
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.headers.get('connection')).toBe('close');
      expect(await response.json()).toEqual({ detail: 'El servidor se está reiniciando; vuelve a enviarlo cuando se reconecte.' });
      // A load balancer's readiness probe is told the same: not a 500 for an answer its schema did not foresee.
      const readiness = await fetch(`${server.url}/readyz`);
      expect(readiness.status).toBe(503);
      expect(readiness.headers.get('retry-after')).toBe('1');
      expect(await readiness.json()).toEqual({ detail: 'The server is restarting; send again after reconnecting.' });
    } finally {
      await release('commit');
    }
    await closing;
    const stored = await holder<{ content: string }[]>`select content from messages`;
    expect(stored.map((row) => row.content)).toEqual(['held']);
    aSocket.close();
  });
});

describe('closing an instance while a client has stopped reading', () => {
  it('cuts that client’s connection, rather than wait for what is queued for it to go', async () => {
    const server = await startServer();
    const user = await makeUser(server);
    // A phone asleep with its connection half-open: it reads nothing more, and what is sent to it
    // fills the buffers on its way, then waits in the server's queue for it.
    const socket = await stopReading(server, user);
    try {
      // Before, the close waited for that queue to go (until the transport's own ping timeout, 45 s):
      // past the process's 10 s deadline, which exits without closing the database.
      const started = Date.now();
      await server.close();
      expect(Date.now() - started).toBeLessThan(SHUTDOWN_DEADLINE_MS);
    } finally {
      socket.close();
    }
  });
});

/** A server that takes connections and never says a word on them: a mail server, PostHog or Stripe stalled. */
async function blackHole() {
  const held = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    held.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    /** The connections it ever took. */
    get taken() {
      return held.size;
    },
    close() {
      for (const socket of held) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A client that reads no more, its connection half-open, with what is sent to it piling up: the close
 * waits a moment for it (`TRANSPORT_CLOSE_GRACE_MS`), then cuts it.
 */
async function stopReading(server: { url: string; app: import('../../server/app').App }, user: { id: number; token: string }) {
  const socket = await connect(server.url, user.token);
  (socket.io.engine as unknown as { transport: { ws: { _socket: { pause(): void } } } }).transport.ws._socket.pause();
  const [connection] = Object.values((server.app.io.engine as unknown as { clients: Record<string, { writeBuffer: unknown[] }> }).clients);
  const room = server.app.io.to(rooms.user(user.id)) as unknown as { emit(event: string, payload: unknown): void };
  const big = { filler: 'x'.repeat(1024 * 1024) };
  await waitUntil(
    () => {
      for (let i = 0; i < 4; i++) room.emit('sync', big);
      return connection!.writeBuffer.length > 0;
    },
    10_000,
    'the buffers to that client to fill',
  );
  return socket;
}

const smtp = await blackHole();
const posthogHost = await blackHole();
const stripeHost = await blackHole();

describe.skipIf(!(await hasPostgres()))('closing an instance while all it waits for stalls at once', () => {
  afterAll(() => Promise.all([smtp.close(), posthogHost.close(), stripeHost.close()]));
  const races = racesOnPostgres({
    perTest: true,
    config: {
      mail: { smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'EventMatch <hello@example.com>' },
      posthog: { key: 'phc_test_stalled', host: posthogHost.url, sendTimeoutMs: 60_000, erasure: null },
      checkoutMode: 'test',
      stripe: { secretKey: 'sk_test_stalled', webhookSecret: null, apiBase: stripeHost.url, lookupKeys: { monthly: 'basic_monthly', yearly: 'basic_yearly' } },
    },
  });

  it('gives the waits one grace, so that the database closes well within the deadline, all it stored kept', async () => {
    const { server, holder } = races;
    // A sign-up: its verification e-mail goes to a mail server that never greets, its event waits in PostHog's queue.
    const user = await makeUser(server);
    await waitUntil(() => smtp.taken > 0, 5000, 'the e-mail to reach the mail server');
    // A subscriber's language switch, which Stripe never answers.
    await server.app.db.update(users).set({ stripeCustomerId: 'cus_stalled' }).where(eq(users.id, user.id));
    expect((await client(server.url).put('/api/users/me/language/', { token: user.token, json: { language: 'es' } })).status).toBe(204);
    await waitUntil(() => stripeHost.taken > 0, 5000, 'the language to reach Stripe');
    const socket = await stopReading(server, user);
    try {
      // Each wait is bounded (e-mails 3 s, sockets 1 s, PostHog 3 s, Stripe 2 s), but added up they left
      // the database's close (up to DATABASE_END_S) past the process's deadline, which exits with it open.
      const started = Date.now();
      await server.app.close();
      expect(Date.now() - started).toBeLessThan(SHUTDOWN_DEADLINE_MS - DATABASE_END_S * 1000);
    } finally {
      socket.close();
    }
    // Closed: none of the instance's connections is left, and what it stored is there.
    expect(await serverConnections(holder)).toBe(0);
    const [stored] = await holder<{ language: string }[]>`select language from users where id = ${user.id}`;
    expect(stored!.language).toBe('es');
  });
});
