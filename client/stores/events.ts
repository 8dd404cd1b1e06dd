import { create } from 'zustand';
import type { CheckInInput, PublicEvent } from '../../shared/schemas/events';
import { logFailure, mayPass, NotFound } from '../lib/api';
import { api } from '../lib/api-app';
import { keptValue, writeCache } from '../lib/device-cache';
import { clearPendingJoin, getPendingJoin, waitsForProfile } from '../lib/pending-join';
import { heardServerTime } from '../lib/server-clock';
import { useDeck } from './deck';
import { knownUserId, onSignOut, ownsStorage, sessionCheck, useSession } from './session';

interface EventsState {
  /** The event I am checked in to: undefined until asked, null when none (the general deck). */
  current: PublicEvent | null | undefined;
  /**
   * A join kept through sign-up or login on its way (`joinPendingEvent`): the deck waits for it, not
   * showing meanwhile the general deck's strangers, who are not at the party, to be swiped for good.
   */
  joining?: boolean;
  /** Reads where I am: done once it is known (by this read, or a newer one sent meanwhile), or could not be. */
  loadCurrent: () => Promise<void>;
  /** Checks in (the deck then holds the people there); rejects with the server's error. */
  checkIn: (code: string, proof?: CheckInInput) => Promise<PublicEvent>;
  /** Back to the general deck, at once. */
  leave: () => Promise<void>;
  /** A live `event:count` for the event on screen. */
  setCount: (eventId: number, count: number) => void;
  /** The organizer changed or ended my event (`event:changed`): shown as it is now. */
  changed: (event: PublicEvent) => void;
  /**
   * An event I organize was deleted (from its host screen, or from another while that one was open): if
   * I was checked in to it, I am at none now. The host screen's socket, in the event's host room, is
   * not told to read again as its guests' are.
   */
  deleted: (eventId: number) => void;
  reset: () => void;
}

/**
 * This tab's own check-ins and leavings: how many are on their way, a count bumped as each starts and
 * ends, and a promise of the moment none is left. A read of the current event that overlapped one may
 * have been answered before it took effect (a guest's profile saved: the app asks where they are
 * while their pending join checks in): it must not put back the event they were in, or none.
 */
const changes = { inFlight: 0, version: 0, settled: Promise.resolve(), settle: () => {} };
async function change<T>(run: () => Promise<T>): Promise<T> {
  if (changes.inFlight === 0) changes.settled = new Promise((resolve) => (changes.settle = resolve));
  changes.inFlight += 1;
  changes.version += 1;
  try {
    return await run();
  } finally {
    changes.inFlight -= 1;
    changes.version += 1;
    if (changes.inFlight === 0) changes.settle();
  }
}

/** A read of the current event: when it was sent (`performance.now()`), and its end (answered, or not). */
interface Read {
  sentAt: number;
  done: Promise<void>;
}
const NO_READ: Read = { sentAt: -Infinity, done: Promise.resolve() };
/** The latest read of the current event, answered or on its way: its answer is the one taken. */
let latest = NO_READ;

/**
 * Whether where I am was read (or is being read) since `time`: a catch-up after a drop needs no read
 * when one went out after it (the app opened with no network asks once its user is known).
 */
export const currentReadSince = (time: number) => latest.sentAt >= time;

/** The least time between two reads for news of the same event: a host screen's event stays in the room. */
const NEWS_READ_MS = 60_000;
const newsReadAt = new Map<number, number>();

/**
 * News (a live count) of an event this tab does not know I am at: a check-in made on
 * another of my phones or tabs has put this one's socket in its room. Where I am is read again, and
 * the deck with it when that is the event. Not while a check-in of this tab's own is on its way (its
 * answer says), nor more than once a minute for one event the read did not find me at (the
 * organizer's host screen hears its event's counts without being at it).
 */
export async function heardOfEvent(eventId: number) {
  const { current } = useEvents.getState();
  if (current === undefined || current?.id === eventId || changes.inFlight > 0) return;
  const now = performance.now();
  if (now - (newsReadAt.get(eventId) ?? -Infinity) < NEWS_READ_MS) return;
  newsReadAt.set(eventId, now);
  await useEvents.getState().loadCurrent();
  if (useEvents.getState().current?.id !== eventId) return;
  // At it: once I have left, its next news is news of a check-in again, however soon.
  newsReadAt.delete(eventId);
  if (useDeck.getState().queue !== null) void useDeck.getState().load();
}

