import { create } from 'zustand';
import { type Reaction, UNDO_WINDOW_MS } from '../../shared/constants';
import type { LikeAllowance, SubscriptionState } from '../../shared/schemas/plan';
import type { DeckCard } from '../../shared/schemas/users';
import { ApiError, logFailure } from '../lib/api';
import { api } from '../lib/api-app';
import { readCache, writeCache } from '../lib/device-cache';
import { serverNow } from '../lib/server-clock';
import { type LoadFailure, loadFailure } from '../lib/socket';
import { answersInOrder, onSignOut, ownsStorage, sessionCheck, useSession } from './session';

/** What the deck says about the plan: the free likes are used up, or undo is a perk of the plan. */
export type PlanNotice = 'likes' | 'undo';

interface PlanState {
  /** The likes left in the rolling window (unlimited with the plan); null until asked. */
  allowance: LikeAllowance | null;
  /**
   * The card undo would bring back while its window is open: the last one passed on (disliked or
   * skipped) in this tab, or the one the server names (`loadUndo`).
   */
  lastPass: DeckCard | null;
  notice: PlanNotice | null;
  /** The plan as the subscribe page shows it; null until asked. */
  subscription: SubscriptionState | null;
  /** Clears `lastPass` when the undo window closes, and asks again when likes come back. */
  timers: { pass?: ReturnType<typeof setTimeout>; likes?: ReturnType<typeof setTimeout> };

  /** The likes left. */
  loadAllowance: () => Promise<void>;
  /**
   * Asks the server what undo would bring back now (on either plan: the free plan's offer names who the
   * plan would bring back): it knows of the passes this tab did not see (before a reload, on another
   * phone while this one was offline) and of the one before a pass just undone.
   */
  loadUndo: () => Promise<void>;
  /** Null once loaded; else why not (no answer, or the server's error): the caller tries again. */
  loadSubscription: () => Promise<LoadFailure | null>;
  /** A reaction from the deck that the server has stored. */
  reacted: (card: DeckCard, action: Reaction) => void;
  /**
   * A reaction to `userId` stored on any of my phones or tabs (`deck:answered`, or `match:new` for my
   * like that made a match; `card`: theirs, if this tab's deck holds it or sent it away with a decision
   * not yet answered; `sentHere`: that decision is this tab's own): undo offers what the server would
   * take back now, the user's latest decision.
   */
  answered: (userId: number, action: Reaction, card: DeckCard | null, sentHere?: boolean) => void;
  /**
   * A pass on `userId` taken back on any of my phones or tabs (`deck:undone`): an offer of it, or a
   * read asked before the undo, which may name it still, gives way to what undo would bring back now.
   */
  undone: (userId: number) => void;
  /** The server refused a like: none left until `resetsAt`. */
  likesRefused: (resetsAt: string) => void;
  /** Takes back `lastPass` (a subscriber's perk), naming it: the card to put back on top, or null. */
  undo: () => Promise<DeckCard | null>;
  showNotice: (notice: PlanNotice) => void;
  dismissNotice: () => void;
  reset: () => void;
}

export const outOfLikes = (allowance: LikeAllowance | null) =>
  allowance !== null && !allowance.unlimited && allowance.remaining === 0;

/**
 * The days of free trial the account's next checkout would come with, as the server last said on this
 * device (`lib/device-cache.ts`); null if it never did.
 */
export function keptTrialDays(): number | null {
  const me = useSession.getState().user?.id;
  return me === undefined ? null : readCache<number>('trial', me);
}

/** What comes next for the plan, and when: the end of a cancelled plan, else the trial's end, else the renewal. */
export const nextPlanDate = (plan: SubscriptionState) =>
  plan.ends_at
    ? (['subscribe.current.endsOn', plan.ends_at] as const)
    : plan.trial_ends_at
      ? (['subscribe.current.trialUntil', plan.trial_ends_at] as const)
      : plan.renews_at
        ? (['subscribe.current.renewsOn', plan.renews_at] as const)
        : null;

