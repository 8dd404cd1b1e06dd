import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rooms } from '../../shared/events';
import { sendMessage } from '../../server/features/conversations/service';
import { react } from '../../server/features/matching/service';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { createPostgresDatabase } from '../helpers/database';
import { startServer, startTwoInstances, type TestServer, type TwoInstances } from '../helpers/server';
import { tcpProxy } from '../helpers/tcp-proxy';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';
import { connect, record, socketsClosedAfterEach, waitFor, waitForDisconnect, waitUntil } from '../helpers/socket';
import { makePair, match, newClientId, storedMessages } from './fixtures';

const ready = (await hasPostgres()) && (await hasRedis());

describe.skipIf(!ready)('two instances on one PostgreSQL and one Redis', () => {
  let cluster: TwoInstances;
  let one: TestServer;
  let two: TestServer;
  const sockets = socketsClosedAfterEach();
  const connectTo = (server: TestServer, token: string) => sockets.connect(server.url, token);

  beforeAll(async () => {
    cluster = await startTwoInstances({ redisUrl: REDIS_URL });
    ({ one, two } = cluster);
  });
  afterAll(() => cluster.close());

  it('reports Redis in /readyz', async () => {
    for (const server of [one, two]) {
      expect((await client(server.url).get('/readyz')).body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
    }
  });

  it('pushes a match made on one instance to both users, each on a different instance', async () => {
    const ana = await makeCompletedUser(one, { name: 'Ana' }, { firstName: 'Ana' });
    const ben = await makeCompletedUser(one, { name: 'Ben' }, { firstName: 'Ben' });
    const anaSocket = await connectTo(one, ana.token);
    const benSocket = await connectTo(two, ben.token);
    const anaHears = waitFor(anaSocket, 'match:new');
    const benHears = waitFor(benSocket, 'match:new');
    // The completing like lands on instance two: Ana, on instance one, hears it through Redis.
    const conversationId = await match(one, ana, ben, two);
    expect(await anaHears).toMatchObject({ conversation_id: conversationId, user: { id: ben.id, name: 'Ben' } });
    expect(await benHears).toMatchObject({ conversation_id: conversationId, user: { id: ana.id, name: 'Ana' } });
  });

  it('pushes a match made by an instance that never told of it, when the like is sent again elsewhere, to whoever has not seen it', async () => {
    const ana = await makeCompletedUser(one, { name: 'Ana' }, { firstName: 'Ana' });
    const ben = await makeCompletedUser(one, { name: 'Ben' }, { firstName: 'Ben' });
    expect((await client(one.url).post('/api/matching/', { token: ana.token, json: { response: 'like', other: ben.id } })).body.match).toBe(false);
    const anaSocket = await connectTo(one, ana.token);
    const benTablet = await connectTo(one, ben.token);
    const anaEvents = record(anaSocket);
    // Ben's like, stored by instance two, which went (or lost Redis) before telling of the match.
    const made = await react(two.app.db, ben.id, { response: 'like', other: ana.id }, { dailyLikes: 100 });
    expect(made.match).toBe(true);
    // His phone, with no answer, sends it again, to instance two again: Ana and his tablet hear of it now.
    const heard = Promise.all([waitFor(anaSocket, 'match:new'), waitFor(benTablet, 'match:new')]);
    const again = await client(two.url).post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id, retry: true } });
    expect(again.body).toEqual({ match: true, conversation_id: made.conversationId });
    const [toAna, toBen] = await heard;
    expect(toAna).toMatchObject({ conversation_id: made.conversationId, user: { id: ben.id, name: 'Ben' } });
    expect(toAna).not.toHaveProperty('by_you');
    expect(toBen).toMatchObject({ conversation_id: made.conversationId, user: { id: ana.id, name: 'Ana' }, by_you: true });

    // Seen by Ana: a like sent again tells her no more (her overlay would show twice).
    expect(await anaSocket.emitWithAck('match:seen', { conversation_ids: [made.conversationId!], seen: 'overlay' })).toEqual({ ok: true });
    const benHearsAgain = waitFor(benTablet, 'match:new');
    await client(one.url).post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id, retry: true } });
    await benHearsAgain;
    const barrier = waitFor(anaSocket, 'typing');
    await benTablet.emitWithAck('typing', { conversation_id: made.conversationId! });
    await barrier;
    expect(anaEvents.filter((e) => e.event === 'match:new')).toHaveLength(1);
  });

  it('tells my phones on either instance that I saw a match, and not the phone that saw it', async () => {
    const { a: ana, conversationId } = await makePair(one);
    const [phone, tab, tablet] = await Promise.all([connectTo(one, ana.token), connectTo(one, ana.token), connectTo(two, ana.token)]);
    const phoneEvents = record(phone);
    const heard = Promise.all([waitFor(tab, 'match:seen'), waitFor(tablet, 'match:seen')]);
    expect(await phone.emitWithAck('match:seen', { conversation_ids: [conversationId], seen: 'chats' })).toEqual({ ok: true });
    const told = { conversation_ids: [conversationId], seen: 'chats' };
    expect(await heard).toEqual([told, told]);
    // Its own instance, the only one holding it, emits before it answers: nothing came before the answer.
    expect(phoneEvents).toEqual([]);
  });

  it('carries a socket message and a REST message across instances, stored once each', async () => {
    const { a, b, conversationId } = await makePair(one);
    const aSocket = await connectTo(one, a.token);
    const bSocket = await connectTo(two, b.token);

    const bHears = waitFor(bSocket, 'message:new');
    const sent = await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'over the wire', client_id: newClientId() });
    if (!sent.ok) throw new Error(JSON.stringify(sent));
    expect(await bHears).toEqual({ conversation_id: conversationId, message: sent.message, previous_id: null });

    const aHears = waitFor(aSocket, 'message:new', (event) => event.message.content === 'by REST');
    const posted = await client(two.url).post(`/api/conversations/${conversationId}/messages/`, {
      token: b.token,
      json: { content: 'by REST' },
    });
    expect(posted.status).toBe(201);
    expect(await aHears).toMatchObject({ message: { id: posted.body.id, sender: b.id }, previous_id: sent.message.id });
    expect((await storedMessages(two, a.token, conversationId)).map((m) => m.content)).toEqual(['over the wire', 'by REST']);
  });

  it('pushes a message stored by an instance that never told of it, when its sender resends it elsewhere', async () => {
    const { a, b, conversationId } = await makePair(one);
    const bSocket = await connectTo(two, b.token);
    const bEvents = record(bSocket);
    // Stored by instance one, which went (or lost Redis) before pushing it: nobody heard of it.
    const clientId = newClientId();
    const { message } = await sendMessage(one.app.db, { conversationId, senderId: a.id, content: 'lost push', clientId });
    // Ana's phone, reconnected to instance two, sends it again: Ben, there all along, hears of it now.
    const aSocket = await connectTo(two, a.token);
    const bHears = waitFor(bSocket, 'message:new');
    const resent = await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'lost push', client_id: clientId });
    expect(resent).toEqual({ ok: true, message });
    expect(await bHears).toEqual({ conversation_id: conversationId, message, previous_id: null });

    // The same over HTTP, from instance one, to Ben on two through Redis.
    const second = await sendMessage(one.app.db, { conversationId, senderId: a.id, content: 'lost too', clientId: newClientId() });
    const bHearsAgain = waitFor(bSocket, 'message:new', (event) => event.message.id === second.message.id);
    const posted = await client(one.url).post(`/api/conversations/${conversationId}/messages/`, {
      token: a.token,
      json: { content: 'lost too', client_id: second.message.client_id },
    });
    expect(posted.status).toBe(201);
    expect(posted.body).toEqual(second.message);
    expect(await bHearsAgain).toEqual({ conversation_id: conversationId, message: second.message, previous_id: message.id });
    expect(bEvents.filter((e) => e.event === 'message:new')).toHaveLength(2);
    expect((await storedMessages(two, b.token, conversationId)).map((m) => m.content)).toEqual(['lost push', 'lost too']);
  });

  it('sends typing, read receipts and presence across instances to the partner only', async () => {
    const { a, b, conversationId } = await makePair(one);
    const outsider = await makeCompletedUser(one, { name: 'Eve' });
    // Eve is matched with Ana too: she is the one who must NOT hear about Ana and Ben's conversation.
    const withEve = await match(one, a, outsider);
    const bSocket = await connectTo(two, b.token);
    const eveSocket = await connectTo(two, outsider.token);
    const eveEvents = record(eveSocket);

    const bSeesOnline = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
    const aSocket = await connectTo(one, a.token);
    await bSeesOnline;
    expect(await aSocket.emitWithAck('presence:list', {})).toEqual({ ok: true, online: [b.id, outsider.id].sort((x, y) => x - y) });

    const sentHeard = waitFor(aSocket, 'message:new');
    const sent = await bSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'hi', client_id: newClientId() });
    if (!sent.ok) throw new Error(JSON.stringify(sent));
    await sentHeard;

    const typing = waitFor(bSocket, 'typing');
    await aSocket.emitWithAck('typing', { conversation_id: conversationId });
    expect(await typing).toEqual({ conversation_id: conversationId, user_id: a.id });
    const read = waitFor(bSocket, 'message:read');
    await aSocket.emitWithAck('message:read', { conversation_id: conversationId, last_read_id: sent.message.id });
    expect(await read).toEqual({ conversation_id: conversationId, user_id: a.id, last_read_id: sent.message.id });

    // Barrier: the last event Ana causes is for Eve, through the same Redis path.
    const eveHears = waitFor(eveSocket, 'typing');
    await aSocket.emitWithAck('typing', { conversation_id: withEve });
    await eveHears;
    expect(eveEvents.filter((e) => e.event !== 'presence')).toEqual([{ event: 'typing', payload: { conversation_id: withEve, user_id: a.id } }]);
  });

  it('hears an event published from the other instance right after "connected", every time, page reloads included', async () => {
    const { a, b, conversationId } = await makePair(one);
    // Each round closes Ben's only socket and opens a new one at once, as a page reload does: instance
    // two drops the room's subscription and takes it again, both on their way to Redis together. Ana's
    // message, from instance one, follows his "connected" at once.
    for (let round = 0; round < 20; round += 1) {
      const bSocket = await connectTo(two, b.token);
      const heard = waitFor(bSocket, 'message:new', (event) => event.message.content === `round ${round}`);
      const posted = await client(one.url).post(`/api/conversations/${conversationId}/messages/`, {
        token: a.token,
        json: { content: `round ${round}` },
      });
      expect(posted.status).toBe(201);
      await heard.catch((error: unknown) => {
        throw new Error(`round ${round}: ${String(error)}`);
      });
      bSocket.close();
    }
  });

  it('keeps a user online while a socket of theirs is open on the other instance', async () => {
    const { a, b } = await makePair(one);
    const bSocket = await connectTo(two, b.token);
    const aOnOne = await connectTo(one, a.token);
    const aOnTwo = await connectTo(two, a.token);
    const bEvents = record(bSocket);

    aOnOne.close();
    // Ask the instance Ana just left: it must find her other socket through Redis.
    const checker = await connectTo(one, b.token);
    expect(await checker.emitWithAck('presence:list', {})).toEqual({ ok: true, online: [a.id] });

    const offline = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && !p.online);
    aOnTwo.close();
    await offline;
    expect(bEvents.filter((e) => e.event === 'presence' && !(e.payload as { online: boolean }).online)).toHaveLength(1);
  });

  it('subscribes each instance only to the rooms of its own sockets (a 1:1 chat costs the other instances nothing)', async () => {
    const { a, b } = await makePair(one);
    await connectTo(one, a.token);
    await connectTo(two, b.token);
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    try {
      const subscribers = async (channel: string) => {
        const reply = (await redis.sendCommand(['PUBSUB', 'SHARDNUMSUB', channel])) as [string, number];
        return Number(reply[1]);
      };
      const namespace = `${cluster.redisPrefix}#/#`;
      // The adapter's own channel reaches both instances; a user's room reaches only the one holding them.
      expect(await subscribers(namespace)).toBe(2);
      // No waiting: a socket hears "connected" only once its room is subscribed.
      expect(await subscribers(`${namespace}${rooms.user(a.id)}#`)).toBe(1);
      expect(await subscribers(`${namespace}${rooms.user(b.id)}#`)).toBe(1);
    } finally {
      await redis.close();
    }
  });

  it('stores once, and tells, each message of a burst whose database connections were cut, sent again by its client_id', async () => {
    const { a, b, conversationId } = await makePair(one);
    const aSocket = await connectTo(one, a.token);
    const bSocket = await connectTo(two, b.token);
    const bEvents = record(bSocket);
    const payloads = Array.from({ length: 12 }, (_, i) => ({ conversation_id: conversationId, content: `cut ${i}`, client_id: newClientId() }));
    const admin = postgres(cluster.databaseUrl.replace(/\/[^/]+$/, '/postgres'), { max: 1, onnotice: () => {} });
    const name = new URL(cluster.databaseUrl).pathname.slice(1);
    try {
      // The burst's sends in flight as every connection of the instances to the database is ended.
      const answers = payloads.map((payload) => aSocket.emitWithAck('message:send', payload));
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
      const acks = await Promise.all(answers);
      // The outbox sends again whatever was not stored: each refusal says to try again, never for good.
      for (const [i, ack] of acks.entries()) {
        if (ack.ok) continue;
        expect(ack.error.code, JSON.stringify(ack)).toBe('internal');
        await waitUntil(async () => (await aSocket.emitWithAck('message:send', payloads[i]!)).ok, 10_000, `cut ${i} stored`);
      }
    } finally {
      await admin.end();
    }
    // A request that meets a connection ended as it goes is answered 500 (the client asks again): the
    // next one opens a new one.
    const read = () => client(two.url).get(`/api/conversations/${conversationId}/messages/?after=0&limit=100`, { token: b.token });
    await waitUntil(async () => (await read()).status === 200, 5000, 'instance two reading again');
    const stored = (await read()).body.results as Array<{ id: number; content: string }>;
    expect(stored.map((m) => m.content).sort()).toEqual(payloads.map((p) => p.content).sort());
    const told = () => new Set(bEvents.filter((e) => e.event === 'message:new').map((e) => (e.payload as { message: { id: number } }).message.id));
    await waitUntil(() => told().size === stored.length, 5000, 'Ben told of each');
  });

  it('does not let an outsider on the other instance send into a conversation', async () => {
    const { a, b, conversationId } = await makePair(one);
    const outsider = await makeCompletedUser(one);
    const eveSocket = await connectTo(two, outsider.token);
    const ack = await eveSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'hi', client_id: newClientId() });
    expect(ack).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await storedMessages(one, a.token, conversationId)).toEqual([]);
    await expect(connect(two.url, `${b.token}x`)).rejects.toThrow('unauthorized');
  });

  it('ends a token logged out on one instance on the other at once: its cached lookup and its sockets', async () => {
    const ana = await makeCompletedUser(one);
    const elsewhere = await connectTo(two, ana.token);
    // Instance two has looked the token up (the handshake, then this request) and remembers it.
    expect((await client(two.url).get('/api/users/me/', { token: ana.token })).status).toBe(200);
    const dropped = waitForDisconnect(elsewhere);

    expect((await client(one.url).post('/api/auth/logout/', { token: ana.token })).status).toBe(204);
    expect(await dropped).toBe('io server disconnect');
    const refused = await client(two.url).get('/api/users/me/', { token: ana.token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: 'Invalid token.' });
  });
});

