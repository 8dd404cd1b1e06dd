import { create } from 'zustand';
import { QR_EARLY_SECONDS, QR_WINDOW_SECONDS } from '../../shared/constants';
import type { EventQr, EventStats, OrganizerEvent } from '../../shared/schemas/events';
import { ApiError, NotFound } from '../lib/api';
import { api } from '../lib/api-app';
import { heardServerTime, serverNow } from '../lib/server-clock';
import { isConnected, loadFailure, onConnect, onEvent, onReconnect, reconnectAfterSleep, unwatchEvent, watchEvent } from '../lib/socket';
import { useEvents } from './events';

/** The organizer's host screen: its event, the rotating QR, the live count, the stats. */
interface HostState {
  /** undefined while loading; null: not one of mine (or gone). */
  event: OrganizerEvent | null | undefined;
  /** The event shown was deleted since (from another of the organizer's screens): kept for its name. */
  deleted: boolean;
  qr: EventQr | null;
  /** The QR shown is past its end with no newer one come (no network): it lets nobody in any more. */
  qrExpired: boolean;
  count: number | null;
  stats: EventStats | null;
  /** The event could not be had for the server's own error (not no network): asked again meanwhile. */
  failed: boolean;
  /** Likewise the stats, none of which has come yet. */
  statsFailed: boolean;
}

const EMPTY = { event: undefined, deleted: false, qr: null, qrExpired: false, count: null, stats: null, failed: false, statsFailed: false };
export const useHost = create<HostState>()(() => EMPTY);

const WINDOW_MS = QR_WINDOW_SECONDS * 1000;
/** Stats follow the live count, but at most this often (they are counted over the whole event). */
const STATS_MIN_INTERVAL_MS = 10_000;
/** And on their own now and then, for matches and messages, which move no count. */
const STATS_REFRESH_MS = 30_000;
const RETRY_MS = 5000;
/**
 * How often the screen reads the wall clock for a sleep it was not told of: a laptop's lid closed on
 * the screen (where the system never says the page was hidden) stops its timers while the clock goes
 * on, and on waking the next code would come up to a window late, the dead one shown meanwhile.
 */
const WAKE_CHECK_MS = 5000;

/** The organizer's event, wherever it is in their list (newest first: almost always the first page). */
export async function findMine(id: number): Promise<OrganizerEvent | null> {
  let cursor: string | undefined;
  do {
    const page = await api.myEvents(cursor);
    const event = page.results.find((candidate) => candidate.id === id);
    if (event) return event;
    cursor = page.next ?? undefined;
  } while (cursor);
  return null;
}

/**
 * Runs the screen for one event until the returned stop is called: the QR is fetched again a little
 * before each window turns, when the server hands out the next window's (in the middle of its
 * QR_EARLY_SECONDS: a request a little slow still asks in them, or else gets the same code and asks
 * again soon after; the one on screen stays good through the next window either way), the count comes
 * over the socket, the stats follow it. Timed by the server's clock (`expires_in_ms`), not this one's.
 */
