// @vitest-environment jsdom
/**
 * The match overlay of a like from the deck, from its two sources: the like's answer and the socket's
 * `match:new`. It shows once, from whichever comes first, and from the event alone when the answer
 * is lost (timed out) though the like was stored; the matched card does not come back then. A
 * decision with no answer is sent again once (when online), as a retry; one that still fails comes
 * back, unless another phone answered the card meanwhile.
 */
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Reaction, SWIPE_EXIT_MS } from '../../shared/constants';
import type { ServerToClientEvents } from '../../shared/events';
import type { ReactionResult } from '../../shared/schemas/matching';
import type { DeckCard } from '../../shared/schemas/users';
import { hear as hearOnSocket } from '../helpers/heard-socket';
import { later } from '../helpers/later';

const api = vi.hoisted(() => ({ react: vi.fn(), deck: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useDecide } = await import('../../client/components/DeckPerks');
const { NetworkError } = await import('../../client/lib/api');
const { toast } = await import('../../client/lib/toast');
const { useDeck } = await import('../../client/stores/deck');
const { usePlan } = await import('../../client/stores/plan');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');

const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: 'Hi', image: null });
const [ben, cleo, dan] = [card(2, 'Ben'), card(3, 'Cleo'), card(4, 'Dan')];
const MATCH = { conversation_id: 7, user: { id: ben.id, name: 'Ben', image: null } };
const OVERLAY = { conversationId: 7, name: 'Ben', image: null };

/** A server event, heard as React hears it. */
function hear<E extends keyof ServerToClientEvents>(event: E, payload: Parameters<ServerToClientEvents[E]>[0]) {
  act(() => hearOnSocket(event, payload));
}

/** Decides about the card on top, as a swipe does; the answer is the test's to give. */
function decideFromTheDeck(action: Reaction) {
  const answer = later<ReactionResult>();
  api.react.mockReturnValueOnce(answer.promise);
  const { result } = renderHook(() => useDecide());
  act(() => void result.current(action));
  return answer;
}
const likeFromTheDeck = () => decideFromTheDeck('like');

