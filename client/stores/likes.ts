import { create } from 'zustand';
import type { LikesYouPage } from '../../shared/schemas/plan';
import type { DeckCard } from '../../shared/schemas/users';
import { logFailure, NotFound } from '../lib/api';
import { api } from '../lib/api-app';
import { type LoadFailure, loadFailure } from '../lib/socket';
import { useDeck } from './deck';
import { onSignOut, sessionCheck } from './session';

interface LikesState {
  /** How many people like me and wait for my answer; null until loaded. */
  count: number | null;
  /** Who they are, newest first: only a subscriber gets them (an empty list otherwise). */
  people: DeckCard[] | null;
  next: string | null;
  loadingMore: boolean;
  /**
   * The first load failed (`offline`: no answer; `server`: the server's error): nothing is known yet,
   * which is not "nobody". Null otherwise.
   */
  failed: LoadFailure | null;
  /** Reads the list again, as far down as it is held: what "more" asked before it does not land after it. */
  load: () => Promise<void>;
  /** The next page, after the list as the latest read has it. */
  more: () => Promise<void>;
  /**
   * Answers someone from the list (a subscriber's perk): a like makes the match at once and shows
   * the overlay. They leave the list (and the deck) straight away, and come back if the call fails.
   */
  answer: (card: DeckCard, action: 'like' | 'dislike') => Promise<void>;
  /**
   * I answered `userId` on one of my phones or tabs (`deck:answered`), we matched (`match:new`), or a
   * block ended it either way: they wait for my answer no longer. A subscriber's list says whether they
   * were counted; without it, only a match or a block (rare) is worth asking the count again for.
   */
  answered: (userId: number, matched: boolean) => void;
  reset: () => void;
}

/** The list and its count without `userId`, who was in it. */
const without = (state: LikesState, userId: number) => ({
  people: (state.people ?? []).filter((person) => person.id !== userId),
  count: Math.max(0, (state.count ?? 1) - 1),
});

/** Counts the reads of the list: an answer to one asked before the latest (an unblock's, an undo's) is out of date. */
let reads = 0;
/** The latest read of the list: the next page ("more") follows on from the list it answers. */
let latestRead: Promise<void> = Promise.resolve();

/**
 * Who is answered (`answered`) while each read or page of the list is on its way, a set for each: the
 * server may have read the list before the answer, and its page hold them still, counted. And while
 * each answer from the list or the deck is on its way: one that fails does not bring back whom another
 * phone answered.
 */
const answeredMeanwhile = new Set<Set<number>>();

/** A set that holds who is answered (here or on another phone) from now on, until `stopWatching` it. */
export function watchAnswers() {
  const answered = new Set<number>();
  answeredMeanwhile.add(answered);
  return answered;
}

export const stopWatching = (answered: Set<number>) => answeredMeanwhile.delete(answered);

/** `page` without whom `answered` holds, nor their count: it was read before they were answered. */
function withoutAnswered(page: LikesYouPage, answered: Set<number>): LikesYouPage {
  const results = page.results.filter((card) => !answered.has(card.id));
  return { ...page, results, count: Math.max(0, page.count - (page.results.length - results.length)) };
}

/** Once the latest read of the list has landed, or given up: a read asked meanwhile too. */
async function readsSettled() {
  let awaited: Promise<void>;
  do {
    awaited = latestRead;
    await awaited;
  } while (awaited !== latestRead);
}

