import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { authTokens } from '../../server/db/schema';
import { runJob } from '../../server/jobs';
import { tokenSweep } from '../../server/jobs/token-sweep';
import { hashToken } from '../../server/lib/tokens';
import { limitRules } from '../../server/lib/limits';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { backends, loggerInto, serverPerSuite } from '../helpers/server';
import { later } from '../helpers/later';
import { hasPostgres } from '../helpers/services';
import { type ClientSocket, connect, record, socketsClosedAfterEach, waitFor, waitForDisconnect } from '../helpers/socket';
import { makePair, match, newClientId, storedMessages } from './fixtures';

describe.each(backends)('the socket channel on one instance (%s)', (backend) => {
  const sockets = socketsClosedAfterEach();
  const connectAs = (token: string) => sockets.connect(server.url, token);

  /** What the server warned about (a message batch that failed as a whole is one). */
  const warnings: string[] = [];
  const server = serverPerSuite({ backend, logger: loggerInto(warnings, 'warn') });

  it('refuses a missing, unknown or oversized token with connect_error "unauthorized"', async () => {
    await expect(connect(server.url, undefined)).rejects.toThrow('unauthorized');
    await expect(connect(server.url, 'not-a-real-token')).rejects.toThrow('unauthorized');
    await expect(connect(server.url, 'x'.repeat(5000))).rejects.toThrow('unauthorized');
    const user = await makeCompletedUser(server);
    const socket = await connectAs(user.token);
    expect(socket.connected).toBe(true);
  });

  it('speaks WebSocket only: a long-polling handshake is refused', async () => {
    const polling = await fetch(`${server.url}/socket.io/?EIO=4&transport=polling`);
    expect(polling.status).toBe(400);
    await polling.body?.cancel();
  });

  it('pushes match:new to both users with the other one and the conversation', async () => {
    const ana = await makeCompletedUser(server, { name: 'Ana' }, { firstName: 'Ana' });
    const ben = await makeCompletedUser(server, { name: 'Ben' }, { firstName: 'Ben' });
    const [anaSocket, benSocket] = await Promise.all([connectAs(ana.token), connectAs(ben.token)]);
    const anaHears = waitFor(anaSocket, 'match:new');
    const benHears = waitFor(benSocket, 'match:new');
    const api = client(server.url);
    expect((await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: ben.id } })).body.match).toBe(false);
    const matched = await api.post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } });
    expect(matched.body.match).toBe(true);
    const [toAna, toBen] = await Promise.all([anaHears, benHears]);
    expect(toAna).toMatchObject({ conversation_id: matched.body.conversation_id, user: { id: ben.id, name: 'Ben' } });
    expect(toBen).toMatchObject({ conversation_id: matched.body.conversation_id, user: { id: ana.id, name: 'Ana' } });
    expect(toAna.user.image).toMatch(/^\/media\//);
  });

  it('tells my other phones of an answer that made no match (deck:answered), and nobody else', async () => {
    const ana = await makeCompletedUser(server);
    const [ben, cleo, dan] = await Promise.all([makeCompletedUser(server), makeCompletedUser(server), makeCompletedUser(server)]);
    const [anaPhone, anaLaptop, benSocket] = await Promise.all([connectAs(ana.token), connectAs(ana.token), connectAs(ben.token)]);
    const benEvents = record(benSocket);
    const api = client(server.url);
    for (const [response, other] of [['like', ben.id], ['dislike', cleo.id], ['skip', dan.id]] as const) {
      const heard = Promise.all([waitFor(anaPhone, 'deck:answered'), waitFor(anaLaptop, 'deck:answered')]);
      expect((await api.post('/api/matching/', { token: ana.token, json: { response, other } })).body.match).toBe(false);
      expect(await heard).toEqual([{ user_id: other, response }, { user_id: other, response }]);
    }
    // Ben's like back is a match: match:new says it, to both, and no deck:answered.
    const anaEvents = record(anaLaptop);
    const matched = waitFor(anaLaptop, 'match:new');
    expect((await api.post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } })).body.match).toBe(true);
    await matched;
    expect(anaEvents.map((e) => e.event)).toEqual(['match:new']);
    expect(benEvents.map((e) => e.event)).toEqual(['match:new']);
  });

  it('sends over the socket: ack with the stored message, message:new to both, idempotent by client_id', async () => {
    const { a, b, conversationId } = await makePair(server);
    const [aSocket, bSocket] = await Promise.all([connectAs(a.token), connectAs(b.token)]);
    const bEvents = record(bSocket);
    const clientId = newClientId();
    const bHears = waitFor(bSocket, 'message:new');
    const ack = await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: '  hi there  ', client_id: clientId });
    expect(ack).toMatchObject({ ok: true, message: { sender: a.id, content: 'hi there', client_id: clientId } });
    if (!ack.ok) throw new Error('unreachable');
    // The conversation's first message: none before it.
    expect(await bHears).toEqual({ conversation_id: conversationId, message: ack.message, previous_id: null });

    // A retry (same client_id) returns the same message, stores nothing new, and pushes the same
    // message again (its first push may never have gone out): clients take it once, by its id.
    const again = waitFor(bSocket, 'message:new');
    const retry = await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'hi there', client_id: clientId });
    expect(retry).toEqual(ack);
    expect(await again).toEqual({ conversation_id: conversationId, message: ack.message, previous_id: null });
    const secondHeard = waitFor(bSocket, 'message:new', (event) => event.message.content === 'second');
    const later = await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'second', client_id: newClientId() });
    expect(later.ok).toBe(true);
    await secondHeard;
    expect(bEvents.filter((e) => e.event === 'message:new').map((e) => (e.payload as { message: { content: string } }).message.content)).toEqual([
      'hi there',
      'hi there',
      'second',
    ]);
    expect((await storedMessages(server, a.token, conversationId)).map((m) => m.content)).toEqual(['hi there', 'second']);
  });

  it('pushes a message posted over REST exactly like one sent over the socket', async () => {
    const { a, b, conversationId } = await makePair(server);
    const [aSocket, bSocket] = await Promise.all([connectAs(a.token), connectAs(b.token)]);
    const bHears = waitFor(bSocket, 'message:new');
    const aHears = waitFor(aSocket, 'message:new');
    const posted = await client(server.url).post(`/api/conversations/${conversationId}/messages/`, {
      token: a.token,
      json: { content: 'from REST', client_id: newClientId() },
    });
    expect(posted.status).toBe(201);
    const pushed = await bHears;
    expect(pushed.conversation_id).toBe(conversationId);
    expect(pushed.message).toMatchObject({ id: posted.body.id, sender: a.id, content: 'from REST', time: posted.body.time });
    expect(await aHears).toEqual(pushed);
  });

  it('keeps the service rules for sends committed together (one burst, one group commit)', async () => {
    const { a, b, conversationId } = await makePair(server);
    const cleo = await makeCompletedUser(server, { name: 'Cleo' });
    const withCleo = await match(server, a, cleo);
    const eve = await makeCompletedUser(server, { name: 'Eve' });
    const [aSocket, bSocket, eveSocket] = await Promise.all([connectAs(a.token), connectAs(b.token), connectAs(eve.token)]);
    const reused = newClientId();
    expect((await aSocket.emitWithAck('message:send', { conversation_id: withCleo, content: 'elsewhere', client_id: reused })).ok).toBe(true);

    const bEvents = record(bSocket);
    const twoHeard = waitFor(bSocket, 'message:new', (event) => event.message.content === 'two');
    const twice = newClientId();
    const send = (socket: ClientSocket, content: string, clientId: string) =>
      socket.emitWithAck('message:send', { conversation_id: conversationId, content, client_id: clientId });
    const [first, again, shouted, reusedAck, stranger, two] = await Promise.all([
      send(aSocket, 'one', twice),
      send(aSocket, 'one again', twice),
      // The same uuid in capitals is the same client_id (PostgreSQL compares uuids, not their text).
      send(aSocket, 'one in capitals', twice.toUpperCase()),
      send(aSocket, 'reused', reused),
      send(eveSocket, 'intruder', newClientId()),
      send(aSocket, 'two', newClientId()),
    ]);
    expect(first).toMatchObject({ ok: true, message: { content: 'one' } });
    expect(again).toEqual(first);
    expect(shouted).toEqual(first);
    expect(reusedAck).toMatchObject({ ok: false, error: { code: 'validation', fields: { client_id: ['This client_id was already used for another message.'] } } });
    expect(stranger).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(two).toMatchObject({ ok: true, message: { content: 'two' } });

    await twoHeard;
    // Stored in one statement, each is told with the one before it, the batch's own first included
    // (and told again for each send repeating it: clients take a message once, by its id).
    const told = bEvents.filter((e) => e.event === 'message:new').map((e) => e.payload as { message: { id: number } });
    expect([...new Map(told.map((payload) => [payload.message.id, payload])).values()]).toEqual([
      { conversation_id: conversationId, message: first.ok && first.message, previous_id: null },
      { conversation_id: conversationId, message: two.ok && two.message, previous_id: first.ok && first.message.id },
    ]);
    expect((await storedMessages(server, b.token, conversationId)).map((m) => m.content)).toEqual(['one', 'two']);
    const started = await client(server.url).get('/api/conversations/started/', { token: b.token });
    expect(started.body.results.find((c: { id: number }) => c.id === conversationId)).toMatchObject({ last_message: 'two', unread_count: 2 });
  });

  it('answers a burst larger than one slice of a batch in the order the messages were stored', async () => {
    // Four senders, 25 each at once (under the limit of 30 per 10 s): batches of up to 100 sends,
    // answered a slice at a time; each recipient must hear its partner's messages in stored order.
    const pairs = await Promise.all(Array.from({ length: 4 }, () => makePair(server)));
    const PER_SENDER = 25;
    const sockets = await Promise.all(pairs.map(async (pair) => ({ a: await connectAs(pair.a.token), b: await connectAs(pair.b.token) })));
    const heard = sockets.map(({ b }, i) => {
      const contents: string[] = [];
      const ids: number[] = [];
      const done = new Promise<void>((resolve) =>
        b.on('message:new', ({ conversation_id, message }) => {
          if (conversation_id !== pairs[i]!.conversationId) return;
          contents.push(message.content);
          ids.push(message.id);
          if (contents.length === PER_SENDER) resolve();
        }),
      );
      return { contents, ids, done };
    });

    const acks = await Promise.all(
      sockets.flatMap(({ a }, i) =>
        Array.from({ length: PER_SENDER }, (_, k) =>
          a.emitWithAck('message:send', { conversation_id: pairs[i]!.conversationId, content: `m${k}`, client_id: newClientId() }),
        ),
      ),
    );
    expect(acks.every((ack) => ack.ok)).toBe(true);
    await Promise.all(heard.map((h) => h.done));
    const sent = Array.from({ length: PER_SENDER }, (_, k) => `m${k}`);
    for (const [i, h] of heard.entries()) {
      expect(h.contents).toEqual(sent);
      expect(h.ids).toEqual([...h.ids].sort((x, y) => x - y));
      expect((await storedMessages(server, pairs[i]!.b.token, pairs[i]!.conversationId)).map((m) => m.content)).toEqual(sent);
    }
  });

  it('refuses a message with half of a surrogate pair, as the REST route does, and sends the rest of its batch', async () => {
    const { a, b, conversationId } = await makePair(server);
    const [aSocket, bSocket] = await Promise.all([connectAs(a.token), connectAs(b.token)]);
    const heard: string[] = [];
    const allHeard = new Promise<void>((resolve) =>
      bSocket.on('message:new', ({ message }) => {
        heard.push(message.content);
        if (heard.length === 2) resolve();
      }),
    );
    const contents = ['before', 'half an emoji \ud83d here', 'after'];
    const acks = await Promise.all(
      contents.map((content) => aSocket.emitWithAck('message:send', { conversation_id: conversationId, content, client_id: newClientId() })),
    );
    // Stored, it would read U+FFFD: the sender's text changed without a word.
    expect(acks.map((ack) => (ack.ok ? ack.message.content : ack.error.code))).toEqual(['before', 'validation', 'after']);
    expect(warnings.filter((line) => line.includes('message batch failed'))).toEqual([]);
    await allHeard;
    expect(heard).toEqual(['before', 'after']);
    expect((await storedMessages(server, b.token, conversationId)).map((m) => m.content)).toEqual(['before', 'after']);
    const viaRest = await client(server.url).post(`/api/conversations/${conversationId}/messages/`, {
      token: a.token,
      json: { content: 'rest \ud83d' },
    });
    expect(viaRest.status).toBe(400);
    expect(viaRest.body).toEqual({ content: ['This text holds half of a character: type it again.'] });
  });

  it('refuses bad payloads with an error ack and keeps the socket open', async () => {
    const { a, conversationId } = await makePair(server);
    const socket = await connectAs(a.token);
    const bad: unknown[] = [
      null,
      'hello',
      42,
      [],
      {},
      { conversation_id: conversationId, content: '', client_id: newClientId() },
      { conversation_id: conversationId, content: '   ', client_id: newClientId() },
      { conversation_id: conversationId, content: 'x'.repeat(2001), client_id: newClientId() },
      { conversation_id: conversationId, content: 'ok', client_id: 'not-a-uuid' },
      { conversation_id: 'abc', content: 'ok', client_id: newClientId() },
      { conversation_id: -1, content: 'ok', client_id: newClientId() },
      { conversation_id: conversationId, content: { $ne: 1 }, client_id: newClientId() },
      { conversation_id: conversationId, content: 'nul \u0000 byte', client_id: newClientId() },
      // Half of an emoji's surrogate pair: stored, it would read U+FFFD.
      { conversation_id: conversationId, content: 'half \ud83d of a smile', client_id: newClientId() },
    ];
    for (const payload of bad) {
      const ack = await socket.emitWithAck('message:send', payload as never);
      expect(ack, JSON.stringify(payload)).toMatchObject({ ok: false, error: { code: 'validation' } });
    }
    const fields = await socket.emitWithAck('message:send', { conversation_id: conversationId, content: '', client_id: 'nope' });
    expect(fields).toMatchObject({ ok: false, error: { fields: { content: expect.any(Array), client_id: expect.any(Array) } } });
    expect((await socket.emitWithAck('message:read', { conversation_id: conversationId, last_read_id: -5 })).ok).toBe(false);
    expect((await socket.emitWithAck('typing', { conversation_id: 'x' } as never)).ok).toBe(false);
    // No payload at all: the ack is the only argument, and still gets its answer.
    expect(await (socket.emitWithAck as unknown as (event: string) => Promise<unknown>)('message:send')).toMatchObject({
      ok: false,
      error: { code: 'validation' },
    });
    // A send without an ack callback is handled without crashing anything.
    socket.emit('message:send', 'junk' as never, undefined as never);

    expect(socket.connected).toBe(true);
    expect(await storedMessages(server, a.token, conversationId)).toEqual([]);
    const good = await socket.emitWithAck('message:send', { conversation_id: conversationId, content: 'still here', client_id: newClientId() });
    expect(good.ok).toBe(true);
  });

  it("answers errors in the socket's language: Spanish with auth.language 'es', English otherwise", async () => {
    const { a, conversationId } = await makePair(server);
    const spanish = await sockets.connect(server.url, a.token, { auth: { language: 'es' } });
    const english = await connectAs(a.token);
    const bad = { conversation_id: conversationId, content: '', client_id: newClientId() };
    expect(await spanish.emitWithAck('message:send', bad)).toMatchObject({
      ok: false,
      error: { code: 'validation', message: 'Datos no válidos.', fields: { content: ['Este campo no puede estar vacío.'] } },
    });
    expect(await english.emitWithAck('message:send', bad)).toMatchObject({
      ok: false,
      error: { code: 'validation', message: 'Invalid payload.', fields: { content: ['This field may not be blank.'] } },
    });
    const missing = { conversation_id: 2_000_000_000 };
    expect(await spanish.emitWithAck('typing', missing)).toEqual({ ok: false, error: { code: 'not_found', message: 'No encontrado.' } });
    expect(await english.emitWithAck('typing', missing)).toEqual({ ok: false, error: { code: 'not_found', message: 'Not found.' } });
  });

  it('does not let an outsider send, read or type into a conversation', async () => {
    const { a, b, conversationId } = await makePair(server);
    const outsider = await makeCompletedUser(server, { name: 'Eve' });
    const [aSocket, bSocket, eveSocket] = await Promise.all([connectAs(a.token), connectAs(b.token), connectAs(outsider.token)]);
    const aEvents = record(aSocket);
    const bEvents = record(bSocket);
    const send = await eveSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'let me in', client_id: newClientId() });
    expect(send).toEqual({ ok: false, error: { code: 'not_found', message: 'Not found.' } });
    expect((await eveSocket.emitWithAck('typing', { conversation_id: conversationId })).ok).toBe(false);
    expect((await eveSocket.emitWithAck('message:read', { conversation_id: conversationId, last_read_id: 1 })).ok).toBe(false);
    expect((await eveSocket.emitWithAck('message:send', { conversation_id: 999_999, content: 'x', client_id: newClientId() })).ok).toBe(false);

    // A later event on the same path arrives after anything the outsider could have caused.
    const barrier = waitFor(bSocket, 'typing');
    await aSocket.emitWithAck('typing', { conversation_id: conversationId });
    await barrier;
    // Presence between the two partners may arrive (they connected together); nothing else may.
    expect(aEvents.filter((e) => e.event !== 'presence')).toEqual([]);
    expect(bEvents.filter((e) => e.event !== 'presence')).toEqual([
      { event: 'typing', payload: { conversation_id: conversationId, user_id: a.id } },
    ]);
    expect(await storedMessages(server, a.token, conversationId)).toEqual([]);
  });

  it('sends typing to the partner only, read receipts to both (the reader’s other phones follow), never to others', async () => {
    const { a, b, conversationId } = await makePair(server);
    // Ana has a second match, Cleo: she must hear nothing about the Ana–Ben conversation.
    const cleo = await makeCompletedUser(server, { name: 'Cleo' });
    const withCleo = await match(server, a, cleo);
    const [aSocket, bSocket, cleoSocket, aOtherPhone] = await Promise.all([connectAs(a.token), connectAs(b.token), connectAs(cleo.token), connectAs(a.token)]);
    const aEvents = record(aSocket);
    const cleoEvents = record(cleoSocket);

    const delivered = waitFor(aSocket, 'message:new');
    const sent = await bSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'hey', client_id: newClientId() });
    if (!sent.ok) throw new Error(JSON.stringify(sent));
    await delivered;

    const typingSeen = waitFor(bSocket, 'typing');
    expect(await aSocket.emitWithAck('typing', { conversation_id: conversationId })).toEqual({ ok: true });
    expect(await typingSeen).toEqual({ conversation_id: conversationId, user_id: a.id });

    const readSeen = waitFor(bSocket, 'message:read');
    const readOnOtherPhone = waitFor(aOtherPhone, 'message:read');
    expect(await aSocket.emitWithAck('message:read', { conversation_id: conversationId, last_read_id: sent.message.id + 1000 })).toEqual({ ok: true });
    // Clamped to the newest message.
    expect(await readSeen).toEqual({ conversation_id: conversationId, user_id: a.id, last_read_id: sent.message.id });
    expect(await readOnOtherPhone).toEqual({ conversation_id: conversationId, user_id: a.id, last_read_id: sent.message.id });
    // Receipts for what is already read change nothing, and nobody is told of them.
    expect(await aSocket.emitWithAck('message:read', { conversation_id: conversationId, last_read_id: sent.message.id })).toEqual({ ok: true });
    expect(await aSocket.emitWithAck('message:read', { conversation_id: conversationId, last_read_id: 1 })).toEqual({ ok: true });

    // Barrier: Ana types to Cleo last; once Cleo has that, she had every earlier event too.
    const cleoHears = waitFor(cleoSocket, 'typing');
    await aSocket.emitWithAck('typing', { conversation_id: withCleo });
    await cleoHears;
    expect(cleoEvents.filter((e) => e.event !== 'presence')).toEqual([
      { event: 'typing', payload: { conversation_id: withCleo, user_id: a.id } },
    ]);
    expect(aEvents.filter((e) => e.event !== 'presence').map((e) => e.event)).toEqual(['message:new', 'message:read']);
  });

  it('keeps typing and read receipts working in the rest of a user’s conversations after an unmatch', async () => {
    const { a, conversationId: ended } = await makePair(server, ['Uma', 'Ugo']);
    const cleo = await makeCompletedUser(server, { name: 'Cleo' });
    const withCleo = await match(server, a, cleo);
    expect((await client(server.url).delete(`/api/conversations/${ended}/`, { token: a.token })).status).toBe(204);
    const [aSocket, cleoSocket] = await Promise.all([connectAs(a.token), connectAs(cleo.token)]);
    // Something to read (a receipt that moves no marker is not broadcast).
    const hello = await cleoSocket.emitWithAck('message:send', { conversation_id: withCleo, content: 'hola', client_id: newClientId() });
    if (!hello.ok) throw new Error(JSON.stringify(hello));

    for (const [from, to, fromUser] of [
      [aSocket, cleoSocket, a],
      [cleoSocket, aSocket, cleo],
    ] as const) {
      const typed = waitFor(to, 'typing');
      expect(await from.emitWithAck('typing', { conversation_id: withCleo })).toEqual({ ok: true });
      expect(await typed).toEqual({ conversation_id: withCleo, user_id: fromUser.id });
      const read = waitFor(to, 'message:read');
      expect(await from.emitWithAck('message:read', { conversation_id: withCleo, last_read_id: hello.message.id })).toEqual({ ok: true });
      expect(await read).toEqual({ conversation_id: withCleo, user_id: fromUser.id, last_read_id: hello.message.id });
    }
    // The ended one stays closed to both.
    expect((await aSocket.emitWithAck('typing', { conversation_id: ended })).ok).toBe(false);
  });

  it('tells only matched users when someone comes online and goes offline, and lists who is online', async () => {
    const { a, b } = await makePair(server);
    const stranger = await makeCompletedUser(server, { name: 'Stranger' });
    const [bSocket, strangerSocket] = await Promise.all([connectAs(b.token), connectAs(stranger.token)]);
    const strangerEvents = record(strangerSocket);
    const online = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
    const aSocket = await connectAs(a.token);
    await online;
    expect(await aSocket.emitWithAck('presence:list', {})).toEqual({ ok: true, online: [b.id] });

    // A second tab closing keeps Ana online; the last one closing makes her offline.
    const aSecond = await connectAs(a.token);
    const offline = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && !p.online);
    const bEvents = record(bSocket);
    aSecond.close();
    expect(await bSocket.emitWithAck('presence:list', {})).toEqual({ ok: true, online: [a.id] });
    aSocket.close();
    await offline;
    expect(bEvents.filter((e) => e.event === 'presence')).toEqual([{ event: 'presence', payload: { user_id: a.id, online: false } }]);
    expect(await bSocket.emitWithAck('presence:list', {})).toEqual({ ok: true, online: [] });
    expect(strangerEvents).toEqual([]);
  });

  it('rate-limits sends per user, socket and REST together, with a throttled ack, and the socket lives on', async () => {
    const { a, conversationId } = await makePair(server);
    const [socket, secondTab] = await Promise.all([connectAs(a.token), connectAs(a.token)]);
    const { max } = limitRules(server.config)['message:send'];
    const send = (tab: typeof socket, i: number) =>
      tab.emitWithAck('message:send', { conversation_id: conversationId, content: `n${i}`, client_id: newClientId() });
    // A third of the limit over REST, the rest over two sockets of the same user.
    const rest = Math.floor(max / 3);
    for (let i = 0; i < rest; i++) {
      const sent = await client(server.url).post(`/api/conversations/${conversationId}/messages/`, {
        token: a.token,
        json: { content: `rest${i}` },
      });
      expect(sent.status).toBe(201);
    }
    const acks = await Promise.all(
      Array.from({ length: max - rest + 10 }, (_, i) => send(i % 2 === 0 ? socket : secondTab, i)),
    );
    const throttled = acks.filter((ack) => !ack.ok && ack.error.code === 'throttled');
    expect(throttled).toHaveLength(10);
    expect(throttled[0]).toMatchObject({ error: { message: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds\.$/) } });
    // The wait in a number too, as REST's Retry-After: the client waits it out and sends again by itself.
    const ack = throttled[0] as { error: { message: string; retry_after: number } };
    expect(ack.error.retry_after).toBe(Number(/\d+/.exec(ack.error.message)![0]));
    expect(ack.error.retry_after).toBeGreaterThanOrEqual(1);
    const refused = await client(server.url).post(`/api/conversations/${conversationId}/messages/`, {
      token: a.token,
      json: { content: 'one more' },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const stored = await storedMessages(server, a.token, conversationId);
    expect(stored.length).toBe(max);
    expect(socket.connected && secondTab.connected).toBe(true);
  });

  it('answers a resend of a stored message with it, without counting it again, socket and REST, over the limit too', async () => {
    const { a, conversationId } = await makePair(server);
    const socket = await connectAs(a.token);
    const { max } = limitRules(server.config)['message:send'];
    const posted = (payload: { content: string; client_id: string }) =>
      client(server.url).post(`/api/conversations/${conversationId}/messages/`, { token: a.token, json: payload });
    const payloads = Array.from({ length: max }, (_, i) => ({ conversation_id: conversationId, content: `q${i}`, client_id: newClientId() }));
    const sent = [];
    for (const payload of payloads.slice(0, max - 1)) sent.push(await socket.emitWithAck('message:send', payload));
    expect(sent.every((ack) => ack.ok)).toBe(true);
    const ids = sent.map((ack) => (ack.ok ? ack.message.id : 0));

    // A phone back on the network sends its queue again: those stored are answered with themselves.
    for (const payload of payloads.slice(0, 3)) expect(await socket.emitWithAck('message:send', payload)).toMatchObject({ ok: true, message: { id: ids[payloads.indexOf(payload)] } });
    const again = await posted(payloads[3]!);
    expect([again.status, again.body.id]).toEqual([201, ids[3]]);
    // They took none of the limit: the last message of it goes, the one after it waits.
    expect(await socket.emitWithAck('message:send', payloads[max - 1]!)).toMatchObject({ ok: true });
    expect(await socket.emitWithAck('message:send', { conversation_id: conversationId, content: 'one too many', client_id: newClientId() })).toMatchObject({
      ok: false,
      error: { code: 'throttled' },
    });
    expect((await posted({ content: 'one too many', client_id: newClientId() })).status).toBe(429);
    // Past the limit, a resend of a stored message is still answered with it.
    expect(await socket.emitWithAck('message:send', payloads[4]!)).toMatchObject({ ok: true, message: { id: ids[4] } });
    const late = await posted(payloads[5]!);
    expect([late.status, late.body.id]).toEqual([201, ids[5]]);
    expect((await storedMessages(server, a.token, conversationId)).map((m) => m.content)).toEqual(payloads.map((payload) => payload.content));
  });

  it('disconnects the sockets of a token revoked by logout, and only those', async () => {
    const { a, b } = await makePair(server);
    const api = client(server.url);
    const secondLogin = await api.post('/api/auth/', { json: { username: a.email, password: a.password } });
    const [loggingOut, otherDevice, partner] = await Promise.all([
      connectAs(a.token),
      connectAs(secondLogin.body.token),
      connectAs(b.token),
    ]);
    const dropped = waitForDisconnect(loggingOut);
    expect((await api.post('/api/auth/logout/', { token: a.token })).status).toBe(204);
    // Server-side, at once: the client does not try again with the dead token.
    expect(await dropped).toBe('io server disconnect');
    expect(otherDevice.connected).toBe(true);
    expect(partner.connected).toBe(true);
    await expect(connect(server.url, a.token)).rejects.toThrow('unauthorized');
    expect(await runJob(server.app, tokenSweep)).toMatchObject({ status: 'done', report: { disconnected: 0 } });
  });

  it('sweeps the sockets of a token that vanished without a revocation reaching this instance', async () => {
    const { a, b } = await makePair(server);
    const [orphaned, partner] = await Promise.all([connectAs(a.token), connectAs(b.token)]);
    const dropped = waitForDisconnect(orphaned);
    // As if revoked on an instance whose news could not travel: the row is gone, nobody said so here.
    await server.app.db.delete(authTokens).where(eq(authTokens.tokenHash, hashToken(a.token)));
    expect(await runJob(server.app, tokenSweep)).toMatchObject({ status: 'done', report: { disconnected: 1 } });
    expect(await dropped).toBe('io server disconnect');
    expect(partner.connected).toBe(true);
  });

  it('sweeps the sockets of a token a ban ended where the news could not reach, though its row stays', async () => {
    const { a, b } = await makePair(server);
    const [banned, partner] = await Promise.all([connectAs(a.token), connectAs(b.token)]);
    const dropped = waitForDisconnect(banned);
    // Kept to tell the phone it was suspended, the row no longer keeps a socket open.
    await server.app.db.update(authTokens).set({ endedByBan: true }).where(eq(authTokens.tokenHash, hashToken(a.token)));
    expect(await runJob(server.app, tokenSweep)).toMatchObject({ status: 'done', report: { disconnected: 1 } });
    expect(await dropped).toBe('io server disconnect');
    expect(partner.connected).toBe(true);
  });

  it('lets a reconnecting client catch up on what it missed with ?after=', async () => {
    const { a, b, conversationId } = await makePair(server);
    const bSocket = await connectAs(b.token);
    const first = await bSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'one', client_id: newClientId() });
    if (!first.ok) throw new Error(JSON.stringify(first));
    // Ana is offline for these.
    for (const content of ['two', 'three']) {
      expect((await bSocket.emitWithAck('message:send', { conversation_id: conversationId, content, client_id: newClientId() })).ok).toBe(true);
    }
    const missed = await client(server.url).get(`/api/conversations/${conversationId}/messages/?after=${first.message.id}`, { token: a.token });
    expect(missed.status).toBe(200);
    expect(missed.body.results.map((m: { content: string }) => m.content)).toEqual(['two', 'three']);
  });
});

