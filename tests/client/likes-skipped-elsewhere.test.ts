// @vitest-environment jsdom
/**
 * "Likes you" keeps whom I skipped on another phone: a skip is "later", not an answer, and the server
 * lists them still. Against the real server, over a real socket.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { closeTab, connectTab, fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { useDeck } = await import('../../client/stores/deck');
const { useLikes } = await import('../../client/stores/likes');

let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server, me } = await startTabServer({ subscribed: true })));
afterAll(() => server?.close());
afterEach(closeTab);

const react = (from: TestUser, to: TestUser, response: string) =>
  client(server.url).post('/api/matching/', { token: from.token, json: { response, other: to.id } });

it('keeps in "likes you" someone skipped on another phone, and takes out someone disliked there', async () => {
  fetchFrom(server);
  const [skipped, disliked] = [await makeCompletedUser(server), await makeCompletedUser(server)];
  for (const liker of [skipped, disliked]) expect((await react(liker, me, 'like')).status).toBe(200);
  await signInTab(server, me);
  await useLikes.getState().load();
  expect(useLikes.getState()).toMatchObject({ count: 2, people: [{ id: disliked.id }, { id: skipped.id }] });
  await connectTab(me.token);
  const listed = async () => (await client(server.url).get('/api/users/me/likes/', { token: me.token })).body;

  // The other phone's deck skips one of them: the server keeps them waiting for an answer.
  const cardOf = (user: TestUser) => ({ id: user.id, name: 'S', age: 28, bio: 'Hi', image: null });
  useDeck.setState({ queue: [cardOf(disliked)], current: cardOf(skipped) });
  expect((await react(me, skipped, 'skip')).status).toBe(200);
  await vi.waitFor(() => expect(useDeck.getState().current?.id).toBe(disliked.id), { timeout: 5000 });
  expect((await listed()).count).toBe(2);
  expect(useLikes.getState()).toMatchObject({ count: 2, people: [{ id: disliked.id }, { id: skipped.id }] });

  // A dislike there answers them: they leave.
  expect((await react(me, disliked, 'dislike')).status).toBe(200);
  await vi.waitFor(() => expect(useLikes.getState().count).toBe(1), { timeout: 5000 });
  expect(useLikes.getState().people).toMatchObject([{ id: skipped.id }]);
  expect((await listed()).count).toBe(1);
});
