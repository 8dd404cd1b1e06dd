// @vitest-environment jsdom
/**
 * The last card of the deck answered on another phone of mine (`deck:answered`): the deck is read
 * again, as that phone reads its own, so a skip there comes round again here too. This tab's own
 * decision, whose news comes too, is read after by its card's exit only.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SWIPE_EXIT_MS } from '../../shared/constants';
import type { DeckCard } from '../../shared/schemas/users';
import type { ReactionResult } from '../../shared/schemas/matching';
import { hear } from '../helpers/heard-socket';
import { later } from '../helpers/later';

const api = vi.hoisted(() => ({ react: vi.fn(), deck: vi.fn(), undoable: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useDeck } = await import('../../client/stores/deck');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');

const ben: DeckCard = { id: 2, name: 'Ben', age: 30, bio: 'Hi', image: null };

beforeEach(() => {
  vi.useFakeTimers();
  startRealtime('token');
  useDeck.setState({ current: ben, queue: [], exiting: null });
  api.deck.mockResolvedValue({ results: [ben], next: null });
  api.undoable.mockResolvedValue({ card: null, expires_at: null, expires_in_ms: null });
});
afterEach(() => {
  stopRealtime();
  useDeck.getState().reset();
  vi.useRealTimers();
  vi.clearAllMocks();
});

it('reads the deck again when another phone skips its last card, which comes round again', async () => {
  hear('deck:answered', { user_id: ben.id, response: 'skip' });
  expect(useDeck.getState().current).toBeNull();
  await vi.advanceTimersByTimeAsync(0);
  expect(api.deck).toHaveBeenCalledTimes(1);
  expect(useDeck.getState().current?.id).toBe(ben.id);

  // Nobody left there to hear of: nothing is read.
  hear('deck:answered', { user_id: 9, response: 'dislike' });
  await vi.advanceTimersByTimeAsync(0);
  expect(api.deck).toHaveBeenCalledTimes(1);
});

it('reads the deck once after its own skip of the last card, though the news of it comes after the card has left', async () => {
  const answer = later<ReactionResult>();
  api.react.mockReturnValueOnce(answer.promise);
  void useDeck.getState().act('skip');
  // A slow request: the card has left (its exit reads the deck once the answer is in) when the news comes.
  await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS);
  hear('deck:answered', { user_id: ben.id, response: 'skip' });
  answer.resolve({ match: false, conversation_id: null });
  await vi.advanceTimersByTimeAsync(0);
  expect(api.deck).toHaveBeenCalledTimes(1);
  expect(useDeck.getState().current?.id).toBe(ben.id);
});