/** Presence with the database's reads on a pool of connections, which may answer in either order. */
describe.skipIf(!(await hasPostgres()))('presence on PostgreSQL', () => {
  const server = serverPerSuite({ backend: 'postgres' });

  it('tells presence in the order it changed, whichever of its partner reads answers first', async () => {
    const { a, b } = await makePair(server, ['Pia', 'Pol']);
    const bSocket = await connect(server.url, b.token);
    const bEvents = record(bSocket);
    // The next read of Pia's partners (her "online") answers only once the one after it (her
    // "offline") has, or after half a second when none comes meanwhile: two pooled connections may
    // answer in either order.
    const driver = (server.app.db as unknown as { $client: { unsafe: (text: string, ...rest: unknown[]) => Promise<unknown> } }).$client;
    const unsafe = driver.unsafe;
    const firstHeld = later<void>();
    const releaseFirst = () => firstHeld.resolve();
    let partnerReads = 0;
    driver.unsafe = (text: string, ...rest: unknown[]) => {
      if (!text.includes('as partner_id')) return unsafe.call(driver, text, ...rest);
      partnerReads += 1;
      if (partnerReads === 1) {
        setTimeout(releaseFirst, 500);
        return firstHeld.promise.then(() => unsafe.call(driver, text, ...rest));
      }
      const read = unsafe.call(driver, text, ...rest);
      if (partnerReads === 2) void read.then(releaseFirst, releaseFirst);
      return read;
    };
    try {
      const aSocket = await connect(server.url, a.token);
      aSocket.close();
      // Her online, then her offline.
      await vi.waitFor(() => expect(bEvents.filter((e) => e.event === 'presence')).toHaveLength(2), { timeout: 3000 });
    } finally {
      driver.unsafe = unsafe;
      bSocket.close();
    }
    // Pia is gone: the last Pol heard of her says so.
    expect(bEvents.filter((e) => e.event === 'presence').at(-1)).toEqual({ event: 'presence', payload: { user_id: a.id, online: false } });
  });
});
