/**
 * What the paid plan buys, over real HTTP, with and without a subscription: who likes me,
 * undo, and the free plan's 100 likes per rolling 24 hours. The plan is bought and lost the ways a
 * person does: the local test checkout and its test portal, or Stripe's events at the webhook (against
 * the local fake of Stripe, through the real SDK).
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJob } from '../../server/jobs';
import { bannedPlanStop } from '../../server/jobs/banned-plan-stop';
import { spentLikesPurge } from '../../server/jobs/spent-likes-purge';
import { testPlanEnd } from '../../server/jobs/test-plan-end';
import { users } from '../../server/db/schema';
import { DAILY_LIKES_WINDOW_MS, FREE_DAILY_LIKES, FREE_TRIAL_DAYS, UNDO_WINDOW_MS } from '../../shared/constants';
import { rowsOf } from '../../server/db/client';
import { LikePositionSchema } from '../../server/features/likes/service';
import {
  completedCheckout,
  deliverStripeEvent,
  type FakeStripe,
  startFakeStripe,
  startStripeCheckout,
  stripeConfigFor,
  stripeEvent,
  TEST_STRIPE,
} from '../fakes/stripe';
import { birthDateForAge, makeCompletedUser, makeUser, type TestUser, validProfile } from '../helpers/factories';
import type { ProfileInput } from '../../shared/schemas/users';
import { client } from '../helpers/http';
import { cancelThroughTestPortal, endCancelledTestPlan, endThroughTestPortal, subscribeThroughTestCheckout } from '../helpers/plan';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { unban } from '../../server/features/moderation/service';
import { stopRenewalOfBanned } from '../../server/features/payments/subscription';
import { handleStripeEvent, LOCAL_EVENTS } from '../../server/features/payments/webhook';
import { backends, serverPerSuite, type TestServer } from '../helpers/server';
import { connect, waitFor } from '../helpers/socket';
import { racesOnPostgres } from '../helpers/lock-holder';
import { hasPostgres } from '../helpers/services';
import { BILLING_LOCK_SPACE, monthsLater } from '../../server/features/payments/billing';

type Response = 'like' | 'dislike' | 'skip';

/** The calls of this issue, for one server. */
function planApi(server: TestServer) {
  const api = client(server.url);
  return {
    react: (from: TestUser, to: TestUser, response: Response) =>
      api.post('/api/matching/', { token: from.token, json: { response, other: to.id } }),
    likes: (user: TestUser, query = '') => api.get(`/api/users/me/likes/${query}`, { token: user.token }),
    undo: (user: TestUser, json: unknown = {}) => api.post('/api/matching/undo/', { token: user.token, json }),
    undoable: (user: TestUser) => api.get('/api/matching/undo/', { token: user.token }),
    allowance: (user: TestUser) => api.get('/api/matching/allowance/', { token: user.token }),
    subscription: (user: TestUser) => api.get('/api/payments/subscription/', { token: user.token }),
    portal: (user: TestUser) => api.post('/api/payments/stripe/create-portal-session/', { token: user.token, json: {} }),
  };
}

async function reacted(server: TestServer, from: TestUser, to: TestUser, response: Response) {
  const reply = await planApi(server).react(from, to, response);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as { match: boolean; conversation_id: number | null };
}

const kindOf = async (server: TestServer, from: TestUser, to: TestUser) =>
  rowsOf<{ kind: string }>(
    await server.app.db.execute(sql`select kind from reactions where from_user_id = ${from.id} and to_user_id = ${to.id}`),
  )[0]?.kind ?? null;

const ids = (body: { results: Array<{ id: number }> }) => body.results.map((card) => card.id);
/** The user signed in afresh: a ban ended their sessions, which its lifting does not give back. */
async function signedInAgain(server: TestServer, user: TestUser): Promise<TestUser> {
  const login = await client(server.url).post('/api/auth/', { json: { username: user.email, password: user.password } });
  expect(login.status).toBe(200);
  return { ...user, token: login.body.token };
}

/** A plan's dates, none known (no plan, or a subscription that named none). */
const noDates = { trial_ends_at: null, renews_at: null, ends_at: null };