describe('the match overlay of a like from the deck', () => {
  const vibrate = vi.fn(() => true);
  const toastError = vi.spyOn(toast, 'error');
  beforeEach(() => {
    vi.useFakeTimers();
    // The deck logs a like that got no answer; that is expected here.
    vi.spyOn(console, 'error').mockImplementation(() => {});
    Object.defineProperty(navigator, 'vibrate', { value: vibrate, configurable: true });
    api.deck.mockResolvedValue({ results: [], next: null });
    startRealtime('token');
    useDeck.setState({ current: ben, queue: [cleo, dan], exiting: null });
  });
  afterEach(() => {
    stopRealtime();
    cleanup();
    useDeck.getState().reset();
    usePlan.getState().reset();
    vi.useRealTimers();
    vi.clearAllMocks();
    vi.mocked(console.error).mockRestore();
    delete (navigator as { vibrate?: unknown }).vibrate;
  });

  const shown = () => vibrate.mock.calls.length;
  const deckIds = () => [useDeck.getState().current?.id, ...(useDeck.getState().queue ?? []).map((each) => each.id)];

  it('shows from match:new when the answer never comes, and the card does not come back as "not sent"', async () => {
    const answer = likeFromTheDeck();
    // Its retry answers the match again: it still shows once.
    api.react.mockResolvedValueOnce({ match: true, conversation_id: 7 });
    hear('match:new', MATCH);
    expect(useDeck.getState().match).toEqual(OVERLAY);
    await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS);

    // No answer in time: the request gives up.
    answer.reject(new NetworkError(0, 'The operation was aborted.'));
    await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS * 2);
    expect(deckIds()).toEqual([cleo.id, dan.id]);
    expect(toastError).not.toHaveBeenCalled();
    expect(shown()).toBe(1);
  });

  it.each(['the answer', 'match:new'])('shows once when both come, %s first, and the next card comes up once', async (first) => {
    const answer = likeFromTheDeck();
    const steps = [async () => answer.resolve({ match: true, conversation_id: 7 }), async () => hear('match:new', MATCH)];
    for (const step of first === 'the answer' ? steps : steps.reverse()) {
      await step();
      await vi.advanceTimersByTimeAsync(0);
      expect(useDeck.getState().match).toEqual(OVERLAY);
    }
    await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS);
    expect(shown()).toBe(1);
    expect(deckIds()).toEqual([cleo.id, dan.id]);
  });

  it('sends a like with no answer again once, as a retry, and shows the match its answer tells', async () => {
    const answer = likeFromTheDeck();
    api.react.mockResolvedValueOnce({ match: true, conversation_id: 7 });
    answer.reject(new NetworkError(0, 'Failed to fetch'));
    await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS * 2);
    expect(api.react.mock.calls).toEqual([
      [ben.id, 'like'],
      [ben.id, 'like', true],
    ]);
    expect(useDeck.getState().match).toEqual(OVERLAY);
    expect(deckIds()).toEqual([cleo.id, dan.id]);
    expect(toastError).not.toHaveBeenCalled();
  });

  it('sends a decision lost while offline again when the phone is back online, not before', async () => {
    Object.defineProperty(navigator, 'onLine', { value: false, configurable: true });
    try {
      const answer = likeFromTheDeck();
      api.react.mockResolvedValueOnce({ match: false, conversation_id: null });
      answer.reject(new NetworkError(0, 'Failed to fetch'));
      await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS * 2);
      expect(api.react).toHaveBeenCalledTimes(1);
      Object.defineProperty(navigator, 'onLine', { value: true, configurable: true });
      window.dispatchEvent(new Event('online'));
      await vi.advanceTimersByTimeAsync(0);
      expect(api.react).toHaveBeenLastCalledWith(ben.id, 'like', true);
      expect(deckIds()).toEqual([cleo.id, dan.id]);
      expect(toastError).not.toHaveBeenCalled();
    } finally {
      delete (navigator as { onLine?: unknown }).onLine;
    }
  });

  it('puts back a like with no answer twice and no match, to be sent again', async () => {
    const answer = likeFromTheDeck();
    api.react.mockRejectedValueOnce(new NetworkError(0, 'Failed to fetch'));
    answer.reject(new NetworkError(0, 'Failed to fetch'));
    await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS * 2);
    expect(api.react).toHaveBeenCalledTimes(2);
    expect(deckIds()).toEqual([ben.id, cleo.id, dan.id]);
    expect(toastError).toHaveBeenCalledTimes(1);
    expect(useDeck.getState().match).toBeNull();
  });

  it('does not put back a like with no answer twice when another phone answered them meanwhile', async () => {
    const answer = likeFromTheDeck();
    // Disliked on another phone while this like is on its way: that one was stored.
    hear('deck:answered', { user_id: ben.id, response: 'dislike' });
    api.react.mockRejectedValueOnce(new NetworkError(0, 'Failed to fetch'));
    answer.reject(new NetworkError(0, 'Failed to fetch'));
    await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS * 2);
    expect(api.react).toHaveBeenCalledTimes(2);
    expect(deckIds()).toEqual([cleo.id, dan.id]);
    expect(toastError).not.toHaveBeenCalled();
  });

  it('puts back a like refused by the limit on reactions, and says how long to wait rather than to try again', async () => {
    const { Throttled } = await import('../../client/lib/api');
    const tooFast = new Throttled(429, 'Request was throttled.');
    tooFast.retryAfterSeconds = 41;
    const answer = likeFromTheDeck();
    answer.reject(tooFast);
    await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS * 2);
    expect(deckIds()).toEqual([ben.id, cleo.id, dan.id]);
    expect(toastError).toHaveBeenCalledTimes(1);
    const said = String(toastError.mock.calls[0]![0]);
    expect(said).toContain('41');
    expect(said).not.toContain('Ben');
  });

  it.each(['dislike', 'skip'] as const)(
    'takes a %s answered with a match (a like on another phone made it) for no decision: nothing new to undo',
    async (action) => {
      // Heard first: the like's news left as it committed, before this pass, which waited for it, was answered.
      const answer = decideFromTheDeck(action);
      hear('match:new', { ...MATCH, by_you: true });
      answer.resolve({ match: true, conversation_id: 7 });
      await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS);
      expect(useDeck.getState().match).toEqual(OVERLAY);
      expect(usePlan.getState().lastPass).toBeNull();
      act(() => useDeck.getState().hideMatch());

      // A card left from before a match made on another phone: its pass changes nothing, and what undo
      // would take back is still the pass before it.
      expect(deckIds()).toEqual([cleo.id, dan.id]);
      decideFromTheDeck(action).resolve({ match: false, conversation_id: null });
      await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS);
      expect(usePlan.getState().lastPass).toEqual(cleo);
      decideFromTheDeck(action).resolve({ match: true, conversation_id: 8 });
      await vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS);
      expect(usePlan.getState().lastPass).toEqual(cleo);
    },
  );

  it('leaves the match to a profile page whose own like is waiting for its answer (it shows its own overlay)', async () => {
    const answer = later<ReactionResult>();
    api.react.mockReturnValueOnce(answer.promise);
    const liked = useDeck.getState().react(ben.id, 'like');
    hear('match:new', MATCH);
    expect(useDeck.getState().match).toBeNull();
    answer.resolve({ match: true, conversation_id: 7 });
    await liked;
    expect(shown()).toBe(0);
  });
});
