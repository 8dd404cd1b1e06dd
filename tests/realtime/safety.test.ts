/**
 * Safety, live, across two instances joined by Redis: a conversation that ends (block, unmatch,
 * report, ban) leaves both people's screens at once wherever they are connected, the visibility rule
 * holds for every socket event, a ban drops the banned person's sockets on every instance, and
 * the per-user limits hold across instances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SOCKETS_PER_USER } from '../../shared/constants';
import { limitRules } from '../../server/lib/limits';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { startTwoInstances, type TestServer, type TwoInstances } from '../helpers/server';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';
import { type ClientSocket, connect, record, socketsClosedAfterEach, waitFor, waitForDisconnect } from '../helpers/socket';
import { makePair, match, newClientId } from './fixtures';

const ready = (await hasPostgres()) && (await hasRedis());

describe.skipIf(!ready)('safety live, on two instances', () => {
  let cluster: TwoInstances;
  let one: TestServer;
  let two: TestServer;
  let moderator: TestUser;
  const sockets = socketsClosedAfterEach();
  const connectTo = (server: TestServer, token: string) => sockets.connect(server.url, token);

  beforeAll(async () => {
    cluster = await startTwoInstances({ redisUrl: REDIS_URL });
    ({ one, two } = cluster);
    moderator = await makeModerator(one);
  });
  afterAll(() => cluster.close());

  const endings: Array<[string, (pair: Awaited<ReturnType<typeof makePair>>) => Promise<void>]> = [
    ['a block', async ({ a, b }) => void expect((await client(one.url).post(`/api/users/${b.id}/block/`, { token: a.token })).status).toBe(204)],
    [
      'an unmatch',
      async ({ b, conversationId }) =>
        void expect((await client(two.url).delete(`/api/conversations/${conversationId}/`, { token: b.token })).status).toBe(204),
    ],
    [
      'a report',
      async ({ a, b }) =>
        void expect((await client(one.url).post('/api/reports/', { token: a.token, json: { user_id: b.id, reason: 'harassment' } })).status).toBe(201),
    ],
    ['a ban', async ({ b }) => void (await banThroughModeration(one, moderator, b))],
  ];
  /** Who ended it, by the ending's name: a ban is a moderator's doing. */
  const endedBy: Record<string, 'a' | 'b' | null> = { 'a block': 'a', 'an unmatch': 'b', 'a report': 'a', 'a ban': null };

  it.each(endings)('takes the conversation off both screens on every instance after %s', async (name, end) => {
    const pair = await makePair(one);
    // Ana has two tabs, one on each instance; Ben is on instance two.
    const [anaOne, anaTwo, ben] = await Promise.all([
      connectTo(one, pair.a.token),
      connectTo(two, pair.a.token),
      connectTo(two, pair.b.token),
    ]);
    // A banned Ben is signed out instead (his sockets dropped); his partner is told.
    const banned = name === 'a ban';
    const told = (banned ? [anaOne, anaTwo] : [anaOne, anaTwo, ben]).map((socket) => waitFor(socket, 'match:removed'));
    const benDropped = banned ? waitForDisconnect(ben) : null;
    await end(pair);
    // The one who ended it hears it was their doing, on every phone; the other hears only that it
    // ended, as after a ban or a deletion.
    const ended = { conversation_id: pair.conversationId };
    const byA = endedBy[name] === 'a' ? { ...ended, by_you: true } : ended;
    const byB = endedBy[name] === 'b' ? { ...ended, by_you: true } : ended;
    expect(await Promise.all(told)).toEqual(banned ? [ended, ended] : [byA, byA, byB]);
    if (benDropped) expect(await benDropped).toBe('io server disconnect');
  });

  it.each(['a ban', 'a deletion'])(
    "takes the person off the decks and 'likes you' lists open on every instance after %s",
    async (name) => {
      // Gone, who likes Liked (on instance one) and is a card in Viewer's deck (on instance two); Passer
      // has just passed on Gone, whom an undo would bring back, and its offer names; Stranger looks only
      // for non-binary people, so Gone was never a card of hers.
      const gone = await makeCompletedUser(one, { name: 'Gone' });
      const [liked, viewer, passer, stranger] = await Promise.all([
        makeCompletedUser(one, { name: 'Liked' }),
        makeCompletedUser(two, { name: 'Viewer' }),
        makeCompletedUser(two, { name: 'Passer' }),
        makeCompletedUser(one, { name: 'Stranger', genders_to_match: ['non_binary'] }),
      ]);
      const api = client(one.url);
      expect((await api.post('/api/matching/', { token: gone.token, json: { response: 'like', other: liked.id } })).status).toBe(200);
      expect((await api.post('/api/matching/', { token: passer.token, json: { response: 'dislike', other: gone.id } })).status).toBe(200);
      expect((await api.get('/api/matching/undo/', { token: passer.token })).body).toMatchObject({ card: { id: gone.id } });
      const likes = await api.get('/api/users/me/likes/', { token: liked.token });
      expect(likes.body.count).toBe(1);
      const deck = await client(two.url).get('/api/users/matching-profiles/?limit=100', { token: viewer.token });
      expect(deck.body.results.map((card: { id: number }) => card.id)).toContain(gone.id);

      const [likedSocket, viewerSocket, passerSocket, strangerSocket] = await Promise.all([
        connectTo(one, liked.token),
        connectTo(two, viewer.token),
        connectTo(two, passer.token),
        connectTo(one, stranger.token),
      ]);
      const strangerHeard = record(strangerSocket);
      const told = [likedSocket, viewerSocket, passerSocket].map((socket) =>
        waitFor(socket, 'person:gone', (payload) => payload.user_id === gone.id),
      );
      if (name === 'a ban') await banThroughModeration(one, moderator, gone);
      else expect((await client(two.url).delete('/api/users/me/', { token: gone.token, json: { password: gone.password } })).status).toBe(204);
      expect(await Promise.all(told)).toEqual([{ user_id: gone.id }, { user_id: gone.id }, { user_id: gone.id }]);
      // A last event that does reach Stranger, sent after all of the above: she heard nothing of Gone.
      // Listened for before the match: its news, through Redis, may come ahead of the like's answer.
      const marker = await makeCompletedUser(one, { gender: 'non_binary' });
      const markerHeard = waitFor(strangerSocket, 'match:new', (payload) => payload.user.id === marker.id);
      await match(one, marker, stranger);
      await markerHeard;
      expect(strangerHeard.filter(({ event }) => event === 'person:gone')).toEqual([]);
    },
  );

  it.each(['a ban', 'a deletion'])('tells no one hidden from the person that they are gone after %s', async (name) => {
    // Gone liked each of them (a match), then: Blocker blocked Gone, Gone blocked Pest, Ex unmatched
    // Gone. None of them may see Gone any more: none is to learn that Gone has since left, or was banned.
    const gone = await makeCompletedUser(one, { name: 'Gone' });
    const [blocker, pest, ex] = await Promise.all([
      makeCompletedUser(one, { name: 'Blocker' }, { firstName: 'Blocker' }),
      makeCompletedUser(one, { name: 'Pest' }, { firstName: 'Pest' }),
      makeCompletedUser(one, { name: 'Ex' }, { firstName: 'Ex' }),
    ]);
    const api = client(one.url);
    const [, , exConversation] = await Promise.all([match(one, gone, blocker), match(one, gone, pest), match(one, gone, ex)]);
    expect((await api.post(`/api/users/${gone.id}/block/`, { token: blocker.token })).status).toBe(204);
    expect((await api.post(`/api/users/${pest.id}/block/`, { token: gone.token })).status).toBe(204);
    expect((await api.delete(`/api/conversations/${exConversation}/`, { token: ex.token })).status).toBe(204);
    const hidden: TestUser[] = [blocker, pest, ex];
    const hiddenSockets = await Promise.all(hidden.map((person) => connectTo(two, person.token)));
    const heard = hiddenSockets.map((socket) => record(socket));

    if (name === 'a ban') await banThroughModeration(one, moderator, gone);
    else expect((await client(two.url).delete('/api/users/me/', { token: gone.token, json: { password: gone.password } })).status).toBe(204);
    // A last event that does reach each of them, sent after all of the above: they heard nothing of Gone.
    const marker = await makeCompletedUser(one, { name: 'Marker' });
    for (const [index, person] of hidden.entries()) {
      const markerHeard = waitFor(hiddenSockets[index]!, 'match:new', (payload) => payload.user.id === marker.id);
      await match(one, marker, person);
      await markerHeard;
    }
    for (const [index, person] of hidden.entries()) {
      expect(heard[index]!.filter(({ event }) => event === 'person:gone'), person.firstName).toEqual([]);
    }
  });

  it('answers every socket event about a hidden partner as about no conversation at all, and tells nobody', async () => {
    const relations = ['stranger', 'blocked by me', 'blocked by them', 'unmatched by me', 'unmatched by them', 'banned', 'participant'] as const;
    for (const relation of relations) {
      const { a: me, b: them, conversationId } = await makePair(one, ['Me', 'Them']);
      const actor = relation === 'stranger' ? await makeCompletedUser(one) : me;
      const api = client(one.url);
      if (relation === 'blocked by me') await api.post(`/api/users/${them.id}/block/`, { token: me.token });
      if (relation === 'blocked by them') await api.post(`/api/users/${me.id}/block/`, { token: them.token });
      if (relation === 'unmatched by me') await api.delete(`/api/conversations/${conversationId}/`, { token: me.token });
      if (relation === 'unmatched by them') await api.delete(`/api/conversations/${conversationId}/`, { token: them.token });
      if (relation === 'banned') await banThroughModeration(one, moderator, them);

      const mine = await connectTo(one, actor.token);
      const theirs = relation === 'banned' ? null : await connectTo(two, them.token);
      const heard = theirs ? record(theirs) : [];
      const allowed = relation === 'participant';
      const expectAck = (ack: { ok: boolean; error?: { code: string } }, what: string) =>
        allowed ? expect(ack.ok, what).toBe(true) : expect(ack, `${what} as ${relation}`).toMatchObject({ ok: false, error: { code: 'not_found' } });

      const sent = await mine.emitWithAck('message:send', { conversation_id: conversationId, content: 'psst', client_id: newClientId() });
      expectAck(sent, 'message:send');
      expectAck(await mine.emitWithAck('typing', { conversation_id: conversationId }), 'typing');
      expectAck(await mine.emitWithAck('message:read', { conversation_id: conversationId, last_read_id: 1 }), 'message:read');
      const online = await mine.emitWithAck('presence:list', {});
      expect(online, relation).toEqual({ ok: true, online: allowed ? [them.id] : [] });
      if (theirs) {
        const theirView = await theirs.emitWithAck('presence:list', {});
        expect(theirView, relation).toEqual({ ok: true, online: allowed ? [actor.id] : [] });
        // A last event that does reach them, sent after all of the above: what came before it is all there is.
        const marker = await makeCompletedUser(one);
        const markerConversation = match(one, marker, them);
        await waitFor(theirs, 'match:new', (payload) => payload.user.id === marker.id);
        await markerConversation;
        const fromActor = heard.filter(
          ({ event, payload }) =>
            event !== 'match:new' && JSON.stringify(payload).includes(`"conversation_id":${conversationId}`),
        );
        expect(fromActor.map(({ event }) => event).sort(), relation).toEqual(allowed ? ['message:new', 'message:read', 'typing'] : []);
      }
    }
  });

  it('stops relaying typing the moment a block lands, though the socket had the conversation cached; both hear the other is gone', async () => {
    const { a, b, conversationId } = await makePair(one);
    const [aSocket, bSocket] = await Promise.all([connectTo(one, a.token), connectTo(two, b.token)]);
    const typed = waitFor(bSocket, 'typing');
    expect((await aSocket.emitWithAck('typing', { conversation_id: conversationId })).ok).toBe(true);
    await typed;
    const removed = waitFor(aSocket, 'match:removed');
    // Each is out of the other's reach: their cards and profiles go too, on every phone of theirs.
    const gone = [waitFor(aSocket, 'person:gone'), waitFor(bSocket, 'person:gone')];
    expect((await client(two.url).post(`/api/users/${a.id}/block/`, { token: b.token })).status).toBe(204);
    await removed;
    // The one who blocked is told it was their doing (their other phones drop the offer to report);
    // the one blocked hears only that the other is out of reach.
    expect(await Promise.all(gone)).toEqual([{ user_id: b.id }, { user_id: a.id, by_you: true }]);
    expect(await aSocket.emitWithAck('typing', { conversation_id: conversationId })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('tells both of an unmatch what a block tells them: the one left cannot tell the two apart', async () => {
    const { a, b, conversationId } = await makePair(one);
    const [aSocket, bSocket] = await Promise.all([connectTo(one, a.token), connectTo(two, b.token)]);
    const heard = record(aSocket);
    const endings = (events: typeof heard) => events.filter(({ event }) => event === 'match:removed' || event === 'person:gone');
    const gone = [waitFor(aSocket, 'person:gone'), waitFor(bSocket, 'person:gone')];
    expect((await client(two.url).delete(`/api/conversations/${conversationId}/`, { token: b.token })).status).toBe(204);
    expect(await Promise.all(gone)).toEqual([{ user_id: b.id }, { user_id: a.id, by_you: true }]);
    expect(endings(heard)).toEqual([
      { event: 'match:removed', payload: { conversation_id: conversationId } },
      { event: 'person:gone', payload: { user_id: b.id } },
    ]);

    // Word for word what the one blocked hears.
    const other = await makePair(one);
    const cSocket = await connectTo(one, other.a.token);
    const heardOfBlock = record(cSocket);
    const blockGone = waitFor(cSocket, 'person:gone');
    expect((await client(two.url).post(`/api/users/${other.a.id}/block/`, { token: other.b.token })).status).toBe(204);
    await blockGone;
    expect(endings(heardOfBlock)).toEqual([
      { event: 'match:removed', payload: { conversation_id: other.conversationId } },
      { event: 'person:gone', payload: { user_id: other.b.id } },
    ]);
  });

  it('drops a banned person’s sockets on both instances, each after it heard why, and refuses them at the handshake', async () => {
    const { a, b, conversationId } = await makePair(one);
    // Ben has a phone on each instance: the ban is resolved on instance one.
    const [bannedOnOne, bannedOnTwo, partner] = await Promise.all([connectTo(one, b.token), connectTo(two, b.token), connectTo(one, a.token)]);
    // Each banned phone hears why before its socket drops: the notice goes out ahead of the revocation.
    const heard = [bannedOnOne, bannedOnTwo].map((banned) => {
      const events: string[] = [];
      banned.on('account:suspended', () => events.push('account:suspended'));
      banned.on('disconnect', () => events.push('disconnect'));
      return events;
    });
    const dropped = [bannedOnOne, bannedOnTwo].map((banned) => waitForDisconnect(banned));
    const partnerTold = waitFor(partner, 'match:removed');
    await banThroughModeration(one, moderator, b);
    expect(await Promise.all(dropped)).toEqual(['io server disconnect', 'io server disconnect']);
    expect(heard).toEqual([
      ['account:suspended', 'disconnect'],
      ['account:suspended', 'disconnect'],
    ]);
    expect(await partnerTold).toEqual({ conversation_id: conversationId });
    // Refused, with the reason a phone away during the ban could not hear live.
    for (const server of [one, two]) await expect(connect(server.url, b.token)).rejects.toThrow('account_suspended');
    expect(partner.connected).toBe(true);
  });

  it('holds the per-user send limit across REST and sockets on both instances', async () => {
    const { a, conversationId } = await makePair(one);
    const { max } = limitRules(one.config)['message:send'];
    const socketOnTwo = await connectTo(two, a.token);
    const half = Math.floor(max / 2);
    for (let i = 0; i < half; i++) {
      expect((await client(one.url).post(`/api/conversations/${conversationId}/messages/`, { token: a.token, json: { content: `rest ${i}` } })).status).toBe(201);
    }
    const acks = await Promise.all(
      Array.from({ length: max - half + 3 }, (_, i) =>
        socketOnTwo.emitWithAck('message:send', { conversation_id: conversationId, content: `socket ${i}`, client_id: newClientId() }),
      ),
    );
    expect(acks.filter((ack) => ack.ok)).toHaveLength(max - half);
    expect(acks.filter((ack) => !ack.ok && ack.error.code === 'throttled')).toHaveLength(3);
    const refused = await client(one.url).post(`/api/conversations/${conversationId}/messages/`, { token: a.token, json: { content: 'no' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it(`lets no more than ${MAX_SOCKETS_PER_USER} sockets of a user in when they all connect to an instance at once`, async () => {
    const user = await makeCompletedUser(one);
    const tries = await Promise.allSettled(Array.from({ length: MAX_SOCKETS_PER_USER + 3 }, () => connect(one.url, user.token)));
    const connected = tries.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    sockets.keep(...connected);
    expect(connected).toHaveLength(MAX_SOCKETS_PER_USER);
    const refusals = tries.flatMap((attempt) => (attempt.status === 'rejected' ? [String(attempt.reason)] : []));
    expect(refusals).toEqual(Array(3).fill('Error: too_many_connections'));
  });

  it(`refuses a user's socket beyond ${MAX_SOCKETS_PER_USER} open at once, counted on every instance`, async () => {
    const user = await makeCompletedUser(one);
    const connected: ClientSocket[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_USER; i++) connected.push(await connectTo(i % 2 ? two : one, user.token));
    for (const server of [one, two]) {
      await expect(connect(server.url, user.token)).rejects.toThrow('too_many_connections');
    }
    // One closes: there is room again.
    connected[0]!.close();
    await expect
      .poll(async () => {
        try {
          await connectTo(two, user.token);
          return true;
        } catch {
          return false;
        }
      })
      .toBe(true);
  });
});