describe.each(backends)('what the paid plan buys, with the local test checkout, on %s', (backend) => {
  const server = serverPerSuite({ backend });

  const api = () => planApi(server);

  /** Every card of the user's deck, page after page. */
  async function deckIds(user: TestUser): Promise<number[]> {
    const found: number[] = [];
    let query = '?limit=100';
    for (let pages = 0; pages < 20; pages++) {
      const page = await client(server.url).get(`/api/users/matching-profiles/${query}`, { token: user.token });
      expect(page.status).toBe(200);
      found.push(...ids(page.body));
      if (!page.body.next) return found;
      query = `?limit=100&cursor=${encodeURIComponent(page.body.next)}`;
    }
    throw new Error('the deck never ended');
  }

  it('likes you: the count alone without the plan; with it the people, newest first, in sealed pages', async () => {
    const me = await makeCompletedUser(server, { name: 'Marta' });
    const likers: TestUser[] = [];
    for (let i = 0; i < 5; i++) {
      const liker = await makeCompletedUser(server, { name: `Liker ${i}`, bio: `Bio ${i}` });
      await reacted(server, liker, me, 'like');
      likers.push(liker);
    }

    const free = await api().likes(me);
    expect(free.status).toBe(200);
    expect(free.body).toEqual({ count: 5, results: [], next: null });
    // Asking for more, or with a page size, shows no more.
    expect((await api().likes(me, '?limit=2')).body).toEqual({ count: 5, results: [], next: null });

    await subscribeThroughTestCheckout(server, me);
    const first = await api().likes(me, '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(5);
    expect(first.body.results).toEqual([
      { id: likers[4]!.id, name: 'Liker 4', age: 28, bio: 'Bio 4', image: expect.stringMatching(/^\/media\//) },
      { id: likers[3]!.id, name: 'Liker 3', age: 28, bio: 'Bio 3', image: expect.stringMatching(/^\/media\//) },
    ]);
    // The cursor holds the position of the last card shown, and shows none of it.
    const next: string = first.body.next;
    const position = server.app.cursors.open('likes', next, LikePositionSchema, me.id)!;
    expect(position.id).toBe(likers[3]!.id);
    const readable = Buffer.from(next, 'base64url').toString('latin1');
    expect(readable).not.toContain(position.likedUs);
    expect(readable).not.toMatch(/likedUs|\d{6,}/);

    const second = await api().likes(me, `?limit=2&cursor=${next}`);
    expect(ids(second.body)).toEqual([likers[2]!.id, likers[1]!.id]);
    const third = await api().likes(me, `?limit=2&cursor=${second.body.next}`);
    expect(ids(third.body)).toEqual([likers[0]!.id]);
    expect(third.body.next).toBeNull();
    expect(ids((await api().likes(me)).body)).toEqual(likers.map((liker) => liker.id).reverse());

    // A changed cursor, or another list's, is a 400 on the cursor.
    const deckCursor = server.app.cursors.page('deck', { results: [], next: { tier: 0, activeUs: '1', id: 1 } }, me.id).next!;
    for (const cursor of [next.slice(0, -4), 'AAAA', deckCursor]) {
      const refused = await api().likes(me, `?cursor=${cursor}`);
      expect(refused.status, cursor).toBe(400);
      expect(refused.body).toEqual({ cursor: ['Invalid cursor.'] });
    }
    // So is mine in another subscriber's hands: it names one of my likes, and would resume their list there.
    const stranger = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, stranger);
    const replayed = await api().likes(stranger, `?limit=2&cursor=${next}`);
    expect(replayed.status).toBe(400);
    expect(replayed.body).toEqual({ cursor: ['Invalid cursor.'] });
  });

  it('likes you obeys the visibility rule, and drops whoever I answered', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const liker = async (name: string) => {
      const user = await makeCompletedUser(server, { name });
      await reacted(server, user, me, 'like');
      return user;
    };
    const waiting = await liker('waiting');
    const skipped = await liker('skipped');
    await reacted(server, me, skipped, 'skip');
    const likedBack = await liker('liked back');
    expect((await reacted(server, me, likedBack, 'like')).match).toBe(true);
    const disliked = await liker('disliked');
    await reacted(server, me, disliked, 'dislike');
    const changedMind = await liker('changed their mind');
    await reacted(server, changedMind, me, 'dislike');
    const blockedByMe = await liker('blocked by me');
    expect((await client(server.url).post(`/api/users/${blockedByMe.id}/block/`, { token: me.token })).status).toBe(204);
    const blockedMe = await liker('blocked me');
    expect((await client(server.url).post(`/api/users/${me.id}/block/`, { token: blockedMe.token })).status).toBe(204);
    const banned = await liker('banned');
    await banThroughModeration(server, await makeModerator(server), banned);
    // Matched, then they unmatched: the pair is never shown to each other again.
    const unmatched = await liker('unmatched');
    const matched = await reacted(server, me, unmatched, 'like');
    expect((await client(server.url).delete(`/api/conversations/${matched.conversation_id}/`, { token: unmatched.token })).status).toBe(204);
    // Someone whose profile is not complete is in nobody's list (nor deck): a like of theirs stored
    // before such likes were refused (the API answers them 403 now).
    const incomplete = await makeUser(server);
    await server.app.db.execute(sql`insert into reactions (from_user_id, to_user_id, kind) values (${incomplete.id}, ${me.id}, 'like')`);

    const list = await api().likes(me);
    expect(list.status).toBe(200);
    expect(ids(list.body)).toEqual([skipped.id, waiting.id]);
    expect(list.body.count).toBe(2);

    // Unblocking takes the block back: their like stands, so they are waiting for an answer again.
    expect((await client(server.url).delete(`/api/users/${blockedByMe.id}/block/`, { token: me.token })).status).toBe(204);
    const after = await api().likes(me);
    expect(ids(after.body)).toEqual([blockedByMe.id, skipped.id, waiting.id]);
    expect(after.body.count).toBe(3);
  });

  it('a like from the list makes the match at once, and the other person is told', async () => {
    const me = await makeCompletedUser(server, { name: 'Inés' });
    await subscribeThroughTestCheckout(server, me);
    const admirer = await makeCompletedUser(server, { name: 'Tomás' });
    await reacted(server, admirer, me, 'like');
    const [card] = (await api().likes(me)).body.results;
    expect(card).toMatchObject({ id: admirer.id, name: 'Tomás' });

    const socket = await connect(server.url, admirer.token);
    try {
      const told = waitFor(socket, 'match:new');
      const answer = await reacted(server, me, admirer, 'like');
      expect(answer).toEqual({ match: true, conversation_id: expect.any(Number) });
      expect(await told).toMatchObject({ conversation_id: answer.conversation_id, user: { id: me.id, name: 'Inés' } });
    } finally {
      socket.disconnect();
    }
    expect((await api().likes(me)).body).toEqual({ count: 0, results: [], next: null });
  });

  it('undo is for subscribers: 403 with its code otherwise, and the reaction stays', async () => {
    const me = await makeCompletedUser(server);
    const other = await makeCompletedUser(server);
    await reacted(server, me, other, 'dislike');
    const refused = await api().undo(me);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'This is part of the paid plan.', code: 'subscription_required' });
    expect(await kindOf(server, me, other)).toBe('dislike');
  });

  it('undo takes back the last dislike or skip, one at a time, and the card comes back to the deck', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const first = await makeCompletedUser(server, { name: 'Noa', bio: 'First' });
    const second = await makeCompletedUser(server, { name: 'Leo', bio: 'Second' });
    await reacted(server, me, first, 'dislike');
    await reacted(server, me, second, 'skip');

    const undone = await api().undo(me);
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    expect(undone.body).toEqual({
      undone: 'skip',
      card: { id: second.id, name: 'Leo', age: 28, bio: 'Second', image: expect.stringMatching(/^\/media\//) },
    });
    expect(await kindOf(server, me, second)).toBeNull();

    const before = await api().undo(me);
    expect(before.body).toMatchObject({ undone: 'dislike', card: { id: first.id, name: 'Noa' } });
    expect(await kindOf(server, me, first)).toBeNull();
    // Both are in my deck again, as people I have not answered.
    expect(await deckIds(me)).toEqual(expect.arrayContaining([first.id, second.id]));

    const nothing = await api().undo(me);
    expect(nothing.status).toBe(409);
    expect(nothing.body).toEqual({
      detail: 'There is nothing to undo: only a dislike or a skip of the last 5 minutes can be taken back.',
      code: 'nothing_to_undo',
    });
  });

  it('undo has nothing to take back after a like, past five minutes, or about someone now hidden', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const [passed, liked, old, blocked] = await Promise.all([1, 2, 3, 4].map(() => makeCompletedUser(server)));

    // A like is the last reaction: the dislike before it stays.
    await reacted(server, me, passed!, 'dislike');
    await reacted(server, me, liked!, 'like');
    expect((await api().undo(me)).status).toBe(409);
    expect(await kindOf(server, me, passed!)).toBe('dislike');
    expect(await kindOf(server, me, liked!)).toBe('like');

    // The last reaction, a dislike, but older than the window.
    await reacted(server, me, old!, 'dislike');
    await server.app.db.execute(sql`
      update reactions set updated_at = now() - ${UNDO_WINDOW_MS + 1000}::bigint * interval '1 millisecond'
      where from_user_id = ${me.id}`);
    expect((await api().undo(me)).body.code).toBe('nothing_to_undo');
    expect(await kindOf(server, me, old!)).toBe('dislike');

    // Disliked, then blocked: not someone the deck may bring back.
    await reacted(server, me, blocked!, 'dislike');
    await client(server.url).post(`/api/users/${blocked!.id}/block/`, { token: me.token });
    expect((await api().undo(me)).status).toBe(409);
    expect(await kindOf(server, me, blocked!)).toBe('dislike');
  });

  /** What `GET /api/matching/undo/` answers when there is nothing to undo. */
  const nothingToUndo = { card: null, expires_at: null, expires_in_ms: null };

  it('tells what undo would bring back and until when, on either plan: after an undo, the pass before it', async () => {
    const me = await makeCompletedUser(server);
    expect((await api().undoable(me)).body).toEqual(nothingToUndo);
    // Without the plan too, which the undo itself needs: a free plan's phone names them in its offer.
    const passedFree = await makeCompletedUser(server, { name: 'Eva' });
    await reacted(server, me, passedFree, 'skip');
    const free = await api().undoable(me);
    expect(free.status).toBe(200);
    expect(free.body.card).toMatchObject({ id: passedFree.id, name: 'Eva' });
    expect((await api().undo(me, { user_id: passedFree.id })).body.code).toBe('subscription_required');
    await subscribeThroughTestCheckout(server, me);

    const first = await makeCompletedUser(server, { name: 'Noa', bio: 'First' });
    const second = await makeCompletedUser(server, { name: 'Leo', bio: 'Second' });
    await reacted(server, me, first, 'dislike');
    const passedAt = Date.now();
    await reacted(server, me, second, 'skip');
    const told = await api().undoable(me);
    expect(told.status, JSON.stringify(told.body)).toBe(200);
    expect(told.body).toEqual({
      card: { id: second.id, name: 'Leo', age: 28, bio: 'Second', image: expect.stringMatching(/^\/media\//) },
      expires_at: expect.any(String),
      expires_in_ms: expect.any(Number),
    });
    // The window closes UNDO_WINDOW_MS after the pass (within this test's own time).
    expect(Date.parse(told.body.expires_at) - passedAt).toBeGreaterThanOrEqual(UNDO_WINDOW_MS);
    expect(Date.parse(told.body.expires_at) - Date.now()).toBeLessThanOrEqual(UNDO_WINDOW_MS);
    // And what is left of it, for a phone whose clock is not the server's: a whole number of ms, less
    // than the window by the time the pass took to answer and this one to be asked.
    expect(Number.isInteger(told.body.expires_in_ms)).toBe(true);
    expect(told.body.expires_in_ms).toBeLessThanOrEqual(UNDO_WINDOW_MS);
    expect(told.body.expires_in_ms).toBeGreaterThanOrEqual(UNDO_WINDOW_MS - (Date.now() - passedAt));
    // Two minutes into the window (by the database's clock, which decides): three are left.
    await server.app.db.execute(sql`update reactions set updated_at = now() - interval '2 minutes' where from_user_id = ${me.id}`);
    const later = (await api().undoable(me)).body.expires_in_ms;
    expect(later).toBeLessThanOrEqual(UNDO_WINDOW_MS - 120_000);
    expect(later).toBeGreaterThan(UNDO_WINDOW_MS - 120_000 - 5_000);
    // Asking takes nothing back.
    expect(await kindOf(server, me, second)).toBe('skip');

    expect((await api().undo(me, { user_id: second.id })).body.card.id).toBe(second.id);
    expect((await api().undoable(me)).body.card).toMatchObject({ id: first.id, name: 'Noa' });

    // Past the window, or after a like: nothing.
    await server.app.db.execute(sql`
      update reactions set updated_at = now() - ${UNDO_WINDOW_MS + 1000}::bigint * interval '1 millisecond'
      where from_user_id = ${me.id}`);
    expect((await api().undoable(me)).body).toEqual(nothingToUndo);
    await reacted(server, me, second, 'dislike');
    expect((await api().undoable(me)).body.card?.id).toBe(second.id);
    await reacted(server, me, await makeCompletedUser(server), 'like');
    expect((await api().undoable(me)).body).toEqual(nothingToUndo);
  });

  it('tells nothing to bring back about someone now hidden', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const blocked = await makeCompletedUser(server);
    await reacted(server, me, blocked, 'skip');
    expect((await api().undoable(me)).body.card?.id).toBe(blocked.id);
    await client(server.url).post(`/api/users/${blocked.id}/block/`, { token: me.token });
    expect((await api().undoable(me)).body).toEqual(nothingToUndo);
  });

  it('brings back only someone my deck would show now: not once either of us looks for someone else', async () => {
    const woman: Partial<ProfileInput> = { gender: 'female', genders_to_match: ['male'], date_of_birth: birthDateForAge(30) };
    const man: Partial<ProfileInput> = { gender: 'male', genders_to_match: ['female'], date_of_birth: birthDateForAge(30) };
    const me = await makeCompletedUser(server, woman);
    await subscribeThroughTestCheckout(server, me);
    const [skipped, disliked] = await Promise.all([makeCompletedUser(server, man), makeCompletedUser(server, man)]);
    const saveProfile = async (user: TestUser, profile: Partial<ProfileInput>) => {
      const saved = await client(server.url).put('/api/users/me/profile/', { token: user.token, json: await validProfile(profile) });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    };

    // Skipped, then I narrow my age range past him: neither my deck nor undo brings him back.
    await reacted(server, me, skipped!, 'skip');
    expect((await api().undoable(me)).body.card?.id).toBe(skipped!.id);
    await saveProfile(me, { ...woman, min_matching_age: 35 });
    expect(await deckIds(me)).not.toContain(skipped!.id);
    expect((await api().undoable(me)).body).toEqual(nothingToUndo);
    const narrowed = await api().undo(me, { user_id: skipped!.id });
    expect(narrowed.status).toBe(409);
    expect(narrowed.body.code).toBe('nothing_to_undo');
    expect(await kindOf(server, me, skipped!)).toBe('skip');
    await saveProfile(me, woman);
    expect((await api().undoable(me)).body.card?.id).toBe(skipped!.id);

    // Disliked, then he stops looking for women: not brought back to me either.
    await reacted(server, me, disliked!, 'dislike');
    await saveProfile(disliked!, { ...man, genders_to_match: ['male'] });
    expect((await api().undoable(me)).body).toEqual(nothingToUndo);
    expect((await api().undo(me)).status).toBe(409);
    expect(await kindOf(server, me, disliked!)).toBe('dislike');
    await saveProfile(disliked!, man);
    expect((await api().undo(me)).body).toMatchObject({ undone: 'dislike', card: { id: disliked!.id } });
  });

  it('an undo naming a person takes back their pass only while it is the last reaction, and nothing else', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const [onThisPhone, onTheOther] = await Promise.all([makeCompletedUser(server), makeCompletedUser(server)]);
    await reacted(server, me, onThisPhone!, 'dislike');
    // Her other phone passes on someone after that: this phone still means the first one.
    await reacted(server, me, onTheOther!, 'skip');
    const mismatched = await api().undo(me, { user_id: onThisPhone!.id });
    expect(mismatched.status).toBe(409);
    expect(mismatched.body.code).toBe('nothing_to_undo');
    expect(await kindOf(server, me, onThisPhone!)).toBe('dislike');
    expect(await kindOf(server, me, onTheOther!)).toBe('skip');

    // Bad bodies: a 400 that names the field, and nothing taken back.
    for (const json of [{ user_id: 'x' }, { user_id: 0 }, { user_id: -3 }, { user_id: 1.5 }, { user_id: 2 ** 31 }]) {
      const refused = await api().undo(me, json);
      expect(refused.status, JSON.stringify(json)).toBe(400);
      expect(refused.body).toEqual({ user_id: [expect.any(String)] });
    }
    for (const json of [[], 'x', { user_id: null }]) expect((await api().undo(me, json)).status, JSON.stringify(json)).toBe(400);
    expect(await kindOf(server, me, onTheOther!)).toBe('skip');

    // Named as the last, it comes back; then the one before it, named too.
    expect((await api().undo(me, { user_id: onTheOther!.id })).body).toMatchObject({ undone: 'skip', card: { id: onTheOther!.id } });
    expect((await api().undo(me, { user_id: onThisPhone!.id })).body).toMatchObject({ undone: 'dislike', card: { id: onThisPhone!.id } });
    expect(await kindOf(server, me, onThisPhone!)).toBeNull();
  });

  it('a subscriber whose own profile is not complete has no deck, so nothing to undo: a 409, and the pass stays', async () => {
    const me = await makeUser(server);
    await subscribeThroughTestCheckout(server, me);
    const other = await makeCompletedUser(server);
    // The profile page offers them a dislike or a skip, which is stored.
    await reacted(server, me, other, 'dislike');
    for (const json of [{}, { user_id: other.id }]) {
      const refused = await api().undo(me, json);
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body).toEqual({ detail: expect.any(String), code: 'nothing_to_undo' });
    }
    expect((await client(server.url).post('/api/matching/undo/', { token: me.token })).status).toBe(409);
    const told = await api().undoable(me);
    expect(told.status, JSON.stringify(told.body)).toBe(200);
    expect(told.body).toEqual(nothingToUndo);
    expect(await kindOf(server, me, other)).toBe('dislike');
  });

  it('an undo with no body at all, as older clients send it, takes back the last pass', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const other = await makeCompletedUser(server);
    await reacted(server, me, other, 'skip');
    const undone = await client(server.url).post('/api/matching/undo/', { token: me.token });
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    expect(undone.body.card.id).toBe(other.id);
  });

  it('two undos at the same instant take back one reaction, not two', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const [a, b] = await Promise.all([makeCompletedUser(server), makeCompletedUser(server)]);
    await reacted(server, me, a!, 'dislike');
    await server.app.db.execute(sql`update reactions set updated_at = now() - interval '1 minute' where from_user_id = ${me.id}`);
    await reacted(server, me, b!, 'skip');
    // Each request takes back what it found last, and a reaction is taken back once: the second one
    // finds the skip gone (nothing, or the dislike before it, depending on which ran first).
    const answers = await Promise.all([api().undo(me), api().undo(me)]);
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    const cards = answers.filter((answer) => answer.status === 200).map((answer) => answer.body.card.id);
    expect(cards).toContain(b!.id);
    expect(new Set(cards).size).toBe(cards.length);
    expect(cards.every((id: number) => id === a!.id || id === b!.id)).toBe(true);
    expect(await kindOf(server, me, b!)).toBeNull();
  });

  it('shows the plan on the subscribe page; its test portal cancels it at the period’s end through the event handler', async () => {
    const me = await makeCompletedUser(server);
    expect((await api().subscription(me)).body).toEqual({ active: false, period: null, manageable: false, trial_days: FREE_TRIAL_DAYS, ...noDates, payment_failed: false, payment_incomplete: false });
    const nothingToManage = await api().portal(me);
    expect(nothingToManage.status).toBe(403);
    expect(nothingToManage.body.code).toBe('subscription_required');
    const nothingToCancel = await client(server.url).post('/api/payments/test-portal/cancel/', { token: me.token, json: {} });
    expect(nothingToCancel.status).toBe(409);

    await subscribeThroughTestCheckout(server, me, 'yearly');
    // In its free trial, which ends (and renews) FREE_TRIAL_DAYS on.
    const trialing = (await api().subscription(me)).body;
    expect(trialing).toEqual({ active: true, period: 'yearly', manageable: true, trial_days: 0, trial_ends_at: expect.any(String), renews_at: trialing.trial_ends_at, ends_at: null, payment_failed: false, payment_incomplete: false });
    await cancelThroughTestPortal(server, me);
    // As at Stripe: the plan and its perks stay until the trial's end, which is now when it ends (as
    // Stripe says times: to the second).
    const trialEnd = new Date(Math.floor(Date.parse(trialing.trial_ends_at) / 1000) * 1000).toISOString();
    expect((await api().subscription(me)).body).toEqual({ ...trialing, trial_ends_at: trialEnd, renews_at: null, ends_at: trialEnd });
    expect((await api().undo(me)).body.code).toBe('nothing_to_undo');
    // A second click changes nothing.
    expect((await client(server.url).post('/api/payments/test-portal/cancel/', { token: me.token, json: {} })).status).toBe(200);
    expect((await api().subscription(me)).body.ends_at).toBe(trialEnd);

    await endCancelledTestPlan(server, me);
    // The trial came with the first subscription: the subscribe page promises it no more.
    expect((await api().subscription(me)).body).toEqual({ active: false, period: null, manageable: false, trial_days: 0, ...noDates, payment_failed: false, payment_incomplete: false });
    const recorded = rowsOf<{ id: string; type: string }>(await server.app.db.execute(sql`select id, type from stripe_events where id like 'evt_local_%_sub_local_%'`));
    expect(recorded.map((row) => `${row.type} ${row.id.split('_sub_')[0]}`).sort()).toEqual([
      'customer.subscription.deleted evt_local_end',
      'customer.subscription.updated evt_local_cancel',
    ]);
  });

  it('ends a banned subscriber’s test plan at its period’s end, as the test portal’s cancellation does; unbanned, it renews again', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me, 'monthly');
    const dates = async () =>
      (await server.app.db.select({ endsAt: users.planEndsAt, renewsAt: users.planRenewsAt }).from(users).where(eq(users.id, me.id)))[0]!;
    const renewsAt = (await dates()).renewsAt;
    await banThroughModeration(server, await makeModerator(server), me);
    const row = await dates();
    expect(row.endsAt).toBeInstanceOf(Date);
    expect(row.renewsAt).toBeNull();

    expect(await unban(server.app.db, me.email)).toBe('changed');
    expect(await dates()).toEqual({ endsAt: null, renewsAt: new Date(Math.floor(renewsAt!.getTime() / 1000) * 1000) });
    // Cancelled by its owner, it ends again; a ban and its lifting then leave it ending.
    await cancelThroughTestPortal(server, await signedInAgain(server, me));
    const cancelled = await dates();
    expect(cancelled.endsAt).toBeInstanceOf(Date);
    await banThroughModeration(server, await makeModerator(server), me);
    expect(await unban(server.app.db, me.email)).toBe('changed');
    expect(await dates()).toEqual(cancelled);
  });

  it('a cancellation or its taking back, read before the job ended or renewed the plan, changes the plan as it is then', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me, 'monthly');
    const plan = async () =>
      (
        await server.app.db
          .select({
            active: users.hasSubscription,
            subscription: users.stripeSubscriptionId,
            customer: users.stripeCustomerId,
            lookupKey: users.planLookupKey,
            renewsAt: users.planRenewsAt,
            endsAt: users.planEndsAt,
            version: users.billingVersion,
          })
          .from(users)
          .where(eq(users.id, me.id))
      )[0]!;
    const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);
    /** The test portal's event (or an unban's) as it is made from the plan read at `read`, then handled after the job ran. */
    const localUpdate = (read: Awaited<ReturnType<typeof plan>>, cancel: boolean) =>
      handleStripeEvent(
        server.app.db,
        {
          id: `evt_local_${cancel ? 'cancel' : 'renew'}_${read.subscription}_${read.version}`,
          type: 'customer.subscription.updated',
          data: {
            object: {
              id: read.subscription,
              object: 'subscription',
              customer: read.customer,
              status: 'active',
              items: { data: [{ price: { lookup_key: read.lookupKey }, current_period_end: seconds(read.renewsAt ?? read.endsAt) }] },
              trial_end: null,
              cancel_at: null,
              cancel_at_period_end: cancel,
            },
          },
        },
        LOCAL_EVENTS,
      );

    // Read while past its trial and due to renew; the job renews it before the cancellation is written.
    const due = new Date(Date.now() - 1000);
    await server.app.db.update(users).set({ planTrialEndsAt: null, planRenewsAt: due, planAnchorAt: due }).where(eq(users.id, me.id));
    const beforeRenewal = await plan();
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { renewed: 1, ended: 0 } });
    const renewsAt = (await plan()).renewsAt!;
    await localUpdate(beforeRenewal, true);
    // It ends at the end of the period the renewal began, not of the one gone by.
    expect(await plan()).toMatchObject({ active: true, renewsAt: null, endsAt: new Date(seconds(renewsAt)! * 1000) });
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { ended: 0 } });

    // Stopped (by a ban, say), its end passes: an unban's renewal read before the job ended it comes after.
    await server.app.db.update(users).set({ planEndsAt: new Date(Date.now() - 1000) }).where(eq(users.id, me.id));
    const beforeEnd = await plan();
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { ended: 1 } });
    await localUpdate(beforeEnd, false);
    expect(await plan()).toMatchObject({ active: false, renewsAt: null, endsAt: null });
    // As a ban's cancellation of a plan ending then does.
    await localUpdate(beforeEnd, true);
    expect(await plan()).toMatchObject({ active: false, renewsAt: null, endsAt: null });
  });

  it('renews a test plan past its trial as Stripe would: a cancellation then ends it at the end of the period it is in', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me, 'monthly');
    const trialEnd = new Date((await api().subscription(me)).body.trial_ends_at);
    // In its trial, as Stripe says of a subscription in its trial (the account's export shows the status stored).
    const status = async () => (await server.app.db.select({ status: users.planStatus }).from(users).where(eq(users.id, me.id)))[0]?.status;
    expect(await status()).toBe('trialing');
    // Time passes to two days after the trial's end: the first month paid runs to a month after it.
    const passed = trialEnd.getTime() - Date.now() + 2 * 86_400_000;
    const movedBack = (date: Date) => new Date(date.getTime() - passed);
    await server.app.db
      .update(users)
      .set({ planTrialEndsAt: movedBack(trialEnd), planRenewsAt: movedBack(trialEnd), planAnchorAt: movedBack(trialEnd) })
      .where(eq(users.id, me.id));
    // The same day a month on, or that month's last where it has none (31 January's is 28 February).
    const paidUntil = new Date(movedBack(trialEnd));
    paidUntil.setUTCDate(Math.min(paidUntil.getUTCDate(), new Date(Date.UTC(paidUntil.getUTCFullYear(), paidUntil.getUTCMonth() + 2, 0)).getUTCDate()));
    paidUntil.setUTCMonth(paidUntil.getUTCMonth() + 1);

    const events = await connect(server.url, me.token);
    try {
      const told = waitFor(events, 'account:changed');
      expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { renewed: 1, ended: 0 } });
      await told;
    } finally {
      events.disconnect();
    }
    expect((await api().subscription(me)).body).toMatchObject({ active: true, trial_ends_at: null, renews_at: paidUntil.toISOString(), ends_at: null });
    expect(await status()).toBe('active');
    // Once renewed, not again until that date.
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { renewed: 0, ended: 0 } });

    await cancelThroughTestPortal(server, me);
    const endsAt = new Date(Math.floor(paidUntil.getTime() / 1000) * 1000).toISOString();
    expect((await api().subscription(me)).body).toMatchObject({ active: true, renews_at: null, ends_at: endsAt });
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { renewed: 0, ended: 0 } });
    expect((await client(server.url).get('/api/users/me/', { token: me.token })).body.has_subscription).toBe(true);
  });

  it('renews a test plan on the day of the month it started on, as Stripe keeps its anchor: 31 January, 28 February, 31 March', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me, 'monthly');
    // Its first renewal was on 31 January last year; the job took it to 28 February, which has passed too.
    const year = new Date().getUTCFullYear() - 1;
    const at = (month: number, day: number) => new Date(Date.UTC(year, month, day, 12));
    await server.app.db.update(users).set({ planAnchorAt: at(0, 31), planTrialEndsAt: null, planRenewsAt: at(1, 28) }).where(eq(users.id, me.id));
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { renewed: 1 } });
    // The first month's 31st (or its last day) after now, counted from January's.
    let month = 1;
    const onAnchor = (m: number) => new Date(Date.UTC(year, m, Math.min(31, new Date(Date.UTC(year, m + 1, 0)).getUTCDate()), 12));
    while (onAnchor(month) <= new Date()) month += 1;
    expect((await api().subscription(me)).body.renews_at).toBe(onAnchor(month).toISOString());
  });

  it('dates a test plan bought before the plan’s dates were kept, from its checkout: it renews, and a cancellation ends it', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me, 'monthly');
    // Its checkout forty days ago, and none of the dates kept since.
    const startedAt = new Date(Math.floor((Date.now() - 40 * 86_400_000) / 1000) * 1000);
    await server.app.db.execute(sql`update checkout_sessions set created_at = ${startedAt.toISOString()} where user_id = ${me.id}`);
    await server.app.db.update(users).set({ planTrialEndsAt: null, planRenewsAt: null, planEndsAt: null, planAnchorAt: null }).where(eq(users.id, me.id));
    const renewsAt = new Date(startedAt);
    renewsAt.setUTCDate(1);
    renewsAt.setUTCMonth(renewsAt.getUTCMonth() + 2);
    renewsAt.setUTCDate(Math.min(startedAt.getUTCDate(), new Date(Date.UTC(renewsAt.getUTCFullYear(), renewsAt.getUTCMonth() + 1, 0)).getUTCDate()));

    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { dated: 1, renewed: 0, ended: 0 } });
    expect((await api().subscription(me)).body).toMatchObject({ active: true, renews_at: renewsAt.toISOString(), ends_at: null });
    await cancelThroughTestPortal(server, me);
    expect((await api().subscription(me)).body).toMatchObject({ active: true, renews_at: null, ends_at: renewsAt.toISOString() });
  });

  it('ends a test plan bought before the plan’s dates were kept, cancelled or stopped by a ban before the job dated it, at its period’s end', async () => {
    const [owner, banned] = [await makeCompletedUser(server), await makeCompletedUser(server)];
    // Each bought forty days ago, none of the dates kept since: the job has not dated them yet.
    const startedAt = new Date(Math.floor((Date.now() - 40 * 86_400_000) / 1000) * 1000);
    for (const user of [owner, banned]) {
      await subscribeThroughTestCheckout(server, user, 'monthly');
      await server.app.db.execute(sql`update checkout_sessions set created_at = ${startedAt.toISOString()} where user_id = ${user.id}`);
      await server.app.db.update(users).set({ planTrialEndsAt: null, planRenewsAt: null, planEndsAt: null, planAnchorAt: null }).where(eq(users.id, user.id));
    }
    const endsAt = monthsLater(startedAt, 2).toISOString();

    await cancelThroughTestPortal(server, owner);
    await banThroughModeration(server, await makeModerator(server), banned);
    const dates = async (user: TestUser) =>
      (await server.app.db.select({ active: users.hasSubscription, renewsAt: users.planRenewsAt, endsAt: users.planEndsAt }).from(users).where(eq(users.id, user.id)))[0];
    const ending = { active: true, renewsAt: null, endsAt: new Date(endsAt) };
    expect(await dates(owner)).toEqual(ending);
    expect(await dates(banned)).toEqual(ending);
    // Neither renews once the job runs: each still ends then.
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { dated: 0, renewed: 0, ended: 0 } });
    expect(await dates(owner)).toEqual(ending);
    expect(await dates(banned)).toEqual(ending);
  });

  it('ends the test plan of someone banned while it was undated, which the job dated and renewed since, at its period’s end', async () => {
    const [renewed, undated] = [await makeCompletedUser(server), await makeCompletedUser(server)];
    const startedAt = new Date(Math.floor((Date.now() - 40 * 86_400_000) / 1000) * 1000);
    const renewsAt = new Date(Math.floor((Date.now() + 10 * 86_400_000) / 1000) * 1000);
    const moderator = await makeModerator(server);
    for (const user of [renewed, undated]) {
      await subscribeThroughTestCheckout(server, user, 'monthly');
      await server.app.db.execute(sql`update checkout_sessions set created_at = ${startedAt.toISOString()} where user_id = ${user.id}`);
      await banThroughModeration(server, moderator, user);
    }
    // As a ban before the plan's dates were kept left them: stopped by the ban, with no end; one
    // dated by the job since, and renewed, the other not dated yet.
    const undatedPlan = { planTrialEndsAt: null, planRenewsAt: null, planEndsAt: null, planAnchorAt: null, planStoppedByBan: true };
    await server.app.db.update(users).set({ ...undatedPlan, planRenewsAt: renewsAt, planAnchorAt: renewsAt }).where(eq(users.id, renewed.id));
    await server.app.db.update(users).set(undatedPlan).where(eq(users.id, undated.id));

    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { dated: 1, stopped: 2, renewed: 0, ended: 0 } });
    const dates = async (user: TestUser) =>
      (await server.app.db.select({ active: users.hasSubscription, renewsAt: users.planRenewsAt, endsAt: users.planEndsAt }).from(users).where(eq(users.id, user.id)))[0];
    expect(await dates(renewed)).toEqual({ active: true, renewsAt: null, endsAt: renewsAt });
    expect(await dates(undated)).toEqual({ active: true, renewsAt: null, endsAt: monthsLater(startedAt, 2) });
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { dated: 0, stopped: 0, renewed: 0, ended: 0 } });
  });

  it('tries a ban’s stop of a test plan that did not take again at the job test-plan-end, which its log line names', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me, 'monthly');
    const plan = async () =>
      (await server.app.db.select({ customer: users.stripeCustomerId, endsAt: users.planEndsAt, stoppedByBan: users.planStoppedByBan }).from(users).where(eq(users.id, me.id)))[0]!;
    const { customer } = await plan();
    // The stop cannot be written at the ban (here: the plan's customer unreadable for the moment).
    await server.app.db.update(users).set({ stripeCustomerId: null }).where(eq(users.id, me.id));
    await banThroughModeration(server, await makeModerator(server), me);
    const logged: Array<{ object: object; message: string }> = [];
    const log = { warn: () => {}, error: (object: object, message: string) => logged.push({ object, message }) };
    expect(await stopRenewalOfBanned(server.app.db, null, me.id, log, server.config.stripe.lookupKeys.yearly)).toBe(false);
    expect(logged).toEqual([
      { object: expect.objectContaining({ job: 'test-plan-end' }), message: 'a banned account’s subscription still renews: tried again by the job test-plan-end' },
    ]);

    await server.app.db.update(users).set({ stripeCustomerId: customer }).where(eq(users.id, me.id));
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { stopped: 1 } });
    expect(await plan()).toMatchObject({ endsAt: expect.any(Date), stoppedByBan: true });
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { stopped: 0 } });
  });

  it('promises the trial until a checkout has completed: not for one left open or cancelled, not after a cancelled plan', async () => {
    const me = await makeCompletedUser(server);
    const trialDays = async () => (await api().subscription(me)).body.trial_days;
    expect(await trialDays()).toBe(FREE_TRIAL_DAYS);
    const started = await client(server.url).post('/api/payments/stripe/create-checkout-session/', {
      token: me.token,
      json: { lookup_key: server.config.stripe.lookupKeys.monthly },
    });
    const sessionId = String(started.body.url).split('/').pop()!;
    expect(await trialDays()).toBe(FREE_TRIAL_DAYS);
    const canceled = await client(server.url).post(`/api/payments/test-checkout/${sessionId}/cancel/`, { token: me.token });
    expect(canceled.status).toBe(200);
    expect(await trialDays()).toBe(FREE_TRIAL_DAYS);

    await subscribeThroughTestCheckout(server, me);
    await endThroughTestPortal(server, me);
    expect(await trialDays()).toBe(0);
    // Someone else's plan is not theirs.
    expect((await api().subscription(await makeCompletedUser(server))).body.trial_days).toBe(FREE_TRIAL_DAYS);
  });

  it('answers anonymous and hostile calls with a 4xx', async () => {
    const me = await makeCompletedUser(server);
    const anonymous = client(server.url);
    for (const [method, path] of [
      ['GET', '/api/users/me/likes/'],
      ['POST', '/api/matching/undo/'],
      ['GET', '/api/matching/undo/'],
      ['GET', '/api/matching/allowance/'],
      ['GET', '/api/payments/subscription/'],
      ['POST', '/api/payments/stripe/create-portal-session/'],
      ['POST', '/api/payments/test-portal/cancel/'],
    ] as const) {
      expect((await anonymous.request(method, path, { json: method === 'POST' ? {} : undefined })).status, path).toBe(401);
    }
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', `?cursor=${'x'.repeat(300)}`]) {
      expect((await api().likes(me, query)).status, query).toBe(400);
    }
    const malformed = await anonymous.post('/api/matching/undo/', {
      token: me.token,
      body: '{"oops":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
  });
});