describe.skipIf(!ready)('presence when a phone moves to the other instance', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let databaseLink: Awaited<ReturnType<typeof tcpProxy>>;
  let one: TestServer;
  let two: TestServer;
  const sockets = socketsClosedAfterEach();
  const redis = createClient({ url: REDIS_URL });

  beforeAll(async () => {
    database = await createPostgresDatabase({ migrated: true });
    // Instance one reaches PostgreSQL through a link whose replies the test can hold.
    databaseLink = await tcpProxy(database.url);
    const throughLink = new URL(database.url);
    throughLink.port = new URL(databaseLink.url).port;
    const config = { redisUrl: REDIS_URL, redisPrefix: `test-${randomBytes(6).toString('hex')}` };
    one = await startServer({ backend: 'postgres', databaseUrl: throughLink.toString(), config });
    two = await startServer({ backend: 'postgres', databaseUrl: database.url, config });
    await redis.connect();
  });
  afterAll(async () => {
    redis.destroy();
    await Promise.all([one?.close(), two?.close()]);
    await databaseLink?.close();
    await database?.drop();
  });

  it('says a user online again when their phone, reloaded onto the other instance, connected there after the one it left asked', async () => {
    const { a, b } = await makePair(one);
    const bSocket = await sockets.connect(two.url, b.token);
    const online = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
    const aOnOne = await sockets.connect(one.url, a.token);
    await online;

    // Instance one's answers from PostgreSQL wait: its "offline", decided once the cluster said Ana has
    // no socket left, goes out only after her reloaded page has connected to instance two.
    // The adapter's channel for the answers to instance one's questions (a protected field, its id).
    const { uid } = one.app.io.of('/').adapter as unknown as { uid: string };
    let heardAnswer = () => {};
    const answered = new Promise<void>((resolve) => (heardAnswer = resolve));
    await redis.sSubscribe(`${one.config.redisPrefix}#/#${uid}#`, () => heardAnswer());
    const resume = databaseLink.pauseReplies();
    aOnOne.close();
    // Instance two has answered instance one's question (no socket of Ana's here): the page loads again, there.
    await answered;
    const onlineAgain = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
    await sockets.connect(two.url, a.token);
    await onlineAgain;
    const offline = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && !p.online);
    const lastOnline = offline.then(() => waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online));
    resume();
    // The stale "offline" may reach Ben; what he is told last is that Ana is online.
    await offline;
    await lastOnline;
  });
});

