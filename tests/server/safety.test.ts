/**
 * Safety over real HTTP: the one visibility rule at every route that touches another person or a
 * conversation (an access matrix), block, unmatch, report with its snapshot, and moderation.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPORT_SNAPSHOT_MESSAGES } from '../../shared/constants';
import type { EndedChat } from '../../shared/schemas/safety';
import { rowsOf } from '../../server/db/client';
import { authTokens, users } from '../../server/db/schema';
import { purgeExpiredTokens } from '../../server/features/account/service';
import { moderationHistory, setRole, unban } from '../../server/features/moderation/service';
import { ENDED_CONVERSATION_MESSAGES_KEPT_MS, purgeEndedConversations } from '../../server/features/safety/service';
import { SEND_LOCK_SPACE } from '../../server/features/conversations/queries';
import { hashToken, TOKEN_IDLE_LIFETIME_MS } from '../../server/lib/tokens';
import { admin } from '../../scripts/admin';
import { birthDateForAge, makeCompletedUser, makeUser, type TestUser, validProfile } from '../helpers/factories';
import { makeEvent } from '../helpers/events';
import { type ApiResponse, client } from '../helpers/http';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { racesOnPostgres } from '../helpers/lock-holder';
import { backends, serverPerSuite, startServer } from '../helpers/server';
import { connect, record, waitFor, waitForDisconnect } from '../helpers/socket';
import { makePair } from '../realtime/fixtures';
import { hasPostgres } from '../helpers/services';

const NOT_FOUND = { detail: 'Not found.' };
const ANONYMOUS = { detail: 'Authentication credentials were not provided.' };
const INVALID_TOKEN = { detail: 'Invalid token.' };
const SUSPENDED = { detail: 'This account has been suspended.', code: 'account_suspended' };

const RELATIONS = [
  'anonymous',
  'stranger',
  'blocked by me',
  'blocked by them',
  'unmatched by me',
  'unmatched by them',
  'banned',
  'participant',
] as const;
type Relation = (typeof RELATIONS)[number];

/** Me (null when signed out), them, and a conversation: theirs with me, or (for a stranger) with someone else. */
interface Scene {
  me: TestUser | null;
  them: TestUser;
  conversationId: number;
}