describe.each(backends)('the free plan’s likes per rolling 24 hours, on %s', (backend) => {
  // Above the per-minute limit on reactions, which these tests would otherwise meet first; its own test
  // below shows that it still holds for subscribers.
  const REACTIONS_PER_MINUTE = 300;
  const server = serverPerSuite({ backend, config: { limits: { reaction: { max: REACTIONS_PER_MINUTE, windowMs: 60_000 } } } });

  const api = () => planApi(server);
  const likesGiven = async (user: TestUser) =>
    Number(rowsOf<{ n: number | string }>(await server.app.db.execute(sql`select count(*) as n from likes_given where user_id = ${user.id}`))[0]!.n);
  const oldestLike = async (user: TestUser) =>
    new Date(
      rowsOf<{ at: Date | string }>(
        await server.app.db.execute(sql`select min(given_at) as at from likes_given where user_id = ${user.id}`),
      )[0]!.at,
    );

  /**
   * `count` likes by `user`, given to a few people over and over: each like is taken back with a
   * dislike before the next one, so each is a new like (and counts): reacting again replaces the
   * earlier reaction.
   */
  async function likeOverAndOver(user: TestUser, targets: TestUser[], count: number) {
    for (let i = 0; i < count; i++) {
      const target = targets[i % targets.length]!;
      await reacted(server, user, target, 'like');
      await reacted(server, user, target, 'dislike');
    }
  }

  it('allows 100 likes, refuses the 101st with its code and when likes come back, and stores nothing for it', async () => {
    const me = await makeCompletedUser(server);
    const targets = await Promise.all(Array.from({ length: 12 }, () => makeCompletedUser(server)));
    expect((await api().allowance(me)).body).toEqual({ unlimited: false, limit: FREE_DAILY_LIKES, remaining: 100, resets_at: null });

    // 95 likes taken back, then 8 at the same instant for 5 places: a race lets none more through.
    await likeOverAndOver(me, targets.slice(0, 4), 95);
    expect((await api().allowance(me)).body).toMatchObject({ remaining: 5, resets_at: null });
    const racing = targets.slice(4, 12);
    const answers = await Promise.all(racing.map((target) => api().react(me, target, 'like')));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(3);
    expect(await likesGiven(me)).toBe(100);
    const likedNow = await Promise.all(racing.map((target) => kindOf(server, me, target)));
    expect(likedNow.filter((kind) => kind === 'like')).toHaveLength(5);
    expect(likedNow.filter((kind) => kind === null)).toHaveLength(3);

    // The 101st: 429, its code, when the oldest like leaves the window, and Retry-After to match.
    const comesBack = new Date((await oldestLike(me)).getTime() + DAILY_LIKES_WINDOW_MS).toISOString();
    const extra = await api().react(me, targets[0]!, 'like');
    expect(extra.status).toBe(429);
    expect(extra.body).toEqual({ detail: 'You have used your 100 likes of the last 24 hours.', code: 'daily_likes_exhausted', resets_at: comesBack });
    const retryAfter = Number(extra.headers.get('retry-after'));
    expect(Math.abs(retryAfter - (Date.parse(comesBack) - Date.now()) / 1000)).toBeLessThan(5);
    expect(await kindOf(server, me, targets[0]!)).toBe('dislike');
    expect(await likesGiven(me)).toBe(100);
    expect((await api().allowance(me)).body).toEqual({ unlimited: false, limit: 100, remaining: 0, resets_at: comesBack });
    for (const answer of refused) expect(answer.body.resets_at).toBe(comesBack);

    // Dislikes and skips are not counted, and liking someone I already like is no new like.
    expect((await reacted(server, me, targets[1]!, 'skip')).match).toBe(false);
    expect((await reacted(server, me, targets[2]!, 'dislike')).match).toBe(false);
    const alreadyLiked = racing.find((_, i) => likedNow[i] === 'like')!;
    expect((await api().react(me, alreadyLiked, 'like')).status).toBe(200);
    expect(await likesGiven(me)).toBe(100);
  });

  it('gives a like back when the oldest one leaves the 24-hour window, not before', async () => {
    const me = await makeCompletedUser(server);
    const targets = await Promise.all(Array.from({ length: 3 }, () => makeCompletedUser(server)));
    await likeOverAndOver(me, targets, FREE_DAILY_LIKES);
    expect((await api().react(me, targets[0]!, 'like')).status).toBe(429);

    // The oldest like (moved in SQL: its time has microseconds), a minute before it leaves the window: still counted.
    const moveOldest = (ms: number) =>
      server.app.db.execute(sql`
        update likes_given set given_at = now() - ${ms}::bigint * interval '1 millisecond'
        where user_id = ${me.id} and given_at = (select min(given_at) from likes_given where user_id = ${me.id})`);
    await moveOldest(DAILY_LIKES_WINDOW_MS - 60_000);
    const stillOut = await api().react(me, targets[0]!, 'like');
    expect(stillOut.status).toBe(429);
    const wait = Date.parse(stillOut.body.resets_at) - Date.now();
    expect(wait).toBeGreaterThan(50_000);
    expect(wait).toBeLessThan(61_000);

    // A minute after: one like comes back, and then the next oldest decides.
    await moveOldest(DAILY_LIKES_WINDOW_MS + 60_000);
    expect((await api().allowance(me)).body).toMatchObject({ remaining: 1, resets_at: null });
    expect((await api().react(me, targets[0]!, 'like')).status).toBe(200);
    const out = await api().react(me, targets[1]!, 'like');
    expect(out.status).toBe(429);
    expect(out.body.resets_at).toBe(new Date((await oldestLike(me)).getTime() + DAILY_LIKES_WINDOW_MS).toISOString());
    // The like that left the window was deleted with the insert that took its place.
    expect(await likesGiven(me)).toBe(FREE_DAILY_LIKES);
  });

  it('the spent-likes purge takes every like that has left the window, and no other', async () => {
    const [idle, active] = await Promise.all([makeCompletedUser(server), makeCompletedUser(server)]);
    const targets = await Promise.all(Array.from({ length: 2 }, () => makeCompletedUser(server)));
    await likeOverAndOver(idle, targets, 3);
    await likeOverAndOver(active, targets, 2);
    // Two of the idle user's likes leave the window, one is a minute short of leaving it.
    await server.app.db.execute(sql`
      update likes_given set given_at = now() - (${DAILY_LIKES_WINDOW_MS}::bigint + 1000) * interval '1 millisecond'
      where user_id = ${idle.id} and given_at < (select max(given_at) from likes_given where user_id = ${idle.id})`);
    await server.app.db.execute(sql`
      update likes_given set given_at = now() - (${DAILY_LIKES_WINDOW_MS}::bigint - 60000) * interval '1 millisecond'
      where user_id = ${idle.id} and given_at = (select max(given_at) from likes_given where user_id = ${idle.id})`);

    expect(await runJob(server.app, spentLikesPurge)).toMatchObject({ status: 'done', report: { likes: 2 } });
    expect(await likesGiven(idle)).toBe(1);
    expect(await likesGiven(active)).toBe(2);
    expect((await api().allowance(idle)).body).toMatchObject({ remaining: FREE_DAILY_LIKES - 1 });
    expect(await runJob(server.app, spentLikesPurge)).toMatchObject({ status: 'done', report: { likes: 0 } });
  });

  it('subscribers like without counting, within the per-minute limit that holds for everyone', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const targets = await Promise.all(Array.from({ length: 3 }, () => makeCompletedUser(server)));
    expect((await api().allowance(me)).body).toEqual({ unlimited: true, limit: null, remaining: null, resets_at: null });
    await likeOverAndOver(me, targets, REACTIONS_PER_MINUTE / 2);
    expect(await likesGiven(me)).toBe(REACTIONS_PER_MINUTE / 2);
    const throttled = await api().react(me, targets[0]!, 'like');
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBeUndefined();
    expect(throttled.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
  });

  it('a subscription that has ended loses every perk at once; the likes it gave still count', async () => {
    const me = await makeCompletedUser(server);
    await subscribeThroughTestCheckout(server, me);
    const targets = await Promise.all(Array.from({ length: 3 }, () => makeCompletedUser(server)));
    const admirer = await makeCompletedUser(server);
    await reacted(server, admirer, me, 'like');
    await likeOverAndOver(me, targets, FREE_DAILY_LIKES + 1);
    expect(ids((await api().likes(me)).body)).toEqual([admirer.id]);

    await endThroughTestPortal(server, me);
    const refused = await api().react(me, targets[0]!, 'like');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('daily_likes_exhausted');
    // With 101 likes in the window, a like comes back when the second oldest leaves it.
    const second = rowsOf<{ at: Date | string }>(
      await server.app.db.execute(sql`select given_at as at from likes_given where user_id = ${me.id} order by given_at offset 1 limit 1`),
    )[0]!.at;
    expect(refused.body.resets_at).toBe(new Date(new Date(second).getTime() + DAILY_LIKES_WINDOW_MS).toISOString());
    expect((await api().likes(me)).body).toEqual({ count: 1, results: [], next: null });
    expect((await api().undo(me)).status).toBe(403);
  });
});

