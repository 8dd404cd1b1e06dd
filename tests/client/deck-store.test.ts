// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
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
    deck.rememberMatch(7);
    deck.forget(12);
    deck.showMatch({ conversationId: 7, name: 'Ana', image: null });
    expect(useDeck.getState()).toMatchObject({ match: { name: 'Ana' } });
    expect(useDeck.getState().seenMatches.has(7)).toBe(true);
    expect(useDeck.getState().decidedDuringRequest.has(12)).toBe(true);

    useDeck.getState().reset();
    const after = useDeck.getState();
    expect(after).toMatchObject({ queue: null, current: null, exiting: null, match: null, deckRequest: null, matchTimer: undefined });
    expect([...after.seenMatches, ...after.decidedDuringRequest, ...after.likesInFlight, ...after.reactionsInFlight]).toEqual([]);
    // A match seen before the sign-out shows again for whoever signs in next.
    expect(after.rememberMatch(7)).toBe(true);
  });
});