describe.each(backends)('safety on %s', (backend) => {
  const server = serverPerSuite({ backend });
  let moderator: TestUser;
  beforeAll(async () => {
    moderator = await makeModerator(server);
  });

  const api = () => client(server.url);
  const as = (user: TestUser | null) => (user ? { token: user.token } : {});

  async function matched(names: [string, string] = ['Ana', 'Ben']) {
    const a = await makeCompletedUser(server, { name: names[0] }, { firstName: names[0] });
    const b = await makeCompletedUser(server, { name: names[1] }, { firstName: names[1] });
    await api().post('/api/matching/', { token: a.token, json: { response: 'like', other: b.id } });
    const done = await api().post('/api/matching/', { token: b.token, json: { response: 'like', other: a.id } });
    expect(done.body.match).toBe(true);
    return { a, b, conversationId: done.body.conversation_id as number };
  }

  async function scene(relation: Relation): Promise<Scene> {
    const { a: me, b: them, conversationId } = await matched(['Me', 'Them']);
    switch (relation) {
      case 'anonymous':
        return { me: null, them, conversationId };
      case 'stranger':
        return { me: await makeCompletedUser(server), them, conversationId };
      case 'blocked by me':
        expect((await api().post(`/api/users/${them.id}/block/`, { token: me.token })).status).toBe(204);
        break;
      case 'blocked by them':
        expect((await api().post(`/api/users/${me.id}/block/`, { token: them.token })).status).toBe(204);
        break;
      case 'unmatched by me':
        expect((await api().delete(`/api/conversations/${conversationId}/`, { token: me.token })).status).toBe(204);
        break;
      case 'unmatched by them':
        expect((await api().delete(`/api/conversations/${conversationId}/`, { token: them.token })).status).toBe(204);
        break;
      case 'banned':
        await banThroughModeration(server, moderator, them);
        break;
      case 'participant':
        break;
    }
    return { me, them, conversationId };
  }

  /** What each relation gets: the participant's (or, for a person, anyone's who may see them) answer, else 404. */
  const only = (allowed: Relation[], ok: number) => (relation: Relation) =>
    relation === 'anonymous' ? 401 : allowed.includes(relation) ? ok : 404;

  const routes: Array<{
    name: string;
    call: (scene: Scene) => ReturnType<ReturnType<typeof api>['get']>;
    expected: (relation: Relation) => number;
    /** A read, which changes nothing another call would see: it may share its relation's scene. */
    reads?: true;
  }> = [
    {
      name: 'GET /api/users/{id}/profile/',
      call: ({ me, them }) => api().get(`/api/users/${them.id}/profile/`, as(me)),
      expected: only(['stranger', 'participant'], 200),
      reads: true,
    },
    {
      name: 'POST /api/matching/',
      call: ({ me, them }) => api().post('/api/matching/', { ...as(me), json: { response: 'like', other: them.id } }),
      expected: only(['stranger', 'participant'], 200),
    },
    {
      name: 'POST /api/matching/ (a dislike)',
      call: ({ me, them }) => api().post('/api/matching/', { ...as(me), json: { response: 'dislike', other: them.id } }),
      expected: only(['stranger', 'participant'], 200),
    },
    {
      // A reaction sent again (its first answer lost) is a reaction too: the rule answers it first.
      name: 'POST /api/matching/ (a like sent again)',
      call: ({ me, them }) => api().post('/api/matching/', { ...as(me), json: { response: 'like', other: them.id, retry: true } }),
      expected: only(['stranger', 'participant'], 200),
    },
    {
      name: 'POST /api/matching/ (a dislike sent again)',
      call: ({ me, them }) => api().post('/api/matching/', { ...as(me), json: { response: 'dislike', other: them.id, retry: true } }),
      expected: only(['stranger', 'participant'], 200),
    },
    {
      name: 'GET /api/conversations/{id}/',
      call: ({ me, conversationId }) => api().get(`/api/conversations/${conversationId}/`, as(me)),
      expected: only(['participant'], 200),
      reads: true,
    },
    {
      name: 'GET /api/conversations/{id}/messages/',
      call: ({ me, conversationId }) => api().get(`/api/conversations/${conversationId}/messages/`, as(me)),
      expected: only(['participant'], 200),
      reads: true,
    },
    {
      name: 'POST /api/conversations/{id}/messages/',
      call: ({ me, conversationId }) =>
        api().post(`/api/conversations/${conversationId}/messages/`, { ...as(me), json: { content: 'hello?' } }),
      expected: only(['participant'], 201),
    },
    {
      name: 'POST /api/users/{id}/block/',
      call: ({ me, them }) => api().post(`/api/users/${them.id}/block/`, as(me)),
      // Blocking again is a no-op (204). Whoever the user may report they may block (here, someone
      // they share a chat with, however it ended): each hidden relation answers alike, so none is told.
      expected: only(['stranger', 'participant', 'blocked by me', 'blocked by them', 'unmatched by me', 'unmatched by them', 'banned'], 204),
    },
    {
      name: 'DELETE /api/conversations/{id}/',
      call: ({ me, conversationId }) => api().delete(`/api/conversations/${conversationId}/`, as(me)),
      expected: only(['participant'], 204),
    },
  ];

  // A fresh scene of users for each of the table's cells: longer than one test's usual budget.
  it('lets only whom the visibility rule allows through every route that touches a person or a conversation', { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    // The reads' scenes, one per relation: the users each scene makes were most of this test's time.
    const readScenes = new Map<Relation, Scene>();
    for (const route of routes) {
      for (const relation of RELATIONS) {
        // A fresh scene per cell that writes: some of these calls change what the next would see.
        let current = route.reads ? readScenes.get(relation) : undefined;
        if (!current) {
          current = await scene(relation);
          if (route.reads) readScenes.set(relation, current);
        }
        const response = await route.call(current);
        const expected = route.expected(relation);
        if (response.status !== expected) {
          failures.push(`${route.name} as ${relation}: ${response.status} ${JSON.stringify(response.body)}, expected ${expected}`);
          continue;
        }
        if (expected === 401) expect(response.body).toEqual(ANONYMOUS);
        // The same answer as an id that never existed: nobody learns why.
        if (expected === 404) expect(response.body).toEqual(NOT_FOUND);
      }
    }
    expect(failures).toEqual([]);
  });

  it('shows a conversation in the lists only while both may use it', async () => {
    for (const relation of RELATIONS) {
      const { me, conversationId } = await scene(relation);
      if (!me) {
        expect((await api().get('/api/conversations/empty/')).status).toBe(401);
        continue;
      }
      const listed = [];
      for (const kind of ['empty', 'started']) {
        const page = await api().get(`/api/conversations/${kind}/`, { token: me.token });
        expect(page.status).toBe(200);
        listed.push(...page.body.results.map((row: { id: number }) => row.id));
      }
      expect(listed.includes(conversationId), relation).toBe(relation === 'participant');
    }
  });

  it('keeps hidden people out of the deck, both ways', async () => {
    // An age band of this test's own: the deck holds exactly these people.
    const band = { min_matching_age: 91, max_matching_age: 92, genders_to_match: ['male', 'female', 'non_binary'] as never };
    const viewer = await makeCompletedUser(server, { ...band, date_of_birth: birthDateForAge(91) });
    const [visible, blockedByViewer, blockedViewer, banned] = await Promise.all(
      [0, 1, 2, 3].map(() => makeCompletedUser(server, { ...band, date_of_birth: birthDateForAge(92) })),
    );
    const deck = async (user: TestUser) =>
      (await api().get('/api/users/matching-profiles/?limit=100', { token: user.token })).body.results.map(
        (card: { id: number }) => card.id,
      );
    expect(new Set(await deck(viewer))).toEqual(new Set([visible!.id, blockedByViewer!.id, blockedViewer!.id, banned!.id]));
    await api().post(`/api/users/${blockedByViewer!.id}/block/`, { token: viewer.token });
    await api().post(`/api/users/${viewer.id}/block/`, { token: blockedViewer!.token });
    await banThroughModeration(server, moderator, banned!);
    expect(await deck(viewer)).toEqual([visible!.id]);
    expect(await deck(blockedByViewer!)).not.toContain(viewer.id);
    expect(await deck(blockedViewer!)).not.toContain(viewer.id);
  });

  it('blocks two ways at once, lists blocks newest first, and an unblock does not bring the match back', async () => {
    const { a, b, conversationId } = await matched();
    const c = await makeCompletedUser(server, { name: 'Cleo' }, { firstName: 'Cleo' });
    expect((await api().post(`/api/users/${b.id}/block/`, { token: a.token })).status).toBe(204);
    expect((await api().post(`/api/users/${b.id}/block/`, { token: a.token })).status).toBe(204);
    expect((await api().post(`/api/users/${c.id}/block/`, { token: a.token })).status).toBe(204);
    // Both sides lose the conversation and each other.
    for (const [me, them] of [
      [a, b],
      [b, a],
    ] as const) {
      expect((await api().get(`/api/users/${them.id}/profile/`, { token: me.token })).status).toBe(404);
      expect((await api().get(`/api/conversations/${conversationId}/`, { token: me.token })).status).toBe(404);
    }
    const blocks = await api().get('/api/users/me/blocks/', { token: a.token });
    expect(blocks.status).toBe(200);
    expect(blocks.body.results.map((row: { id: number; name: string }) => [row.id, row.name])).toEqual([
      [c.id, 'Cleo'],
      [b.id, 'Ben'],
    ]);
    expect(blocks.body.results[0].blocked_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Paged with a sealed cursor.
    const first = await api().get('/api/users/me/blocks/?limit=1', { token: a.token });
    const second = await api().get(`/api/users/me/blocks/?limit=1&cursor=${first.body.next}`, { token: a.token });
    expect(second.body.results.map((row: { id: number }) => row.id)).toEqual([b.id]);
    expect(second.body.next).toBeNull();
    expect((await api().get('/api/users/me/blocks/?cursor=AAAA', { token: a.token })).status).toBe(400);
    // The blocked person sees no list entry of someone else's.
    expect((await api().get('/api/users/me/blocks/', { token: b.token })).body.results).toEqual([]);

    expect((await api().delete(`/api/users/${b.id}/block/`, { token: a.token })).status).toBe(204);
    expect((await api().delete(`/api/users/${b.id}/block/`, { token: a.token })).status).toBe(204);
    expect((await api().get(`/api/users/${b.id}/profile/`, { token: a.token })).status).toBe(200);
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: a.token })).status).toBe(404);
    const again = await api().post('/api/matching/', { token: a.token, json: { response: 'like', other: b.id } });
    expect(again.body).toEqual({ match: false, conversation_id: null });

    expect((await api().post(`/api/users/${a.id}/block/`, { token: a.token })).status).toBe(400);
    expect((await api().post('/api/users/999999/block/', { token: a.token })).body).toEqual(NOT_FOUND);
    expect((await api().post('/api/users/me/block/', { token: a.token })).status).toBe(404);
  });

  it('keeps both blocks when two people in a chat block each other at once: each unblock takes back only its own', async () => {
    const { a, b, conversationId } = await matched();
    const both = await Promise.all([
      api().post(`/api/users/${b.id}/block/`, { token: a.token }),
      api().post(`/api/users/${a.id}/block/`, { token: b.token }),
    ]);
    expect(both.map((reply) => reply.status)).toEqual([204, 204]);
    const listed = async (user: TestUser) => (await api().get('/api/users/me/blocks/', { token: user.token })).body.results.map((row: { id: number }) => row.id);
    expect([await listed(a), await listed(b)]).toEqual([[b.id], [a.id]]);

    // The first to unblock takes back their block alone: the other's still hides the two from each other.
    expect((await api().delete(`/api/users/${b.id}/block/`, { token: a.token })).status).toBe(204);
    expect((await api().get(`/api/users/${b.id}/profile/`, { token: a.token })).body).toEqual(NOT_FOUND);
    expect((await api().get(`/api/users/${a.id}/profile/`, { token: b.token })).body).toEqual(NOT_FOUND);
    expect([await listed(a), await listed(b)]).toEqual([[], [a.id]]);
    expect((await api().delete(`/api/users/${a.id}/block/`, { token: b.token })).status).toBe(204);
    expect((await api().get(`/api/users/${b.id}/profile/`, { token: a.token })).status).toBe(200);
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: a.token })).status).toBe(404);
  });

  it('tells each person once of a block: blocking again, or blocking back, pushes nothing more to the one blocked', async () => {
    const { a, b, conversationId } = await matched();
    const [aSocket, bSocket] = await Promise.all([connect(server.url, a.token), connect(server.url, b.token)]);
    try {
      const heardBy = { a: record(aSocket), b: record(bSocket) };
      const told = [waitFor(aSocket, 'person:gone'), waitFor(bSocket, 'person:gone')];
      expect((await api().post(`/api/users/${b.id}/block/`, { token: a.token })).status).toBe(204);
      await Promise.all(told);
      // A double tap, and the one blocked blocking back.
      expect((await api().post(`/api/users/${b.id}/block/`, { token: a.token })).status).toBe(204);
      expect((await api().post(`/api/users/${a.id}/block/`, { token: b.token })).status).toBe(204);
      // A last event that reaches both, sent after the blocks, is all they hear besides the first block's news.
      const marker = await makeCompletedUser(server);
      const fromMarker = (gone: { user_id: number }) => gone.user_id === marker.id;
      const markerHeard = [waitFor(aSocket, 'person:gone', fromMarker), waitFor(bSocket, 'person:gone', fromMarker)];
      expect((await api().post(`/api/users/${a.id}/block/`, { token: marker.token })).status).toBe(204);
      expect((await api().post(`/api/users/${b.id}/block/`, { token: marker.token })).status).toBe(204);
      await Promise.all(markerHeard);
      const markerNews = { event: 'person:gone', payload: { user_id: marker.id } };
      const endings = (heard: typeof heardBy.a) => heard.filter(({ event }) => event === 'match:removed' || event === 'person:gone');
      expect(endings(heardBy.a)).toEqual([
        { event: 'match:removed', payload: { conversation_id: conversationId, by_you: true } },
        { event: 'person:gone', payload: { user_id: b.id, by_you: true } },
        markerNews,
      ]);
      // Blocking back is the blocker's own doing, told to their own phones alone.
      expect(endings(heardBy.b)).toEqual([
        { event: 'match:removed', payload: { conversation_id: conversationId } },
        { event: 'person:gone', payload: { user_id: a.id } },
        { event: 'person:gone', payload: { user_id: a.id, by_you: true } },
        markerNews,
      ]);
    } finally {
      aSocket.close();
      bSocket.close();
    }
  });

  it('tells the reporter’s phones once of a report: the same report again, or an addition to it, pushes nothing more', async () => {
    const { a, b, conversationId } = await matched();
    const aSocket = await connect(server.url, a.token);
    try {
      const heard = record(aSocket);
      const told = waitFor(aSocket, 'person:gone');
      const first = await api().post('/api/reports/', { token: a.token, json: { user_id: b.id, reason: 'harassment' } });
      expect(first.status).toBe(201);
      await told;
      // A retry, and a second thought added to it.
      for (const reason of ['harassment', 'harassment', 'spam']) {
        const again = await api().post('/api/reports/', { token: a.token, json: { user_id: b.id, reason } });
        expect([again.status, again.body]).toEqual([200, { id: first.body.id }]);
      }
      // A last event that reaches them, sent after the reports, is all they hear besides the first report's news.
      const marker = await makeCompletedUser(server);
      const markerHeard = waitFor(aSocket, 'person:gone', (gone) => gone.user_id === marker.id);
      expect((await api().post(`/api/users/${a.id}/block/`, { token: marker.token })).status).toBe(204);
      await markerHeard;
      expect(heard.filter(({ event }) => event === 'match:removed' || event === 'person:gone')).toEqual([
        { event: 'match:removed', payload: { conversation_id: conversationId, by_you: true } },
        { event: 'person:gone', payload: { user_id: b.id, by_you: true } },
        { event: 'person:gone', payload: { user_id: marker.id } },
      ]);
    } finally {
      aSocket.close();
    }
  });

  it('says on the list of blocks whom the user has an open report of, until a moderator decides it', async () => {
    const { a, b } = await matched();
    const c = await makeCompletedUser(server, { name: 'Cleo' }, { firstName: 'Cleo' });
    expect((await api().post(`/api/users/${c.id}/block/`, { token: a.token })).status).toBe(204);
    const filed = await api().post('/api/reports/', { token: a.token, json: { user_id: b.id, reason: 'spam' } });
    expect(filed.status).toBe(201);
    const listed = async () =>
      ((await api().get('/api/users/me/blocks/', { token: a.token })).body.results as Array<{ id: number; reported: boolean }>).map((row) => [
        row.id,
        row.reported,
      ]);
    // The report blocked Ben too; Cleo was only blocked.
    expect(await listed()).toEqual([
      [b.id, true],
      [c.id, false],
    ]);

    const dismissed = await api().post(`/api/moderation/reports/${filed.body.id}/resolve/`, { token: moderator.token, json: { action: 'dismiss' } });
    expect(dismissed.status).toBe(200);
    // Decided, the report is closed: Ben can be reported again, and stays blocked.
    expect(await listed()).toEqual([
      [b.id, false],
      [c.id, false],
    ]);
  });

  it('unmatches for both for good: a dislike is recorded, and a new like never matches them again', async () => {
    const { a, b, conversationId } = await matched();
    expect((await api().delete(`/api/conversations/${conversationId}/`, { token: b.token })).status).toBe(204);
    expect((await api().delete(`/api/conversations/${conversationId}/`, { token: b.token })).status).toBe(404);
    for (const [me, them] of [
      [a, b],
      [b, a],
    ] as const) {
      expect((await api().get(`/api/users/${them.id}/profile/`, { token: me.token })).status).toBe(404);
      const like = await api().post('/api/matching/', { token: me.token, json: { response: 'like', other: them.id } });
      expect(like.status).toBe(404);
    }
    // Read straight from the table: no route shows one's reactions.
    const [reaction] = rowsOf<{ kind: string }>(
      await server.app.db.execute(sql`select kind from reactions where from_user_id = ${b.id} and to_user_id = ${a.id}`),
    );
    expect(reaction?.kind).toBe('dislike');
  });

  it('leaves every other conversation of both open after an unmatch', async () => {
    const { a: me, b: ended, conversationId: endedId } = await matched(['Uma', 'Ugo']);
    const other = await makeCompletedUser(server, { name: 'Val' });
    await api().post('/api/matching/', { token: me.token, json: { response: 'like', other: other.id } });
    const done = await api().post('/api/matching/', { token: other.token, json: { response: 'like', other: me.id } });
    const openId = done.body.conversation_id as number;
    expect((await api().delete(`/api/conversations/${endedId}/`, { token: me.token })).status).toBe(204);

    for (const user of [me, other]) {
      expect((await api().get(`/api/conversations/${openId}/`, { token: user.token })).status, `${user.id} opens it`).toBe(200);
      const sent = await api().post(`/api/conversations/${openId}/messages/`, { token: user.token, json: { content: 'still here' } });
      expect(sent.status, `${user.id} writes there`).toBe(201);
    }
    expect((await api().get(`/api/conversations/${endedId}/`, { token: ended.token })).status).toBe(404);
    // And the one who unmatched may end the next one too.
    expect((await api().delete(`/api/conversations/${openId}/`, { token: me.token })).status).toBe(204);
  });

  it('lists the chats that ended while their messages are kept, so that the one who ended it can be reported', async () => {
    const { a: me, b: blocker, conversationId: blockedId } = await matched(['Eva', 'Ed']);
    const unmatcher = await makeCompletedUser(server, { name: 'Uli' }, { firstName: 'Uli' });
    const old = await makeCompletedUser(server, { name: 'Olga' }, { firstName: 'Olga' });
    const open = await makeCompletedUser(server, { name: 'Opal' }, { firstName: 'Opal' });
    const pairWith = async (other: TestUser) => {
      await api().post('/api/matching/', { token: me.token, json: { response: 'like', other: other.id } });
      return (await api().post('/api/matching/', { token: other.token, json: { response: 'like', other: me.id } })).body.conversation_id as number;
    };
    const oldId = await pairWith(old);
    await pairWith(open);
    const unmatchedId = await pairWith(unmatcher);
    await server.app.db.execute(
      sql`insert into messages (conversation_id, sender_id, content) values (${blockedId}, ${blocker.id}, ${'you will regret it'})`,
    );

    expect((await api().delete(`/api/conversations/${oldId}/`, { token: old.token })).status).toBe(204);
    // Ended before the messages' keeping time: no longer listed.
    await server.app.db.execute(sql`update conversations set ended_at = now() - interval '31 days' where id = ${oldId}`);
    expect((await api().post(`/api/users/${me.id}/block/`, { token: blocker.token })).status).toBe(204);
    expect((await api().delete(`/api/conversations/${unmatchedId}/`, { token: unmatcher.token })).status).toBe(204);

    const list = await api().get('/api/conversations/ended/', { token: me.token });
    expect(list.status).toBe(200);
    const listed = (body: { results: EndedChat[] }) => body.results.map((chat) => [chat.id, chat.user_id, chat.name, chat.reported]);
    expect(listed(list.body)).toEqual([
      [unmatchedId, unmatcher.id, 'Uli', false],
      [blockedId, blocker.id, 'Ed', false],
    ]);
    expect(list.body.results[0].ended_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The other side lists it alike, whoever ended it.
    const theirs = await api().get('/api/conversations/ended/', { token: blocker.token });
    expect(theirs.body.results.map((chat: { user_id: number }) => chat.user_id)).toEqual([me.id]);

    // The person who blocked me is still within reach of a report, with what they wrote.
    const reported = await api().post('/api/reports/', {
      token: me.token,
      json: { user_id: blocker.id, reason: 'harassment', conversation_id: blockedId },
    });
    expect(reported.status).toBe(201);
    const detail = await api().get(`/api/moderation/reports/${reported.body.id}/`, { token: moderator.token });
    expect(detail.body.snapshot.messages.map((message: { content: string }) => message.content)).toEqual(['you will regret it']);
    const after = await api().get('/api/conversations/ended/?limit=1', { token: me.token });
    expect(listed(after.body)).toEqual([[unmatchedId, unmatcher.id, 'Uli', false]]);
    const next = await api().get(`/api/conversations/ended/?limit=1&cursor=${after.body.next}`, { token: me.token });
    expect(listed(next.body)).toEqual([[blockedId, blocker.id, 'Ed', true]]);
    expect(next.body.next).toBeNull();

    // A cursor that does not open is a 400; someone whose chats are all open has nothing listed.
    expect((await api().get('/api/conversations/ended/?cursor=AAAA', { token: me.token })).status).toBe(400);
    expect((await api().get('/api/conversations/ended/?limit=0', { token: me.token })).status).toBe(400);
    expect((await api().get('/api/conversations/ended/', { token: open.token })).body).toEqual({ results: [], next: null });
    expect((await api().get('/api/conversations/ended/')).body).toEqual(ANONYMOUS);
  });

  it('reports with a snapshot of the profile and the last 50 messages, blocks, and adds a second report to the first', async () => {
    const { a: reporter, b: reported, conversationId } = await matched(['Rita', 'Rob']);
    for (let i = 1; i <= REPORT_SNAPSHOT_MESSAGES + 5; i += 1) {
      const from = i % 2 ? reported : reporter;
      await server.app.db.execute(
        sql`insert into messages (conversation_id, sender_id, content) values (${conversationId}, ${from.id}, ${`line ${i}`})`,
      );
    }
    const first = await api().post('/api/reports/', {
      token: reporter.token,
      json: { user_id: reported.id, reason: 'harassment', details: 'Kept writing after I said no.', conversation_id: conversationId },
    });
    expect(first.status).toBe(201);
    // The reporter never sees them again, and their conversation is gone for both.
    expect((await api().get(`/api/users/${reported.id}/profile/`, { token: reporter.token })).status).toBe(404);
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: reported.token })).status).toBe(404);

    // What they show now does not change what the moderator sees.
    await api().put('/api/users/me/profile/', {
      token: reported.token,
      json: await validProfile({ name: 'Someone Else', bio: 'Changed' }),
    });

    const second = await api().post('/api/reports/', {
      token: reporter.token,
      json: { user_id: reported.id, reason: 'spam', details: 'And links.' },
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ id: first.body.id });
    // The same addition again (a double tap, a retry after a lost answer) adds nothing.
    const again = await api().post('/api/reports/', {
      token: reporter.token,
      json: { user_id: reported.id, reason: 'spam', details: 'And links.' },
    });
    expect([again.status, again.body]).toEqual([200, { id: first.body.id }]);

    const detail = await api().get(`/api/moderation/reports/${first.body.id}/`, { token: moderator.token });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: first.body.id,
      reason: 'harassment',
      details: 'Kept writing after I said no.',
      status: 'open',
      reporter: { id: reporter.id, name: 'Rita' },
      reported: { id: reported.id, report_count: 1, banned: false },
      conversation_id: conversationId,
      additions: [{ reason: 'spam', details: 'And links.' }],
      resolution: null,
    });
    const { profile, messages } = detail.body.snapshot;
    expect(profile).toMatchObject({ name: 'Rob', bio: 'Here for the music.', age: 28, gender: 'female' });
    expect(profile.photos).toHaveLength(1);
    expect(messages).toHaveLength(REPORT_SNAPSHOT_MESSAGES);
    expect(messages[0].content).toBe('line 6');
    expect(messages.at(-1).content).toBe(`line ${REPORT_SNAPSHOT_MESSAGES + 5}`);

    // The photo copy is the moderator's only, and not a public /media/ file.
    const photoPath = profile.photos[0] as string;
    expect(photoPath).toMatch(/^\/api\/moderation\/reports\/\d+\/photos\/0\/$/);
    const photo = await fetch(`${server.url}${photoPath}`, { headers: { authorization: `Token ${moderator.token}` } });
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/webp');
    expect(photo.headers.get('cache-control')).toBe('private, no-store');
    expect((await api().get(photoPath, { token: reporter.token })).status).toBe(404);

    // Never told: nothing in the reported person's own view says so.
    expect((await api().get('/api/users/me/', { token: reported.token })).status).toBe(200);
  });

  it('blocks again, ends the chat and keeps it when the same report is sent again after an unblock, while it is open', async () => {
    const reporter = await makeCompletedUser(server, { name: 'Rosa' });
    const reported = await makeCompletedUser(server, { name: 'Raul' });
    const report = (json: object) => api().post('/api/reports/', { token: reporter.token, json: { user_id: reported.id, reason: 'harassment', ...json } });
    const first = await report({});
    expect(first.status).toBe(201);
    // Unblocked from the list (the report still open), then the two match.
    expect((await api().delete(`/api/users/${reported.id}/block/`, { token: reporter.token })).status).toBe(204);
    await api().post('/api/matching/', { token: reporter.token, json: { response: 'like', other: reported.id } });
    const match = await api().post('/api/matching/', { token: reported.token, json: { response: 'like', other: reporter.id } });
    expect(match.body.match).toBe(true);
    const conversationId = match.body.conversation_id as number;
    const said = await api().post(`/api/conversations/${conversationId}/messages/`, { token: reported.token, json: { content: 'You again' } });
    expect(said.status).toBe(201);

    // The same reason from the chat's menu: it adds nothing to the open report, yet blocks as any report does.
    const again = await report({ conversation_id: conversationId });
    expect([again.status, again.body]).toEqual([200, { id: first.body.id }]);
    // The report, made with no chat between them, keeps the one they have now for its moderator.
    const detail = await api().get(`/api/moderation/reports/${first.body.id}/`, { token: moderator.token });
    expect(detail.body).toMatchObject({ conversation_id: conversationId, additions: [] });
    expect(detail.body.snapshot.messages).toMatchObject([{ content: 'You again', from: 'reported' }]);
    expect((await api().get(`/api/users/${reporter.id}/profile/`, { token: reported.token })).status).toBe(404);
    const send = api().post(`/api/conversations/${conversationId}/messages/`, { token: reported.token, json: { content: 'still here' } });
    expect((await send).status).toBe(404);
    expect((await api().get('/api/users/me/blocks/', { token: reporter.token })).body.results).toMatchObject([{ id: reported.id, reported: true }]);
  });

  it('refuses reports of oneself or of nobody, and a reason or details that are not allowed', async () => {
    const me = await makeCompletedUser(server);
    const other = await makeCompletedUser(server);
    const post = (json: unknown) => api().post('/api/reports/', { token: me.token, json });
    expect((await post({ user_id: me.id, reason: 'spam' })).status).toBe(400);
    expect((await post({ user_id: 999_999, reason: 'spam' })).body).toEqual(NOT_FOUND);
    expect((await post({ user_id: other.id, reason: 'bad vibes' })).body).toHaveProperty('reason');
    expect((await post({ user_id: other.id, reason: 'other', details: 'x'.repeat(1001) })).body).toHaveProperty('details');
    expect((await post({ user_id: other.id, reason: 'other', details: ' \u200b\u202e\u2066 ' })).body).toEqual({
      details: ['This field may not be blank.'],
    });
    expect((await post({ user_id: other.id, reason: 'other', details: 'fine' })).status).toBe(201);
  });

  it('takes reports of whom the reporter may see or has talked to, and of no one else, as of an id that never existed', async () => {
    const me = await makeCompletedUser(server);
    const report = (user: TestUser) => api().post('/api/reports/', { token: me.token, json: { user_id: user.id, reason: 'spam' } });
    // Strangers hidden from me: banned, blocking me, a profile not complete.
    const banned = await makeCompletedUser(server);
    await banThroughModeration(server, moderator, banned);
    const blocking = await makeCompletedUser(server);
    expect((await api().post(`/api/users/${me.id}/block/`, { token: blocking.token })).status).toBe(204);
    const unfinished = await makeUser(server);
    for (const hidden of [banned, blocking, unfinished]) {
      const answer = await report(hidden);
      expect([answer.status, answer.body]).toEqual([404, NOT_FOUND]);
    }
    expect(rowsOf(await server.app.db.execute(sql`select 1 from reports where reporter_id = ${me.id}`))).toEqual([]);
    // Someone I talked to stays within reach after a ban ended our chat; a report of them is added to
    // while it is open, though the first one hid them from me.
    const { a: partner, b: formerPartner } = await matched(['Pia', 'Pol']);
    await banThroughModeration(server, moderator, formerPartner);
    const first = await api().post('/api/reports/', { token: partner.token, json: { user_id: formerPartner.id, reason: 'harassment' } });
    expect(first.status).toBe(201);
    const again = await api().post('/api/reports/', { token: partner.token, json: { user_id: formerPartner.id, reason: 'spam' } });
    expect([again.status, again.body]).toEqual([200, { id: first.body.id }]);
    // The moderators see that it is about someone banned already, in the queue and in the report.
    const queue = await api().get('/api/moderation/reports/?status=open&limit=100', { token: moderator.token });
    const row = queue.body.results.find((item: { id: number }) => item.id === first.body.id);
    expect(row.reported).toEqual({ id: formerPartner.id, name: 'Pol', report_count: 2, banned: true });
    expect((await api().get(`/api/moderation/reports/${first.body.id}/`, { token: moderator.token })).body.reported.banned).toBe(true);
  });

  it('refuses a report naming a conversation that is not the two’s as an unknown id, and stores nothing of it', async () => {
    const { a: reporter, b: reported, conversationId } = await matched(['Rhea', 'Rory']);
    const other = await makeCompletedUser(server);
    await api().post('/api/matching/', { token: reporter.token, json: { response: 'like', other: other.id } });
    const withOther = await api().post('/api/matching/', { token: other.token, json: { response: 'like', other: reporter.id } });
    const withSomeoneElse = withOther.body.conversation_id as number;
    const strangers = await matched(['Tia', 'Tom']);
    for (const wrong of [withSomeoneElse, strangers.conversationId, conversationId + 1_000_000]) {
      const refused = await api().post('/api/reports/', {
        token: reporter.token,
        json: { user_id: reported.id, reason: 'harassment', conversation_id: wrong },
      });
      expect([refused.status, refused.body]).toEqual([404, NOT_FOUND]);
    }
    expect(rowsOf(await server.app.db.execute(sql`select 1 from reports where reporter_id = ${reporter.id}`))).toEqual([]);
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: reported.token })).status).toBe(200);
    const taken = await api().post('/api/reports/', { token: reporter.token, json: { user_id: reported.id, reason: 'harassment', conversation_id: conversationId } });
    expect(taken.status).toBe(201);
  });

  it('takes a report of someone I blocked, with no conversation, and brings nothing of them back to either', async () => {
    const me = await makeCompletedUser(server);
    const them = await makeCompletedUser(server, { name: 'Fake Felix', bio: 'Not who he says.' });
    // Blocked from their profile in a hurry: no like, no conversation, then the report.
    expect((await api().get(`/api/users/${them.id}/profile/`, { token: me.token })).status).toBe(200);
    expect((await api().post(`/api/users/${them.id}/block/`, { token: me.token })).status).toBe(204);
    const blocksBefore = (await api().get('/api/users/me/blocks/', { token: me.token })).body;
    const [mine, theirs] = await Promise.all([connect(server.url, me.token), connect(server.url, them.token)]);
    try {
      const heardBy = { me: record(mine), them: record(theirs) };
      const first = await api().post('/api/reports/', {
        token: me.token,
        json: { user_id: them.id, reason: 'fake_profile', details: 'Photos of someone else.' },
      });
      expect([first.status, Object.keys(first.body)]).toEqual([201, ['id']]);
      const again = await api().post('/api/reports/', { token: me.token, json: { user_id: them.id, reason: 'underage' } });
      expect([again.status, again.body]).toEqual([200, { id: first.body.id }]);

      // Still hidden both ways, and still on my list as blocked when I blocked them, now reported.
      expect((await api().get(`/api/users/${them.id}/profile/`, { token: me.token })).body).toEqual(NOT_FOUND);
      expect((await api().get(`/api/users/${me.id}/profile/`, { token: them.token })).body).toEqual(NOT_FOUND);
      expect(blocksBefore.results).toEqual([expect.objectContaining({ id: them.id, reported: false })]);
      expect((await api().get('/api/users/me/blocks/', { token: me.token })).body).toEqual({
        ...blocksBefore,
        results: [{ ...blocksBefore.results[0], reported: true }],
      });
      // They are told nothing (my phones hear it was my doing): a last event that reaches both, sent
      // after the reports, is all they hear.
      const marker = await makeCompletedUser(server);
      const markerHeard = [waitFor(mine, 'person:gone', (gone) => gone.user_id === marker.id), waitFor(theirs, 'person:gone')];
      expect((await api().post(`/api/users/${me.id}/block/`, { token: marker.token })).status).toBe(204);
      expect((await api().post(`/api/users/${them.id}/block/`, { token: marker.token })).status).toBe(204);
      expect(await Promise.all(markerHeard)).toEqual([{ user_id: marker.id }, { user_id: marker.id }]);
      expect(heardBy.them).toEqual([{ event: 'person:gone', payload: { user_id: marker.id } }]);
      const mineHeard = { event: 'person:gone', payload: { user_id: them.id, by_you: true } };
      // The report is told to my other phones (their list of blocks shows it reported); the addition is not.
      expect(heardBy.me).toEqual([mineHeard, { event: 'person:gone', payload: { user_id: marker.id } }]);

      // What they showed is the moderator's to see.
      const detail = await api().get(`/api/moderation/reports/${first.body.id}/`, { token: moderator.token });
      expect(detail.body).toMatchObject({
        reason: 'fake_profile',
        reporter: { id: me.id },
        reported: { id: them.id },
        conversation_id: null,
        additions: [{ reason: 'underage' }],
        snapshot: { profile: { name: 'Fake Felix', bio: 'Not who he says.' }, messages: [] },
      });
    } finally {
      mine.close();
      theirs.close();
    }

    // Someone who blocked me stays as unknown as an id that never existed, conversation or none.
    const blocking = await makeCompletedUser(server);
    expect((await api().post(`/api/users/${me.id}/block/`, { token: blocking.token })).status).toBe(204);
    const refused = await api().post('/api/reports/', { token: me.token, json: { user_id: blocking.id, reason: 'fake_profile' } });
    expect([refused.status, refused.body]).toEqual([404, NOT_FOUND]);
    expect(rowsOf(await server.app.db.execute(sql`select 1 from reports where reporter_id = ${me.id} and reported_id = ${blocking.id}`))).toEqual([]);
  });

  it('tells someone who ended the chat nothing of the report that follows', async () => {
    const { a: reporter, b: ender, conversationId } = await matched(['Uma', 'Vic']);
    expect((await api().delete(`/api/conversations/${conversationId}/`, { token: ender.token })).status).toBe(204);
    const theirs = await connect(server.url, ender.token);
    try {
      const heard = record(theirs);
      expect((await api().post('/api/reports/', { token: reporter.token, json: { user_id: ender.id, reason: 'harassment' } })).status).toBe(201);
      // A last event that reaches them, sent after the report, is all they hear.
      const marker = await makeCompletedUser(server);
      const markerHeard = waitFor(theirs, 'person:gone');
      expect((await api().post(`/api/users/${ender.id}/block/`, { token: marker.token })).status).toBe(204);
      await markerHeard;
      expect(heard).toEqual([{ event: 'person:gone', payload: { user_id: marker.id } }]);
    } finally {
      theirs.close();
    }
  });

  it('runs the queue for moderators only: oldest open first, a ban or a dismissal, and unban by the admin command', async () => {
    const nobody = await makeUser(server);
    expect((await api().get('/api/moderation/reports/', { token: nobody.token })).body).toEqual(NOT_FOUND);
    expect((await api().get('/api/users/me/', { token: nobody.token })).body.is_moderator).toBe(false);
    expect((await api().get('/api/users/me/', { token: moderator.token })).body.is_moderator).toBe(true);
    expect((await api().get('/api/moderation/reports/')).status).toBe(401);

    const [troll, innocent, reporter] = await Promise.all([
      makeCompletedUser(server, { name: 'Troll' }, { firstName: 'Troll' }),
      makeCompletedUser(server, { name: 'Innocent' }),
      makeCompletedUser(server),
    ]);
    const trollReport = await api().post('/api/reports/', { token: reporter.token, json: { user_id: troll.id, reason: 'spam' } });
    const other = await makeCompletedUser(server);
    const trollAgain = await api().post('/api/reports/', { token: other.token, json: { user_id: troll.id, reason: 'fake_profile' } });
    const innocentReport = await api().post('/api/reports/', { token: reporter.token, json: { user_id: innocent.id, reason: 'other' } });

    const queue = await api().get('/api/moderation/reports/?status=open&limit=100', { token: moderator.token });
    expect(queue.status).toBe(200);
    const ids = queue.body.results.map((row: { id: number }) => row.id);
    expect(ids.indexOf(trollReport.body.id)).toBeLessThan(ids.indexOf(trollAgain.body.id));
    expect(ids.indexOf(trollAgain.body.id)).toBeLessThan(ids.indexOf(innocentReport.body.id));
    expect(queue.body.results.find((row: { id: number }) => row.id === trollAgain.body.id).reported).toEqual({
      id: troll.id,
      name: 'Troll',
      report_count: 2,
      banned: false,
    });
    expect(queue.body.results.find((row: { id: number }) => row.id === trollAgain.body.id)).toMatchObject({ resolution: null, resolved_at: null });

    const dismissed = await api().post(`/api/moderation/reports/${innocentReport.body.id}/resolve/`, {
      token: moderator.token,
      json: { action: 'dismiss', note: 'Nothing wrong.' },
    });
    expect(dismissed.status).toBe(200);
    expect(dismissed.body).toMatchObject({ status: 'resolved', resolution: 'dismiss', note: 'Nothing wrong.' });
    expect(dismissed.body.resolved_by).toEqual({ id: moderator.id, name: 'Mod' });
    expect(dismissed.body.snapshot.profile.photos).toEqual([]);
    expect((await api().post('/api/auth/', { json: { username: innocent.email, password: innocent.password } })).status).toBe(200);

    // The troll is at a party with the reporter.
    const party = await makeEvent(server, innocent);
    for (const guest of [troll, reporter]) {
      expect((await api().post(`/api/events/${party.code}/check-in/`, { token: guest.token, json: {} })).status).toBe(200);
    }
    const partyCount = async () => (await api().get('/api/events/current/', { token: reporter.token })).body.event.attendee_count;
    expect(await partyCount()).toBe(2);

    const banned = await api().post(`/api/moderation/reports/${trollReport.body.id}/resolve/`, {
      token: moderator.token,
      json: { action: 'ban' },
    });
    expect(banned.body).toMatchObject({ status: 'resolved', resolution: 'ban' });
    expect(
      (await api().post(`/api/moderation/reports/${trollReport.body.id}/resolve/`, { token: moderator.token, json: { action: 'dismiss' } }))
        .status,
    ).toBe(409);
    // Every other open report about them is resolved with the ban, and names the report it was decided on.
    expect((await api().get(`/api/moderation/reports/${trollAgain.body.id}/`, { token: moderator.token })).body).toMatchObject({
      status: 'resolved',
      resolution: 'ban',
      resolved_with: trollReport.body.id,
      note: null,
    });
    expect(banned.body).toMatchObject({ resolved_with: null });
    const resolved = await api().get('/api/moderation/reports/?status=resolved&limit=100', { token: moderator.token });
    expect(resolved.body.results.map((row: { id: number }) => row.id)).toEqual(
      expect.arrayContaining([trollReport.body.id, trollAgain.body.id, innocentReport.body.id]),
    );
    // Each row says what was decided and when, without opening it.
    const rowOf = (id: number) => resolved.body.results.find((row: { id: number }) => row.id === id);
    expect(rowOf(trollAgain.body.id)).toMatchObject({ resolution: 'ban', resolved_at: expect.stringMatching(/Z$/) });
    expect(rowOf(innocentReport.body.id)).toMatchObject({ resolution: 'dismiss', resolved_at: dismissed.body.resolved_at });

    // Signed out everywhere (a session the ban ended says why) and refused at the door.
    expect((await api().get('/api/users/me/', { token: troll.token })).body).toEqual(SUSPENDED);
    const login = await api().post('/api/auth/', { json: { username: troll.email, password: troll.password } });
    expect(login.status).toBe(403);
    expect(login.body).toEqual(SUSPENDED);
    expect((await api().get(`/api/users/${troll.id}/profile/`, { token: other.token })).status).toBe(404);
    // Checked out of the party: no longer among those counted there.
    expect(await partyCount()).toBe(1);

    // The admin command lifts it; it needs the database this server holds, which for PostgreSQL is shared.
    if (backend === 'postgres') {
      const lines: string[] = [];
      const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
      // The address as login takes it: in capitals, or pasted with a space around it.
      expect(await admin(['unban', ` ${troll.email.toUpperCase()}\n`], { DATABASE_URL: server.config.databaseUrl! }, out as never)).toBe(0);
      expect(lines).toEqual([`${troll.email} is no longer banned.`]);
      expect(await admin(['unban', troll.email], { DATABASE_URL: server.config.databaseUrl! }, out as never)).toBe(0);
      expect(lines.pop()).toBe(`${troll.email} was not banned.`);
    } else {
      expect(await unban(server.app.db, troll.email)).toBe('changed');
    }
    // The sessions the ban ended stay ended, and no longer say "suspended": the user signs in afresh.
    expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, troll.id))).toEqual([]);
    expect((await api().get('/api/users/me/', { token: troll.token })).body).toEqual(INVALID_TOKEN);
    expect((await api().post('/api/auth/', { json: { username: troll.email, password: troll.password } })).status).toBe(200);
    // Seen again by someone unrelated; the reporters keep the block their reports made.
    const bystander = await makeCompletedUser(server);
    expect((await api().get(`/api/users/${troll.id}/profile/`, { token: bystander.token })).status).toBe(200);
    expect((await api().get(`/api/users/${troll.id}/profile/`, { token: other.token })).status).toBe(404);
  });

  it('stops a banned organizer’s events: the one going on ends, its guests told; one not started is gone', async () => {
    const organizer = await makeCompletedUser(server);
    const guest = await makeCompletedUser(server);
    const late = await makeCompletedUser(server);
    const live = await makeEvent(server, organizer);
    const later = await makeEvent(server, organizer, {
      starts_at: new Date(Date.now() + 5 * 3_600_000).toISOString(),
      ends_at: new Date(Date.now() + 8 * 3_600_000).toISOString(),
    });
    expect((await api().post(`/api/events/${live.code}/check-in/`, { token: guest.token, json: {} })).status).toBe(200);
    const guestSocket = await connect(server.url, guest.token);
    try {
      const told = waitFor(guestSocket, 'event:changed', (payload) => payload.event.id === live.id);
      await banThroughModeration(server, moderator, organizer);
      expect((await told).event.status).toBe('after');
      const refused = await api().post(`/api/events/${live.code}/check-in/`, { token: late.token, json: {} });
      expect([refused.status, refused.body.code]).toEqual([409, 'ended']);
      expect((await api().get(`/api/events/${later.code}/`)).status).toBe(404);
      // Those inside keep the after-party's deck: they met each other, not the organizer.
      expect((await api().get('/api/events/current/', { token: guest.token })).body.event).toMatchObject({ id: live.id, status: 'after' });
    } finally {
      guestSocket.close();
    }
  });

  it('tells a phone that was away during the ban that the account is suspended, and nobody else', async () => {
    const troll = await makeCompletedUser(server);
    // Another phone of theirs signed out before the ban; a third, asleep through it, holds its token.
    const signedOut = await api().post('/api/auth/', { json: { username: troll.email, password: troll.password } });
    expect((await api().post('/api/auth/logout/', { token: signedOut.body.token })).status).toBe(204);
    await banThroughModeration(server, moderator, troll);

    // The phone wakes: any request, and its socket's reconnect, hear the suspension, in its language.
    const me = await api().get('/api/users/me/', { token: troll.token });
    expect([me.status, me.body]).toEqual([403, SUSPENDED]);
    const deck = await api().get('/api/users/matching-profiles/', { token: troll.token, headers: { 'accept-language': 'es' } });
    expect([deck.status, deck.body]).toEqual([403, { detail: 'Esta cuenta ha sido suspendida.', code: 'account_suspended' }]);
    await expect(connect(server.url, troll.token)).rejects.toThrow('account_suspended');

    // A token it had ended already, or one never issued, learns nothing of it.
    expect((await api().get('/api/users/me/', { token: signedOut.body.token })).body).toEqual(INVALID_TOKEN);
    expect((await api().get('/api/users/me/', { token: `${troll.token}x` })).body).toEqual(INVALID_TOKEN);
    await expect(connect(server.url, signedOut.body.token)).rejects.toThrow('unauthorized');
    // Nor does the suspended one open anything, as the ban's own sessions went past their lifetime.
    await server.app.db
      .update(authTokens)
      .set({ lastUsedAt: new Date(Date.now() - TOKEN_IDLE_LIFETIME_MS - 60_000) })
      .where(eq(authTokens.tokenHash, hashToken(troll.token)));
    expect((await api().get('/api/users/me/', { token: troll.token })).body).toEqual(INVALID_TOKEN);
    expect((await purgeExpiredTokens(server.app.db)).sessions).toBeGreaterThanOrEqual(1);
    expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, troll.id))).toEqual([]);
  });

  it('leaves a report about a moderator to the other moderators', async () => {
    const mara = await makeModerator(server, { name: 'Mara' });
    const reporter = await makeCompletedUser(server);
    const report = await api().post('/api/reports/', { token: reporter.token, json: { user_id: mara.id, reason: 'harassment' } });
    expect(report.status).toBe(201);
    const path = `/api/moderation/reports/${report.body.id}/`;
    const openIds = async (token: string) =>
      (await api().get('/api/moderation/reports/?status=open&limit=100', { token })).body.results.map((row: { id: number }) => row.id);

    // She neither sees it, nor its evidence, nor can she decide it.
    expect(await openIds(mara.token)).not.toContain(report.body.id);
    expect((await api().get(path, { token: mara.token })).body).toEqual(NOT_FOUND);
    const photo = (token: string) => fetch(`${server.url}${path}photos/0/`, { headers: { authorization: `Token ${token}` } });
    expect((await photo(mara.token)).status).toBe(404);
    expect((await api().post(`${path}resolve/`, { token: mara.token, json: { action: 'dismiss' } })).body).toEqual(NOT_FOUND);

    // Another moderator finds it as it was, and decides it.
    expect(await openIds(moderator.token)).toContain(report.body.id);
    expect((await photo(moderator.token)).status).toBe(200);
    expect((await api().get(path, { token: moderator.token })).body).toMatchObject({ status: 'open', resolved_by: null });
    const dismissed = await api().post(`${path}resolve/`, { token: moderator.token, json: { action: 'dismiss' } });
    expect(dismissed.body).toMatchObject({ status: 'resolved', resolved_by: { id: moderator.id, name: 'Mod' } });
    const resolvedIds = async (token: string) =>
      (await api().get('/api/moderation/reports/?status=resolved&limit=100', { token })).body.results.map((row: { id: number }) => row.id);
    expect(await resolvedIds(moderator.token)).toContain(report.body.id);
    expect(await resolvedIds(mara.token)).not.toContain(report.body.id);
  });

  it('leaves a report a moderator made to the other moderators: she bans no one on her own word', async () => {
    const mara = await makeModerator(server, { name: 'Mara' });
    const reported = await makeCompletedUser(server);
    const report = await api().post('/api/reports/', { token: mara.token, json: { user_id: reported.id, reason: 'harassment' } });
    expect(report.status).toBe(201);
    const path = `/api/moderation/reports/${report.body.id}/`;
    const open = await api().get('/api/moderation/reports/?status=open&limit=100', { token: mara.token });
    expect(open.body.results.map((row: { id: number }) => row.id)).not.toContain(report.body.id);
    expect((await api().get(path, { token: mara.token })).body).toEqual(NOT_FOUND);
    expect((await api().post(`${path}resolve/`, { token: mara.token, json: { action: 'ban' } })).body).toEqual(NOT_FOUND);
    expect((await api().get('/api/users/me/', { token: reported.token })).status).toBe(200);
    // Another moderator decides it.
    expect((await api().post(`${path}resolve/`, { token: moderator.token, json: { action: 'dismiss' } })).status).toBe(200);
  });

  it('bans for good when the photo copies cannot be removed after the ban (the bucket down)', async () => {
    const { a: reporter, b: troll } = await matched(['Ida', 'Troy']);
    const filed = await api().post('/api/reports/', { token: reporter.token, json: { user_id: troll.id, reason: 'harassment' } });
    expect(filed.status).toBe(201);
    const theirs = await connect(server.url, troll.token);
    const evidence = server.app.evidence;
    const removeFile = evidence.remove;
    evidence.remove = async () => {
      throw new Error('the bucket is down');
    };
    try {
      const dropped = waitForDisconnect(theirs);
      const banned = await api().post(`/api/moderation/reports/${filed.body.id}/resolve/`, { token: moderator.token, json: { action: 'ban' } });
      expect([banned.status, banned.body.status, banned.body.snapshot?.profile.photos]).toEqual([200, 'resolved', []]);
      // The ban's sessions end with it, the copies' removal left to the orphan sweep.
      await dropped;
      expect((await api().get('/api/users/me/', { token: troll.token })).body).toEqual(SUSPENDED);
    } finally {
      evidence.remove = removeFile;
      theirs.close();
    }
  });

  it('ends a banned person’s sessions with the ban, though its request fails right after the commit', async () => {
    const { a: reporter, b: troll } = await matched(['Ivo', 'Tara']);
    // A second phone signed in before the ban, its token not yet used (so nothing holds it in memory).
    const elsewhere = await api().post('/api/auth/', { json: { username: troll.email, password: troll.password } });
    const filed = await api().post('/api/reports/', { token: reporter.token, json: { user_id: troll.id, reason: 'harassment' } });
    // What stops the request once the ban has committed: here a failure in its first step after it
    // (as well an instance stopped by a deploy, or a lost database connection).
    const publishBeforeDrop = server.app.publishBeforeDrop;
    server.app.publishBeforeDrop = ((userId, event, ...args) => {
      if (event === 'account:suspended') throw new Error('the instance went away');
      return publishBeforeDrop(userId, event, ...args);
    }) as typeof publishBeforeDrop;
    try {
      const banned = await api().post(`/api/moderation/reports/${filed.body.id}/resolve/`, { token: moderator.token, json: { action: 'ban' } });
      expect(banned.status).toBe(500);
    } finally {
      server.app.publishBeforeDrop = publishBeforeDrop;
    }
    // The ban stands, decided once; its sessions ended with it.
    const again = await api().post(`/api/moderation/reports/${filed.body.id}/resolve/`, { token: moderator.token, json: { action: 'ban' } });
    expect(again.status).toBe(409);
    expect((await api().get('/api/users/me/', { token: elsewhere.body.token })).body).toEqual(SUSPENDED);
    const sessions = await server.app.db.select({ ended: authTokens.endedByBan }).from(authTokens).where(eq(authTokens.userId, troll.id));
    expect(sessions.map((session) => session.ended)).toEqual([true, true]);
  });

  it('records who decided what about whom, and when, and the admin command lists it newest first', async () => {
    const [subject, first, second] = [await makeCompletedUser(server), await makeCompletedUser(server), await makeCompletedUser(server)];
    const report = async (by: TestUser) => (await api().post('/api/reports/', { token: by.token, json: { user_id: subject.id, reason: 'spam' } })).body.id as number;
    const resolve = (id: number, action: string) => api().post(`/api/moderation/reports/${id}/resolve/`, { token: moderator.token, json: { action } });
    const dismissed = await report(first);
    expect((await resolve(dismissed, 'dismiss')).status).toBe(200);
    const banned = await report(second);
    expect((await resolve(banned, 'ban')).status).toBe(200);
    expect(await unban(server.app.db, subject.email)).toBe('changed');
    expect(await setRole(server.app.db, subject.email, 'moderator')).toBe('changed');
    // Nothing changed, nothing recorded.
    expect(await setRole(server.app.db, subject.email, 'moderator')).toBe('unchanged');
    expect(await setRole(server.app.db, subject.email, 'user')).toBe('changed');

    const history = (await moderationHistory(server.app.db, subject.email))!;
    expect(history.map(({ action, moderator: by, reportId }) => [action, by, reportId])).toEqual([
      ['revoke_moderator', null, null],
      ['grant_moderator', null, null],
      ['unban', null, null],
      ['ban', moderator.email, banned],
      ['dismiss', moderator.email, dismissed],
    ]);
    expect(history.every(({ at }) => at instanceof Date && Date.now() - at.getTime() < 60_000)).toBe(true);
    expect(await moderationHistory(server.app.db, 'nobody@example.com')).toBeNull();
    if (backend === 'postgres') {
      const lines: string[] = [];
      const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
      expect(await admin(['log', subject.email.toUpperCase()], { DATABASE_URL: server.config.databaseUrl! }, out as never)).toBe(0);
      expect(lines.join('\n').split('\n')).toEqual([
        expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}revoke moderator {2}by the admin command$/),
        expect.stringMatching(/Z {2}grant moderator {2}by the admin command$/),
        expect.stringMatching(/Z {2}unban {2}by the admin command$/),
        expect.stringMatching(new RegExp(`Z {2}ban {2}by ${moderator.email.replace(/[.+]/g, '\\$&')} {2}on report #${banned}$`)),
        expect.stringMatching(new RegExp(`Z {2}dismiss {2}by ${moderator.email.replace(/[.+]/g, '\\$&')} {2}on report #${dismissed}$`)),
      ]);
    }
  });

  it('bans no one twice: a report made after the ban is dismissed, and the first ban keeps its time and its one line', async () => {
    const { a: reporter, b: troll } = await matched(['Ines', 'Toni']);
    await banThroughModeration(server, moderator, troll);
    const bannedAt = async () =>
      (await server.app.db.select({ at: users.bannedAt }).from(users).where(eq(users.id, troll.id)))[0]!.at;
    const first = await bannedAt();
    expect(first).toBeInstanceOf(Date);
    // The chat the ban ended can still be reported; its report waits in the queue, the person banned.
    const late = await api().post('/api/reports/', { token: reporter.token, json: { user_id: troll.id, reason: 'harassment' } });
    expect(late.status).toBe(201);
    const path = `/api/moderation/reports/${late.body.id}/`;
    expect((await api().get(path, { token: moderator.token })).body).toMatchObject({ status: 'open', reported: { banned: true } });

    const again = await api().post(`${path}resolve/`, { token: moderator.token, json: { action: 'ban' }, headers: { 'accept-language': 'es' } });
    expect([again.status, again.body]).toEqual([
      409,
      { detail: 'Esta cuenta ya está suspendida: la suspensión se mantiene. Descarta la denuncia para cerrarla.' },
    ]);
    expect(await bannedAt()).toEqual(first);
    expect((await moderationHistory(server.app.db, troll.email))!.map((line) => line.action)).toEqual(['ban']);
    expect((await api().get(path, { token: moderator.token })).body).toMatchObject({ status: 'open', resolution: null });
    const dismissed = await api().post(`${path}resolve/`, { token: moderator.token, json: { action: 'dismiss' } });
    expect(dismissed.body).toMatchObject({ status: 'resolved', resolution: 'dismiss', reported: { banned: true } });
    expect(await bannedAt()).toEqual(first);
  });

  it('refuses bad moderation input with 4xx', async () => {
    const post = (path: string, json: unknown) => api().post(path, { token: moderator.token, json });
    expect((await post('/api/moderation/reports/999999/resolve/', { action: 'dismiss' })).body).toEqual(NOT_FOUND);
    const someone = await makeCompletedUser(server);
    const reporter = await makeCompletedUser(server);
    const made = await api().post('/api/reports/', { token: reporter.token, json: { user_id: someone.id, reason: 'spam' } });
    expect((await post(`/api/moderation/reports/${made.body.id}/resolve/`, { action: 'delete' })).body).toHaveProperty('action');
    expect((await post(`/api/moderation/reports/${made.body.id}/resolve/`, { action: 'dismiss', note: 'x'.repeat(1001) })).status).toBe(400);
    // A note of only white space is no note: absent, as when none was written, not an empty one.
    const blank = await post(`/api/moderation/reports/${made.body.id}/resolve/`, { action: 'dismiss', note: ' \n\t ' });
    expect([blank.status, blank.body.note]).toEqual([200, null]);
    expect((await api().get('/api/moderation/reports/?status=closed', { token: moderator.token })).body).toHaveProperty('status');
    expect((await api().get('/api/moderation/reports/?cursor=AAAA', { token: moderator.token })).body).toEqual({
      cursor: ['Invalid cursor.'],
    });
    expect((await api().get(`/api/moderation/reports/${made.body.id}/photos/9/`, { token: moderator.token })).status).toBe(404);
  });

  it('bans no one when the reported account was deleted since, and says so; Dismiss closes the report', async () => {
    const { a: reporter, b: gone } = await matched(['Iris', 'Gus']);
    const filed = await api().post('/api/reports/', { token: reporter.token, json: { user_id: gone.id, reason: 'harassment' } });
    expect((await api().delete('/api/users/me/', { token: gone.token, json: { password: gone.password } })).status).toBe(204);
    const path = `/api/moderation/reports/${filed.body.id}/`;
    const banned = await api().post(`${path}resolve/`, { token: moderator.token, json: { action: 'ban' }, headers: { 'accept-language': 'es' } });
    expect([banned.status, banned.body]).toEqual([
      409,
      { detail: 'Esta cuenta se ha eliminado desde entonces: no hay nadie a quien suspender. Descarta la denuncia para cerrarla.' },
    ]);
    // Still open, as the person showed themselves then; not recorded as a ban.
    expect((await api().get(path, { token: moderator.token })).body).toMatchObject({
      status: 'open',
      resolution: null,
      reported: { id: null, name: 'Gus' },
    });
    const dismissed = await api().post(`${path}resolve/`, { token: moderator.token, json: { action: 'dismiss' } });
    expect(dismissed.body).toMatchObject({ status: 'resolved', resolution: 'dismiss' });
  });
});

