import { create } from 'zustand';
import { type Reaction, UNDO_WINDOW_MS } from '../../shared/constants';
import type { LikeAllowance, SubscriptionState } from '../../shared/schemas/plan';
import type { DeckCard } from '../../shared/schemas/users';
import { ApiError } from '../lib/api';
import { api } from '../lib/api-app';
import { type LoadFailure, loadFailure } from '../lib/socket';
import { onSignOut, sessionCheck } from './session';

/** What the deck says about the plan: the free likes are used up, or undo is a perk of the plan. */
export type PlanNotice = 'likes' | 'undo';

interface PlanState {
  /** The likes left in the rolling window (unlimited with the plan); null until asked. */
  allowance: LikeAllowance | null;
  /** The last card passed on (disliked or skipped) in this tab, while undo can still take it back. */
  lastPass: DeckCard | null;
  notice: PlanNotice | null;
  /** The plan as the subscribe page shows it; null until asked. */
  subscription: SubscriptionState | null;
  /** Clears `lastPass` when the undo window closes, and asks again when likes come back. */
  timers: { pass?: ReturnType<typeof setTimeout>; likes?: ReturnType<typeof setTimeout> };

  loadAllowance: () => Promise<void>;
  /** Null once loaded; else why not (no answer, or the server's error): the caller tries again. */
  loadSubscription: () => Promise<LoadFailure | null>;
  /** A reaction from the deck that the server has stored. */
  reacted: (card: DeckCard, action: Reaction) => void;
  /** The server refused a like: none left until `resetsAt`. */
  likesRefused: (resetsAt: string) => void;
  /** Takes back the last pass (a subscriber's perk): the card to put back on top, or null. */
  undo: () => Promise<DeckCard | null>;
  showNotice: (notice: PlanNotice) => void;
  dismissNotice: () => void;
  reset: () => void;
}

export const outOfLikes = (allowance: LikeAllowance | null) =>
  allowance !== null && !allowance.unlimited && allowance.remaining === 0;

/** Timers can fire at most this late (setTimeout's limit); a later reset is asked for again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const usePlan = create<PlanState>()((set, get) => {
  function setAllowance(allowance: LikeAllowance) {
    clearTimeout(get().timers.likes);
    let likes: ReturnType<typeof setTimeout> | undefined;
    if (allowance.resets_at) {
      // A second after the like comes back, so that the server's window has moved past it.
      const wait = Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(allowance.resets_at) - Date.now()) + 1000);
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
      try {
        const allowance = await api.likeAllowance();
        if (sameSession()) setAllowance(allowance);
      } catch (error) {
        console.error('Could not load the likes left', error);
      }
    },
    async loadSubscription() {
      const sameSession = sessionCheck();
      try {
        const subscription = await api.subscription();
        if (sameSession()) set({ subscription });
        return null;
      } catch (error) {
        console.error('Could not load the subscription', error);
        return loadFailure(error);
      }
    },
    reacted(card, action) {
      clearTimeout(get().timers.pass);
      // What undo needs was said of the card passed before this one: it goes with the next decision.
      if (get().notice === 'undo') set({ notice: null });
      if (action === 'like') {
        set((state) => ({ lastPass: null, timers: { ...state.timers, pass: undefined } }));
        const { allowance } = get();
        if (!allowance || allowance.unlimited || allowance.remaining === null) return;
        // The last one: the server says when the next comes back.
        if (allowance.remaining <= 1) void get().loadAllowance();
        else set({ allowance: { ...allowance, remaining: allowance.remaining - 1 } });
        return;
      }
      const pass = setTimeout(() => set({ lastPass: null }), UNDO_WINDOW_MS);
      set((state) => ({ lastPass: card, timers: { ...state.timers, pass } }));
    },
    likesRefused(resetsAt) {
      const { allowance } = get();
      setAllowance({ unlimited: false, limit: allowance?.limit ?? null, remaining: 0, resets_at: resetsAt });
      set({ notice: 'likes' });
    },
    async undo() {
      try {
        const { card } = await api.undo();
        clearTimeout(get().timers.pass);
        set({ lastPass: null });
        return card;
      } catch (error) {
        if (error instanceof ApiError && error.code === 'subscription_required') {
          set({ notice: 'undo' });
          return null;
        }
        if (error instanceof ApiError && error.code === 'nothing_to_undo') {
          set({ lastPass: null });
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
