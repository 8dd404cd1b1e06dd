import net from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../shared/schemas/conversations';
import { createPostgresDatabase } from '../helpers/database';
import { client } from '../helpers/http';
import { backends, loggerInto, serverPerSuite, type TestServer } from '../helpers/server';
import { connect, record, socketsClosedAfterEach, waitFor, waitUntil } from '../helpers/socket';
import { makePair, newClientId, type Pair } from './fixtures';

/**
 * A TCP hop between the app and PostgreSQL that can lose one reply: armed with a string, it passes the
 * client's packet that carries it on to the server, then, at the first answer on that connection, cuts
 * the connection both ways instead of passing the answer on. For an autocommit statement PostgreSQL
 * answers only once it has committed (its reply is sent at Sync, after the commit), so the statement
 * is stored and the app never hears so: a reply lost on the network.
 */
async function lossyProxy(target: { host: string; port: number }) {
  let armed: Buffer | null = null;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((app) => {
    const upstream = net.connect(target);
    let cut = false;
    for (const socket of [app, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        app.destroy();
        upstream.destroy();
      });
    }
    app.on('data', (chunk: Buffer) => {
      if (armed && chunk.includes(armed)) {
        armed = null;
        cut = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) return void app.write(chunk);
      app.destroy();
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** Loses the answer to the next packet the app sends that carries `text`. */
    loseReplyTo(text: string) {
      armed = Buffer.from(text);
    },
    get armed() {
      return armed !== null;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// One backend runs one transaction at a time on PGlite: ids follow commit order there by construction,
// and no statement can be stalled beside another. Both cases need PostgreSQL's concurrency.
describe.skipIf(!backends.includes('postgres'))('message delivery on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let proxy: Awaited<ReturnType<typeof lossyProxy>>;
  /** The test's own connection, straight to the database. */
  let sql: postgres.Sql;
  const sockets = socketsClosedAfterEach();
  const warnings: string[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const url = new URL(database.url);
    proxy = await lossyProxy({ host: url.hostname, port: Number(url.port || 5432) });
  });
  afterAll(async () => {
    await proxy?.close();
    await database?.drop();
  });
  const server = serverPerSuite(() => {
    const proxied = new URL(database.url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    return { backend: 'postgres', databaseUrl: proxied.toString(), logger: loggerInto(warnings, 'warn') };
  });
  /** A second instance on the same database, with its own message batcher. */
  const other = serverPerSuite(() => ({ backend: 'postgres', databaseUrl: database.url }));
  beforeAll(() => {
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
  });
  afterAll(() => sql?.end());

  const connectTo = (target: TestServer, token: string) => sockets.connect(target.url, token);

  type Send = (pair: Pair, content: string) => Promise<Message>;
  const overSocket =
    (target: () => TestServer, who: 'a' | 'b'): Send =>
    async (pair, content) => {
      const socket = await connectTo(target(), pair[who].token);
      const ack = await socket.emitWithAck('message:send', { conversation_id: pair.conversationId, content, client_id: newClientId() });
      if (!ack.ok) throw new Error(JSON.stringify(ack));
      return ack.message;
    };
  const overRest =
    (target: () => TestServer, who: 'a' | 'b'): Send =>
    async (pair, content) => {
      const posted = await client(target().url).post(`/api/conversations/${pair.conversationId}/messages/`, {
        token: pair[who].token,
        json: { content, client_id: newClientId() },
      });
      if (posted.status !== 201) throw new Error(JSON.stringify(posted.body));
      return posted.body as Message;
    };

  /** Backends of this database waiting for a lock (`advisory`: for an advisory lock only). */
  const waiting = async (kind?: 'advisory') => {
    const [row] = await sql<[{ n: number }]>`
      select count(*)::int as n from pg_locks l join pg_stat_activity s using (pid)
      where s.datname = current_database() and not l.granted and (${kind ?? null}::text is null or l.locktype = ${kind ?? null})`;
    return row!.n;
  };

  const catchUp = async (pair: Pair, after: number) => {
    const page = await client(server.url).get(`/api/conversations/${pair.conversationId}/messages/?after=${after}`, { token: pair.a.token });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    return page.body.results as Message[];
  };

  describe.each([
    { slow: 'a REST send', slowSend: overRest(() => server, 'b'), fast: 'a socket send', fastSend: overSocket(() => server, 'a'), fastAt: () => server },
    { slow: 'a socket send', slowSend: overSocket(() => server, 'b'), fast: 'a REST send', fastSend: overRest(() => server, 'a'), fastAt: () => server },
    {
      slow: 'a socket send',
      slowSend: overSocket(() => server, 'b'),
      fast: "another instance's socket send",
      fastSend: overSocket(() => other, 'a'),
      fastAt: () => other,
    },
  ])('$slow slow to commit, $fast beside it', ({ slowSend, fastSend, fastAt }) => {
    it('gives ids in commit order, so that a catch-up ?after= the newest id seen misses nothing', async () => {
      const pair = await makePair(server);
      // The fast send's push, heard where it is sent from (no Redis between the two instances here).
      const listener = await connectTo(fastAt(), pair.b.token);
      const told = waitFor(listener, 'message:new', (event) => event.message.content === 'second');
      // The slow send draws its id, then waits to check its foreign key to Ben's member row, which
      // the test holds: as a commit slowed by anything after the id is drawn.
      const hold = await sql.reserve();
      let slow: Promise<Message> | undefined;
      let fast: Promise<Message> | undefined;
      try {
        await hold`begin`;
        await hold`select 1 from conversation_members where conversation_id = ${pair.conversationId} and user_id = ${pair.b.id} for update`;
        slow = slowSend(pair, 'first');
        await waitUntil(async () => (await waiting()) >= 1, 5000, 'the slow send to wait');
        // Sent after the slow one drew its id: it must not commit an id above it before it.
        let fastDone = false;
        fast = fastSend(pair, 'second').finally(() => {
          fastDone = true;
        });
        await waitUntil(async () => fastDone || (await waiting('advisory')) >= 1, 5000, 'the fast send to commit or wait its turn');
        // A client catching up now, and again from the newest id it got once both are in.
        const seenDuring = await catchUp(pair, 0);
        expect(fastDone, 'the send beside it waits for the slow one to commit').toBe(false);
        await hold`commit`;
        const [first, second] = await Promise.all([slow, fast]);
        const newest = Math.max(0, ...seenDuring.map((message) => message.id));
        const seenAfter = await catchUp(pair, newest);
        expect([...seenDuring, ...seenAfter].map((message) => message.content).sort()).toEqual(['first', 'second']);
        expect(first.id).toBeLessThan(second.id);
        // Its push names the message stored before it, committed while it waited for the send lock
        // (after its statement began): a client that has not heard of `first` yet knows it missed one.
        expect(await told).toEqual({ conversation_id: pair.conversationId, message: second, previous_id: first.id });
      } finally {
        await hold`rollback`.catch(() => {});
        hold.release();
        await Promise.allSettled([slow, fast]);
      }
    });
  });

  it('tells the partner about a batch stored whose reply was lost, once, and acks the sender with it', async () => {
    const { a, b, conversationId } = await makePair(server);
    // Ben wrote first (on the other instance, whose push this one does not carry).
    const before = await overRest(() => other, 'b')({ a, b, conversationId }, 'before');
    const [aSocket, bSocket] = await Promise.all([connectTo(server, a.token), connectTo(server, b.token)]);
    const heard = record(bSocket);
    const clientId = newClientId();
    const bHears = waitFor(bSocket, 'message:new', (event) => event.message.client_id === clientId);
    warnings.length = 0;
    // The batch statement carries the send's client_id; its answer never reaches the app.
    proxy.loseReplyTo(clientId);
    const ack = await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'lost reply', client_id: clientId });
    expect(proxy.armed).toBe(false);
    expect(warnings.join('')).toContain('message batch failed');
    expect(ack).toMatchObject({ ok: true, message: { sender: a.id, content: 'lost reply', client_id: clientId } });
    if (!ack.ok) throw new Error('unreachable');
    // Found stored after the batch failed, it is told with the message before it all the same.
    expect(await bHears).toEqual({ conversation_id: conversationId, message: ack.message, previous_id: before.id });

    // Stored once, told once: a later message arrives behind it with nothing in between.
    const laterHeard = waitFor(bSocket, 'message:new', (event) => event.message.content === 'later');
    expect((await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'later', client_id: newClientId() })).ok).toBe(true);
    expect((await laterHeard).previous_id).toBe(ack.message.id);
    expect(heard.filter((e) => e.event === 'message:new').map((e) => (e.payload as { message: Message }).message.content)).toEqual(['lost reply', 'later']);
    expect((await catchUp({ a, b, conversationId }, before.id)).map((message) => message.content)).toEqual(['lost reply', 'later']);
  });

  it('answers a REST send whose connection to PostgreSQL ended under it: stored once with a client_id, else 503 with Retry-After', async () => {
    const { a, b, conversationId } = await makePair(server);
    const post = (json: { content: string; client_id?: string }) =>
      client(server.url).post(`/api/conversations/${conversationId}/messages/`, { token: a.token, json, headers: { 'accept-language': 'es' } });
    // Its insert carries the client_id; the answer never reaches the app, and its connection ends.
    const clientId = newClientId();
    proxy.loseReplyTo(clientId);
    const sent = await post({ content: 'lost reply', client_id: clientId });
    expect(proxy.armed).toBe(false);
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body).toMatchObject({ sender: a.id, content: 'lost reply', client_id: clientId });
    // With no client_id, sending it again is not the server's to decide: the client is told to, in the envelope.
    proxy.loseReplyTo('no client id');
    const refused = await post({ content: 'no client id' });
    expect(proxy.armed).toBe(false);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ detail: 'El servidor no pudo acceder a sus datos justo ahora. Inténtalo de nuevo en un momento.' });
    expect((await catchUp({ a, b, conversationId }, 0)).map((message) => message.content)).toEqual(['lost reply', 'no client id']);
  });
});