// A new embedded database on disk (the server's: initdb and every migration), then five openings of
// it: each a PGlite start, seconds of a core apiece, past the default 30 s on a busy 2-core machine.
describe('the admin command', { timeout: 120_000 }, () => {
  it('says how to use it, and that the embedded database must be free', async () => {
    const lines: string[] = [];
    const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    expect(await admin(['promote', 'x@example.com'], {}, out as never)).toBe(2);
    expect(lines.pop()).toMatch(/^Usage: npm run admin -- grant-moderator\|revoke-moderator\|unban\|log <email>, or delete <email> --yes$/);
    // A deletion names one account, and nothing else.
    for (const words of [['delete', '--yes'], ['delete'], ['delete', 'a@example.com', 'b@example.com', '--yes'], ['delete', '--force', 'a@example.com']]) {
      expect(await admin(words, {}, out as never)).toBe(2);
      expect(lines.pop()).toMatch(/^Usage: /);
    }
    // Asked for, the usage is an answer, not a mistake: on stdout, exit 0, each command said.
    const logged: string[] = [];
    expect(await admin(['--help'], {}, { log: (line: string) => logged.push(line), error: out.error } as never)).toBe(0);
    expect(logged.pop()).toMatch(/^Usage: npm run admin -- .*\n {2}grant-moderator <email> .*\n {2}revoke-moderator <email> .*\n {2}unban <email> .*\n {2}delete <email> --yes /s);
    // A DATABASE_URL it cannot use: one line, as the server says it, not a stack.
    expect(await admin(['unban', 'x@example.com'], { DATABASE_URL: 'notaurl' }, out as never)).toBe(1);
    expect(lines.pop()).toBe('Configuration error: DATABASE_URL must be a PostgreSQL address such as postgres://user:password@host:5432/eventmatch.');
    expect(await admin(['unban', 'x@example.com'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }, out as never)).toBe(1);
    expect(lines.pop()).toMatch(/^Configuration error: DATABASE_URL: the database cannot be reached \(.+\)\.$/);

    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-admin-'));
    // A DATA_DIR with no database (mistyped, or DATABASE_URL left out of the shell): said so, and none made there.
    expect(await admin(['unban', 'x@example.com'], { DATA_DIR: dataDir }, out as never)).toBe(1);
    expect(lines.pop()).toBe(`No database in ${dataDir}: set DATA_DIR to the server's data folder, or DATABASE_URL to its PostgreSQL database.`);
    expect(await readdir(dataDir)).toEqual([]);
    const server = await startServer({ backend: 'pglite', dataDir, onDisk: true });
    try {
      const user = await makeUser(server);
      expect(await admin(['grant-moderator', user.email], { DATA_DIR: dataDir }, out as never)).toBe(1);
      expect(lines.pop()).toMatch(/in use by a running server \(pid \d+\)\.\nStop the server first/);
      await server.close();
      expect(await admin(['grant-moderator', user.email], { DATA_DIR: dataDir }, out as never)).toBe(0);
      expect(lines.pop()).toBe(`${user.email} is now a moderator.`);
      expect(await admin(['grant-moderator', user.email], { DATA_DIR: dataDir }, out as never)).toBe(0);
      expect(lines.pop()).toBe(`${user.email} is already a moderator.`);
      expect(await admin(['revoke-moderator', user.email], { DATA_DIR: dataDir }, out as never)).toBe(0);
      expect(lines.pop()).toBe(`${user.email} is no longer a moderator.`);
      expect(await admin(['revoke-moderator', user.email], { DATA_DIR: dataDir }, out as never)).toBe(0);
      expect(lines.pop()).toBe(`${user.email} was not a moderator.`);
      expect(await admin(['revoke-moderator', 'nobody@example.com'], { DATA_DIR: dataDir }, out as never)).toBe(1);
      expect(lines.pop()).toBe('No account with the e-mail nobody@example.com.');
    } finally {
      await server.close().catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe.each(backends)('the purge of ended conversations on %s', (backend) => {
  it('deletes the messages of conversations ended before the cutoff, and nothing else', async () => {
    const server = await startServer({ backend });
    try {
      const api = client(server.url);
      const pairs = [];
      for (let i = 0; i < 3; i++) {
        const a = await makeCompletedUser(server);
        const b = await makeCompletedUser(server);
        await api.post('/api/matching/', { token: a.token, json: { response: 'like', other: b.id } });
        const matchedPair = await api.post('/api/matching/', { token: b.token, json: { response: 'like', other: a.id } });
        const id = matchedPair.body.conversation_id as number;
        await api.post(`/api/conversations/${id}/messages/`, { token: a.token, json: { content: 'hello' } });
        pairs.push({ a, b, id });
      }
      const [old, recent, live] = pairs as [(typeof pairs)[0], (typeof pairs)[0], (typeof pairs)[0]];
      await api.delete(`/api/conversations/${old.id}/`, { token: old.a.token });
      await api.delete(`/api/conversations/${recent.id}/`, { token: recent.a.token });
      const cutoff = new Date(Date.now() + 60_000);
      // The cutoff moves, not the rows: `old` ended before it, `recent` is made to end after it.
      await server.app.db.execute(sql`update conversations set ended_at = ${new Date(cutoff.getTime() + 60_000).toISOString()}::timestamptz where id = ${recent.id}`);
      expect(await purgeEndedConversations(server.app.db, cutoff)).toBe(1);
      const left = async (id: number) =>
        Number(rowsOf<{ n: number }>(await server.app.db.execute(sql`select count(*) as n from messages where conversation_id = ${id}`))[0]!.n);
      expect([await left(old.id), await left(recent.id), await left(live.id)]).toEqual([0, 1, 1]);
      // The pair stays unmatched for good.
      expect((await api.get(`/api/users/${old.b.id}/profile/`, { token: old.a.token })).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('purges a batch at a time, marks what it purged, and reads only what it has not purged since', async () => {
    const server = await startServer({ backend });
    try {
      const api = client(server.url);
      const db = server.app.db;
      const DAY = 24 * 60 * 60 * 1000;
      // Pairs with `said` messages each, their conversation ended `endedDaysAgo` (null: still open).
      const make = async (said: number, endedDaysAgo: number | null) => {
        const a = await makeCompletedUser(server);
        const b = await makeCompletedUser(server);
        await api.post('/api/matching/', { token: a.token, json: { response: 'like', other: b.id } });
        const id = (await api.post('/api/matching/', { token: b.token, json: { response: 'like', other: a.id } })).body.conversation_id as number;
        for (let i = 0; i < said; i++) {
          const sent = await api.post(`/api/conversations/${id}/messages/`, { token: i % 2 ? b.token : a.token, json: { content: `m${i}` } });
          expect(sent.status).toBe(201);
        }
        return { a, b, id, endedDaysAgo };
      };
      // A backlog of five (one of them already empty, as the purges before the mark left them), one
      // reported, one ended 29 days ago, one open.
      const old = [await make(2, 90), await make(3, 80), await make(0, 70), await make(1, 60), await make(2, 31)];
      const reported = old[1]!;
      const report = await api.post('/api/reports/', {
        token: reported.a.token,
        json: { user_id: reported.b.id, reason: 'harassment', conversation_id: reported.id },
      });
      expect(report.status).toBe(201);
      const recent = await make(2, 29);
      const live = await make(2, null);
      for (const pair of [...old, recent]) {
        expect((await api.delete(`/api/conversations/${pair.id}/`, { token: pair.a.token })).status).toBe(pair === reported ? 404 : 204);
        await db.execute(sql`update conversations set ended_at = ${new Date(Date.now() - pair.endedDaysAgo! * DAY).toISOString()}::timestamptz where id = ${pair.id}`);
      }
      const all = [...old, recent, live];
      const state = async () =>
        rowsOf<{ id: number; messages: number; purged: string | null }>(
          await db.execute(sql`
            select c.id, (select count(*) from messages m where m.conversation_id = c.id)::int as messages,
              to_char(c.messages_purged_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as purged
            from conversations c where c.id in (${sql.join(all.map((pair) => sql`${pair.id}`), sql`, `)}) order by c.id`),
        );
      expect((await state()).map((row) => row.messages)).toEqual([2, 3, 0, 1, 2, 2, 2]);

      const cutoff = new Date(Date.now() - ENDED_CONVERSATION_MESSAGES_KEPT_MS);
      // Its statements, counted as they go to the database: one per batch.
      let statements = 0;
      const counted = new Proxy(db, {
        get: (target, key) =>
          key === 'execute' ? (...args: Parameters<typeof db.execute>) => (statements++, target.execute(...args)) : Reflect.get(target, key),
      });
      expect(await purgeEndedConversations(counted, cutoff, 2)).toBe(8);
      expect(statements).toBe(3);
      const after = await state();
      expect(after.map((row) => row.messages)).toEqual([0, 0, 0, 0, 0, 2, 2]);
      // All five marked, two at a time (a statement's own time), oldest end first; the others not.
      // Not told apart by their marks: PGlite's clock counts whole milliseconds, and two batches a
      // round trip apart may fall in one.
      const marks = after.map((row) => row.purged);
      expect(marks.slice(5)).toEqual([null, null]);
      expect(marks.slice(0, 5)).not.toContain(null);
      expect(marks[0]).toBe(marks[1]);
      expect(marks[2]).toBe(marks[3]);
      expect([...marks.slice(0, 5)].sort()).toEqual(marks.slice(0, 5));
      // The report keeps its copy of the messages.
      const [kept] = rowsOf<{ n: number }>(
        await db.execute(sql`select jsonb_array_length(snapshot->'messages')::int as n from reports where id = ${report.body.id as number}`),
      );
      expect(kept!.n).toBe(3);

      // A second run finds nothing to do: no message goes, no mark is set or moved.
      expect(await purgeEndedConversations(db, cutoff, 2)).toBe(0);
      expect(await purgeEndedConversations(db, cutoff)).toBe(0);
      expect(await state()).toEqual(after);
      // The open conversation still works.
      expect((await api.post(`/api/conversations/${live.id}/messages/`, { token: live.a.token, json: { content: 'still here' } })).status).toBe(201);
    } finally {
      await server.close();
    }
  });
});

/**
 * Two moderators deciding the same report at once, on PostgreSQL: the test's own transaction stands in
 * for the colleague's decision in flight, holding the report's row it resolves.
 */
describe.skipIf(!(await hasPostgres()))('two moderators deciding one report at once, on PostgreSQL', () => {
  const races = racesOnPostgres();

  it.each(['dismiss', 'ban'] as const)('answers a %s that waited for a colleague’s dismissal with 409, and bans no one', async (action) => {
    const { server, hold, stuckOrDone } = races;
    const api = client(server.url);
    const [moderator, reported, reporter] = [await makeModerator(server), await makeCompletedUser(server), await makeCompletedUser(server)];
    const colleague = await makeModerator(server);
    const filed = await api.post('/api/reports/', { token: reporter.token, json: { user_id: reported.id, reason: 'spam' } });
    const id = filed.body.id as number;
    const release = await hold(
      `update reports set status = 'resolved', resolution = 'dismiss', resolved_by = $2, resolved_at = now() where id = $1`,
      [id, colleague.id],
    );
    let decided: Promise<ApiResponse>;
    try {
      decided = api.post(`/api/moderation/reports/${id}/resolve/`, { token: moderator.token, json: { action } });
      expect(await stuckOrDone(decided, 1)).toBe(false);
    } finally {
      await release('commit');
    }
    const answer = await decided;
    expect([answer.status, answer.body]).toEqual([409, { detail: 'This report has already been resolved.' }]);
    expect((await api.get(`/api/moderation/reports/${id}/`, { token: moderator.token })).body).toMatchObject({
      resolution: 'dismiss',
      resolved_by: { id: colleague.id },
      reported: { banned: false },
    });
    expect((await api.get('/api/users/me/', { token: reported.token })).status).toBe(200);
  });
});

/**
 * A report whose transaction began before others committed and waited (for the reported person's
 * row, the test's transaction standing in for whatever held it) while a moderator read the open
 * queue's first page: "Show more" still reaches it.
 */
describe.skipIf(!(await hasPostgres()))('a report committed while a moderator pages the open queue, on PostgreSQL', () => {
  const races = racesOnPostgres();

  it('lists it on a later page, not before the page already read', async () => {
    const { server, hold, stuckOrDone } = races;
    const api = client(server.url);
    const moderator = await makeModerator(server);
    const people = [];
    for (let i = 0; i < 6; i++) people.push(await makeCompletedUser(server));
    const [late, lateTarget, first, firstTarget, second, secondTarget] = people as [TestUser, TestUser, TestUser, TestUser, TestUser, TestUser];
    const fileReport = (by: TestUser, of: TestUser) => api.post('/api/reports/', { token: by.token, json: { user_id: of.id, reason: 'spam' } });
    const release = await hold('select 1 from users where id = $1 for update', [lateTarget.id]);
    let filed: Promise<ApiResponse>;
    let firstPage: ApiResponse;
    try {
      filed = fileReport(late, lateTarget);
      expect(await stuckOrDone(filed, 1)).toBe(false);
      expect((await fileReport(first, firstTarget)).status).toBe(201);
      expect((await fileReport(second, secondTarget)).status).toBe(201);
      firstPage = await api.get('/api/moderation/reports/?limit=1', { token: moderator.token });
    } finally {
      await release();
    }
    const lateReport = await filed;
    expect(lateReport.status).toBe(201);
    const seen: number[] = firstPage.body.results.map((report: { id: number }) => report.id);
    for (let next = firstPage.body.next as string | null; next; ) {
      const page = await api.get(`/api/moderation/reports/?limit=1&cursor=${encodeURIComponent(next)}`, { token: moderator.token });
      seen.push(...page.body.results.map((report: { id: number }) => report.id));
      next = page.body.next;
    }
    expect(seen).toHaveLength(3);
    expect(seen).toContain(lateReport.body.id);
  });
});

/**
 * The purge beside an account's deletion, on PostgreSQL: the deletion takes each of the account's
 * conversations (its cascade deletes them), then their messages. The test's own transaction stands in
 * for it, holding an ended conversation's row.
 */
describe.skipIf(!(await hasPostgres()))('the purge of ended conversations beside a deletion, on PostgreSQL', () => {
  const races = racesOnPostgres();

  it('leaves a conversation another transaction holds to the next run, without waiting for it', async () => {
    const { server, hold } = races;
    const api = client(server.url);
    const [a, b] = [await makeCompletedUser(server), await makeCompletedUser(server)];
    await api.post('/api/matching/', { token: a.token, json: { response: 'like', other: b.id } });
    const id = (await api.post('/api/matching/', { token: b.token, json: { response: 'like', other: a.id } })).body.conversation_id as number;
    expect((await api.post(`/api/conversations/${id}/messages/`, { token: a.token, json: { content: 'hello' } })).status).toBe(201);
    expect((await api.delete(`/api/conversations/${id}/`, { token: a.token })).status).toBe(204);
    const cutoff = new Date(Date.now() + 60_000);
    const left = async () => Number(rowsOf<{ n: number }>(await server.app.db.execute(sql`select count(*) as n from messages where conversation_id = ${id}`))[0]!.n);

    const release = await hold('select 1 from conversations where id = $1 for update', [id]);
    try {
      expect(await purgeEndedConversations(server.app.db, cutoff)).toBe(0);
      expect(await left()).toBe(1);
    } finally {
      await release();
    }
    expect(await purgeEndedConversations(server.app.db, cutoff)).toBe(1);
    expect(await left()).toBe(0);
  });
});

/**
 * A login that begins while a ban is being written: its session must not outlive the ban. The test's
 * own transaction stands in for the ban in progress (it holds the user's row, `banned_at` set).
 */
describe.skipIf(!(await hasPostgres()))('a login racing a ban, on PostgreSQL', () => {
  const races = racesOnPostgres();

  it('waits for the ban and is refused, leaving no session behind', async () => {
    const { server, hold, stuckOrDone } = races;
    const user = await makeUser(server);
    const sessions = async () => (await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).length;
    const before = await sessions();
    const release = await hold('update users set banned_at = now() where id = $1', [user.id]);
    let login: Promise<ApiResponse>;
    try {
      login = client(server.url).post('/api/auth/', { json: { username: user.email, password: user.password } });
      expect(await stuckOrDone(login, 1)).toBe(false);
    } finally {
      await release('commit');
    }
    const answer = await login;
    expect([answer.status, answer.body]).toEqual([403, SUSPENDED]);
    expect(await sessions()).toBe(before);
  });
});

/**
 * A send behind another of the same conversation waits for its send lock (`sendLock`) with a snapshot
 * taken before it began to wait: a block or an unmatch that lands meanwhile must still stop it. The
 * test's own transaction holds the send lock, standing in for the partner's send in flight.
 */
describe.skipIf(!(await hasPostgres()))('a send waiting its turn while the conversation ends, on PostgreSQL', () => {
  const races = racesOnPostgres();
  const { hold, stuckOrDone } = races;

  it.each([
    ['REST', 'a block'],
    ['REST', 'an unmatch'],
    ['socket', 'a block'],
    ['socket', 'an unmatch'],
  ] as const)('stores nothing sent over %s once %s has landed, and tells the other nothing', async (path, ending) => {
    const api = client(races.server.url);
    const { a, b, conversationId: id } = await makePair(races.server);
    const [sender, other] = [await connect(races.server.url, a.token), await connect(races.server.url, b.token)];
    try {
      const heard = record(other);
      const release = await hold('select pg_advisory_xact_lock($1, $2)', [SEND_LOCK_SPACE, id]);
      let send: Promise<unknown>;
      try {
        send =
          path === 'REST'
            ? api.post(`/api/conversations/${id}/messages/`, { token: a.token, json: { content: 'still there?' } })
            : sender.emitWithAck('message:send', { conversation_id: id, content: 'still there?', client_id: randomUUID() });
        expect(await stuckOrDone(send, 1)).toBe(false);
        const ended =
          ending === 'a block'
            ? await api.post(`/api/users/${a.id}/block/`, { token: b.token })
            : await api.delete(`/api/conversations/${id}/`, { token: b.token });
        expect(ended.status).toBe(204);
      } finally {
        await release();
      }
      const answer = await send;
      if (path === 'REST') expect(answer).toMatchObject({ status: 404, body: NOT_FOUND });
      else expect(answer).toEqual({ ok: false, error: { code: 'not_found', message: 'Not found.' } });
      const [stored] = rowsOf<{ n: number }>(await races.server.app.db.execute(sql`select count(*)::int as n from messages where conversation_id = ${id}`));
      expect(stored!.n).toBe(0);
      // Anything published for this socket came before the answer to a later request of its own.
      await other.emitWithAck('presence:list', {});
      expect(heard.map(({ event }) => event)).not.toContain('message:new');
    } finally {
      sender.close();
      other.close();
    }
  });

  it.each(['REST', 'REST with a client_id', 'socket'] as const)(
    "stores a send over %s made while another write holds the conversation's row and leaves it open (an event deleted)",
    async (path) => {
      const api = client(races.server.url);
      const organizer = await makeCompletedUser(races.server, { name: 'Olga' });
      const event = await makeEvent(races.server, organizer);
      const { a, b, conversationId: id } = await makePair(races.server);
      // Matched there: deleting the event sets the conversation's event_id to null, holding its row.
      await races.holder`update conversations set event_id = ${event.id} where id = ${id}`;
      const [sender, other] = [await connect(races.server.url, a.token), await connect(races.server.url, b.token)];
      try {
        const told = waitFor(other, 'message:new');
        const release = await hold('delete from events where id = $1', [event.id]);
        let send: Promise<unknown>;
        try {
          send =
            path === 'socket'
              ? sender.emitWithAck('message:send', { conversation_id: id, content: 'still here', client_id: randomUUID() })
              : api.post(`/api/conversations/${id}/messages/`, {
                  token: a.token,
                  json: { content: 'still here', ...(path === 'REST' ? {} : { client_id: randomUUID() }) },
                });
          // It waits for the deletion: the conversation is not ended by it.
          expect(await stuckOrDone(send, 1)).toBe(false);
        } finally {
          await release('commit');
        }
        const answer = await send;
        if (path === 'socket') expect(answer).toMatchObject({ ok: true, message: { content: 'still here' } });
        else expect(answer).toMatchObject({ status: 201, body: { content: 'still here' } });
        expect((await told).message.content).toBe('still here');
        const [stored] = rowsOf<{ n: number }>(await races.server.app.db.execute(sql`select count(*)::int as n from messages where conversation_id = ${id}`));
        expect(stored!.n).toBe(1);
      } finally {
        sender.close();
        other.close();
      }
    },
  );

  it('answers a REST send with a client_id not found when its conversation ends as the send reaches its row', async () => {
    const api = client(races.server.url);
    const { a, conversationId: id } = await makePair(races.server);
    // An unmatch in flight: the row is being ended, not yet committed.
    const release = await hold("update conversations set ended_at = now(), end_reason = 'unmatch' where id = $1", [id]);
    let send: Promise<ApiResponse>;
    try {
      send = api.post(`/api/conversations/${id}/messages/`, { token: a.token, json: { content: 'hello?', client_id: randomUUID() } });
      expect(await stuckOrDone(send, 1)).toBe(false);
    } finally {
      await release('commit');
    }
    // Not "client_id already used": nothing was stored under it.
    expect(await send).toMatchObject({ status: 404, body: NOT_FOUND });
  });

  it('relays no typing in a conversation whose end this socket was told of while it looked the conversation up', async () => {
    const { a, b, conversationId: id } = await makePair(races.server);
    const [typist, other] = [await connect(races.server.url, a.token), await connect(races.server.url, b.token)];
    try {
      const heard = record(other);
      // The socket's first typing looks the conversation up, held here; its end is told meanwhile, as
      // a block's match:removed that commits and is published while the lookup runs is.
      const release = await hold('lock table conversations in access exclusive mode');
      let typed: Promise<unknown>;
      try {
        typed = typist.emitWithAck('typing', { conversation_id: id });
        expect(await stuckOrDone(typed, 1)).toBe(false);
        const told = waitFor(typist, 'match:removed');
        races.server.app.publish([a.id], 'match:removed', { conversation_id: id });
        await told;
      } finally {
        await release();
      }
      const notFound = { ok: false, error: { code: 'not_found', message: 'Not found.' } };
      expect(await typed).toEqual(notFound);
      // Nor later, from a cache of what the lookup found.
      expect(await typist.emitWithAck('typing', { conversation_id: id })).toEqual(notFound);
      await other.emitWithAck('presence:list', {});
      expect(heard.map(({ event }) => event)).not.toContain('typing');
    } finally {
      typist.close();
      other.close();
    }
  });

  it('tells a read receipt that waited for the reader’s marker before the block that landed meanwhile, never after', async () => {
    const api = client(races.server.url);
    const { a, b, conversationId: id } = await makePair(races.server);
    const sent = await api.post(`/api/conversations/${id}/messages/`, { token: b.token, json: { content: 'hello' } });
    const [reader, other] = [await connect(races.server.url, a.token), await connect(races.server.url, b.token)];
    try {
      const heard = record(other);
      // The reader's marker, held as a receipt of theirs from another tab holds it.
      const release = await hold('select 1 from conversation_members where conversation_id = $1 and user_id = $2 for update', [id, a.id]);
      let ended: Promise<{ status: number }>;
      let read: Promise<unknown>;
      try {
        read = reader.emitWithAck('message:read', { conversation_id: id, last_read_id: sent.body.id });
        expect(await stuckOrDone(read, 1)).toBe(false);
        ended = api.post(`/api/users/${a.id}/block/`, { token: b.token });
        // The block either lands now or waits for the receipt: both are fair, if told in that order.
        await stuckOrDone(ended, 2);
      } finally {
        await release();
      }
      await read;
      expect((await ended).status).toBe(204);
      await other.emitWithAck('presence:list', {});
      const events = heard.map(({ event }) => event);
      expect(events).toContain('match:removed');
      expect(events.slice(events.indexOf('match:removed'))).not.toContain('message:read');
    } finally {
      reader.close();
      other.close();
    }
  });
});
