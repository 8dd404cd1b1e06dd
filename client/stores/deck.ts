import { create } from 'zustand';
import { DECK_MATCH_OVERLAY_MS, DECK_REFILL_AT, type Reaction, SWIPE_EXIT_MS } from '../../shared/constants';
import type { MatchUser } from '../../shared/events';
import type { ReactionResult } from '../../shared/schemas/matching';
import type { DeckCard } from '../../shared/schemas/users';
import { logFailure, NetworkError, NotFound } from '../lib/api';
import { api } from '../lib/api-app';
import { exitOffsetFor } from '../lib/gestures';
import { sendMatchSeen } from '../lib/socket';
import { buzzForMatch } from '../lib/haptics';
import { onChatPage } from '../lib/page-path';
import { thumbnail } from '../lib/photos';
import { readStorage } from '../lib/storage';
import { afterInViewFor, type InViewTimer } from '../lib/when-visible';
import { onSignOut, sessionCheck } from './session';

export interface MatchOverlay {
  conversationId: number | null;
  name: string;
  image: string | null;
}

interface DeckState {
  /**
   * null until the first load (the list starts unloaded), and again when the cards ran out before the
   * server's next ones came: the deck says it is loading, and that it is empty only once the server has.
   */
  queue: DeckCard[] | null;
  current: DeckCard | null;
  /** The card on its way out and where it goes; the next card comes up after SWIPE_EXIT_MS, or at a decision about it. */
  exiting: { id: number; offset: number } | null;
  /** The card on its way out whose decision did not count (`restore`): the exit brings it back, not the next card. */
  returning: number | null;
  /**
   * The decision on the card that left last: the deck says it with the one that came up in its place
   * (`on`), only, or with its empty deck's words (`on` null) when it was the last card.
   */
  decided: { on: number | null; name: string; action: Reaction } | null;
  match: MatchOverlay | null;
  /** Matches made while another's overlay showed: theirs show next, in turn. */
  matchesWaiting: MatchOverlay[];
  /** The last deck request got no cards (no answer, a server error): the empty deck says so. */
  failed: boolean;

  // Bookkeeping no component shows: kept here so that a reset (sign-out) clears all of it.
  /** Reactions sent whose answer has not come back: a deck request waits for them. */
  reactionsInFlight: ReadonlySet<Promise<unknown>>;
  /**
   * People liked from a profile page or the likes list whose answer has not come back: that answer
   * shows the match (the profile page with an overlay of its own), so `heardOfMatch` leaves it to them.
   * Not the deck's own likes (`act`): whichever of their answer and `match:new` comes first shows
   * the match, as the answer may never come though the like was stored.
   */
  likesInFlight: ReadonlySet<number>;
  /**
   * Cards sent away from the deck (`act`) whose decision's answer has not come back: the news of that
   * decision (`deck:answered`), which may come after the card has left the screen, still finds them (`held`).
   */
  cardsInFlight: ReadonlySet<DeckCard>;
  /** Conversations whose match overlay has shown: the HTTP answer and the socket event show it once. */
  seenMatches: ReadonlySet<number>;
  /** People this tab knows it is matched with: their card never comes back (`restore`). */
  matchedWith: ReadonlySet<number>;
  /** People reacted to while a deck request was out: its answer may still hold them. */
  decidedDuringRequest: ReadonlySet<number>;
  /** The deck request out, if any: one at a time. */
  deckRequest: Promise<void> | null;
  /** The count that closes the match shown; paused while it is held (`holdMatch`). */
  matchTimer: InViewTimer | undefined;

