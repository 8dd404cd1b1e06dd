// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SWIPE_EXIT_MS } from '../../shared/constants';
import type { DeckCard } from '../../shared/schemas/users';
import { useDeck } from '../../client/stores/deck';

describe('the deck store', () => {
  afterEach(() => useDeck.getState().reset());

  it('shows a match overlay once, whichever of the HTTP answer and the socket event comes first', () => {
    const deck = useDeck.getState();
    expect(deck.rememberMatch(41)).toBe(true);
    expect(useDeck.getState().rememberMatch(41)).toBe(false);
    // A like answered without a conversation is not a match to remember.
    expect(useDeck.getState().rememberMatch(null)).toBe(true);
  });

  it('keeps everything it knows in its state, so that signing out forgets all of it', () => {
    const deck = useDeck.getState();
    deck.matched(12, { conversationId: 7, name: 'Ana', image: null });
    expect(useDeck.getState()).toMatchObject({ match: { name: 'Ana' } });
    expect(useDeck.getState().seenMatches.has(7)).toBe(true);
    expect(useDeck.getState().matchedWith.has(12)).toBe(true);
    expect(useDeck.getState().decidedDuringRequest.has(12)).toBe(true);

    useDeck.getState().reset();
    const after = useDeck.getState();
    expect(after).toMatchObject({ queue: null, current: null, exiting: null, match: null, deckRequest: null, matchTimer: undefined });
    expect([...after.seenMatches, ...after.matchedWith, ...after.decidedDuringRequest, ...after.likesInFlight, ...after.reactionsInFlight]).toEqual([]);
    // A match seen before the sign-out shows again for whoever signs in next.
    expect(after.rememberMatch(7)).toBe(true);
  });

  it('makes the phone buzz with each match it shows, where the phone can', () => {
    const vibrate = vi.fn(() => true);
    Object.defineProperty(navigator, 'vibrate', { value: vibrate, configurable: true });
    try {
      useDeck.getState().showMatch({ conversationId: 7, name: 'Ana', image: null });
      useDeck.getState().showMatch({ conversationId: 8, name: 'Bea', image: null });
      expect(vibrate).toHaveBeenCalledTimes(2);
      expect(vibrate.mock.calls[0]).toEqual([[40, 60, 90]]);
      // A browser that cannot (iOS Safari has no vibrate; some throw) still shows the overlay.
      const refuse = () => {
        throw new Error('not here');
      };
      Object.defineProperty(navigator, 'vibrate', { value: refuse, configurable: true });
      useDeck.getState().showMatch({ conversationId: 9, name: 'Cai', image: null });
      expect(useDeck.getState().match).toMatchObject({ name: 'Cai' });
    } finally {
      delete (navigator as { vibrate?: unknown }).vibrate;
    }
  });

  it('does not try to buzz before the page has been touched (a match shown as the app opens)', () => {
    const vibrate = vi.fn(() => true);
    Object.defineProperty(navigator, 'vibrate', { value: vibrate, configurable: true });
    const activation = { hasBeenActive: false, isActive: false };
    Object.defineProperty(navigator, 'userActivation', { value: activation, configurable: true });
    try {
      useDeck.getState().showMatch({ conversationId: 7, name: 'Ana', image: null });
      expect(useDeck.getState().match).toMatchObject({ name: 'Ana' });
      expect(vibrate).not.toHaveBeenCalled();
      activation.hasBeenActive = true;
      useDeck.getState().showMatch({ conversationId: 8, name: 'Bea', image: null });
      expect(vibrate).toHaveBeenCalledTimes(1);
    } finally {
      delete (navigator as { vibrate?: unknown }).vibrate;
      delete (navigator as { userActivation?: unknown }).userActivation;
    }
  });

  it('brings a card whose decision did not count back from its way out, and never shows the next one meanwhile', async () => {
    vi.useFakeTimers();
    try {
      const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: '', image: null });
      const [hal, gus] = [card(1, 'Hal'), card(2, 'Gus')];
      useDeck.setState({ current: hal, queue: [gus] });
      // No server here: the like does not reach one, and comes back while the card is still flying out.
      await useDeck.getState().act('like')?.catch(() => {});
      expect(useDeck.getState().exiting?.id).toBe(hal.id);
      useDeck.getState().restore(hal);
      expect(useDeck.getState().current).toEqual(hal);
      vi.advanceTimersByTime(SWIPE_EXIT_MS);
      expect(useDeck.getState()).toMatchObject({ current: hal, queue: [gus], exiting: null, returning: null });
      expect(useDeck.getState().decidedDuringRequest.has(hal.id)).toBe(false);
      // Decided again, and this time it goes: the next card comes up.
      void useDeck.getState().act('dislike')?.catch(() => {});
      vi.advanceTimersByTime(SWIPE_EXIT_MS);
      expect(useDeck.getState().current).toEqual(gus);
    } finally {
      vi.useRealTimers();
    }
  });
});