describe.each(backends)('the perks follow Stripe’s events at the webhook, on %s', (backend) => {
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe(TEST_STRIPE);
  });
  afterAll(() => fake?.close());
  const server = serverPerSuite(() => ({ backend, config: { stripe: stripeConfigFor(fake) } }));

  const api = () => planApi(server);
  const deliver = (event: unknown) => deliverStripeEvent(server, event, TEST_STRIPE.webhookSecret);
  /**
   * Stripe's event for the change that stopped a subscription's renewal, as the subscription was just
   * after it; `metadataBefore`, when that change also set the ban's mark (as the ban's own update does).
   */
  const cancellationEvent = (subscription: { id: string; customer: string; metadata: Record<string, string> }, metadataBefore?: Record<string, string>) => {
    const event = stripeEvent('customer.subscription.updated', { ...subscription, object: 'subscription', status: 'active', cancel_at_period_end: true });
    const previous = { cancel_at_period_end: false, ...(metadataBefore ? { metadata: metadataBefore } : {}) };
    return { ...event, data: { ...event.data, previous_attributes: previous } };
  };
  /** Stripe's event for a ban's stop of `id`, as the fake has the subscription after it (its metadata `before` it). */
  const banStopEvent = (id: string, customer: string, before: Record<string, string> = {}) =>
    cancellationEvent({ id, customer, metadata: { ...fake.subscriptions.get(id)!.metadata } }, before);
  /** Stripe's event for a renewal given back (in the portal, the dashboard, or by an unban), as the fake has the subscription after it. */
  const renewalEvent = (id: string, customer: string) => {
    const event = stripeEvent('customer.subscription.updated', { id, object: 'subscription', customer, status: 'active', cancel_at_period_end: false, metadata: { ...fake.subscriptions.get(id)!.metadata } });
    return { ...event, data: { ...event.data, previous_attributes: { cancel_at_period_end: true } } };
  };
  /** A new user subscribed at Stripe (`subscription`, renewing monthly, its period ending at `periodEnd`, seconds) and told here. */
  const subscribedAtStripe = async (subscription: string, periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400) => {
    const user = await makeCompletedUser(server);
    const { customer, sessionId } = await startStripeCheckout(server, user);
    const items = { object: 'list', data: [{ price: { lookup_key: 'basic_monthly' }, current_period_end: periodEnd }] };
    fake.subscriptions.set(subscription, { customer, status: 'active', items, cancel_at: null, cancel_at_period_end: false });
    expect((await deliver(completedCheckout({ user, customer, sessionId }, subscription))).status).toBe(200);
    return { user, customer };
  };

  it('grants the perks on completion, and takes them away the moment the subscription is unpaid or cancelled', async () => {
    const me = await makeCompletedUser(server);
    const admirer = await makeCompletedUser(server);
    const passed = await makeCompletedUser(server);
    await reacted(server, admirer, me, 'like');
    const { customer, sessionId } = await startStripeCheckout(server, me);

    const perks = async () => {
      const [likes, allowance, state] = await Promise.all([api().likes(me), api().allowance(me), api().subscription(me)]);
      await reacted(server, me, passed, 'dislike');
      const undo = await api().undo(me);
      return {
        likes: ids(likes.body),
        unlimited: allowance.body.unlimited,
        undo: undo.status === 200 ? 'allowed' : undo.body.code,
        active: state.body.active,
      };
    };
    const without = { likes: [], unlimited: false, undo: 'subscription_required', active: false };
    const withPlan = { likes: [admirer.id], unlimited: true, undo: 'allowed', active: true };
    expect(await perks()).toEqual(without);
    // The trial the page promises is the database's word: Stripe is not asked.
    const asked = fake.requests.length;
    expect((await api().subscription(me)).body.trial_days).toBe(FREE_TRIAL_DAYS);
    expect(fake.requests.length).toBe(asked);

    const subscription = (status: string) => ({ id: 'sub_perks', object: 'subscription', customer, status });
    fake.subscriptions.set('sub_perks', { customer, status: 'trialing' });
    const completed = await deliver(
      completedCheckout({ user: me, customer, sessionId }, 'sub_perks'),
    );
    expect(completed.status).toBe(200);
    expect(await perks()).toEqual(withPlan);
    expect((await api().subscription(me)).body).toEqual({ active: true, period: 'monthly', manageable: true, trial_days: 0, ...noDates, payment_failed: false, payment_incomplete: false });

    // A switch to the yearly price in Stripe's portal: the page shows the period Stripe now names.
    const yearly = { object: 'list', data: [{ id: 'si_perks', price: { id: 'price_yearly_1', lookup_key: 'basic_yearly' } }] };
    fake.subscriptions.set('sub_perks', { customer, status: 'active', items: yearly });
    await deliver(stripeEvent('customer.subscription.updated', { ...subscription('active'), items: yearly }));
    expect((await api().subscription(me)).body).toEqual({ active: true, period: 'yearly', manageable: true, trial_days: 0, ...noDates, payment_failed: false, payment_incomplete: false });

    fake.subscriptions.set('sub_perks', { customer, status: 'unpaid' });
    await deliver(stripeEvent('customer.subscription.updated', subscription('unpaid')));
    expect(await perks()).toEqual(without);

    fake.subscriptions.set('sub_perks', { customer, status: 'active' });
    await deliver(stripeEvent('customer.subscription.updated', subscription('active')));
    expect(await perks()).toEqual(withPlan);

    expect((await api().subscription(me)).body).toEqual({ active: true, period: 'yearly', manageable: true, trial_days: 0, ...noDates, payment_failed: false, payment_incomplete: false });

    fake.subscriptions.set('sub_perks', { customer, status: 'canceled' });
    await deliver(stripeEvent('customer.subscription.deleted', subscription('canceled')));
    expect(await perks()).toEqual(without);
    expect((await api().subscription(me)).body).toMatchObject({ active: false, period: null, trial_days: 0 });
  });

  it('says a payment failed while Stripe retries it (the plan goes on) and once the plan ended unpaid, with the portal to mend it', async () => {
    const me = await makeUser(server);
    const { customer, sessionId } = await startStripeCheckout(server, me);
    // A checkout started, not paid: nothing to manage yet.
    expect((await api().subscription(me)).body.manageable).toBe(false);
    const subscription = (status: string) => ({ id: 'sub_dunning', object: 'subscription', customer, status });
    // Stripe moves the period on when it bills a renewal, paid or not.
    const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const items = { object: 'list', data: [{ price: { lookup_key: 'basic_monthly' }, current_period_end: periodEnd }] };
    const move = async (status: string, type = 'customer.subscription.updated') => {
      fake.subscriptions.set('sub_dunning', { customer, status, items });
      expect((await deliver(stripeEvent(type, subscription(status)))).status).toBe(200);
      const state = (await api().subscription(me)).body;
      return { active: state.active, payment_failed: state.payment_failed, manageable: state.manageable };
    };
    fake.subscriptions.set('sub_dunning', { customer, status: 'active', items });
    expect((await deliver(completedCheckout({ user: me, customer, sessionId }, 'sub_dunning'))).status).toBe(200);
    expect((await api().subscription(me)).body).toMatchObject({ payment_failed: false, renews_at: new Date(periodEnd * 1000).toISOString() });

    // A renewal's payment failed, and Stripe is trying again: the plan goes on, and the page says so.
    expect(await move('past_due')).toEqual({ active: true, payment_failed: true, manageable: true });
    // It renews only once that payment is made: no renewal date beside the failure.
    expect((await api().subscription(me)).body).toMatchObject({ renews_at: null, ends_at: null });
    // The card was updated and the invoice paid.
    expect(await move('active')).toEqual({ active: true, payment_failed: false, manageable: true });
    // Stripe's retries ran out: the plan ends, and the invoice can still be paid in the portal.
    expect(await move('past_due')).toEqual({ active: true, payment_failed: true, manageable: true });
    expect(await move('unpaid')).toEqual({ active: false, payment_failed: true, manageable: true });
    expect((await api().portal(me)).status).toBe(200);
    // Cancelled at Stripe: nothing is owed any more.
    expect(await move('canceled', 'customer.subscription.deleted')).toEqual({ active: false, payment_failed: false, manageable: true });
  });

  it('says a first payment is incomplete (3-D Secure unconfirmed, or declined) rather than leave the buyer waiting', async () => {
    const me = await makeUser(server);
    const { customer, sessionId } = await startStripeCheckout(server, me);
    fake.subscriptions.set('sub_3ds', { customer, status: 'incomplete' });
    expect((await deliver(completedCheckout({ user: me, customer, sessionId }, 'sub_3ds'))).status).toBe(200);
    expect((await api().subscription(me)).body).toMatchObject({ active: false, payment_failed: false, payment_incomplete: true });
    // A checkout begun since is not the one that failed: its buyer, back before its event, waits for it.
    await startStripeCheckout(server, me);
    expect((await api().subscription(me)).body).toMatchObject({ active: false, payment_incomplete: false });
    // Confirmed at last: the plan starts.
    fake.subscriptions.set('sub_3ds', { customer, status: 'active' });
    await deliver(stripeEvent('customer.subscription.updated', { id: 'sub_3ds', object: 'subscription', customer, status: 'active' }));
    expect((await api().subscription(me)).body).toMatchObject({ active: true, payment_incomplete: false });
  });

  it('ends a banned subscriber’s plan at the end of the period paid for: they can no longer sign in to cancel it', async () => {
    const me = await makeCompletedUser(server);
    const { customer, sessionId } = await startStripeCheckout(server, me);
    const periodEnd = Math.floor(Date.now() / 1000) + 20 * 86_400;
    const items = { object: 'list', data: [{ price: { lookup_key: 'basic_monthly' }, current_period_end: periodEnd }] };
    fake.subscriptions.set('sub_banned', { customer, status: 'active', items, cancel_at: null, cancel_at_period_end: false });
    expect((await deliver(completedCheckout({ user: me, customer, sessionId }, 'sub_banned'))).status).toBe(200);
    expect((await api().subscription(me)).body.renews_at).toBe(new Date(periodEnd * 1000).toISOString());

    await banThroughModeration(server, await makeModerator(server), me);
    expect(fake.requestsTo('POST', '/v1/subscriptions/sub_banned').map((call) => call.form)).toEqual([
      { cancel_at_period_end: 'true', 'metadata[stopped_by]': 'ban', 'metadata[stopped_at]': expect.any(String) },
    ]);
    expect(fake.subscriptions.get('sub_banned')).toMatchObject({ cancel_at_period_end: true, metadata: { stopped_by: 'ban' } });
    // Stripe's event for it gives the plan its end here: what they see once unbanned, and can renew in the portal.
    await deliver(banStopEvent('sub_banned', customer));
    const [row] = await server.app.db.select({ endsAt: users.planEndsAt, renewsAt: users.planRenewsAt }).from(users).where(eq(users.id, me.id));
    expect(row).toEqual({ endsAt: new Date(periodEnd * 1000), renewsAt: null });

    // Unbanned, it renews again, as before the ban: the user never cancelled it.
    const log = { warn: () => {}, error: () => {} };
    expect(await unban(server.app.db, me.email, server.app.stripe, log)).toBe('changed');
    expect(fake.requestsTo('POST', '/v1/subscriptions/sub_banned').map((call) => call.form)).toEqual([
      { cancel_at_period_end: 'true', 'metadata[stopped_by]': 'ban', 'metadata[stopped_at]': expect.any(String) },
      { cancel_at_period_end: 'false', 'metadata[stopped_by]': '', 'metadata[stopped_at]': '' },
    ]);
    expect(fake.subscriptions.get('sub_banned')).toMatchObject({ cancel_at_period_end: false, metadata: {} });
    await deliver(stripeEvent('customer.subscription.updated', { id: 'sub_banned', object: 'subscription', customer, status: 'active' }));
    expect((await api().subscription(await signedInAgain(server, me))).body).toMatchObject({ renews_at: new Date(periodEnd * 1000).toISOString(), ends_at: null });

    // Stripe down: the ban holds all the same, and the job banned-plan-stop stops the renewal once Stripe answers.
    const other = await makeCompletedUser(server);
    const started = await startStripeCheckout(server, other);
    fake.subscriptions.set('sub_banned_2', { customer: started.customer, status: 'active', items });
    expect((await deliver(completedCheckout({ user: other, customer: started.customer, sessionId: started.sessionId }, 'sub_banned_2'))).status).toBe(200);
    fake.outage = true;
    try {
      await banThroughModeration(server, await makeModerator(server), other);
      expect(await runJob(server.app, bannedPlanStop)).toMatchObject({ status: 'done', report: { due: 1, stopped: 0 } });
    } finally {
      fake.outage = false;
    }
    expect(fake.subscriptions.get('sub_banned_2')?.cancel_at_period_end).toBeFalsy();
    expect(await runJob(server.app, bannedPlanStop)).toMatchObject({ status: 'done', report: { due: 1, stopped: 1 } });
    expect(fake.subscriptions.get('sub_banned_2')?.cancel_at_period_end).toBe(true);
    // Stopped once, and Stripe's event for it in: not asked of Stripe again, and lifting the ban renews it as before.
    await deliver(banStopEvent('sub_banned_2', started.customer));
    expect(await runJob(server.app, bannedPlanStop)).toMatchObject({ status: 'done', report: { due: 0, stopped: 0 } });
    expect(await unban(server.app.db, other.email, server.app.stripe, log)).toBe('changed');
    expect(fake.subscriptions.get('sub_banned_2')?.cancel_at_period_end).toBe(false);
  });

  it('leaves a plan its owner cancelled at Stripe just before a ban, its event not in yet, to end: an unban does not renew it', async () => {
    const { user: me } = await subscribedAtStripe('sub_own_cancel');
    // Cancelled in Stripe's portal; Stripe's event for it is still on its way when the ban comes.
    fake.subscriptions.get('sub_own_cancel')!.cancel_at_period_end = true;
    await banThroughModeration(server, await makeModerator(server), me);
    const [row] = await server.app.db.select({ stoppedByBan: users.planStoppedByBan }).from(users).where(eq(users.id, me.id));
    expect(row).toEqual({ stoppedByBan: false });

    expect(await unban(server.app.db, me.email, server.app.stripe, { warn: () => {}, error: () => {} })).toBe('changed');
    expect(fake.requestsTo('POST', '/v1/subscriptions/sub_own_cancel')).toEqual([]);
    expect(fake.subscriptions.get('sub_own_cancel')?.cancel_at_period_end).toBe(true);
  });

  it('leaves a plan its owner cancelled at Stripe while the ban’s stop was reading it to end: an unban does not renew it', async () => {
    const { user: me, customer } = await subscribedAtStripe('sub_own_cancel_racing');
    const moderator = await makeModerator(server);
    const reporter = await makeCompletedUser(server);

    // The ban's stop reads the plan renewing; before its update reaches Stripe, the owner cancels in the portal.
    const hold = fake.holdSubscriptionReads();
    const banned = banThroughModeration(server, moderator, me, reporter);
    await hold.reading;
    fake.subscriptions.get('sub_own_cancel_racing')!.cancel_at_period_end = true;
    hold.release();
    await banned;
    expect(fake.subscriptions.get('sub_own_cancel_racing')).toMatchObject({ cancel_at_period_end: true, metadata: { stopped_by: 'ban' } });
    // Stripe's event for the owner's cancellation, in after the ban's update: the change it tells of was not the ban's.
    expect((await deliver(cancellationEvent({ id: 'sub_own_cancel_racing', customer, metadata: {} }))).status).toBe(200);
    const [row] = await server.app.db.select({ stoppedByBan: users.planStoppedByBan, endsAt: users.planEndsAt }).from(users).where(eq(users.id, me.id));
    expect(row?.stoppedByBan).toBe(false);
    expect(row?.endsAt).not.toBeNull();

    expect(await unban(server.app.db, me.email, server.app.stripe, { warn: () => {}, error: () => {} })).toBe('changed');
    expect(fake.subscriptions.get('sub_own_cancel_racing')?.cancel_at_period_end).toBe(true);
  });

  it('leaves a plan its owner cancelled while the ban’s stop was reading it to end when the unban comes before Stripe’s events, in either order', async () => {
    const moderator = await makeModerator(server);
    const log = { warn: () => {}, error: () => {} };
    for (const ownersFirst of [true, false]) {
      const id = `sub_own_cancel_unbanned_early_${ownersFirst ? 'owners_first' : 'bans_first'}`;
      const { user: me, customer } = await subscribedAtStripe(id);
      const hold = fake.holdSubscriptionReads();
      const banned = banThroughModeration(server, moderator, me);
      await hold.reading;
      fake.subscriptions.get(id)!.cancel_at_period_end = true;
      hold.release();
      await banned;
      // Lifted before Stripe's event for either change is in: whose the cancellation is, only they tell.
      expect(await unban(server.app.db, me.email, server.app.stripe, log)).toBe('changed');
      const owners = cancellationEvent({ id, customer, metadata: {} });
      // The ban's update changed only the mark: the subscription renewed no more already.
      const marked = stripeEvent('customer.subscription.updated', { id, object: 'subscription', customer, status: 'active', cancel_at_period_end: true, metadata: { ...fake.subscriptions.get(id)!.metadata } });
      const bans = { ...marked, data: { ...marked.data, previous_attributes: { metadata: {} } } };
      for (const event of ownersFirst ? [owners, bans, owners] : [bans, owners, bans]) expect((await deliver(event)).status).toBe(200);
      expect(fake.subscriptions.get(id)?.cancel_at_period_end).toBe(true);
      const [row] = await server.app.db.select({ stoppedByBan: users.planStoppedByBan, endsAt: users.planEndsAt }).from(users).where(eq(users.id, me.id));
      expect(row).toEqual({ stoppedByBan: false, endsAt: expect.any(Date) });
    }
  });

  it('renews a plan stopped by a ban lifted before Stripe’s event for the stop came in, however often that event comes', async () => {
    const { user: me, customer } = await subscribedAtStripe('sub_unbanned_early');
    const log = { warn: () => {}, error: () => {} };
    await banThroughModeration(server, await makeModerator(server), me);
    expect(await unban(server.app.db, me.email, server.app.stripe, log)).toBe('changed');
    // Stripe's event for the ban's stop, late, and delivered again.
    const stopped = banStopEvent('sub_unbanned_early', customer);
    for (const event of [stopped, stopped]) expect((await deliver(event)).status).toBe(200);
    expect(fake.subscriptions.get('sub_unbanned_early')).toMatchObject({ cancel_at_period_end: false, metadata: {} });
    const renewed = stripeEvent('customer.subscription.updated', { id: 'sub_unbanned_early', object: 'subscription', customer, status: 'active', cancel_at_period_end: false });
    expect((await deliver({ ...renewed, data: { ...renewed.data, previous_attributes: { cancel_at_period_end: true } } })).status).toBe(200);
    expect((await api().subscription(await signedInAgain(server, me))).body).toMatchObject({ renews_at: expect.any(String), ends_at: null });
    const [row] = await server.app.db.select({ stoppedByBan: users.planStoppedByBan }).from(users).where(eq(users.id, me.id));
    expect(row).toEqual({ stoppedByBan: false });
  });

  it('takes a cancellation its owner makes after the ban’s mark was left at Stripe as theirs: a later unban does not renew it', async () => {
    const { user: me, customer } = await subscribedAtStripe('sub_mark_left');
    const moderator = await makeModerator(server);
    const log = { warn: () => {}, error: () => {} };
    await banThroughModeration(server, moderator, me);
    await deliver(banStopEvent('sub_mark_left', customer));
    // The unban's renewal cannot reach Stripe: the operator renews it by hand in Stripe's dashboard, the mark left on it.
    fake.outage = true;
    try {
      expect(await unban(server.app.db, me.email, server.app.stripe, log)).toBe('changed');
    } finally {
      fake.outage = false;
    }
    fake.subscriptions.get('sub_mark_left')!.cancel_at_period_end = false;
    expect((await deliver(renewalEvent('sub_mark_left', customer))).status).toBe(200);
    // Its owner cancels in Stripe's portal: the mark is still there, yet the cancellation is theirs.
    fake.subscriptions.get('sub_mark_left')!.cancel_at_period_end = true;
    expect((await deliver(cancellationEvent({ id: 'sub_mark_left', customer, metadata: { ...fake.subscriptions.get('sub_mark_left')!.metadata } }))).status).toBe(200);
    await banThroughModeration(server, moderator, me);
    expect(await unban(server.app.db, me.email, server.app.stripe, log)).toBe('changed');
    expect(fake.subscriptions.get('sub_mark_left')?.cancel_at_period_end).toBe(true);

    // Renewed by its owner, then banned again: the ban's stop marks it anew, so its event is the ban's
    // though the old mark was on it still, and the unban renews it.
    fake.subscriptions.get('sub_mark_left')!.cancel_at_period_end = false;
    expect((await deliver(renewalEvent('sub_mark_left', customer))).status).toBe(200);
    const before = { ...fake.subscriptions.get('sub_mark_left')!.metadata };
    await banThroughModeration(server, moderator, me);
    expect(fake.subscriptions.get('sub_mark_left')?.cancel_at_period_end).toBe(true);
    expect((await deliver(banStopEvent('sub_mark_left', customer, before))).status).toBe(200);
    expect(await unban(server.app.db, me.email, server.app.stripe, log)).toBe('changed');
    expect(fake.subscriptions.get('sub_mark_left')?.cancel_at_period_end).toBe(false);
  });

  it('takes the plan as Stripe has it when a ban’s stop finds it renewing no more there, its event lost: the job stops asking', async () => {
    const moderator = await makeModerator(server);
    const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const plan = async (user: TestUser) =>
      (await server.app.db.select({ active: users.hasSubscription, endsAt: users.planEndsAt, stoppedByBan: users.planStoppedByBan }).from(users).where(eq(users.id, user.id)))[0];
    const subscribed = async (subscription: string) => (await subscribedAtStripe(subscription, periodEnd)).user;
    // Cancelled by its owner in Stripe's portal, ended at Stripe, and deleted in Stripe's dashboard:
    // Stripe's events for each lost on the way, the plan here still says it renews.
    const [cancelled, ended, deleted] = [await subscribed('sub_lost_cancel'), await subscribed('sub_lost_end'), await subscribed('sub_lost_delete')];
    fake.subscriptions.get('sub_lost_cancel')!.cancel_at_period_end = true;
    fake.subscriptions.get('sub_lost_end')!.status = 'canceled';
    fake.subscriptions.delete('sub_lost_delete');
    for (const user of [cancelled, ended, deleted]) await banThroughModeration(server, moderator, user);

    // Each is as Stripe has it: ending at its period's end (its owner's cancellation, not the ban's), or ended.
    expect(await plan(cancelled)).toEqual({ active: true, endsAt: new Date(periodEnd * 1000), stoppedByBan: false });
    expect(await plan(ended)).toMatchObject({ active: false, endsAt: null });
    expect(await plan(deleted)).toMatchObject({ active: false, endsAt: null });
    // Nothing is left for the job to stop: Stripe is not asked again, run after run.
    const asked = fake.requests.length;
    expect(await runJob(server.app, bannedPlanStop)).toMatchObject({ status: 'done', report: { due: 0, stopped: 0 } });
    expect(await runJob(server.app, bannedPlanStop)).toMatchObject({ status: 'done', report: { due: 0, stopped: 0 } });
    expect(fake.requests.length).toBe(asked);
    expect(fake.requestsTo('POST', '/v1/subscriptions/sub_lost_cancel')).toEqual([]);
  });

  it('stops the renewal of a plan whose checkout, begun before the ban, is paid after it', async () => {
    const me = await makeCompletedUser(server);
    const { customer, sessionId } = await startStripeCheckout(server, me);
    const items = { object: 'list', data: [{ price: { lookup_key: 'basic_monthly' }, current_period_end: Math.floor(Date.now() / 1000) + 30 * 86_400 }] };
    fake.subscriptions.set('sub_paid_banned', { customer, status: 'active', items, cancel_at: null, cancel_at_period_end: false });
    // Banned while Stripe's checkout page was open: they pay on it all the same, and can no longer sign in to cancel.
    await banThroughModeration(server, await makeModerator(server), me);
    expect((await deliver(completedCheckout({ user: me, customer, sessionId }, 'sub_paid_banned'))).status).toBe(200);
    expect(fake.requestsTo('POST', '/v1/subscriptions/sub_paid_banned').map((call) => call.form)).toEqual([
      { cancel_at_period_end: 'true', 'metadata[stopped_by]': 'ban', 'metadata[stopped_at]': expect.any(String) },
    ]);
    // Unbanned, it renews again once Stripe's event for the stop says so: the ban stopped it, not its owner.
    expect(await unban(server.app.db, me.email, server.app.stripe, { warn: () => {}, error: () => {} })).toBe('changed');
    expect((await deliver(banStopEvent('sub_paid_banned', customer))).status).toBe(200);
    expect(fake.subscriptions.get('sub_paid_banned')?.cancel_at_period_end).toBe(false);
  });

  it('opens Stripe’s customer portal through the SDK for the user’s customer, back to the subscribe page', async () => {
    const never = await makeUser(server);
    const before = fake.requests.length;
    const refused = await api().portal(never);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('subscription_required');
    expect(fake.requests.length).toBe(before);

    const me = await makeUser(server);
    const { customer } = await startStripeCheckout(server, me);
    const portal = await api().portal(me);
    expect(portal.status, JSON.stringify(portal.body)).toBe(200);
    const call = fake.requestsTo('POST', '/v1/billing_portal/sessions').at(-1)!;
    expect(call.headers.authorization).toBe(`Bearer ${TEST_STRIPE.secretKey}`);
    expect(call.form).toEqual({ customer, return_url: `${server.url}/app/subscribe/`, locale: 'es' });
    const [session] = [...fake.portalSessions.values()].filter((s) => s.customer === customer);
    expect(portal.body).toEqual({ url: session!.url });

    fake.outage = true;
    try {
      expect((await api().portal(me)).status).toBe(503);
    } finally {
      fake.outage = false;
    }
  });

  it('says the portal is unavailable, in the user’s language, while Stripe has no portal settings saved', async () => {
    const me = await makeUser(server);
    await startStripeCheckout(server, me);
    fake.portalConfigured = false;
    try {
      for (const [language, detail] of [
        ['en', 'Payments are unavailable right now. Please try again later.'],
        ['es', 'Los pagos no están disponibles ahora. Inténtalo más tarde.'],
      ] as const) {
        const refused = await client(server.url).post('/api/payments/stripe/create-portal-session/', {
          token: me.token,
          json: {},
          headers: { 'accept-language': language },
        });
        expect(refused.status, JSON.stringify(refused.body)).toBe(503);
        expect(refused.body).toEqual({ detail, code: 'payments_unavailable' });
      }
    } finally {
      fake.portalConfigured = true;
    }
    expect((await api().portal(me)).status).toBe(200);
  });
});

