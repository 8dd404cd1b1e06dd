import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { birthDateForAge, makeCompletedUser, makeUser, type TestUser, validProfile } from '../helpers/factories';
import { client } from '../helpers/http';
import { backends, serverPerSuite } from '../helpers/server';
import { record, socketsClosedAfterEach, waitFor } from '../helpers/socket';

describe.each(backends)('POST /api/matching/ on %s', (backend) => {
  const server = serverPerSuite({ backend });
  const sockets = socketsClosedAfterEach();

  const api = () => client(server.url);
  const like = (from: TestUser, to: TestUser) =>
    api().post('/api/matching/', { token: from.token, json: { response: 'like', other: to.id } });

  async function count(query: ReturnType<typeof sql>): Promise<number> {
    const [row] = rowsOf<{ n: number | string }>(await server.app.db.execute(query));
    return Number(row?.n);
  }
  const reactionsBetween = (a: TestUser, b: TestUser) =>
    server.app.db.execute(
      sql`select from_user_id, kind from reactions where (from_user_id, to_user_id) in ((${a.id}, ${b.id}), (${b.id}, ${a.id})) order by from_user_id`,
    );
  const conversationsOf = (a: TestUser, b: TestUser) =>
    count(
      sql`select count(*) as n from conversations where user_low_id = ${Math.min(a.id, b.id)} and user_high_id = ${Math.max(a.id, b.id)}`,
    );

  const connect = (user: TestUser) => sockets.connect(server.url, user.token);

  it('a one-sided like is no match; the answering like is, and both users are told', async () => {
    const ana = await makeCompletedUser(server, { name: 'Ana' });
    const ben = await makeCompletedUser(server, { name: 'Ben' });
    const [anaSocket, benSocket] = await Promise.all([connect(ana), connect(ben)]);
    const anaHears = waitFor(anaSocket, 'match:new');
    const benHears = waitFor(benSocket, 'match:new');

    const first = await like(ana, ben);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ match: false, conversation_id: null });

    const second = await like(ben, ana);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ match: true, conversation_id: expect.any(Number) });
    expect(await conversationsOf(ana, ben)).toBe(1);

    const [toAna, toBen] = await Promise.all([anaHears, benHears]);
    expect(toAna).toEqual({
      conversation_id: second.body.conversation_id,
      user: { id: ben.id, name: 'Ben', image: expect.stringMatching(/^\/media\//) },
    });
    // Ben's like made it: his phones know it was his latest decision (Ana's payload says nothing of it).
    expect(toBen).toMatchObject({ conversation_id: second.body.conversation_id, user: { id: ana.id, name: 'Ana' }, by_you: true });

    // Liking again (say the answer to the first was lost) answers the match there is: nothing new is
    // made, and nobody who has seen it (both, their overlays shown) is told of it again.
    for (const socket of [anaSocket, benSocket]) {
      expect(await socket.emitWithAck('match:seen', { conversation_ids: [second.body.conversation_id], seen: 'overlay' })).toEqual({ ok: true });
    }
    const heard = [record(anaSocket), record(benSocket)];
    for (const [from, to] of [
      [ana, ben],
      [ben, ana],
    ] as const) {
      const again = await like(from, to);
      expect(again.body).toEqual({ match: true, conversation_id: second.body.conversation_id });
    }
    expect(await conversationsOf(ana, ben)).toBe(1);
    const members = await count(
      sql`select count(*) as n from conversation_members where conversation_id = ${second.body.conversation_id}`,
    );
    expect(members).toBe(2);
    // A match told after the likes again is heard after anything they told.
    const cleo = await makeCompletedUser(server, { name: 'Cleo' });
    const toldOfCleo = [anaSocket, benSocket].map((socket) => waitFor(socket, 'match:new', (payload) => payload.user.id === cleo.id));
    await Promise.all([like(cleo, ana), like(cleo, ben)]);
    await Promise.all([like(ana, cleo), like(ben, cleo)]);
    await Promise.all(toldOfCleo);
    for (const events of heard) {
      expect(events.filter(({ event, payload }) => event === 'match:new' && (payload as { user: { id: number } }).user.id !== cleo.id)).toEqual([]);
    }
  });

  it('a reaction sent again as a retry answers as the first did, stores and spends nothing again, and tells only who has not seen its match', async () => {
    const ana = await makeCompletedUser(server);
    const ben = await makeCompletedUser(server);
    const cleo = await makeCompletedUser(server);
    const [anaSocket, benSocket] = await Promise.all([connect(ana), connect(ben)]);
    const retry = (from: TestUser, to: TestUser, response: string) =>
      api().post('/api/matching/', { token: from.token, json: { response, other: to.id, retry: true } });
    const reactionTimes = () =>
      server.app.db.execute(sql`select to_user_id, kind, updated_at from reactions where from_user_id = ${ana.id} order by to_user_id`);
    const likesSpent = () => count(sql`select count(*) as n from likes_given where user_id = ${ana.id}`);

    await like(ben, ana);
    const matchHeard = [waitFor(anaSocket, 'match:new'), waitFor(benSocket, 'match:new')];
    const first = await like(ana, ben);
    expect(first.body).toEqual({ match: true, conversation_id: expect.any(Number) });
    await Promise.all(matchHeard);
    // Both have seen it (their overlays showed): only whoever has not is told of it again.
    for (const socket of [anaSocket, benSocket]) {
      expect(await socket.emitWithAck('match:seen', { conversation_ids: [first.body.conversation_id], seen: 'overlay' })).toEqual({ ok: true });
    }
    const skipped = await api().post('/api/matching/', { token: ana.token, json: { response: 'skip', other: cleo.id } });
    expect(skipped.body).toEqual({ match: false, conversation_id: null });
    const [stored, spent] = [rowsOf(await reactionTimes()), await likesSpent()];

    const heard = [record(anaSocket), record(benSocket)];
    expect((await retry(ana, ben, 'like')).body).toEqual(first.body);
    expect((await retry(ana, cleo, 'skip')).body).toEqual({ match: false, conversation_id: null });
    // Not even the time changes: the undo's last pass is still the one it was.
    expect(rowsOf(await reactionTimes())).toEqual(stored);
    expect(await likesSpent()).toBe(spent);
    expect(await conversationsOf(ana, ben)).toBe(1);
    // A match told after the retries is heard after anything they told.
    const dan = await makeCompletedUser(server);
    const toldOfDan = waitFor(anaSocket, 'match:new');
    await like(dan, ana);
    await like(ana, dan);
    await toldOfDan;
    // Presence aside: the "online" each socket's connect announces to its partners may reach the other
    // only now, its read of partners having run after the match made them partners.
    const toldByRetries = ({ event, payload }: { event: string; payload: unknown }) =>
      event !== 'presence' && (payload as { user?: { id: number } }).user?.id !== dan.id;
    for (const events of heard) expect(events.filter(toldByRetries)).toEqual([]);

    // A retry of what was never stored (or was another reaction) is a reaction like any other.
    expect((await retry(ana, cleo, 'like')).body).toEqual({ match: false, conversation_id: null });
    expect(rowsOf(await reactionsBetween(ana, cleo))).toEqual([{ from_user_id: ana.id, kind: 'like' }]);
  });

  it('liking again once the match has ended (a block, then an unblock) is no match: nothing reopens it', async () => {
    const ana = await makeCompletedUser(server);
    const ben = await makeCompletedUser(server);
    await like(ana, ben);
    expect((await like(ben, ana)).body.match).toBe(true);
    expect((await api().post(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
    expect((await api().delete(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
    for (const [from, to] of [
      [ana, ben],
      [ben, ana],
    ] as const) {
      expect((await like(from, to)).body).toEqual({ match: false, conversation_id: null });
    }
    expect(await conversationsOf(ana, ben)).toBe(1);
  });

  it('reacting again replaces the earlier reaction: a skip can become a like, a like a dislike', async () => {
    const ana = await makeCompletedUser(server);
    const ben = await makeCompletedUser(server);
    const react = (response: string) => api().post('/api/matching/', { token: ana.token, json: { response, other: ben.id } });
    expect((await react('skip')).body).toEqual({ match: false, conversation_id: null });
    expect(rowsOf(await reactionsBetween(ana, ben))).toEqual([{ from_user_id: ana.id, kind: 'skip' }]);
    await react('like');
    expect(rowsOf(await reactionsBetween(ana, ben))).toEqual([{ from_user_id: ana.id, kind: 'like' }]);
    await react('dislike');
    expect(rowsOf(await reactionsBetween(ana, ben))).toEqual([{ from_user_id: ana.id, kind: 'dislike' }]);
    // A like meeting a dislike is no match.
    expect((await like(ben, ana)).body).toEqual({ match: false, conversation_id: null });
    expect(await conversationsOf(ana, ben)).toBe(0);
  });

  it('a skip or dislike that meets a like is no match; turning it into a like is', async () => {
    const ana = await makeCompletedUser(server);
    const ben = await makeCompletedUser(server);
    await like(ana, ben);
    const skip = await api().post('/api/matching/', { token: ben.token, json: { response: 'skip', other: ana.id } });
    expect(skip.body).toEqual({ match: false, conversation_id: null });
    expect(await conversationsOf(ana, ben)).toBe(0);
    expect((await like(ben, ana)).body.match).toBe(true);
    expect(await conversationsOf(ana, ben)).toBe(1);
  });

  it('a dislike or a skip of someone matched changes nothing: it answers the match, which stays whole', async () => {
    // A fit of their own (99-year-olds for each other), so that Ana's deck could hold nobody but Ben.
    const fit = { date_of_birth: birthDateForAge(99), min_matching_age: 99, max_matching_age: 99 };
    const ana = await makeCompletedUser(server, fit);
    const ben = await makeCompletedUser(server, fit);
    await like(ana, ben);
    const matched = await like(ben, ana);
    expect(matched.body.match).toBe(true);
    const conversationId = matched.body.conversation_id as number;
    // A skip last: one that was stored would bring Ben back into her deck, among the skipped.
    for (const response of ['dislike', 'skip'] as const) {
      // Say a card of Ben's left on Ana's other phone, swiped away there after the match.
      const passed = await api().post('/api/matching/', { token: ana.token, json: { response, other: ben.id } });
      expect([passed.status, passed.body]).toEqual([200, { match: true, conversation_id: conversationId }]);
    }
    expect(rowsOf(await reactionsBetween(ana, ben))).toEqual(
      [
        { from_user_id: ana.id, kind: 'like' },
        { from_user_id: ben.id, kind: 'like' },
      ].sort((a, b) => a.from_user_id - b.from_user_id),
    );
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: ana.token })).status).toBe(200);
    const deck = await api().get('/api/users/matching-profiles/', { token: ana.token });
    expect([deck.status, deck.body.results]).toEqual([200, []]);
  });

  it('a like from an incomplete profile is a 403 that stores and spends nothing; its passes are stored', async () => {
    const ana = await makeCompletedUser(server);
    const newcomer = await makeUser(server);
    // Ana cannot like an incomplete profile (a 404, below); say she liked it before, so a like back would match.
    await server.app.db.execute(sql`insert into reactions (from_user_id, to_user_id, kind) values (${ana.id}, ${newcomer.id}, 'like')`);

    const refused = await like(newcomer, ana);
    expect([refused.status, refused.body]).toEqual([
      403,
      { detail: 'Complete your profile before you like anyone.', code: 'profile_incomplete' },
    ]);
    const spanish = await api().post('/api/matching/', {
      token: newcomer.token,
      json: { response: 'like', other: ana.id },
      headers: { 'accept-language': 'es' },
    });
    expect(spanish.body).toEqual({ detail: 'Completa tu perfil antes de dar un like.', code: 'profile_incomplete' });
    expect(await conversationsOf(ana, newcomer)).toBe(0);
    expect(await count(sql`select count(*) as n from likes_given where user_id = ${newcomer.id}`)).toBe(0);
    // Someone the visibility rule hides stays a 404, incomplete profile or not.
    expect((await like(newcomer, await makeUser(server))).status).toBe(404);

    const skipped = await api().post('/api/matching/', { token: newcomer.token, json: { response: 'skip', other: ana.id } });
    expect([skipped.status, skipped.body]).toEqual([200, { match: false, conversation_id: null }]);
    expect(rowsOf(await reactionsBetween(ana, newcomer))).toEqual(
      [
        { from_user_id: ana.id, kind: 'like' },
        { from_user_id: newcomer.id, kind: 'skip' },
      ].sort((a, b) => a.from_user_id - b.from_user_id),
    );

    // Once the profile is complete, the same like makes the match.
    const completed = await api().put('/api/users/me/profile/', { token: newcomer.token, json: await validProfile() });
    expect(completed.status).toBe(200);
    expect((await like(newcomer, ana)).body).toEqual({ match: true, conversation_id: expect.any(Number) });
  });

  it('refuses bad input with a 4xx and stores nothing', async () => {
    const ana = await makeCompletedUser(server);
    const ben = await makeCompletedUser(server);
    const incomplete = await makeUser(server);
    const before = await count(sql`select count(*) as n from reactions where from_user_id = ${ana.id}`);
    // A like given two days ago: out of the window, which the next like she gives clears away.
    await server.app.db.execute(sql`insert into likes_given (user_id, to_user_id, given_at) values (${ana.id}, ${ben.id}, now() - interval '2 days')`);
    const post = (json: unknown) => api().post('/api/matching/', { token: ana.token, json });

    const self = await post({ response: 'like', other: ana.id });
    expect(self.status).toBe(400);
    expect(self.body).toEqual({ other: ['You cannot react to yourself.'] });

    expect(await post({ response: 'like', other: 2_000_000_000 })).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    expect((await post({ response: 'like', other: incomplete.id })).status).toBe(404);
    expect((await post({ response: 'dislike', other: 2_000_000_000 })).status).toBe(404);
    expect((await post({ response: 'skip', other: incomplete.id })).status).toBe(404);

    const badChoice = await post({ response: 'love', other: ben.id });
    expect(badChoice.status).toBe(400);
    expect(badChoice.body).toEqual({ response: ['"love" is not a valid choice.'] });

    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ response: ['This field is required.'], other: ['This field is required.'] });

    for (const other of [-1, 0, 1.5, 'abc', 99_999_999_999, null]) {
      const response = await post({ response: 'like', other });
      expect(response.status, JSON.stringify(other)).toBe(400);
      expect(response.body).toHaveProperty('other');
    }
    expect((await post([1, 2])).status).toBe(400);

    const malformed = await api().post('/api/matching/', {
      token: ana.token,
      body: '{"response": "like", ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toMatch(/^JSON parse error/);

    const anonymous = await api().post('/api/matching/', { json: { response: 'like', other: ben.id } });
    expect(anonymous.status).toBe(401);

    expect(await count(sql`select count(*) as n from reactions where from_user_id = ${ana.id}`)).toBe(before);
    // The likes answered 404 spent nothing of the free plan's daily likes, and cleared nothing away.
    expect(await count(sql`select count(*) as n from likes_given where user_id = ${ana.id}`)).toBe(1);
  });

  it('many pairs liking each other at the same instant make exactly one match and one conversation each', async () => {
    const pairs = 24;
    const users = await Promise.all(Array.from({ length: pairs * 2 }, () => makeCompletedUser(server)));
    for (let round = 0; round < 2; round++) {
      const responses = await Promise.all(
        Array.from({ length: pairs }, (_, i) => {
          const [a, b] = [users[2 * i]!, users[2 * i + 1]!];
          return Promise.all([like(a, b), like(b, a)]);
        }),
      );
      for (const [i, [ab, ba]] of responses.entries()) {
        const [a, b] = [users[2 * i]!, users[2 * i + 1]!];
        expect([ab.status, ba.status]).toEqual([200, 200]);
        // The first round: exactly one of the two completes the pair. The second: both answer the
        // match they already have, and nothing new is made.
        expect([ab.body.match, ba.body.match].filter(Boolean)).toHaveLength(round === 0 ? 1 : 2);
        if (round === 1) expect(ab.body.conversation_id).toBe(ba.body.conversation_id);
        expect(await conversationsOf(a, b)).toBe(1);
      }
    }
    const ids = users.map((user) => user.id);
    const conversations = rowsOf<{ id: number; members: number | string }>(
      await server.app.db.execute(sql`
        select c.id, (select count(*) from conversation_members m where m.conversation_id = c.id) as members
        from conversations c where c.user_low_id in (${sql.join(ids, sql`, `)})`),
    );
    expect(conversations).toHaveLength(pairs);
    expect(conversations.every((row) => Number(row.members) === 2)).toBe(true);
  });
});