export function openHostScreen(id: number): () => void {
  let stopped = false;
  let qrTimer: ReturnType<typeof setTimeout> | undefined;
  let statsTimer: ReturnType<typeof setTimeout> | undefined;
  let startTimer: ReturnType<typeof setTimeout> | undefined;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  let lastStats = 0;
  /** Stops following the live count, which starts once the event is known to be mine. */
  let stopCounting: (() => void) | undefined;
  useHost.setState(EMPTY);

  /**
   * Over (here or from another screen), by the server's clock, which each code's answer measures (its
   * end, as a moment and as a time left: a laptop's clock may be minutes off); before the first code,
   * by the server's word.
   */
  const over = (event: OrganizerEvent) =>
    useHost.getState().qr === null ? event.status === 'after' || event.status === 'closed' : Date.parse(event.ends_at) <= serverNow();

  /**
   * Deleted from another of the organizer's screens (the socket says so at once; else the next code or
   * read of the event is refused): the screen says the event is gone, instead of keeping a code that
   * lets nobody in, and asks for nothing more of it.
   */
  const gone = () => {
    clearTimeout(qrTimer);
    clearTimeout(statsTimer);
    clearTimeout(expiryTimer);
    // A deleted event has no count to follow.
    stopCounting?.();
    stopCounting = undefined;
    useHost.setState((state) => (state.event ? { deleted: true, qr: null, qrExpired: false } : { event: null }));
  };

  const loadQr = async () => {
    clearTimeout(qrTimer);
    // Over or gone: the door is closed, and no code is shown or asked for again.
    const { event, deleted } = useHost.getState();
    if (deleted || (event && over(event))) return;
    try {
      const sent = Date.now();
      const qr = await api.eventQr(id);
      if (stopped) return;
      // Timed from the answer, by the server's clock, not by comparing `expires_at` with this one.
      const left = qr.expires_in_ms;
      heardServerTime(Date.parse(qr.expires_at) - left, sent);
      useHost.setState({ qr, qrExpired: false });
      // Said dead at its end unless a newer one has come by then (no network).
      clearTimeout(expiryTimer);
      expiryTimer = setTimeout(() => useHost.setState({ qrExpired: true }), left);
      qrTimer = setTimeout(() => void loadQr(), Math.min(WINDOW_MS, Math.max(RETRY_MS, left - WINDOW_MS - QR_EARLY_SECONDS * 500)));
    } catch (error) {
      if (stopped) return;
      // Deleted while the socket could not say so (no connection).
      if (error instanceof NotFound) return gone();
      // Ended likewise: no code any more; the server's word shows it over at once, the event read again for its end.
      if (error instanceof ApiError && error.code === 'ended') {
        clearTimeout(expiryTimer);
        useHost.setState((state) => ({ qr: null, qrExpired: false, event: state.event && { ...state.event, status: 'after' } }));
        return void refreshEvent();
      }
      qrTimer = setTimeout(() => void loadQr(), RETRY_MS);
    }
  };
  const loadStats = async () => {
    clearTimeout(statsTimer);
    if (useHost.getState().deleted) return;
    lastStats = Date.now();
    try {
      const stats = await api.eventStats(id);
      // Connected, the socket's count is the newest; without it (a network that lets no WebSocket
      // through), the stats' own is.
      if (!stopped) {
        useHost.setState((state) => ({ stats, statsFailed: false, count: state.count !== null && isConnected() ? state.count : stats.attendee_count }));
      }
    } catch (error) {
      // Shown as they were; the next turn tries again. None yet: said, not "Loading…" for as long as the server fails.
      if (!stopped && loadFailure(error) === 'server') useHost.setState({ statsFailed: true });
    }
    if (!stopped && !useHost.getState().deleted) statsTimer = setTimeout(() => void loadStats(), STATS_REFRESH_MS);
  };
  const statsSoon = () => {
    const wait = Math.max(0, lastStats + STATS_MIN_INTERVAL_MS - Date.now());
    clearTimeout(statsTimer);
    statsTimer = setTimeout(() => void loadStats(), wait);
  };
  const refreshEvent = async () => {
    const event = await findMine(id).catch((error: unknown) => {
      if (!stopped) useHost.setState({ failed: loadFailure(error) === 'server' });
      return undefined;
    });
    if (stopped || event === undefined) return event;
    if (event === null) gone();
    else useHost.setState({ event, failed: false });
    return event;
  };

  const stops = [
    // The count itself comes through `watchCounts`; the stats follow it.
    onEvent('event:count', ({ event_id }) => {
      if (event_id === id) statsSoon();
    }),
    // Changed or ended from another of the organizer's screens (the edit page, another phone).
    onEvent('event:changed', ({ event }) => {
      if (event.id !== id) return;
      useHost.setState((state) => (state.event ? { event: { ...state.event, ...event } } : {}));
    }),
    // Deleted from another screen: this tab's socket, in the host room, hears no `sync` as the guests'
    // do, so it leaves the event itself if I was at it, as when deleted here (`deleteHostedEvent`).
    onEvent('event:deleted', ({ event_id }) => {
      if (event_id !== id) return;
      gone();
      useEvents.getState().deleted(id);
    }),
    onReconnect(() => {
      // Opened with no network: the event is asked for now that there is one.
      if (useHost.getState().event === undefined) return void start();
      // Changed or ended meanwhile from another screen: its `event:changed` did not come.
      void refreshEvent();
      void loadQr();
      statsSoon();
    }),
    // Connected all along, but news from the other instances was lost (Redis was away): the event and
    // the stats as they are now (the count too, through `watchCounts`).
    onEvent('sync', () => {
      if (!useHost.getState().event || useHost.getState().deleted) return;
      void refreshEvent();
      statsSoon();
    }),
  ];
  const onVisible = () => {
    if (document.visibilityState === 'visible') void loadQr();
  };
  document.addEventListener('visibilitychange', onVisible);
  // Woken: the code on screen is struck through if it has run out, and a fresh one asked for at once;
  // the socket, which may have been dropped while asleep without knowing it, connects afresh (its
  // connect watches the event again: the live count as it is now, not as it was at the sleep).
  let checked = Date.now();
  const wakeCheck = setInterval(() => {
    const now = Date.now();
    // Hidden, a browser runs it once a minute; coming back in view asks for a code anyway.
    if (now - checked > 3 * WAKE_CHECK_MS && document.visibilityState === 'visible') {
      const { qr } = useHost.getState();
      if (qr && Date.parse(qr.expires_at) <= serverNow()) useHost.setState({ qrExpired: true });
      void loadQr();
      statsSoon();
      reconnectAfterSleep();
    }
    checked = now;
  }, WAKE_CHECK_MS);

  /** The event first (mine?), then the rest; an event that could not be asked for is asked again. */
  const start = async () => {
    clearTimeout(startTimer);
    const event = await refreshEvent();
    if (stopped || event === null) return;
    if (event === undefined) {
      startTimer = setTimeout(() => void start(), RETRY_MS);
      return;
    }
    void loadQr();
    // Once: a start after a failed one (a retry, a reconnect) may find the event at the same time.
    stopCounting ??= watchCounts([id], (_, count) => useHost.setState({ count }));
    void loadStats();
  };
  void start();

  return () => {
    stopped = true;
    clearTimeout(qrTimer);
    clearTimeout(statsTimer);
    clearTimeout(startTimer);
    clearTimeout(expiryTimer);
    clearInterval(wakeCheck);
    for (const stop of stops) stop();
    document.removeEventListener('visibilitychange', onVisible);
    // Gone from the screen: this tab hears the event's news no more, unless I am at it.
    stopCounting?.();
  };
}

