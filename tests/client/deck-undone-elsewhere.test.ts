// @vitest-environment jsdom
/**
 * An undo made on another of my phones reaches this one (`deck:undone`): the person taken back comes
 * back into this deck, behind the card on screen, and into "likes you" when it was a dislike of
 * someone who likes me; what this tab offered to undo moves on to the pass before. A decision made
 * there (`deck:answered`) moves that offer too: it is always the latest, on either plan, a decision
 * made while this phone was offline too. Against the real server, over a real socket.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import type { DeckCard } from '../../shared/schemas/users';
import { closeTab, connectTab, fetchFrom, offlineWhile, signInTab, startTabServer } from '../helpers/client-tab';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { useDeck } = await import('../../client/stores/deck');
const { useLikes } = await import('../../client/stores/likes');
const { usePlan } = await import('../../client/stores/plan');

let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server, me } = await startTabServer({ subscribed: true })));
afterAll(() => server?.close());
afterEach(closeTab);

/** What the other phone does, over plain HTTP with the same account. */
const otherPhone = {
  react: (to: TestUser, response: string) => client(server.url).post('/api/matching/', { token: me.token, json: { response, other: to.id } }),
  undo: (to: TestUser) => client(server.url).post('/api/matching/undo/', { token: me.token, json: { user_id: to.id } }),
};
const cardOf = (user: TestUser, name: string): DeckCard => ({ id: user.id, name, age: 28, bio: 'Hi', image: null });
const deckIds = () => [useDeck.getState().current?.id, ...(useDeck.getState().queue ?? []).map((card) => card.id)];

it('brings back into this deck and "likes you" whom another phone took back, behind the card on screen', async () => {
  fetchFrom(server);
  const [skipped, liker, onScreen] = [await makeCompletedUser(server), await makeCompletedUser(server), await makeCompletedUser(server)];
  expect((await client(server.url).post('/api/matching/', { token: liker.token, json: { response: 'like', other: me.id } })).status).toBe(200);
  await signInTab(server, me);
  await useLikes.getState().load();
  expect(useLikes.getState()).toMatchObject({ count: 1, people: [{ id: liker.id }] });
  useDeck.setState({ current: cardOf(onScreen, 'On screen'), queue: [cardOf(skipped, 'Skipped'), cardOf(liker, 'Liker')] });
  await connectTab(me.token);

  // The other phone skips one and dislikes the other: both leave this deck, the liker "likes you".
  expect((await otherPhone.react(skipped, 'skip')).status).toBe(200);
  expect((await otherPhone.react(liker, 'dislike')).status).toBe(200);
  await vi.waitFor(() => expect(useLikes.getState().count).toBe(0), { timeout: 5000 });
  expect(deckIds()).toEqual([onScreen.id]);
  // This tab learns what undo would bring back (as it does when the deck opens).
  await usePlan.getState().loadUndo();
  expect(usePlan.getState().lastPass?.id).toBe(liker.id);

  // The other phone takes the dislike back: the liker is back here, next after the card on screen,
  // and likes me still; undo here offers the skip before it.
  expect((await otherPhone.undo(liker)).status).toBe(200);
  await vi.waitFor(() => expect(deckIds()).toEqual([onScreen.id, liker.id]), { timeout: 5000 });
  await vi.waitFor(() => expect(useLikes.getState()).toMatchObject({ count: 1, people: [{ id: liker.id }] }), { timeout: 5000 });
  await vi.waitFor(() => expect(usePlan.getState().lastPass?.id).toBe(skipped.id), { timeout: 5000 });

  // Taken back here (this tab put the card on top from the undo's answer): the same news by the
  // socket moves nothing.
  useDeck.setState({ current: cardOf(skipped, 'Skipped'), queue: [cardOf(onScreen, 'On screen'), cardOf(liker, 'Liker')] });
  expect((await otherPhone.undo(skipped)).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().lastPass).toBeNull(), { timeout: 5000 });
  expect(deckIds()).toEqual([skipped.id, onScreen.id, liker.id]);
  expect(useLikes.getState().count).toBe(1);
});

it('offers to undo the latest decision, wherever it was made: not this tab\'s own older pass', async () => {
  fetchFrom(server);
  const [mine, theirs, liked] = [await makeCompletedUser(server), await makeCompletedUser(server), await makeCompletedUser(server)];
  await signInTab(server, me);
  useDeck.setState({ current: cardOf(theirs, 'Theirs'), queue: [cardOf(liked, 'Liked')] });
  await connectTab(me.token);
  // This tab passed on one (its answer stored, undo offers it).
  expect((await otherPhone.react(mine, 'dislike')).status).toBe(200);
  usePlan.getState().reacted(cardOf(mine, 'Mine'), 'dislike');
  expect(usePlan.getState().lastPass?.id).toBe(mine.id);

  // The other phone skips someone since: that is what undo takes back here now, and does.
  expect((await otherPhone.react(theirs, 'skip')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().lastPass?.id).toBe(theirs.id), { timeout: 5000 });
  expect((await usePlan.getState().undo())?.id).toBe(theirs.id);

  // Then it likes someone: nothing is left to undo, here either.
  await vi.waitFor(() => expect(usePlan.getState().lastPass?.id).toBe(mine.id), { timeout: 5000 });
  expect((await otherPhone.react(liked, 'like')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().lastPass).toBeNull(), { timeout: 5000 });

  // A like there that makes a match (`match:new`, no `deck:answered`) leaves nothing to undo either.
  const [skipped, liker] = [await makeCompletedUser(server), await makeCompletedUser(server)];
  expect((await client(server.url).post('/api/matching/', { token: liker.token, json: { response: 'like', other: me.id } })).status).toBe(200);
  expect((await otherPhone.react(skipped, 'skip')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().lastPass?.id).toBe(skipped.id), { timeout: 5000 });
  expect((await otherPhone.react(liker, 'like')).body.match).toBe(true);
  await vi.waitFor(() => expect(usePlan.getState().lastPass).toBeNull(), { timeout: 5000 });
});