/** Timers can fire at most this late (setTimeout's limit); a later reset is asked for again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const usePlan = create<PlanState>()((set, get) => {
  // Counts the decisions and undos this tab knows of (its own, and those heard of from my other phones):
  // what `loadUndo` asked before the latest of them is out of date.
  let changes = 0;
  // Counts the likes this tab has counted, and the refusals it heard: a read of the likes left asked
  // before the latest of them may not hold it.
  let likesCounted = 0;
  // The answers in a row that named the same moment the likes come back: more than one, and this
  // phone's clock is ahead of the server's (the moment past here, not there).
  let sameReset = 0;
  // The subscription's reads: the page's own, and one at every `account:changed` (a cancellation on
  // another phone), which an older answer must not undo.
  const subscriptionReads = answersInOrder();
  // The likes left's reads: the deck's, a reconnect's, and one as the plan starts or ends, which an
  // older answer (the free plan's count) must not undo.
  const allowanceReads = answersInOrder();
  // What undo would bring back, read as the deck opens and again at a decision on another phone: the
  // newer read knows of that decision.
  const undoReads = answersInOrder();
  // The reads of what undo would bring back whose answer has not come.
  let undoReadsOut = 0;

  /** Offers `card` to undo (none: null) until its window closes, `closesIn` ms from now. */
  function offerUndo(card: DeckCard | null, closesIn = UNDO_WINDOW_MS) {
    clearTimeout(get().timers.pass);
    const pass = card ? setTimeout(() => set({ lastPass: null }), Math.min(closesIn, UNDO_WINDOW_MS)) : undefined;
    set((state) => ({ lastPass: card, timers: { ...state.timers, pass } }));
  }

  function setAllowance(allowance: LikeAllowance) {
    clearTimeout(get().timers.likes);
    let likes: ReturnType<typeof setTimeout> | undefined;
    if (allowance.resets_at) {
      sameReset = allowance.resets_at === get().allowance?.resets_at ? sameReset + 1 : 0;
      // A second after the like comes back, so that the server's window has moved past it; twice as
      // long each time the server still names the same moment, up to about a minute: a phone whose
      // clock is ahead does not ask every second until the server's clock gets there.
      const after = 1000 * 2 ** Math.min(sameReset, 6);
      const wait = Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(allowance.resets_at) - serverNow()) + after);
      likes = setTimeout(() => void get().loadAllowance(), wait);
    }
    set((state) => ({
      allowance,
      timers: { ...state.timers, likes },
      notice: state.notice === 'likes' && !outOfLikes(allowance) ? null : state.notice,
    }));
  }

  return {
    allowance: null,
    lastPass: null,
    notice: null,
    subscription: null,
    timers: {},

    async loadAllowance() {
      const sameSession = sessionCheck();
      const newest = allowanceReads();
      const asked = likesCounted;
      try {
        const allowance = await api.likeAllowance();
        if (!sameSession() || !newest()) return;
        if (asked !== likesCounted) return get().loadAllowance();
        setAllowance(allowance);
      } catch (error) {
        logFailure('Could not load the likes left', error);
      }
    },
    async loadUndo() {
      const sameSession = sessionCheck();
      const newest = undoReads();
      const asked = changes;
      undoReadsOut += 1;
      try {
        // Timed from the answer, not by `expires_at`: this phone's clock may be minutes off the server's.
        const { card, expires_in_ms } = await api.undoable();
        if (sameSession() && asked === changes && newest()) offerUndo(card, expires_in_ms ?? 0);
      } catch (error) {
        logFailure('Could not load what undo would bring back', error);
      } finally {
        undoReadsOut -= 1;
      }
    },
    async loadSubscription() {
      const sameSession = sessionCheck();
      const newest = subscriptionReads();
      try {
        const subscription = await api.subscription();
        if (sameSession() && newest()) {
          set({ subscription });
          const me = useSession.getState().user?.id;
          if (me !== undefined && ownsStorage()) writeCache('trial', subscription.trial_days, me);
        }
        return null;
      } catch (error) {
        logFailure('Could not load the subscription', error);
        return loadFailure(error);
      }
    },
    reacted(card, action) {
      changes += 1;
      // What undo needs was said of the card passed before this one: it goes with the next decision.
      if (get().notice === 'undo') set({ notice: null });
      // After a like there is nothing to undo; after a pass, that card, as the server would say.
      offerUndo(action === 'like' ? null : card);
      if (action === 'like') likesCounted += 1;
      const { allowance } = get();
      if (action !== 'like' || !allowance || allowance.unlimited || allowance.remaining === null) return;
      // The last one: the server says when the next comes back.
      if (allowance.remaining <= 1) void get().loadAllowance();
      else set({ allowance: { ...allowance, remaining: allowance.remaining - 1 } });
    },
    answered(userId, action, card, sentHere = false) {
      changes += 1;
      const { lastPass, notice } = get();
      // This tab's own decision (`reacted`), or a like with nothing offered: the offer is right already.
      if (action === 'like' ? lastPass === null : lastPass?.id === userId) return;
      // What undo needs was said of another card than the one now last.
      if (notice === 'undo') set({ notice: null });
      // The server knows the window of a pass made on another phone by its own clock: it times the offer.
      // This tab's own opened just now, as its answer will say (`reacted`); and without the plan, which
      // undoes nothing, the offer needs only a name: the card this tab's deck holds, else the server's.
      const timedHere = sentHere || !useSession.getState().user?.has_subscription;
      if (!timedHere || (action !== 'like' && !card)) void get().loadUndo();
      else offerUndo(action === 'like' ? null : card);
    },
    undone(userId) {
      if (get().lastPass?.id !== userId && undoReadsOut === 0) return;
      // A read on its way may have been asked before the undo (at the pass's news, from another phone)
      // and would offer the person just brought back: it lands no more, and the server is asked again.
      changes += 1;
      void get().loadUndo();
    },
    likesRefused(resetsAt) {
      likesCounted += 1;
      const { allowance } = get();
      setAllowance({ unlimited: false, limit: allowance?.limit ?? null, remaining: 0, resets_at: resetsAt });
      set({ notice: 'likes' });
    },
    async undo() {
      const meant = get().lastPass;
      if (!meant) return null;
      changes += 1;
      try {
        const { card } = await api.undo(meant.id);
        offerUndo(null);
        // The pass before it may be undone next, while it is within the window.
        void get().loadUndo();
        return card;
      } catch (error) {
        if (error instanceof ApiError && error.code === 'subscription_required') {
          set({ notice: 'undo' });
          return null;
        }
        if (error instanceof ApiError && error.code === 'nothing_to_undo') {
          // Another phone reacted since, or the window closed: the server says what undo would do now.
          offerUndo(null);
          void get().loadUndo();
          return null;
        }
        throw error;
      }
    },
    showNotice: (notice) => set({ notice }),
    dismissNotice: () => set({ notice: null }),
    reset() {
      const { timers } = get();
      clearTimeout(timers.pass);
      clearTimeout(timers.likes);
      set({ allowance: null, lastPass: null, notice: null, subscription: null, timers: {} });
    },
  };
});

onSignOut(() => usePlan.getState().reset());
// The plan started (bought here, on another phone, at Stripe): what the deck said to sell it goes.
useSession.subscribe(({ user }, { user: before }) => {
  if (user?.has_subscription && !before?.has_subscription) usePlan.setState({ notice: null });
});