  /** The deck from the server, in place of what is shown (a visit to the deck). */
  load: () => Promise<void>;
  /** The next cards from the server, behind the ones already queued. */
  refill: () => Promise<void>;
  /**
   * People came or went (`deck:refresh`), or events may have been missed (a reconnect): the server's
   * fresh cards replace the queue behind the card on screen, which stays where it is unless its person
   * is found gone from the deck.
   */
  refresh: () => Promise<void>;
  /**
   * Sends the current card away, or the one under it while that one leaves (which then comes up at
   * once); answers the reaction's request (null when there was nothing to act on).
   */
  act: (action: Reaction) => Promise<ReactionResult> | null;
  /**
   * Sends a reaction from outside the deck (a profile page, the likes list), whose caller shows a
   * match from the answer; settles when the server has stored it.
   */
  react: (other: number, action: Reaction) => Promise<ReactionResult>;
  /** Notes a match's overlay as shown; false when it already was (or will be, by the other path). */
  rememberMatch: (conversationId: number | null) => boolean;
  /**
   * A match learned, from the deck's like's answer or from `match:new`, whichever comes first: the
   * person leaves the deck for good, and the overlay shows once per conversation.
   */
  matched: (userId: number, match: MatchOverlay) => void;
  /**
   * A match the server told of (`match:new`), or that a read of the conversation lists found (made
   * while no socket of this tab could hear its `match:new`): `matched`, but not while a like of that
   * person from a profile page or the likes list awaits its answer, which shows this match (the
   * profile page an overlay of its own). A like from the deck does not wait: this may be the only news
   * of its match, when its answer is lost; the overlay shows once either way.
   */
  heardOfMatch: (conversationId: number, user: MatchUser) => void;
  /** The card of `id` that this deck holds, on screen or queued, or that it sent away unanswered (`cardsInFlight`). */
  held: (id: number) => DeckCard | null;
  /** A reaction made elsewhere (the profile page) takes that person out of the deck. */
  forget: (id: number) => void;
  /**
   * Puts a card back on top (an undo, or a like the server refused), once any card leaving has left;
   * never the card of someone matched.
   */
  restore: (card: DeckCard) => void;
  /**
   * A pass taken back on any of my phones or tabs (`deck:undone`): the person is in the deck again,
   * next, behind the card on screen, which stays under the user's thumb (on screen if there is none).
   * Not again if this deck holds them already: the undo made here put them on top, and they may be on
   * their way out again since (that pass's `deck:answered` follows). Nor before the deck is loaded.
   */
  undone: (card: DeckCard) => void;
  /** Shows a match's overlay, or after those showing and waiting: each for its full time, one after the other. */
  showMatch: (match: MatchOverlay) => void;
  /**
   * Closes the match shown, seen: the user's other phones show it no more. `elsewhere`: seen on one of
   * them, which said so, or ended (`dropMatch`): nothing to tell.
   */
  hideMatch: (elsewhere?: boolean) => void;
  /**
   * Holds the match shown while the keyboard (a screen reader's too) is on it, to be read and answered
   * at the user's pace; let go, it closes after what was left of its DECK_MATCH_OVERLAY_MS.
   */
  holdMatch: (held: boolean) => void;
  /** A match that ended (an unmatch, a block): its overlay closes if it shows (its chat is gone), and does not show if it waits its turn. */
  dropMatch: (conversationId: number) => void;
  reset: () => void;
}

/**
 * The longest a match's overlay waits for the other's photo (the thumbnail it shows) to be loaded and
 * decoded, which another phone, that did not swipe, has not seen yet: it comes with the photo in
 * place, or this late at most (its load slow, failed, offline) without it.
 */
export const MATCH_PHOTO_WAIT_MS = 300;
/**
 * The photos of the matches waiting, loaded (or waited for), by match (not by address: two matches
 * may show one photo, as seeded profiles do), each with its image kept, so that the browser keeps it
 * decoded until its overlay shows it: true once ready. Each goes when its match shows or is dropped.
 */
const matchPhotos = new Map<MatchOverlay, [HTMLImageElement, boolean]>();
const photoOf = (match: MatchOverlay) => match.image && thumbnail(match.image);

const added = <T>(set: ReadonlySet<T>, value: T) => new Set(set).add(value);
const removed = <T>(set: ReadonlySet<T>, value: T) => {
  const next = new Set(set);
  next.delete(value);
  return next;
};

const initialState = () => ({
  queue: null,
  current: null,
  exiting: null,
  returning: null,
  decided: null,
  match: null,
  matchesWaiting: [],
  failed: false,
  reactionsInFlight: new Set<Promise<unknown>>(),
  likesInFlight: new Set<number>(),
  cardsInFlight: new Set<DeckCard>(),
  seenMatches: new Set<number>(),
  matchedWith: new Set<number>(),
  decidedDuringRequest: new Set<number>(),
  deckRequest: null,
  matchTimer: undefined,
});

