import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { MESSAGES_PAGE_SIZE } from '../../shared/constants';
import { rowsOf } from '../../server/db/client';
import type { FastifyBaseLogger } from 'fastify';
import { createMessageBatcher } from '../../server/features/conversations/message-batcher';
import { markRead, sendMessage } from '../../server/features/conversations/service';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { backends, serverPerSuite } from '../helpers/server';
import { socketsClosedAfterEach, waitFor } from '../helpers/socket';

describe.each(backends)('conversations on %s', (backend) => {
  const server = serverPerSuite({ backend });
  const sockets = socketsClosedAfterEach();

  const api = () => client(server.url);

  /** Two users who liked each other, and their conversation. */
  async function makeMatch(names: [string, string] = ['Ana', 'Ben']) {
    const a = await makeCompletedUser(server, { name: names[0] });
    const b = await makeCompletedUser(server, { name: names[1] });
    await api().post('/api/matching/', { token: a.token, json: { response: 'like', other: b.id } });
    const matched = await api().post('/api/matching/', { token: b.token, json: { response: 'like', other: a.id } });
    expect(matched.body.match).toBe(true);
    return { a, b, id: matched.body.conversation_id as number };
  }

  const send = (user: TestUser, id: number, json: unknown) =>
    api().post(`/api/conversations/${id}/messages/`, { token: user.token, json });

  const messageCount = async (id: number) => {
    const [row] = rowsOf<{ n: string | number }>(
      await server.app.db.execute(sql`select count(*) as n from messages where conversation_id = ${id}`),
    );
    return Number(row?.n);
  };

  it('lists a new match under empty/, and under started/ once a message is sent, with unread counts', async () => {
    const { a, b, id } = await makeMatch(['Cleo', 'Dan']);
    const empty = await api().get('/api/conversations/empty/', { token: a.token });
    expect(empty.status).toBe(200);
    expect(empty.body.next).toBeNull();
    expect(empty.body.results).toEqual([
      {
        id,
        name: 'Dan',
        image: expect.stringMatching(/^\/media\//),
        other_user_id: b.id,
        last_message: null,
        last_activity: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        seen: null,
      },
    ]);
    expect((await api().get('/api/conversations/started/', { token: b.token })).body.results).toEqual([]);

    const first = await send(a, id, { content: '  Hi Dan!  ' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(Number), sender: a.id, content: 'Hi Dan!', time: expect.any(String), client_id: null });
    await send(a, id, { content: 'Are you at the bar?' });

    expect((await api().get('/api/conversations/empty/', { token: a.token })).body.results).toEqual([]);
    const forDan = await api().get('/api/conversations/started/', { token: b.token });
    expect(forDan.body.results).toEqual([
      {
        id,
        name: 'Cleo',
        image: expect.stringMatching(/^\/media\//),
        other_user_id: a.id,
        last_message: 'Are you at the bar?',
        last_message_mine: false,
        entered: false,
        last_activity: expect.any(String),
        unread_count: 2,
        seen: null,
      },
    ]);
    const forCleo = await api().get('/api/conversations/started/', { token: a.token });
    expect(forCleo.body.results[0]).toMatchObject({ id, name: 'Dan', unread_count: 0, last_message_mine: true, entered: true });

    // Read markers move forward only, and never past the newest message.
    expect(await markRead(server.app.db, { conversationId: id, userId: b.id, lastReadId: first.body.id })).toEqual({
      participantIds: [Math.min(a.id, b.id), Math.max(a.id, b.id)],
      lastReadId: first.body.id,
      moved: true,
    });
    // Dan has read something there (on whichever phone): he has been in it.
    expect((await api().get('/api/conversations/started/', { token: b.token })).body.results[0]).toMatchObject({ unread_count: 1, entered: true });
    const clamped = await markRead(server.app.db, { conversationId: id, userId: b.id, lastReadId: 2_000_000_000 });
    expect(clamped).toMatchObject({ lastReadId: first.body.id + 1, moved: true });
    // Behind the marker, or at it: nothing moves (and nobody is told, handlers.ts).
    const backwards = await markRead(server.app.db, { conversationId: id, userId: b.id, lastReadId: 0 });
    expect(backwards).toMatchObject({ lastReadId: first.body.id + 1, moved: false });
    const again = await markRead(server.app.db, { conversationId: id, userId: b.id, lastReadId: first.body.id + 1 });
    expect(again).toMatchObject({ lastReadId: first.body.id + 1, moved: false });
    expect((await api().get('/api/conversations/started/', { token: b.token })).body.results[0].unread_count).toBe(0);
  });

  it('orders started/ by the newest activity and empty/ by the newest match, and pages both', async () => {
    const me = await makeCompletedUser(server, { name: 'Me' });
    const partners: TestUser[] = [];
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const partner = await makeCompletedUser(server, { name: `P${i}` });
      await api().post('/api/matching/', { token: partner.token, json: { response: 'like', other: me.id } });
      const matched = await api().post('/api/matching/', { token: me.token, json: { response: 'like', other: partner.id } });
      partners.push(partner);
      ids.push(matched.body.conversation_id);
    }
    const collect = async (kind: 'empty' | 'started') => {
      const seen: number[] = [];
      let query = '?limit=2';
      for (;;) {
        const page = await api().get(`/api/conversations/${kind}/${query}`, { token: me.token });
        expect(page.status).toBe(200);
        seen.push(...page.body.results.map((row: { id: number }) => row.id));
        if (!page.body.next) return seen;
        query = `?limit=2&cursor=${page.body.next}`;
      }
    };
    expect(await collect('empty')).toEqual([...ids].reverse());

    // Messages in the order 2, 0, 4: the last one written is the first listed.
    for (const index of [2, 0, 4]) await send(partners[index]!, ids[index]!, { content: `from P${index}` });
    expect(await collect('started')).toEqual([ids[4], ids[0], ids[2]]);
    expect(await collect('empty')).toEqual([ids[3], ids[1]]);

    const badCursor = await api().get('/api/conversations/started/?cursor=nope', { token: me.token });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body).toEqual({ cursor: ['Invalid cursor.'] });
  });

  it('pages messages newest first, 50 a page, and catches up with ?after= oldest first', async () => {
    const { a, b, id } = await makeMatch();
    const total = MESSAGES_PAGE_SIZE * 2 + 7;
    const sent: number[] = [];
    for (let i = 0; i < total; i++) {
      const { message } = await sendMessage(server.app.db, {
        conversationId: id,
        senderId: i % 2 ? a.id : b.id,
        content: `message ${i}`,
      });
      sent.push(message.id);
    }
    const pages: number[][] = [];
    let query = '';
    for (;;) {
      const page = await api().get(`/api/conversations/${id}/messages/${query}`, { token: b.token });
      expect(page.status).toBe(200);
      pages.push(page.body.results.map((message: { id: number }) => message.id));
      if (!page.body.next) break;
      query = `?cursor=${page.body.next}`;
    }
    expect(pages.map((page) => page.length)).toEqual([MESSAGES_PAGE_SIZE, MESSAGES_PAGE_SIZE, 7]);
    expect(pages.flat()).toEqual([...sent].reverse());

    const first = await api().get(`/api/conversations/${id}/messages/`, { token: a.token });
    expect(first.body.results[0]).toEqual({
      id: sent.at(-1),
      sender: b.id,
      content: `message ${total - 1}`,
      time: expect.any(String),
      client_id: null,
    });

    // The catch-up after a reconnect: everything after the last id held, oldest first, in pages.
    const caughtUp: number[] = [];
    query = `?after=${sent[4]}&limit=40`;
    for (;;) {
      const page = await api().get(`/api/conversations/${id}/messages/${query}`, { token: a.token });
      expect(page.status).toBe(200);
      caughtUp.push(...page.body.results.map((message: { id: number }) => message.id));
      if (!page.body.next) break;
      query = `?cursor=${page.body.next}&limit=40`;
    }
    expect(caughtUp).toEqual(sent.slice(5));
    const upToDate = await api().get(`/api/conversations/${id}/messages/?after=${sent.at(-1)}`, { token: a.token });
    expect(upToDate.body).toEqual({ results: [], next: null });

    // A cursor of this history is refused by another conversation of the same reader: SAFETY's
    // "a foreign cursor is 400", not a page of the other history from this one's position.
    const other = await makeCompletedUser(server);
    await api().post('/api/matching/', { token: other.token, json: { response: 'like', other: a.id } });
    const theirs = await api().post('/api/matching/', { token: a.token, json: { response: 'like', other: other.id } });
    await send(other, theirs.body.conversation_id, { content: 'hi' });
    const firstPage = await api().get(`/api/conversations/${id}/messages/`, { token: a.token });
    const foreign = await api().get(`/api/conversations/${theirs.body.conversation_id}/messages/?cursor=${firstPage.body.next}`, { token: a.token });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ cursor: ['Invalid cursor.'] });
  });

  it('lets only the two participants read or write a conversation (access matrix)', async () => {
    const { a, b, id } = await makeMatch(['Eve', 'Finn']);
    const stranger = await makeCompletedUser(server);
    await send(a, id, { content: 'hello' });
    const before = await messageCount(id);

    const routes = [
      { name: 'detail', call: (token?: string) => api().get(`/api/conversations/${id}/`, { token }) },
      { name: 'messages', call: (token?: string) => api().get(`/api/conversations/${id}/messages/`, { token }) },
      {
        name: 'catch-up',
        call: (token?: string) => api().get(`/api/conversations/${id}/messages/?after=0`, { token }),
      },
      {
        name: 'send',
        call: (token?: string) => api().post(`/api/conversations/${id}/messages/`, { token, json: { content: 'x' } }),
      },
    ];
    const statuses: Record<string, Record<string, number>> = {};
    for (const route of routes) {
      statuses[route.name] = {
        participant: (await route.call(a.token)).status,
        other: (await route.call(b.token)).status,
        stranger: (await route.call(stranger.token)).status,
        anonymous: (await route.call()).status,
        badToken: (await route.call('not-a-token')).status,
      };
    }
    const reads = { participant: 200, other: 200, stranger: 404, anonymous: 401, badToken: 401 };
    expect(statuses).toEqual({
      detail: reads,
      messages: reads,
      'catch-up': reads,
      send: { ...reads, participant: 201, other: 201 },
    });
    // Only the two participants' sends were stored.
    expect(await messageCount(id)).toBe(before + 2);

    const detail = await api().get(`/api/conversations/${id}/`, { token: a.token });
    expect(detail.body).toEqual({ id, name: 'Finn', image: expect.stringMatching(/^\/media\//), other_user_id: b.id, partner_last_read_id: 0 });
    const strangerView = await api().get(`/api/conversations/${id}/`, { token: stranger.token });
    expect(strangerView.body).toEqual({ detail: 'Not found.' });

    // Lists: each one sees their own, the stranger sees nothing of it.
    for (const kind of ['empty', 'started']) {
      const list = await api().get(`/api/conversations/${kind}/`, { token: stranger.token });
      expect(list.body.results.map((row: { id: number }) => row.id)).not.toContain(id);
      expect((await api().get(`/api/conversations/${kind}/`)).status).toBe(401);
    }
    for (const path of ['/api/conversations/999999999/', '/api/conversations/abc/', '/api/conversations/-1/messages/']) {
      expect((await api().get(path, { token: a.token })).status, path).toBe(404);
    }
  });

  it("tells each participant, in the conversation's detail, how far the other one has read", async () => {
    const { a, b, id } = await makeMatch(['Gia', 'Hugo']);
    const stranger = await makeCompletedUser(server);
    const readBy = async (user: TestUser) => {
      const detail = await api().get(`/api/conversations/${id}/`, { token: user.token });
      expect(detail.status).toBe(200);
      return detail.body.partner_last_read_id;
    };
    expect(await readBy(a)).toBe(0);
    expect(await readBy(b)).toBe(0);

    const first = (await send(a, id, { content: 'one' })).body.id as number;
    const second = (await send(a, id, { content: 'two' })).body.id as number;
    const reply = (await send(b, id, { content: 'three' })).body.id as number;
    // Hugo reads Gia's first message over the socket: Gia's detail says so, Hugo's own does not.
    const hugo = await sockets.connect(server.url, b.token);
    expect(await hugo.emitWithAck('message:read', { conversation_id: id, last_read_id: first })).toEqual({ ok: true });
    expect(await readBy(a)).toBe(first);
    expect(await readBy(b)).toBe(0);
    // Forward only, whatever is sent after.
    await markRead(server.app.db, { conversationId: id, userId: b.id, lastReadId: reply });
    await markRead(server.app.db, { conversationId: id, userId: b.id, lastReadId: second });
    expect(await readBy(a)).toBe(reply);
    await markRead(server.app.db, { conversationId: id, userId: a.id, lastReadId: reply });
    expect(await readBy(b)).toBe(reply);

    // Nothing of it for anyone else.
    const strangerView = await api().get(`/api/conversations/${id}/`, { token: stranger.token });
    expect(strangerView.status).toBe(404);
    expect(strangerView.body).toEqual({ detail: 'Not found.' });
  });

  it('takes a read over HTTP, from a tab with no socket, as the socket takes it', async () => {
    const { a, b, id } = await makeMatch(['Ines', 'Joel']);
    const stranger = await makeCompletedUser(server);
    const first = (await send(a, id, { content: 'one' })).body.id as number;
    const second = (await send(a, id, { content: 'two' })).body.id as number;
    const readOverHttp = (user: TestUser, json: unknown) => api().post(`/api/conversations/${id}/read/`, { token: user.token, json });
    const unread = async () => (await api().get('/api/conversations/started/', { token: b.token })).body.results[0].unread_count;
    expect(await unread()).toBe(2);
    // Ines's phone hears Joel's read; Joel's read moves his unread count.
    const ines = await sockets.connect(server.url, a.token);
    const told = waitFor(ines, 'message:read');
    const read = await readOverHttp(b, { last_read_id: first });
    expect(read.status).toBe(204);
    expect(await told).toEqual({ conversation_id: id, user_id: b.id, last_read_id: first });
    expect(await unread()).toBe(1);
    await readOverHttp(b, { last_read_id: second });
    expect(await unread()).toBe(0);
    expect((await api().get(`/api/conversations/${id}/`, { token: a.token })).body.partner_last_read_id).toBe(second);

    // Not for anyone else's conversation, nor a read that is no id.
    expect((await readOverHttp(stranger, { last_read_id: second })).status).toBe(404);
    expect((await readOverHttp(b, { last_read_id: -1 })).status).toBe(400);
  });

  it('makes a retried send idempotent by client_id, and pushes it to both each time', async () => {
    const { a, b, id } = await makeMatch();
    const other = await makeMatch();
    const sockets = await Promise.all([a, b].map(connect));
    const heard = sockets.map((socket) => waitFor(socket, 'message:new'));

    const clientId = randomUUID();
    const first = await send(a, id, { content: 'see you at 9', client_id: clientId });
    expect(first.status).toBe(201);
    expect(first.body.client_id).toBe(clientId);
    const [toA, toB] = await Promise.all(heard);
    expect(toA).toEqual({ conversation_id: id, message: first.body, previous_id: null });
    expect(toB).toEqual({ conversation_id: id, message: first.body, previous_id: null });

    // The retry is pushed again, the same message (its first push may never have gone out).
    const again = sockets.map((socket) => waitFor(socket, 'message:new'));
    const retry = await send(a, id, { content: 'see you at 9', client_id: clientId });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(await messageCount(id)).toBe(1);
    for (const event of await Promise.all(again)) expect(event).toEqual(toA);

    // The next push either socket gets is the next new message.
    const next = sockets.map((socket) => waitFor(socket, 'message:new'));
    const later = await send(b, id, { content: 'ok!', client_id: randomUUID() });
    for (const event of await Promise.all(next)) expect(event.message.id).toBe(later.body.id);

    // The same client_id from the other participant is a different message.
    const fromB = await send(b, id, { content: 'me too', client_id: clientId });
    expect(fromB.status).toBe(201);
    expect(fromB.body.id).not.toBe(first.body.id);

    // Reused by the same sender in another conversation: refused, nothing stored there.
    await makeMatchBetween(a, other.a);
    const reused = await send(a, (await conversationBetween(a, other.a))!, { content: 'hi', client_id: clientId });
    expect(reused.status).toBe(400);
    expect(reused.body).toEqual({ client_id: ['This client_id was already used for another message.'] });
    expect(await messageCount(id)).toBe(3);
  });

  it('keeps no direction controls in a message: a link cannot show a host it does not lead to', async () => {
    const { a, id } = await makeMatch();
    // Shown turned around, this reads "https://bank.example/elpmaxe.live//:sptth": a link to evil.example.
    const sent = await send(a, id, { content: '\u202Ehttps://evil.example/elpmaxe.knab//:sptth\u202C, \u2067שלום\u2069 \u200F!' });
    expect(sent.status).toBe(201);
    expect(sent.body.content).toBe('https://evil.example/elpmaxe.knab//:sptth, שלום \u200F!');
    expect((await send(a, id, { content: '\u202E\u202C' })).status).toBe(400);
  });

  it("tells of a batch's sends stored before a later step of the batch failed: new once, a retry not", async () => {
    const { a, id } = await makeMatch();
    const storedBefore = randomUUID();
    expect((await sendMessage(server.app.db, { conversationId: id, senderId: a.id, content: 'before', clientId: storedBefore })).created).toBe(true);
    const warnings: string[] = [];
    const log = { warn: (_: unknown, message: string) => warnings.push(message) } as unknown as FastifyBaseLogger;
    const batcher = createMessageBatcher(server.app.db, log, server.app.limits);

    // One event-loop turn, one batch, committed. Its last send's content is bad, so after the commit the
    // batch looks up that send's participants, and the lookup fails: the conversation id is past
    // PostgreSQL's integer (the socket's schema refuses it; the batcher is handed what it is given).
    const fresh = randomUUID();
    const [created, again, retried, broken] = await Promise.allSettled([
      batcher.send({ conversationId: id, senderId: a.id, content: 'new', clientId: fresh }),
      batcher.send({ conversationId: id, senderId: a.id, content: 'new, twice', clientId: fresh }),
      batcher.send({ conversationId: id, senderId: a.id, content: 'before, again', clientId: storedBefore }),
      batcher.send({ conversationId: 2 ** 31, senderId: a.id, content: ' ', clientId: randomUUID() }),
    ]);
    expect(warnings).toEqual(['message batch failed; sending one by one']);
    // Found stored when sent again one by one, yet stored by the batch: still news (`message:new`).
    expect(created).toMatchObject({ status: 'fulfilled', value: { created: true, message: { content: 'new', client_id: fresh } } });
    // The same client_id twice in the batch, and a retry of a message stored before it: not news again.
    expect(again).toMatchObject({ status: 'fulfilled', value: { created: false, message: { content: 'new' } } });
    expect(retried).toMatchObject({ status: 'fulfilled', value: { created: false, message: { content: 'before' } } });
    expect(broken.status).toBe('rejected');
    expect(await messageCount(id)).toBe(2);
  });

  it('answers a client_id sent twice in one batch to two conversations as it answers it sent one after the other', async () => {
    const { a, id: first } = await makeMatch();
    const carla = await makeCompletedUser(server);
    await makeMatchBetween(a, carla);
    const second = (await conversationBetween(a, carla))!;
    const stranger = await makeMatch(['Sol', 'Teo']);
    const log = { warn: () => {} } as unknown as FastifyBaseLogger;
    const batcher = createMessageBatcher(server.app.db, log, server.app.limits);
    const countIn = async (conversationId: number) => Number(rowsOf<{ n: number }>(await server.app.db.execute(sql`select count(*) as n from messages where conversation_id = ${conversationId}`))[0]!.n);

    // One event-loop turn, one batch: the second is refused, as a client_id reused elsewhere is.
    const reused = randomUUID();
    const [stored, elsewhere] = await Promise.allSettled([
      batcher.send({ conversationId: first, senderId: a.id, content: 'for Ben', clientId: reused }),
      batcher.send({ conversationId: second, senderId: a.id, content: 'for Carla', clientId: reused }),
    ]);
    expect(stored).toMatchObject({ status: 'fulfilled', value: { created: true, message: { content: 'for Ben' } } });
    expect(elsewhere).toMatchObject({ status: 'rejected', reason: { statusCode: 400 } });
    expect(Object.keys((elsewhere as PromiseRejectedResult).reason.body)).toEqual(['client_id']);
    expect([await countIn(first), await countIn(second)]).toEqual([1, 0]);

    // The first one not anyone's to send (a stranger's conversation): the second is stored, in its own.
    const retold = randomUUID();
    const [refused, kept] = await Promise.allSettled([
      batcher.send({ conversationId: stranger.id, senderId: a.id, content: 'not mine', clientId: retold }),
      batcher.send({ conversationId: second, senderId: a.id, content: 'for Carla', clientId: retold }),
    ]);
    expect(refused).toMatchObject({ status: 'rejected', reason: { statusCode: 404 } });
    expect(kept).toMatchObject({ status: 'fulfilled', value: { created: true, message: { content: 'for Carla' } } });
    expect([await countIn(stranger.id), await countIn(second)]).toEqual([0, 1]);
  });

  async function makeMatchBetween(x: TestUser, y: TestUser) {
    await api().post('/api/matching/', { token: x.token, json: { response: 'like', other: y.id } });
    await api().post('/api/matching/', { token: y.token, json: { response: 'like', other: x.id } });
  }
  async function conversationBetween(x: TestUser, y: TestUser): Promise<number | null> {
    const [row] = rowsOf<{ id: number }>(
      await server.app.db.execute(
        sql`select id from conversations where user_low_id = ${Math.min(x.id, y.id)} and user_high_id = ${Math.max(x.id, y.id)}`,
      ),
    );
    return row ? Number(row.id) : null;
  }

  const connect = (user: TestUser) => sockets.connect(server.url, user.token);

  it('refuses malformed sends and queries with a 4xx and stores nothing', async () => {
    const { a, id } = await makeMatch();
    const cases: { body: unknown; field: string }[] = [
      { body: { content: '' }, field: 'content' },
      { body: { content: '   \n\t ' }, field: 'content' },
      { body: { content: 'x'.repeat(2001) }, field: 'content' },
      { body: {}, field: 'content' },
      { body: { content: null }, field: 'content' },
      { body: { content: 42 }, field: 'content' },
      { body: { content: ['hi'] }, field: 'content' },
      { body: { content: 'hi', client_id: 'not-a-uuid' }, field: 'client_id' },
      { body: { content: 'hi', client_id: 7 }, field: 'client_id' },
    ];
    for (const entry of cases) {
      const response = await send(a, id, entry.body);
      expect(response.status, JSON.stringify(entry.body)).toBe(400);
      expect(Object.keys(response.body)).toContain(entry.field);
    }
    const tooLong = await send(a, id, { content: 'x'.repeat(2001) });
    expect(tooLong.body).toEqual({ content: ['Ensure this field has no more than 2000 characters.'] });
    const blank = await send(a, id, { content: '   ' });
    expect(blank.body).toEqual({ content: ['This field may not be blank.'] });

    const malformed = await api().post(`/api/conversations/${id}/messages/`, {
      token: a.token,
      body: '{"content": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    const huge = await api().post(`/api/conversations/${id}/messages/`, {
      token: a.token,
      body: JSON.stringify({ content: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(413);
    const wrongType = await api().post(`/api/conversations/${id}/messages/`, {
      token: a.token,
      body: 'content=hi',
      headers: { 'content-type': 'text/plain' },
    });
    // JSON only: plain text is a wrong content type.
    expect(wrongType.status).toBe(415);
    const asForm = await api().post(`/api/conversations/${id}/messages/`, {
      token: a.token,
      body: new Uint8Array([1, 2, 3]),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(asForm.status).toBe(415);

    for (const query of ['?limit=0', '?limit=1000', '?after=-1', '?after=abc', '?cursor=%%%', '?cursor=bm9wZQ']) {
      const response = await api().get(`/api/conversations/${id}/messages/${query}`, { token: a.token });
      expect(response.status, query).toBe(400);
    }
    // Exactly 2000 characters after trimming is fine: the limit is inclusive.
    expect((await send(a, id, { content: ` ${'y'.repeat(2000)} ` })).status).toBe(201);
    expect(await messageCount(id)).toBe(1);
  });
});