describe.skipIf(!ready)('presence while the instance holding a user\'s other socket is slow to answer', () => {
  let oneLink: Awaited<ReturnType<typeof tcpProxy>>;
  let twoLink: Awaited<ReturnType<typeof tcpProxy>>;
  let cluster: TwoInstances;
  const sockets = socketsClosedAfterEach();
  /** Each sees what instance one sends Redis. */
  const watchers = new Set<(sent: string) => void>();

  beforeAll(async () => {
    // Each instance reaches Redis through a link of its own: the test reads what instance one asks, and
    // holds what instance two hears (it hears nothing meanwhile, so it cannot answer).
    oneLink = await tcpProxy(REDIS_URL, { onClientData: (chunk) => watchers.forEach((watch) => watch(chunk.toString('latin1'))) });
    twoLink = await tcpProxy(REDIS_URL);
    cluster = await startTwoInstances({ redisUrl: oneLink.url, redisUrlOfTwo: twoLink.url });
  });
  afterAll(async () => {
    await cluster?.close();
    await Promise.all([oneLink?.close(), twoLink?.close()]);
  });

  /** Resolves once instance one has asked the others `times` times whether they hold a socket of this user. */
  function oneAskedWhereIs(userId: number, times: number) {
    return new Promise<void>((resolve) => {
      let asked = 0;
      // The adapter's fetchSockets question (its message type 7), published for the other instances to answer.
      const watch = (sent: string) => {
        if (!sent.includes('SPUBLISH') || !sent.includes('"type":7') || !sent.includes(`"rooms":["${rooms.user(userId)}"]`)) return;
        if (++asked < times) return;
        watchers.delete(watch);
        resolve();
      };
      watchers.add(watch);
    });
  }

  it('lists a match online on an instance that does not answer in time, by the presence roll', async () => {
    const { one, two } = cluster;
    const { a, b } = await makePair(one);
    const bSocket = await sockets.connect(one.url, b.token);
    const online = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
    // Ana's only socket is on instance two: on its roll entry before her "online" went out (one connection, in order).
    await sockets.connect(two.url, a.token);
    await online;

    // Instance two hears nothing, so it cannot answer instance one's question, which times out; Redis
    // itself answers, and instance two is alive on the roll.
    const resume = twoLink.pauseReplies();
    try {
      expect(await bSocket.emitWithAck('presence:list', {})).toEqual({ ok: true, online: [a.id] });
    } finally {
      resume();
    }
  });

  it('keeps a user online, and looks again, when the cluster does not say in time where their other socket is', async () => {
    const { one, two } = cluster;
    const { a, b } = await makePair(one);
    const bSocket = await sockets.connect(one.url, b.token);
    // Each of her sockets' "online" heard by Ben before what follows.
    const onlineFrom = async (server: TestServer) => {
      const online = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
      const socket = await sockets.connect(server.url, a.token);
      await online;
      return socket;
    };
    const aOnOne = await onlineFrom(one);
    const aOnTwo = await onlineFrom(two);
    const bEvents = record(bSocket);

    // Ana's tab on instance one closes while instance two, which holds her phone, cannot answer: the
    // question times out. Asked again, it answers.
    const askedTwice = oneAskedWhereIs(a.id, 2);
    const resume = twoLink.pauseReplies();
    aOnOne.close();
    await askedTwice;
    resume();

    // Barrier: her phone closes too, and Ben hears that she is offline, once.
    const offline = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && !p.online);
    aOnTwo.close();
    await offline;
    expect(bEvents.filter((e) => e.event === 'presence')).toEqual([{ event: 'presence', payload: { user_id: a.id, online: false } }]);
  });
});