export const useLikes = create<LikesState>()((set, get) => ({
  count: null,
  people: null,
  next: null,
  loadingMore: false,
  failed: null,
  load() {
    latestRead = readList(++reads);
    return latestRead;
  },
  async more() {
    if (!get().next || get().loadingMore) return;
    set({ loadingMore: true });
    const sameSession = sessionCheck();
    try {
      for (;;) {
        // A read of the list on its way answers for all of it: the next page is the one after its own.
        await readsSettled();
        const { next } = get();
        if (!next || !sameSession()) return;
        const read = reads;
        const answered = watchAnswers();
        const asked = await api.likesYou(next).finally(() => stopWatching(answered));
        if (!sameSession()) return;
        // From a cursor that a read asked since replaces: the page may hold someone that read leaves
        // out (answered, blocked), or someone on the pages it brings in. Asked again from where it ends.
        if (read !== reads) continue;
        const page = withoutAnswered(asked, answered);
        const shown = new Set((get().people ?? []).map((card) => card.id));
        set((state) => ({
          count: page.count,
          people: [...(state.people ?? []), ...page.results.filter((card) => !shown.has(card.id))],
          next: page.next,
        }));
        return;
      }
    } catch (error) {
      logFailure('Could not load more of who likes you', error);
    } finally {
      set({ loadingMore: false });
    }
  },
  async answer(card, action) {
    const before = get().people ?? [];
    set((state) => without(state, card.id));
    useDeck.getState().forget(card.id);
    // A read or page on its way may have been read before the answer: it lands without them.
    for (const answered of answeredMeanwhile) answered.add(card.id);
    // Answered on another phone while this answer is on its way: stored there, they stay out whatever
    // becomes of this one.
    const elsewhere = watchAnswers();
    try {
      const deck = useDeck.getState();
      const result = await deck.react(card.id, action);
      if (action === 'like' && result.match && deck.rememberMatch(result.conversation_id)) {
        deck.showMatch({ conversationId: result.conversation_id, name: card.name, image: card.image });
      }
    } catch (error) {
      // Gone (deleted, banned, or they blocked me) with no `person:gone` heard (an account deleted by the
      // admin command): out of the list for good, as that event would have taken them.
      if (error instanceof NotFound) return;
      // Not answered after all: a read or page on its way keeps them, and they are back in the list.
      if (!elsewhere.has(card.id)) {
        for (const answered of answeredMeanwhile) answered.delete(card.id);
        set((state) => ({
          people: before.filter((person) => person.id === card.id || (state.people ?? []).some((p) => p.id === person.id)),
          count: (state.count ?? 0) + 1,
        }));
      }
      throw error;
    } finally {
      stopWatching(elsewhere);
    }
  },
  answered(userId, matched) {
    for (const answered of answeredMeanwhile) answered.add(userId);
    const state = get();
    if (state.people?.some((person) => person.id === userId)) set(without(state, userId));
    else if (matched && state.count) void get().load();
  },
  reset: () => set({ count: null, people: null, next: null, loadingMore: false, failed: null }),
}));

/** The `read`-th read of the list (`load`): it lands unless another was asked since. */
async function readList(read: number) {
  const { getState: get, setState: set } = useLikes;
  const sameSession = sessionCheck();
  // Read again (an unblock, an undo, the plan started), as far down as the list held: the pages
  // brought in with "more" stay shown.
  const held = get().people?.length ?? 0;
  const answered = watchAnswers();
  try {
    let page = await api.likesYou();
    const people = [...page.results];
    while (page.next && people.length < held && sameSession() && read === reads) {
      page = await api.likesYou(page.next);
      const shown = new Set(people.map((card) => card.id));
      people.push(...page.results.filter((card) => !shown.has(card.id)));
    }
    if (!sameSession() || read !== reads) return;
    // The count is the last page's, which counted whom that page held. Someone answered who was on an
    // earlier page is counted only if the last page was read before the answer too: taken as not, the
    // likelier, as the pages before it took most of the read's time.
    const { count } = withoutAnswered(page, answered);
    set({ count, people: people.filter((card) => !answered.has(card.id)), next: page.next, failed: null });
  } catch (error) {
    if (!sameSession() || read !== reads) return;
    logFailure('Could not load who likes you', error);
    if (get().count === null) set({ failed: loadFailure(error) });
  } finally {
    stopWatching(answered);
  }
}

onSignOut(() => useLikes.getState().reset());
