import { create } from 'zustand';
import { DECK_MATCH_OVERLAY_MS, type Reaction, SWIPE_EXIT_MS } from '../../shared/constants';
import type { ReactionResult } from '../../shared/schemas/matching';
import type { DeckCard } from '../../shared/schemas/users';
import { api } from '../lib/api';
import { exitOffsetFor } from '../lib/gestures';
import { onSignOut } from './session';

export interface MatchOverlay {
  conversationId: number | null;
  name: string;
  image: string | null;
}

interface DeckState {
  /** null until the first load (PRODUCT.md §4: the list starts unloaded). */
  queue: DeckCard[] | null;
  current: DeckCard | null;
  /** The card on its way out and where it goes; the next card comes up after SWIPE_EXIT_MS. */
  exiting: { id: number; offset: number } | null;
  match: MatchOverlay | null;
  /** The deck from the server, in place of what is shown (a visit to the deck). */
  load: () => Promise<void>;
  /** The next cards from the server, behind the ones already queued. */
  refill: () => Promise<void>;
  /** Sends the current card away; answers the reaction's request (null when there was nothing to act on). */
  act: (action: Reaction) => Promise<ReactionResult> | null;
  /** A reaction made elsewhere (the profile page) takes that person out of the deck. */
  forget: (id: number) => void;
  /** Puts a card back on top (an undo, or a like the server refused), once any card leaving has left. */
  restore: (card: DeckCard) => void;
  showMatch: (match: MatchOverlay) => void;
  hideMatch: () => void;
  reset: () => void;
}

const pending = new Set<Promise<unknown>>();
/** People liked in this tab whose answer has not come back: their socket match:new is not a surprise. */
export const likesInFlight = new Set<number>();
const seenMatches = new Set<number>();
let matchTimer: ReturnType<typeof setTimeout> | undefined;
let loading: Promise<void> | null = null;
/** People reacted to while a deck request was out: its answer may still hold them. */
const decidedDuringRequest = new Set<number>();
/** When the queue drops to this many cards, the next ones are fetched behind the current card. */
const REFILL_AT = 5;

/** Sends a reaction; the caller's promise settles when the server has stored it. */
export function sendReaction(other: number, action: Reaction) {
  if (action === 'like') likesInFlight.add(other);
  const request = api.react(other, action).finally(() => {
    likesInFlight.delete(other);
    pending.delete(request);
  });
  pending.add(request);
  return request;
}

export function rememberMatch(conversationId: number | null) {
  if (conversationId === null) return true;
  if (seenMatches.has(conversationId)) return false;
  seenMatches.add(conversationId);
  return true;
}

/** One deck request at a time; `apply` gets its cards less anyone reacted to meanwhile. */
function requestDeck(apply: (cards: DeckCard[]) => void) {
  loading ??= (async () => {
    try {
      // Reactions still in flight would otherwise bring their card straight back.
      await Promise.allSettled([...pending]);
      decidedDuringRequest.clear();
      const page = await api.deck();
      apply(page.results.filter((card) => !decidedDuringRequest.has(card.id)));
    } catch (error) {
      console.error('Could not load profiles', error);
      if (useDeck.getState().queue === null) useDeck.setState({ queue: [], current: null });
    } finally {
      loading = null;
    }
  })();
  return loading;
}

export const useDeck = create<DeckState>()((set, get) => ({
  queue: null,
  current: null,
  exiting: null,
  match: null,
  load() {
    return requestDeck((cards) => {
      const [first = null, ...rest] = cards;
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
  act(action) {
    const { current, exiting } = get();
    if (!current || exiting) return null;
    set({ exiting: { id: current.id, offset: exitOffsetFor(action) } });
    decidedDuringRequest.add(current.id);
    const reaction = sendReaction(current.id, action);
    reaction
      .then((result) => {
        if (action === 'like' && result.match && rememberMatch(result.conversation_id)) {
          get().showMatch({ conversationId: result.conversation_id, name: current.name, image: current.image });
        }
      })
      .catch((error: unknown) => console.error('Reaction failed', error));
    setTimeout(() => {
      const queue = get().queue ?? [];
      const [next = null, ...rest] = queue;
      set({ current: next, queue: rest, exiting: null });
      // Fetched before the queue runs dry, so that the empty deck never flashes between pages.
      if (!next) void get().load();
      else if (rest.length <= REFILL_AT) void get().refill();
    }, SWIPE_EXIT_MS);
    return reaction;
  },
  forget(id) {
    decidedDuringRequest.add(id);
    const { current, queue } = get();
    if (current?.id === id) {
      const [next = null, ...rest] = queue ?? [];
      set({ current: next, queue: rest });
      return;
    }
    if (queue) set({ queue: queue.filter((card) => card.id !== id) });
  },
  restore(card) {
    if (get().exiting) {
      setTimeout(() => get().restore(card), SWIPE_EXIT_MS);
      return;
    }
    decidedDuringRequest.delete(card.id);
    const { current, queue } = get();
    const rest = (queue ?? []).filter((queued) => queued.id !== card.id);
    set({ current: card, queue: current && current.id !== card.id ? [current, ...rest] : rest });
  },
  showMatch(match) {
    clearTimeout(matchTimer);
    set({ match });
    matchTimer = setTimeout(() => set({ match: null }), DECK_MATCH_OVERLAY_MS);
  },
  hideMatch() {
    clearTimeout(matchTimer);
    set({ match: null });
  },
  reset() {
    clearTimeout(matchTimer);
    seenMatches.clear();
    set({ queue: null, current: null, exiting: null, match: null });
  },
}));

onSignOut(() => useDeck.getState().reset());