export const useEvents = create<EventsState>()((set, get) => ({
  current: undefined,
  loadCurrent() {
    const version = changes.version;
    const sameSession = sessionCheck();
    const before = latest;
    const read: Read = { sentAt: performance.now(), done: Promise.resolve() };
    latest = read;
    read.done = (async () => {
      let event: PublicEvent | null;
      try {
        const sent = Date.now();
        let now: string;
        ({ event, now } = await api.currentEvent());
        heardServerTime(Date.parse(now), sent);
      } catch (error) {
        // Not read after all: the next catch-up asks, and a read sent before this one has the turn back.
        if (latest === read) latest = before;
        if (!sameSession()) return;
        logFailure('Could not load the current event', error);
        // No network: the event this device last knew them at, until the server says.
        const kept = keptEvent();
        if (kept && get().current === undefined) set({ current: kept });
        return;
      }
      // A read sent after this one (the first connect's, after the app's as it opens) has the newer
      // answer, whichever comes first. This one ends with it, so that who waits for this one (a code
      // typed on the events page) hears where I am; if it fails, it hands the turn back to this one.
      while (latest !== read && sameSession()) {
        const newer = latest;
        await newer.done;
        if (latest === newer) return;
      }
      if (!sameSession()) return;
      if (changes.version === version && changes.inFlight === 0) {
        set({ current: event });
        return;
      }
      // Stale. A change that went through said where we are; one that failed said nothing: ask again.
      await changes.settled;
      if (get().current === undefined) await get().loadCurrent();
    })();
    return read.done;
  },
  checkIn(code, proof = {}) {
    return change(async () => {
      const { event } = await api.checkIn(code, proof);
      const changed = get().current?.id !== event.id;
      set({ current: event });
      // Another scope: the cards on screen were someone else's room.
      if (changed) void useDeck.getState().load();
      return event;
    });
  },
  leave() {
    return change(async () => {
      await api.leaveEvent();
      set({ current: null });
      void useDeck.getState().load();
    });
  },
  setCount(eventId, count) {
    const { current } = get();
    if (current && current.id === eventId && current.attendee_count !== count) set({ current: { ...current, attendee_count: count } });
  },
  changed(event) {
    const { current } = get();
    // Its count is the one read as the change was made; the room's own counts, which follow every
    // arrival and departure, are never older: one that came first (the change crossed instances) stays.
    if (current?.id === event.id) set({ current: { ...event, attendee_count: current.attendee_count } });
  },
  deleted(eventId) {
    if (get().current?.id !== eventId) return;
    set({ current: null });
    void useDeck.getState().load();
  },
  reset() {
    latest = NO_READ;
    newsReadAt.clear();
    set({ current: undefined });
  },
}));

/**
 * The event this device last knew the signed-in user checked in to, null when it knew them at none;
 * undefined when it knows nothing of it (`lib/device-cache.ts`).
 */
export function keptEvent(): PublicEvent | null | undefined {
  // The events pages open before the server has said who is signed in: the user kept with the token then.
  const me = knownUserId();
  return me === undefined ? undefined : keptValue<PublicEvent | null>('event', me);
}

/** The same event as far as the device keeps it: the same one, changed in nothing but its live count. */
const sameKept = (a: PublicEvent | null, b: PublicEvent | null) =>
  a === b || (a !== null && b !== null && JSON.stringify({ ...a, attendee_count: 0 }) === JSON.stringify({ ...b, attendee_count: 0 }));

/** Where I am, kept on the device as the signed-in user's, once both are known. */
function keepEvent(current: PublicEvent | null | undefined) {
  const me = useSession.getState().user?.id;
  if (current === undefined || me === undefined || !ownsStorage()) return;
  writeCache('event', current, me);
}

// Kept as it changes (a check-in, a leaving, a new read, the organizer's changes; not each live count),
// for an opening with no network, and for the first paint of the next opening.
useEvents.subscribe(({ current }, previous) => {
  if (current !== undefined && previous.current !== undefined && sameKept(current, previous.current)) return;
  keepEvent(current);
});
// The events pages open before the user is known, and may hear where they are first: kept once they are.
useSession.subscribe(({ user }, previous) => {
  if (user?.id !== previous.user?.id) keepEvent(useEvents.getState().current);
});

let joiningPending: Promise<PublicEvent | 'ask' | null> | null = null;

/**
 * The event the visitor set out to join before signing up or in (the pass from the QR link, or the
 * code alone): checked in now, once. Resolves with the event, or null when there was none or it was
 * refused (a refusal drops it: a pass does not get better by retrying), or `ask` when the account is
 * at another event and this one is open: the join is kept, for the event's page to ask about leaving
 * that one first.
 */
export function joinPendingEvent(): Promise<PublicEvent | 'ask' | null> {
  joiningPending ??= (async () => {
    try {
      const pending = getPendingJoin();
      if (!pending) return null;
      useEvents.setState({ joining: true });
      // Where they are, asked first: not knowing (no network) keeps the join, for the next try.
      const { event: at } = await api.currentEvent();
      if (at && at.code !== pending.code) {
        // Its page asks only while it is open: one not open (yet, or any more), or gone, is dropped
        // here, or the app would take them to a page with nothing to ask each time it opens.
        const wanted = await api.event(pending.code).catch((error: unknown) => {
          if (error instanceof NotFound) return null;
          throw error;
        });
        if (wanted?.status === 'open') return 'ask';
        clearPendingJoin();
        return null;
      }
      // Checked in or refused, the join is done with (a pass does not get better by retrying); not
      // answered (the network dropped as the profile was saved), it is kept for the next try.
      const joined = await useEvents
        .getState()
        .checkIn(pending.code, pending.pass ? { pass: pending.pass } : {})
        .catch((error: unknown) => {
          if (!mayPass(error)) clearPendingJoin();
          throw error;
        });
      clearPendingJoin();
      return joined;
    } finally {
      joiningPending = null;
      useEvents.setState({ joining: false });
    }
  })();
  return joiningPending;
}

/**
 * Into the event of `code` by its code alone (a code event, or one's own): checked in now, or, with a
 * dating profile still to write, kept for once it is (`waitsForProfile`), under its name.
 */
export async function enterEvent(code: string, name: string): Promise<void> {
  if (!(await waitsForProfile(code, name))) await useEvents.getState().checkIn(code);
}

onSignOut(() => useEvents.getState().reset());