/**
 * The live counts of the organizer's events `ids` (the host screen's one, "My events"' that people are
 * in), for `counted` to show: watched now if connected, again at each connect (a new connection is in
 * no event's room) and after a catch-up, the watch's answer being the count now; then each
 * `event:count`. Returns what stops it, and unwatches them.
 */
export function watchCounts(ids: number[], counted: (eventId: number, count: number) => void): () => void {
  let stopped = false;
  const watchAll = () => {
    for (const id of ids) {
      void watchEvent(id).then(
        (count) => {
          if (!stopped && count !== null) counted(id, count);
        },
        () => {},
      );
    }
  };
  const stops = [
    onEvent('event:count', ({ event_id, count }) => {
      if (ids.includes(event_id)) counted(event_id, count);
    }),
    onConnect(watchAll),
    onEvent('sync', watchAll),
  ];
  if (isConnected()) watchAll();
  return () => {
    stopped = true;
    for (const stop of stops) stop();
    for (const id of ids) unwatchEvent(id);
  };
}

export async function endHostedEvent(id: number) {
  const event = await api.endEvent(id);
  useHost.setState({ event });
}

export async function deleteHostedEvent(id: number) {
  // Deleted already from another of the organizer's screens: what was asked for is done.
  await api.deleteEvent(id).catch((error: unknown) => {
    if (!(error instanceof NotFound)) throw error;
  });
  useHost.setState({ event: null });
  useEvents.getState().deleted(id);
}
