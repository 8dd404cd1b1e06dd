import { create } from 'zustand';
import type { CheckInInput, PublicEvent } from '../../shared/schemas/events';
import { api } from '../lib/api-app';
import { clearPendingJoin, getPendingJoin } from '../lib/pending-join';
import { useDeck } from './deck';
import { onSignOut } from './session';

interface EventsState {
  /** The event I am checked in to: undefined until asked, null when none (the general deck). */
  current: PublicEvent | null | undefined;
  loadCurrent: () => Promise<void>;
  /** Checks in (the deck then holds the people there); rejects with the server's error. */
  checkIn: (code: string, proof?: CheckInInput) => Promise<PublicEvent>;
  /** Back to the general deck, at once. */
  leave: () => Promise<void>;
  /** A live `event:count` for the event on screen. */
  setCount: (eventId: number, count: number) => void;
  reset: () => void;
}

export const useEvents = create<EventsState>()((set, get) => ({
  current: undefined,
  async loadCurrent() {
    try {
      const { event } = await api.currentEvent();
      set({ current: event });
    } catch (error) {
      console.error('Could not load the current event', error);
    }
  },
  async checkIn(code, proof = {}) {
    const { event } = await api.checkIn(code, proof);
    const changed = get().current?.id !== event.id;
    set({ current: event });
    // Another scope: the cards on screen were someone else's room.
    if (changed) void useDeck.getState().load();
    return event;
  },
  async leave() {
    await api.leaveEvent();
    set({ current: null });
    void useDeck.getState().load();
  },
  setCount(eventId, count) {
    const { current } = get();
    if (current && current.id === eventId && current.attendee_count !== count) set({ current: { ...current, attendee_count: count } });
  },
  reset() {
    set({ current: undefined });
  },
}));

let joiningPending: Promise<PublicEvent | null> | null = null;

/**
 * The event the visitor set out to join before signing up or in (the pass from the QR link, or the
 * code alone): checked in now, once. Resolves with the event, or null when there was none or it was
 * refused (a refusal drops it: a pass does not get better by retrying).
 */
export function joinPendingEvent(): Promise<PublicEvent | null> {
  joiningPending ??= (async () => {
    const pending = getPendingJoin();
    if (!pending) return null;
    try {
      const event = await useEvents.getState().checkIn(pending.code, pending.pass ? { pass: pending.pass } : {});
      clearPendingJoin();
      return event;
    } catch (error) {
      clearPendingJoin();
      throw error;
    } finally {
      joiningPending = null;
    }
  })();
  return joiningPending;
}

onSignOut(() => useEvents.getState().reset());
