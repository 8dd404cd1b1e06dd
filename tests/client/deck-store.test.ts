// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SWIPE_EXIT_MS } from '../../shared/constants';
import type { DeckCard } from '../../shared/schemas/users';
import { NotFound } from '../../client/lib/api';
import { api } from '../../client/lib/api-app';
import { useDeck } from '../../client/stores/deck';
import { useSession } from '../../client/stores/session';

const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: '', image: null });

describe('the deck store', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    useDeck.getState().reset();
  });

  it('puts the card last on top back on top after a reload, when the deck still holds it', async () => {
    const [ana, bea, cruz] = [card(1, 'Ana'), card(2, 'Bea'), card(3, 'Cruz')];
    vi.spyOn(api, 'deck').mockResolvedValue({ results: [ana, bea, cruz], next: null });
    vi.spyOn(api, 'react').mockResolvedValue({ match: false, conversation_id: null });
    await useDeck.getState().load();
    useDeck.getState().act('skip');
    await vi.waitFor(() => expect(useDeck.getState().current?.name).toBe('Bea'));
    // The page is loaded again: the store starts empty, the server's order has moved on.
    useDeck.setState({ current: null, queue: null });
    vi.spyOn(api, 'deck').mockResolvedValue({ results: [cruz, ana, bea], next: null });
    await useDeck.getState().load();
    expect([useDeck.getState().current, ...(useDeck.getState().queue ?? [])].map((shown) => shown?.name)).toEqual(['Bea', 'Cruz', 'Ana']);
    // Gone from the deck (decided on another phone, left the event): the server's order as it is.
    useDeck.setState({ current: null, queue: null });
    vi.spyOn(api, 'deck').mockResolvedValue({ results: [cruz, ana], next: null });
    await useDeck.getState().load();
    expect(useDeck.getState().current?.name).toBe('Cruz');
  });

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
    expect(after).toMatchObject({ queue: null, current: null, exiting: null, match: null, deckRequest: null, matchTimer: undefined, matchesWaiting: [] });
    expect([...after.seenMatches, ...after.matchedWith, ...after.decidedDuringRequest, ...after.likesInFlight, ...after.reactionsInFlight, ...after.cardsInFlight]).toEqual([]);
    // A match seen before the sign-out shows again for whoever signs in next.
    expect(after.rememberMatch(7)).toBe(true);
  });

  it('makes the phone buzz with each match it shows, as it shows, where the phone can', () => {
    vi.useFakeTimers();
    const vibrate = vi.fn(() => true);
    Object.defineProperty(navigator, 'vibrate', { value: vibrate, configurable: true });
    try {
      useDeck.getState().showMatch({ conversationId: 7, name: 'Ana', image: null });
      useDeck.getState().showMatch({ conversationId: 8, name: 'Bea', image: null });
      expect(vibrate).toHaveBeenCalledTimes(1);
      expect(vibrate.mock.calls[0]).toEqual([[40, 60, 90]]);
      // Bea's turn: the phone buzzes for her match now.
      useDeck.getState().hideMatch();
      vi.advanceTimersByTime(20);
      expect(useDeck.getState().match).toMatchObject({ name: 'Bea' });
      expect(vibrate).toHaveBeenCalledTimes(2);
      // A browser that cannot (iOS Safari has no vibrate; some throw) still shows the overlay.
      const refuse = () => {
        throw new Error('not here');
      };
      Object.defineProperty(navigator, 'vibrate', { value: refuse, configurable: true });
      useDeck.getState().hideMatch();
      useDeck.getState().showMatch({ conversationId: 9, name: 'Cai', image: null });
      expect(useDeck.getState().match).toMatchObject({ name: 'Cai' });
    } finally {
      delete (navigator as { vibrate?: unknown }).vibrate;
      vi.useRealTimers();
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
      useDeck.getState().hideMatch();
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

  it('never queues again a card decided while the refill waited for an earlier reaction to be answered', async () => {
    const cards = ['Ana', 'Bea', 'Cruz', 'Dani', 'Eva', 'Fer', 'Gus'].map((name, index) => card(index + 1, name));
    const [ana, bea] = cards as [DeckCard, DeckCard];
    const answers = new Map<number, () => void>();
    vi.spyOn(api, 'react').mockImplementation(
      (other) => new Promise((resolve) => answers.set(other, () => resolve({ match: false, conversation_id: null }))),
    );
    const deck = vi.spyOn(api, 'deck').mockResolvedValue({ results: cards, next: null });
    useDeck.setState({ current: ana, queue: cards.slice(1) });
    // Ana's pass is slow to be answered (the party's Wi-Fi); her card leaves, and the refill waits for that answer.
    void useDeck.getState().act('dislike');
    await vi.waitFor(() => expect(useDeck.getState().current).toEqual(bea));
    await vi.waitFor(() => expect(useDeck.getState().deckRequest).not.toBeNull());
    // Bea is passed on meanwhile, her answer slower still: the server has not stored it when the refill asks.
    void useDeck.getState().act('dislike');
    await vi.waitFor(() => expect(useDeck.getState().current?.name).toBe('Cruz'));
    deck.mockResolvedValue({ results: [bea, card(8, 'Hal')], next: null });
    answers.get(ana.id)!();
    await vi.waitFor(() => expect(useDeck.getState().deckRequest).toBeNull());
    expect(deck).toHaveBeenCalledTimes(1);
    expect([useDeck.getState().current, ...(useDeck.getState().queue ?? [])].map((shown) => shown?.name)).toEqual(['Cruz', 'Dani', 'Eva', 'Fer', 'Gus', 'Hal']);
  });

  it('does not go on with a card on its way out once its user has signed out', async () => {
    vi.useFakeTimers();
    try {
      vi.spyOn(api, 'react').mockResolvedValue({ match: false, conversation_id: null });
      const deck = vi.spyOn(api, 'deck').mockResolvedValue({ results: [], next: null });
      useDeck.setState({ current: card(1, 'Hal'), queue: [] });
      await useDeck.getState().act('like');
      useSession.getState().signOut({ alreadyRevoked: true });
      vi.advanceTimersByTime(SWIPE_EXIT_MS);
      // The last card gone, the deck would ask the server for more: for no one, or for whoever signs in next.
      expect(deck).not.toHaveBeenCalled();
      expect(useDeck.getState()).toMatchObject({ current: null, queue: null, decided: null });
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes the card on screen away when a refresh holds the whole deck without it, as when the person is gone', async () => {
    const [hal, gus, ivy] = [card(1, 'Hal'), card(2, 'Gus'), card(3, 'Ivy')];
    // Hal left the event (or blocked me while this phone was offline): the room's deck is Gus and Ivy.
    const deck = vi.spyOn(api, 'deck').mockResolvedValue({ results: [gus, ivy], next: null });
    const profile = vi.spyOn(api, 'profile');
    useDeck.setState({ queue: [gus], current: hal });
    await useDeck.getState().refresh();
    expect(useDeck.getState()).toMatchObject({ current: gus, queue: [ivy], exiting: null });
    // The whole deck was in the answer: nobody needed asking about.
    expect(profile).not.toHaveBeenCalled();

    // Still there: it stays where it is, and the queue behind it is the fresh one.
    deck.mockResolvedValue({ results: [hal, gus, ivy], next: null });
    await useDeck.getState().refresh();
    expect(useDeck.getState()).toMatchObject({ current: gus, queue: [hal, ivy] });

    // Brought back by an undo while the request was out, whose answer predates it: it stays.
    let answer!: (page: { results: DeckCard[]; next: null }) => void;
    deck.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const refreshed = useDeck.getState().refresh();
    await vi.waitFor(() => expect(deck).toHaveBeenCalledTimes(3));
    useDeck.getState().restore(ivy);
    answer({ results: [gus, hal], next: null });
    await refreshed;
    expect(useDeck.getState()).toMatchObject({ current: ivy, queue: [gus, hal] });

    // On its way out (decided, so not in the answer): no jump, its exit brings up the next card, once.
    vi.useFakeTimers();
    try {
      vi.spyOn(api, 'react').mockResolvedValue({ match: false, conversation_id: null });
      deck.mockResolvedValue({ results: [gus, hal], next: null });
      void useDeck.getState().act('dislike');
      await useDeck.getState().refresh();
      expect(useDeck.getState()).toMatchObject({ current: ivy, exiting: { id: ivy.id }, queue: [gus, hal] });
      vi.advanceTimersByTime(SWIPE_EXIT_MS);
      expect(useDeck.getState()).toMatchObject({ current: gus, queue: [hal], exiting: null });
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks about the card on screen when a full page of the deck does not hold it, and takes it away only if its person is gone', async () => {
    const [hal, gus, ivy] = [card(1, 'Hal'), card(2, 'Gus'), card(3, 'Ivy')];
    // A full page: the deck goes on past it, where Hal may still be.
    vi.spyOn(api, 'deck').mockResolvedValue({ results: [gus, ivy], next: 'more' });
    const profile = vi.spyOn(api, 'profile').mockResolvedValue({ id: hal.id } as Awaited<ReturnType<typeof api.profile>>);
    useDeck.setState({ queue: [], current: hal });
    await useDeck.getState().refresh();
    await vi.waitFor(() => expect(profile).toHaveBeenCalledWith(hal.id));
    expect(useDeck.getState()).toMatchObject({ current: hal, queue: [gus, ivy] });

    // Banned, or blocked me: their profile is not found any more, and the card goes.
    profile.mockRejectedValue(new NotFound(404, 'Not found.'));
    await useDeck.getState().refresh();
    await vi.waitFor(() => expect(useDeck.getState()).toMatchObject({ current: gus, queue: [ivy] }));
  });
});
