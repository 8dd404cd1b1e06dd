/**
 * A like racing whatever ends a match (a block, a report, a ban), on PostgreSQL, where requests run
 * on connections of their own. Each race is driven, not hoped for: a transaction of the test's own
 * holds a row one request needs, so that request stops half-way through its transaction; the other
 * is sent, and the test waits until it has finished or is waiting on a lock too before letting go.
 * Whichever ran first, the end is the same: no live match between people who must not see each other.
 */
import { sql as drizzleSql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { BAN_LOCK_SPACE } from '../../server/features/matching/locks';
import { unban } from '../../server/features/moderation/service';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { type ApiResponse, client } from '../helpers/http';
import { makeModerator } from '../helpers/safety';
import { racesOnPostgres } from '../helpers/lock-holder';
import { hasPostgres } from '../helpers/services';
import { record, socketsClosedAfterEach, waitFor, waitUntil } from '../helpers/socket';

type Ending = 'block' | 'report' | 'ban';

describe.skipIf(!(await hasPostgres()))('a like racing a block, a report or a ban, on PostgreSQL', () => {
  /** The test's own connection holds rows while a request waits on them. */
  const races = racesOnPostgres();
  const { hold, stuckOrDone } = races;
  let moderator: TestUser;
  const sockets = socketsClosedAfterEach();
  beforeAll(async () => {
    moderator = await makeModerator(races.server);
  });

  const api = () => client(races.server.url);
  const like = (from: TestUser, to: TestUser) => api().post('/api/matching/', { token: from.token, json: { response: 'like', other: to.id } });

  /** Ana and Ben, Ana's socket (every event it hears kept), and a report about Ben to resolve with a ban. */
  async function scene() {
    const ana = await makeCompletedUser(races.server, { name: 'Ana' });
    const ben = await makeCompletedUser(races.server, { name: 'Ben' });
    const socket = await sockets.connect(races.server.url, ana.token);
    const heard = record(socket);
    return { ana, ben, socket, heard, reportId: await anotherReportAbout(ben) };
  }

  async function anotherReportAbout(user: TestUser): Promise<number> {
    const reporter = await makeCompletedUser(races.server);
    const reported = await api().post('/api/reports/', { token: reporter.token, json: { user_id: user.id, reason: 'spam' } });
    expect(reported.status).toBe(201);
    return reported.body.id as number;
  }

  /** Ana ends it with Ben: she blocks him, or reports him; or a moderator bans him. */
  function end(ending: Ending, { ana, ben, reportId }: Awaited<ReturnType<typeof scene>>) {
    if (ending === 'block') return api().post(`/api/users/${ben.id}/block/`, { token: ana.token });
    if (ending === 'report') return api().post('/api/reports/', { token: ana.token, json: { user_id: ben.id, reason: 'harassment' } });
    return api().post(`/api/moderation/reports/${reportId}/resolve/`, { token: moderator.token, json: { action: 'ban' } });
  }

  /** Takes the ending back: unblock (a report's block too), or unban. Neither may bring a match back. */
  async function undo(ending: Ending, { ana, ben }: Awaited<ReturnType<typeof scene>>) {
    if (ending === 'ban') expect(await unban(races.server.app.db, ben.email)).toBe('changed');
    else expect((await api().delete(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
  }

  const pairOf = ({ ana, ben }: { ana: TestUser; ben: TestUser }) => [Math.min(ana.id, ben.id), Math.max(ana.id, ben.id)];
  async function conversationsBetween(people: { ana: TestUser; ben: TestUser }) {
    const [low, high] = pairOf(people);
    return rowsOf<{ id: number; ended: boolean; end_reason: string | null }>(
      await races.server.app.db.execute(drizzleSql`
        select id, ended_at is not null as ended, end_reason from conversations where user_low_id = ${low} and user_high_id = ${high}`),
    );
  }

  /** Ana's conversations, both lists. */
  async function listedFor(user: TestUser): Promise<number[]> {
    const lists = await Promise.all(['empty', 'started'].map((list) => api().get(`/api/conversations/${list}/`, { token: user.token })));
    return lists.flatMap((list) => (list.body.results as { id: number }[]).map((conversation) => conversation.id));
  }

  /** Every `match:new` Ana heard up to now: a last match of hers, with someone new, is heard after all of them. */
  async function matchesHeard({ ana, socket, heard }: Awaited<ReturnType<typeof scene>>) {
    const marker = await makeCompletedUser(races.server);
    const markerHeard = waitFor(socket, 'match:new', (payload) => payload.user.id === marker.id);
    await like(marker, ana);
    expect((await like(ana, marker)).body.match).toBe(true);
    await markerHeard;
    return heard.flatMap(({ event, payload }) =>
      event === 'match:new' && (payload as { user: { id: number } }).user.id !== marker.id ? [payload] : [],
    );
  }

  /**
   * Ana likes Ben, who skipped her once (his reaction row is there for the test to hold); then Ben's
   * like, which stops inside its statement: its snapshot taken, its match made, uncommitted, the pair's
   * lock held, waiting for his reaction row. `release` lets it go on.
   */
  async function benLikesAndStops({ ana, ben }: { ana: TestUser; ben: TestUser }) {
    expect((await like(ana, ben)).body.match).toBe(false);
    expect((await api().post('/api/matching/', { token: ben.token, json: { response: 'skip', other: ana.id } })).status).toBe(200);
    const release = await hold('select 1 from reactions where from_user_id = $1 and to_user_id = $2 for update', [ben.id, ana.id]);
    const benLikes = like(ben, ana);
    try {
      await stuckOrDone(benLikes, 1);
    } catch (error) {
      await release();
      throw error;
    }
    return { benLikes, release };
  }

  it.each<Ending>(['block', 'report', 'ban'])(
    'a like that made its match while a %s waited: that match is ended, and taking the ending back does not bring it back',
    async (ending) => {
      const people = await scene();
      const { ana, ben, heard } = people;
      // Ben's like stops with no block and no ban in its snapshot.
      const { benLikes, release } = await benLikesAndStops(people);
      let ended: Promise<ApiResponse> | undefined;
      try {
        ended = end(ending, people);
        await stuckOrDone(ended, 2);
      } finally {
        await release();
      }
      const matched = await benLikes;
      expect(matched.body).toEqual({ match: true, conversation_id: expect.any(Number) });
      const conversationId = matched.body.conversation_id as number;
      expect([200, 201, 204]).toContain((await ended!).status);

      // The like came first: its match was made, then ended by the ending, and Ana's screen was told.
      expect(await conversationsBetween(people)).toEqual([{ id: conversationId, ended: true, end_reason: ending }]);
      const told = (event: string) =>
        heard.some((each) => each.event === event && (each.payload as { conversation_id: number }).conversation_id === conversationId);
      await waitUntil(() => told('match:removed'), 5000, 'match:removed');
      expect(told('match:new')).toBe(true);
      await undo(ending, people);
      expect(await listedFor(ana)).not.toContain(conversationId);
      expect((await api().get(`/api/conversations/${conversationId}/`, { token: ana.token })).status).toBe(404);
      // Liking again after all that is no match: nothing reopens an ended conversation.
      expect((await like(ana, ben)).body).toEqual({ match: false, conversation_id: null });
    },
  );

  it.each<Ending>(['block', 'report', 'ban'])(
    'a like that comes while a %s is under way waits for it: a 404, no match, and Ana is told of none',
    async (ending) => {
      const people = await scene();
      const { ana, ben } = people;
      expect((await like(ana, ben)).body.match).toBe(false);
      // The ending stops half-way, its lock taken: behind the test's own uncommitted block of the two
      // (a block, a report), or behind another open report about Ben, which a ban resolves too.
      const release =
        ending === 'ban'
          ? await hold('select 1 from reports where id = $1 for update', [await anotherReportAbout(ben)])
          : await hold('insert into blocks (blocker_id, blocked_id) values ($1, $2)', [ana.id, ben.id]);
      let benLikes: Promise<ApiResponse> | undefined;
      let ended: Promise<ApiResponse> | undefined;
      try {
        ended = end(ending, people);
        await stuckOrDone(ended, 1);
        benLikes = like(ben, ana);
        await stuckOrDone(benLikes, 2);
      } finally {
        await release();
      }
      expect([200, 201, 204]).toContain((await ended!).status);
      expect((await benLikes!).status).toBe(404);
      expect(await conversationsBetween(people)).toEqual([]);
      expect(await matchesHeard(people)).toEqual([]);
    },
  );

  it.each(['skip', 'dislike'] as const)(
    'a %s sent while the like that completes the match is under way waits for it, and leaves the match whole',
    async (response) => {
      const people = await scene();
      const { ana, ben } = people;
      const { benLikes, release } = await benLikesAndStops(people);
      let anaPasses: Promise<ApiResponse> | undefined;
      try {
        // Ana's pass of Ben (a card of his left on another phone of hers) comes meanwhile.
        anaPasses = api().post('/api/matching/', { token: ana.token, json: { response, other: ben.id } });
        expect(await stuckOrDone(anaPasses, 2)).toBe(false);
      } finally {
        await release();
      }
      const matched = await benLikes;
      expect(matched.body).toEqual({ match: true, conversation_id: expect.any(Number) });
      // It waited, then found the match: it answers it and changes nothing.
      expect((await anaPasses!).body).toEqual(matched.body);
      const [low, high] = pairOf(people);
      const kinds = rowsOf<{ kind: string }>(
        await races.server.app.db.execute(drizzleSql`
          select kind from reactions where (from_user_id, to_user_id) in ((${low}, ${high}), (${high}, ${low}))`),
      );
      expect(kinds).toEqual([{ kind: 'like' }, { kind: 'like' }]);
      expect(await conversationsBetween(people)).toEqual([{ id: matched.body.conversation_id, ended: false, end_reason: null }]);
    },
  );

  it.each(['like', 'skip'] as const)('a %s of someone whose account is deleted meanwhile is a 404, not a server error', async (response) => {
    const ana = await makeCompletedUser(races.server);
    const ben = await makeCompletedUser(races.server);
    // Ben's deletion is under way: his row taken, as deleting an account takes it first.
    const session = await races.holder.reserve();
    try {
      await session`begin`;
      await session`select 1 from users where id = ${ben.id} for update`;
      const reacted = api().post('/api/matching/', { token: ana.token, json: { response, other: ben.id } });
      await stuckOrDone(reacted, 1);
      await session`delete from users where id = ${ben.id}`;
      await session`commit`;
      const answer = await reacted;
      expect([answer.status, answer.body]).toEqual([404, { detail: 'Not found.' }]);
    } finally {
      session.release();
    }
  });

  it('a ban resolving a report while its reporter adds to it: both are answered, neither waits on the other in a cycle', async () => {
    const { ana, ben } = await scene();
    const first = await api().post('/api/reports/', { token: ana.token, json: { user_id: ben.id, reason: 'harassment' } });
    expect(first.status).toBe(201);
    // The ban stops at its ban lock (a like of Ben's holds it shared), the rows it took before held.
    const release = await hold('select pg_advisory_xact_lock_shared($1, $2)', [BAN_LOCK_SPACE, ben.id]);
    let banned: Promise<ApiResponse> | undefined;
    let added: Promise<ApiResponse> | undefined;
    try {
      banned = api().post(`/api/moderation/reports/${first.body.id}/resolve/`, { token: moderator.token, json: { action: 'ban' } });
      await stuckOrDone(banned, 1);
      added = api().post('/api/reports/', { token: ana.token, json: { user_id: ben.id, reason: 'spam', details: 'And again.' } });
      await stuckOrDone(added, 2);
    } finally {
      await release();
    }
    // Taken in opposite orders (the report's row, then Ben's; Ben's, then the report's), PostgreSQL
    // found a deadlock and failed one of them: a 500.
    expect((await banned!).status).toBe(200);
    // Added to her open report (200) if it came first; once the ban has resolved it, a new report (201):
    // her first one blocked Ben, and whom she blocked she may report whatever hides them since. Not a 500.
    expect([200, 201]).toContain((await added!).status);
  });
});
