// @vitest-environment jsdom
/**
 * A skip on another phone of mine (`deck:answered`) takes the card off this deck, as it leaves that
 * phone's: it comes round again behind anyone not seen yet. When it was the last card here, the deck
 * is read again, as that phone reads its own, and shows them again, not an empty deck; a dislike
 * there leaves it empty. Against the real server, over a real socket.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { closeTab, connectTab, fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { useDeck } = await import('../../client/stores/deck');

let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server, me } = await startTabServer()));
afterAll(() => server?.close());
afterEach(closeTab);

/** What the other phone does, over plain HTTP with the same account. */
const otherPhone = (to: TestUser, response: string) => client(server.url).post('/api/matching/', { token: me.token, json: { response, other: to.id } });
const deckIds = () => [useDeck.getState().current?.id, ...(useDeck.getState().queue ?? []).map((card) => card.id)];

it('shows again whom another phone skipped when nobody else is left, and nobody once it dislikes them', async () => {
  fetchFrom(server);
  const only = await makeCompletedUser(server);
  await signInTab(server, me);
  await connectTab(me.token);
  await useDeck.getState().load();
  expect(deckIds()).toEqual([only.id]);

  // Skipped there, the card comes round again on that phone's deck: here too.
  const reads = vi.spyOn(globalThis, 'fetch');
  const deckReads = () => reads.mock.calls.filter(([url]) => String(url).includes('/api/users/matching-profiles/')).length;
  expect((await otherPhone(only, 'skip')).status).toBe(200);
  await vi.waitFor(() => expect(deckReads()).toBe(1), { timeout: 5000 });
  await vi.waitFor(() => expect(useDeck.getState().deckRequest).toBeNull(), { timeout: 5000 });
  expect(deckIds()).toEqual([only.id]);

  // Disliked there: the deck read again holds nobody.
  expect((await otherPhone(only, 'dislike')).status).toBe(200);
  await vi.waitFor(() => expect(useDeck.getState().current).toBeNull(), { timeout: 5000 });
  await vi.waitFor(() => expect(useDeck.getState().deckRequest).toBeNull(), { timeout: 5000 });
  expect(deckIds()).toEqual([undefined]);
});