describe.skipIf(!(await hasPostgres()))('a test plan’s cancellation racing a ban’s stop of it, on PostgreSQL', () => {
  const races = racesOnPostgres();

  it('each changes the plan as it is under the billing lock: the owner’s cancellation, in first, stays theirs, and an unban leaves it to end', async () => {
    const { server } = races;
    const me = await makeCompletedUser(server);
    const moderator = await makeModerator(server);
    await subscribeThroughTestCheckout(server, me, 'monthly');
    const plan = async () =>
      (await server.app.db.select({ renewsAt: users.planRenewsAt, endsAt: users.planEndsAt, stoppedByBan: users.planStoppedByBan }).from(users).where(eq(users.id, me.id)))[0]!;
    const renewsAt = (await plan()).renewsAt!;

    // Both read the plan renewing, then wait for the user's billing lock: the owner's cancellation first.
    const release = await races.hold('select pg_advisory_xact_lock($1::int, $2::int)', [BILLING_LOCK_SPACE, me.id]);
    let cancelling: Promise<unknown> | undefined;
    let banning: Promise<unknown> | undefined;
    try {
      cancelling = client(server.url).post('/api/payments/test-portal/cancel/', { token: me.token, json: {} });
      expect(await races.stuckOrDone(cancelling, 1)).toBe(false);
      banning = banThroughModeration(server, moderator, me);
      expect(await races.stuckOrDone(banning, 2)).toBe(false);
    } finally {
      await release();
    }
    await Promise.all([cancelling, banning]);
    const ending = { renewsAt: null, endsAt: new Date(Math.floor(renewsAt.getTime() / 1000) * 1000) };
    expect(await plan()).toEqual({ ...ending, stoppedByBan: false });

    // Its owner cancelled it: lifting the ban does not renew it.
    expect(await unban(server.app.db, me.email)).toBe('changed');
    expect(await plan()).toEqual({ ...ending, stoppedByBan: false });
  });
});