it('on the free plan, names in the offer the card of the latest pass, made on another phone', async () => {
  fetchFrom(server);
  const free = await makeCompletedUser(server);
  const [mine, theirs, liked] = [await makeCompletedUser(server), await makeCompletedUser(server), await makeCompletedUser(server)];
  const react = (to: TestUser, response: string) => client(server.url).post('/api/matching/', { token: free.token, json: { response, other: to.id } });
  await signInTab(server, free);
  useDeck.setState({ current: cardOf(theirs, 'Theirs'), queue: [cardOf(liked, 'Liked')] });
  await connectTab(free.token);
  expect((await react(mine, 'dislike')).status).toBe(200);
  usePlan.getState().reacted(cardOf(mine, 'Mine'), 'dislike');

  expect((await react(theirs, 'dislike')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().lastPass?.name).toBe('Theirs'), { timeout: 5000 });
  expect((await react(liked, 'like')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().lastPass).toBeNull(), { timeout: 5000 });
});

it('on the free plan, names in the offer whom another phone passed on, though this deck never held them', async () => {
  fetchFrom(server);
  const free = await makeCompletedUser(server);
  const [mine, theirs, onScreen] = [await makeCompletedUser(server), await makeCompletedUser(server, { name: 'Theirs' }), await makeCompletedUser(server)];
  const react = (to: TestUser, response: string) => client(server.url).post('/api/matching/', { token: free.token, json: { response, other: to.id } });
  await signInTab(server, free);
  useDeck.setState({ current: cardOf(onScreen, 'On screen'), queue: [] });
  await connectTab(free.token);
  expect((await react(mine, 'dislike')).status).toBe(200);
  usePlan.getState().reacted(cardOf(mine, 'Mine'), 'dislike');

  // Passed on there, from a profile opened from a link: the server names them to this tab.
  expect((await react(theirs, 'skip')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().lastPass).toMatchObject({ id: theirs.id, name: 'Theirs' }), { timeout: 5000 });
});

it('on the free plan, offers nothing once a like on another phone made a match: their like made one changes nothing', async () => {
  fetchFrom(server);
  const free = await makeCompletedUser(server);
  const [likedEarlier, skipped, liker] = [await makeCompletedUser(server), await makeCompletedUser(server), await makeCompletedUser(server)];
  const react = (to: TestUser, response: string) => client(server.url).post('/api/matching/', { token: free.token, json: { response, other: to.id } });
  const likeFree = (from: TestUser) => client(server.url).post('/api/matching/', { token: from.token, json: { response: 'like', other: free.id } });
  await signInTab(server, free);
  useDeck.setState({ current: cardOf(skipped, 'Skipped'), queue: [] });
  await connectTab(free.token);
  expect((await react(likedEarlier, 'like')).status).toBe(200);
  expect((await react(skipped, 'skip')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().lastPass?.name).toBe('Skipped'), { timeout: 5000 });

  // They like me back: a match, made by their like, after my skip, which undo offers still.
  expect((await likeFree(likedEarlier)).body.match).toBe(true);
  await vi.waitFor(() => expect(useDeck.getState().matchedWith.has(likedEarlier.id)).toBe(true), { timeout: 5000 });
  expect(usePlan.getState().lastPass?.name).toBe('Skipped');

  // My like on the other phone makes one: that is the latest decision, and a like leaves nothing to undo.
  expect((await likeFree(liker)).status).toBe(200);
  expect((await react(liker, 'like')).body.match).toBe(true);
  await vi.waitFor(() => expect(usePlan.getState().lastPass).toBeNull(), { timeout: 5000 });
});

it('on the free plan, offers at a reconnect the latest decision made on another phone meanwhile', async () => {
  fetchFrom(server);
  const free = await makeCompletedUser(server);
  const [mine, theirs, liked] = [await makeCompletedUser(server), await makeCompletedUser(server), await makeCompletedUser(server)];
  const react = (to: TestUser, response: string) => client(server.url).post('/api/matching/', { token: free.token, json: { response, other: to.id } });
  await signInTab(server, free);
  useDeck.setState({ current: cardOf(liked, 'Liked'), queue: [] });
  await connectTab(free.token);
  expect((await react(mine, 'skip')).status).toBe(200);
  usePlan.getState().reacted(cardOf(mine, 'Mine'), 'skip');

  // Offline, its deck:answered missed: the other phone passed on someone this deck never held.
  await offlineWhile(async () => void expect((await react(theirs, 'dislike')).status).toBe(200));
  await vi.waitFor(() => expect(usePlan.getState().lastPass?.id).toBe(theirs.id), { timeout: 5000 });

  // Then it liked someone: nothing is left to undo, here either.
  await offlineWhile(async () => void expect((await react(liked, 'like')).status).toBe(200));
  await vi.waitFor(() => expect(usePlan.getState().lastPass).toBeNull(), { timeout: 5000 });
});