export const useDeck = create<DeckState>()((set, get) => {
  /** The end of the exit of the card leaving, if one is: the next card comes up (`act`). */
  let bringUpNext: (() => void) | null = null;

  /** A reaction sent; `answerShowsMatch`: a like whose caller shows its match from the answer (`likesInFlight`). */
  function send(other: number, action: Reaction, { answerShowsMatch }: { answerShowsMatch: boolean }) {
    const tracked = action === 'like' && answerShowsMatch;
    if (tracked) set((state) => ({ likesInFlight: added(state.likesInFlight, other) }));
    const sameSession = sessionCheck();
    const request: Promise<ReactionResult> = api.react(other, action).catch(async (error: unknown) => {
      // No answer (a dropped connection): stored or not, nobody knows. Sent again once, when online,
      // as a retry, which the server answers as it did the first time and does not count twice.
      if (!(error instanceof NetworkError)) throw error;
      if (!navigator.onLine) await new Promise((online) => window.addEventListener('online', online, { once: true }));
      if (!sameSession()) throw error;
      return api.react(other, action, true);
    }).finally(() =>
      set((state) => ({
        likesInFlight: tracked ? removed(state.likesInFlight, other) : state.likesInFlight,
        reactionsInFlight: removed(state.reactionsInFlight, request),
      })),
    );
    set((state) => ({ reactionsInFlight: added(state.reactionsInFlight, request) }));
    return request;
  }

  /** The count that closes the match shown: from when it can be seen, so a match heard while the phone is away waits there for it. */
  const closeMatchInTime = () => afterInViewFor(DECK_MATCH_OVERLAY_MS, () => get().hideMatch());

  /** Loads a match's photo as it starts to wait (its turn may come later); the first match waiting shows once it is ready. */
  function loadPhoto(match: MatchOverlay) {
    const photo = photoOf(match);
    if (!photo) return;
    const image = new Image();
    const ready = () => {
      clearTimeout(timer);
      const entry = matchPhotos.get(match);
      // Ready once: the load's end and the wait's, whichever comes first; none for a match shown or dropped (a sign-out too).
      if (!entry || entry[1]) return;
      entry[1] = true;
      showNextMatch();
    };
    const timer = setTimeout(ready, MATCH_PHOTO_WAIT_MS);
    matchPhotos.set(match, [image, false]);
    image.src = photo;
    image.decode?.().then(ready, ready);
  }

  /** The first match waiting, when none shows, and its photo is ready (`loadPhoto` calls again once it is). */
  function showNextMatch() {
    const [next, ...rest] = get().matchesWaiting;
    if (!next || get().match || matchPhotos.get(next)?.[1] === false) return;
    buzzForMatch();
    set({ match: next, matchesWaiting: rest, matchTimer: closeMatchInTime() });
    // Shown: its image is the overlay's now, no longer kept here (a party's matches would pile up).
    matchPhotos.delete(next);
  }

  /**
   * One deck request at a time; `apply` gets its cards less anyone reacted to meanwhile, and whether the
   * deck goes on past them (the page is full) or they are all of it.
   */
  function requestDeck(apply: (cards: DeckCard[], more: boolean) => void) {
    const running = get().deckRequest;
    if (running) return running;
    const sameSession = sessionCheck();
    let request: Promise<void> | null = null;
    request = (async () => {
      try {
        // Reactions still in flight would otherwise bring their card straight back.
        const sent = get().cardsInFlight;
        await Promise.allSettled([...get().reactionsInFlight]);
        if (!sameSession()) return;
        // Not the cards sent away meanwhile, whose answer may still be out when the deck is read.
        set({ decidedDuringRequest: new Set([...get().cardsInFlight].filter((card) => !sent.has(card)).map((card) => card.id)) });
        const page = await api.deck();
        if (!sameSession()) return;
        const decided = get().decidedDuringRequest;
        set({ failed: false });
        apply(page.results.filter((card) => !decided.has(card.id)), page.next !== null);
      } catch (error) {
        if (!sameSession()) return;
        logFailure('Could not load profiles', error);
        set({ failed: true });
        if (get().queue === null) set({ queue: [], current: null });
      } finally {
        // Another session's request may have taken its place meanwhile.
        if (get().deckRequest === request) set({ deckRequest: null });
      }
    })();
    set({ deckRequest: request });
    return request;
  }

  return {
    ...initialState(),
    load() {
      return requestDeck((cards) => {
        // The card last on top comes back on top, when the deck still holds it: after a reload (a phone
        // that dropped the page while away) the server's order has moved on, and the person looked at
        // would vanish from under the user's thumb.
        const top = cards.findIndex((card) => String(card.id) === readStorage(TOP_CARD_KEY));
        const [first = null, ...rest] = top > 0 ? [cards[top]!, ...cards.slice(0, top), ...cards.slice(top + 1)] : cards;
        set({ current: first, queue: rest, exiting: null });
      });
    },
    refill() {
      return requestDeck((cards) => {
        const { current, queue } = get();
        const shown = new Set([current?.id, ...(queue ?? []).map((card) => card.id)]);
        const next = [...(queue ?? []), ...cards.filter((card) => !shown.has(card.id))];
        // A card on its way out stays where it is; an empty deck takes the first of the new ones.
        if (current) set({ queue: next });
        else set({ current: next[0] ?? null, queue: next.slice(1) });
      });
    },
    refresh() {
      const onScreen = get().current?.id;
      const sameSession = sessionCheck();
      return requestDeck((cards, more) => {
        const { current, exiting } = get();
        const fresh = cards.filter((card) => card.id !== current?.id);
        if (!current) {
          set({ current: fresh[0] ?? null, queue: fresh.slice(1) });
          return;
        }
        set({ queue: fresh });
        // Among them; or left out but staying: on its way out (decided), or come up since the request
        // went out (an undo that its answer may predate).
        if (fresh.length < cards.length || exiting || current.id !== onScreen) return;
        // The whole deck, without them: they left the event, blocked me or were banned, and the card
        // goes as with `person:gone`. A full page may just end before them: then only a 404 for that
        // one person (a block, a ban, a deleted account) says they are gone.
        if (!more) {
          get().forget(current.id);
          return;
        }
        void api.profile(current.id).catch((error: unknown) => {
          if (error instanceof NotFound && sameSession()) get().forget(current.id);
        });
      });
    },
    react: (other, action) => send(other, action, { answerShowsMatch: true }),
    rememberMatch(conversationId) {
      if (conversationId === null) return true;
      if (get().seenMatches.has(conversationId)) return false;
      set((state) => ({ seenMatches: added(state.seenMatches, conversationId) }));
      return true;
    },
    matched(userId, match) {
      set((state) => ({ matchedWith: added(state.matchedWith, userId) }));
      get().forget(userId);
      // In the chat of this match (opened before the match was heard of, with no network, from a link),
      // she is in it already: its overlay would only cover the chat it names.
      if (get().rememberMatch(match.conversationId) && !onChatPage(match.conversationId)) get().showMatch(match);
    },
    heardOfMatch(conversationId, user) {
      if (get().likesInFlight.has(user.id)) return;
      get().matched(user.id, { conversationId, name: user.name, image: user.image });
    },
    act(action) {
      const { exiting, returning } = get();
      // Coming back instead of leaving (its decision did not count), the card keeps the one behind it hidden.
      if (exiting && returning === exiting.id) return null;
      // A decision while a card leaves (a fast second flick) is about the one under it: it comes up now.
      if (exiting) bringUpNext?.();
      const { current } = get();
      if (!current) return null;
      set((state) => ({
        exiting: { id: current.id, offset: exitOffsetFor(action) },
        decidedDuringRequest: added(state.decidedDuringRequest, current.id),
        cardsInFlight: added(state.cardsInFlight, current),
      }));
      const reaction = send(current.id, action, { answerShowsMatch: false });
      const sameSession = sessionCheck();
      reaction
        .then((result) => {
          if (action === 'like' && result.match) {
            get().matched(current.id, { conversationId: result.conversation_id, name: current.name, image: current.image });
          }
        })
        .catch((error: unknown) => logFailure('Reaction failed', error))
        .finally(() => set((state) => ({ cardsInFlight: removed(state.cardsInFlight, current) })));
      const cameUp = () => {
        // Brought up already, by a decision on the next card before the end of this one's exit.
        if (bringUpNext !== cameUp) return;
        bringUpNext = null;
        // Signed out while the card was on its way out: the deck is someone else's now (or no one's).
        if (!sameSession()) return;
        if (get().returning === current.id && get().current?.id === current.id) {
          // Its decision did not reach the server: it springs back, and the next card stays behind it.
          set({ exiting: null, returning: null });
          return;
        }
        const queue = get().queue ?? [];
        const [next = null, ...rest] = queue;
        // Run dry: loading (`queue`) until the server says what is left.
        set({ current: next, queue: next ? rest : null, exiting: null, returning: null, decided: { on: next?.id ?? null, name: current.name, action } });
        // Fetched before the queue runs dry, so that the empty deck never flashes between pages.
        if (!next) void get().load();
        else if (rest.length <= DECK_REFILL_AT) void get().refill();
      };
      bringUpNext = cameUp;
      setTimeout(cameUp, SWIPE_EXIT_MS);
      return reaction;
    },
    held(id) {
      const { current, queue, cardsInFlight } = get();
      return [current, ...(queue ?? []), ...cardsInFlight].find((card) => card?.id === id) ?? null;
    },
    forget(id) {
      set((state) => ({ decidedDuringRequest: added(state.decidedDuringRequest, id) }));
      const { current, queue, exiting } = get();
      // On its way out already: the exit brings the next card up, once.
      if (exiting?.id === id) return;
      if (current?.id === id) {
        const [next = null, ...rest] = queue ?? [];
        // Gone with no decision here: one made before is not said with the deck this leaves.
        set({ current: next, queue: rest, decided: null });
        return;
      }
      if (queue) set({ queue: queue.filter((card) => card.id !== id) });
    },
    restore(card) {
      if (get().matchedWith.has(card.id)) return;
      if (get().exiting?.id === card.id) {
        // Still on its way out: it comes back instead of the next card coming up (which would show
        // for a moment before this one took its place again).
        set((state) => ({ returning: card.id, decidedDuringRequest: removed(state.decidedDuringRequest, card.id) }));
        return;
      }
      if (get().exiting) {
        setTimeout(() => get().restore(card), SWIPE_EXIT_MS);
        return;
      }
      const { current, queue } = get();
      const rest = (queue ?? []).filter((queued) => queued.id !== card.id);
      set((state) => ({
        decidedDuringRequest: removed(state.decidedDuringRequest, card.id),
        current: card,
        queue: current && current.id !== card.id ? [current, ...rest] : rest,
      }));
    },
    undone(card) {
      const { current, queue } = get();
      if (!queue || current?.id === card.id || queue.some((queued) => queued.id === card.id)) return;
      set((state) => ({ decidedDuringRequest: removed(state.decidedDuringRequest, card.id) }));
      set(current ? { queue: [card, ...queue] } : { current: card });
    },
    showMatch(match) {
      loadPhoto(match);
      set((state) => ({ matchesWaiting: [...state.matchesWaiting, match] }));
      showNextMatch();
    },
    hideMatch(elsewhere) {
      const { match, matchTimer } = get();
      matchTimer?.cancel();
      if (match?.conversationId && !elsewhere) sendMatchSeen([match.conversationId], 'overlay');
      set({ match: null, matchTimer: undefined });
      // The next one a moment after, not in its place: the overlay goes and comes again (its entrance,
      // its focus, its entry for Back), as another match's.
      if (get().matchesWaiting.length) setTimeout(showNextMatch);
    },
    holdMatch(held) {
      get().matchTimer?.hold(held);
    },
    dropMatch(conversationId) {
      const waiting = get().matchesWaiting;
      // Its photo with it: kept for a turn that will not come, it would stay decoded until a sign-out.
      for (const match of waiting) if (match.conversationId === conversationId) matchPhotos.delete(match);
      set({ matchesWaiting: waiting.filter((match) => match.conversationId !== conversationId) });
      // Showing: it closes, and the next comes as after any close.
      if (get().match?.conversationId === conversationId) return get().hideMatch(true);
      // It may have been next, waiting for its photo: the one after it needs not wait for that.
      showNextMatch();
    },
    reset() {
      get().matchTimer?.cancel();
      matchPhotos.clear();
      bringUpNext = null;
      set(initialState());
    },
  };
});

onSignOut(() => useDeck.getState().reset());

/** The id of the card on top, kept on the device (its storage is cleared at a sign-out): `load`. */
const TOP_CARD_KEY = 'deck_top';
useDeck.subscribe(({ current }, previous) => {
  if (!current || current === previous.current) return;
  try {
    window.localStorage.setItem(TOP_CARD_KEY, String(current.id));
  } catch {
    // Storage unavailable (private mode): a reload starts from the server's order.
  }
});
