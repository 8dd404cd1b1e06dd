import type { FastifyBaseLogger } from 'fastify';
import { EVENT_WATCHES_PER_SOCKET } from '../../../shared/constants';
import { rooms } from '../../../shared/events';
import type { PublicEvent } from '../../../shared/schemas/events';
import type { Db } from '../../db/client';
import type { AttendanceMove, RealtimeServer, RealtimeSocket } from '../../realtime/types';
import { attendeeCount, currentEventIdOfUser } from './service';

/**
 * The live side of events: which sockets are in an event's room, and the two coalesced pushes to it.
 * Every instance moves its own sockets between rooms and coalesces what it sends them (`io.local`):
 * told of every move in the cluster (`event:moved` between instances), each sends its sockets at most
 * one `event:count` per second and one `deck:refresh` per 5 s per event, so a socket, wherever it is
 * connected, receives no more than that. The count is read when it is sent, after the change that
 * asked for it has committed, so the last one after a burst is exact.
 *
 * Arrivals and departures alike ask for both: a newcomer's card has to reach the decks, and a leaver's
 * has to leave those it is queued in (leaving takes effect at once everywhere), however they left (the
 * leave, a check-in elsewhere, a ban, a deleted account). Neither push names anyone: the room learns
 * that its count and its deck changed, never who came or went.
 *
 * A refresh sets off one deck fetch per phone in the room, each a full deck statement. At a big event
 * the window grows with the phones this instance holds, so that its refreshes set off no more than
 * `deckRefreshFetchesPerSecond` fetches a second, and the phones spread their fetches over that window
 * (`within_ms`) instead of all asking in the same second. A newcomer still reaches every deck within
 * one window, and a leaver leaves every deck within one window too.
 */
export interface EventLive {
  /**
   * After the check-in committed: the user's sockets move to the event's room, and both counts are told.
   * Resolves once their sockets on every instance (each that answers within a moment) are in the room
   * and hear what is published to it: answered before, the phone that checked in could have the
   * organizer's next change sent while a phone of theirs on another instance was not there to hear it.
   */
  checkedIn(userId: number, eventId: number, previousEventId: number | null): Promise<void>;
  /** After the leave committed: the user's sockets leave the event's room, which is told the count and to refresh its decks. */
  left(userId: number, eventId: number): void;
  /**
   * The organizer (`organizerId`) changed or ended the event: its room hears it as it is now
   * (`event:changed`), and the organizer's sockets that it was their doing.
   */
  changedByOrganizer(event: PublicEvent, organizerId: number): void;
  /**
   * The event is gone (deleted by `organizerId`): its room is told so, and the organizer's sockets that
   * it was their doing; its attendees' phones to read again (`sync`); and it is emptied.
   */
  removed(eventId: number, organizerId: number): void;
  /**
   * A signed-in socket's handshake: into its user's current event's room. Resolves once that room is
   * heard here, so that the phone, told it is connected only then, catches up on nothing the organizer
   * changes after. Call what it resolves to once the socket is connected (or gone).
   */
  socketConnected(socket: RealtimeSocket): Promise<() => void>;
  /**
   * A host screen (or the organizer's list of events): into the room, kept there when its user leaves
   * the event as an attendee. A socket watches at most EVENT_WATCHES_PER_SOCKET events at a time:
   * one more stops watching the one watched longest.
   */
  watch(socket: RealtimeSocket, eventId: number): Promise<void>;
  /** The host screen closed: out of the room, unless its user is checked in there. */
  unwatch(socket: RealtimeSocket, eventId: number): Promise<void>;
  /**
   * A move announced by another instance: applied, then this instance's sockets of the user put where
   * they are now. Resolves once they hear what is published to the room they joined.
   */
  movedElsewhere(move: AttendanceMove): Promise<void>;
  /**
   * Redis is back: the moves other instances announced while it was away never came, so every user
   * with a socket here is put where they are now (`sync` tells their phones to read it again).
   */
  resettle(): Promise<void>;
  close(): void;
}

interface Coalesced {
  /** The least time between two sends; a refresh sets it at each send. */
  interval: number;
  /** When this instance last sent it (performance.now()). */
  last: number;
  timer: ReturnType<typeof setTimeout> | null;
  running: boolean;
  /** Asked for again since the last send began. */
  dirty: boolean;
}

interface EventState {
  count: Coalesced;
  refresh: Coalesced;
}

const idle = (interval: number): Coalesced => ({ interval, last: Number.NEGATIVE_INFINITY, timer: null, running: false, dirty: false });
/** An event's room (`rooms.event`), not its host room. */
const EVENT_ROOM = /^event:(\d+)$/;
/** How many users' event rooms are read again at once after a Redis outage. */
const RESETTLE_CONCURRENCY = 4;
/** How often forgotten events' state is dropped. */
const SWEEP_MS = 60_000;

export function createEventLive(options: {
  io: RealtimeServer;
  db: Db;
  log: FastifyBaseLogger;
  /**
   * Tells the other instances (through Redis), and resolves once each has applied the move (or could not
   * say so in time; it never rejects); null when this instance is alone.
   */
  broadcast: ((move: AttendanceMove) => Promise<void>) | null;
  /**
   * Resolves once this instance hears what other instances publish to a room its sockets joined (its
   * Redis subscription confirmed); null when this instance is alone.
   */
  subscribed: ((room: string) => Promise<void>) | null;
  /** The least time between two counts to one event's room, and between two of its refreshes (at a small event). */
  countIntervalMs: number;
  refreshIntervalMs: number;
  /** The most deck fetches per second that one event's refreshes may set off on this instance. */
  deckRefreshFetchesPerSecond: number;
}): EventLive {
  const { io, db, log, countIntervalMs, refreshIntervalMs, deckRefreshFetchesPerSecond } = options;
  const states = new Map<number, EventState>();
  let closed = false;

  const stateOf = (eventId: number) => {
    let state = states.get(eventId);
    if (!state) {
      state = { count: idle(countIntervalMs), refresh: idle(refreshIntervalMs) };
      states.set(eventId, state);
    }
    return state;
  };
  const localSocketsIn = (eventId: number) => io.of('/').adapter.rooms.get(rooms.event(eventId))?.size ?? 0;

  /** Leading and trailing: the first change is sent at once, those within the interval after it once, at its end. */
  function request(slot: Coalesced, send: () => Promise<void>) {
    slot.dirty = true;
    if (slot.timer || slot.running || closed) return;
    const wait = Math.max(0, slot.last + slot.interval - performance.now());
    slot.timer = setTimeout(() => {
      slot.timer = null;
      slot.dirty = false;
      slot.running = true;
      send()
        .catch((error: unknown) => log.warn({ err: error }, 'event push failed'))
        .finally(() => {
          slot.running = false;
          if (slot.dirty) {
            slot.dirty = false;
            request(slot, send);
          }
        });
    }, wait);
  }

  function pushCount(eventId: number) {
    const state = stateOf(eventId);
    request(state.count, async () => {
      // Nobody here to tell; whoever joins later reads the count over HTTP.
      if (localSocketsIn(eventId) === 0) return;
      const count = await attendeeCount(db, eventId);
      if (closed) return;
      state.count.last = performance.now();
      io.local.to(rooms.event(eventId)).emit('event:count', { event_id: eventId, count });
    });
  }

  function pushRefresh(eventId: number) {
    const state = stateOf(eventId);
    request(state.refresh, async () => {
      const phones = localSocketsIn(eventId);
      if (phones === 0 || closed) return;
      state.refresh.last = performance.now();
      state.refresh.interval = Math.max(refreshIntervalMs, Math.ceil((phones * 1000) / deckRefreshFetchesPerSecond));
      io.local.to(rooms.event(eventId)).emit('deck:refresh', { event_id: eventId, within_ms: state.refresh.interval });
    });
  }

  /** Someone came or went: the room's count, and its decks, which hold the newcomer or still hold the leaver. */
  function changedHere(eventId: number) {
    pushCount(eventId);
    pushRefresh(eventId);
  }

  /**
   * The reads of connecting sockets' events in flight, by user. A move while one reads has already put
   * that socket where the user is (it is in the user's room from its handshake on), and the read's
   * answer may be older than the move: the socket keeps what the move did.
   */
  const reads = new Map<number, Set<{ moved: boolean }>>();

  /**
   * This instance's sockets of the user follow the move, and the reads of their event in flight learn
   * of it, in one step: every instance applies each move itself, so no read answered before the move
   * can put a socket back in a room the user has left. Resolves once the room they joined is heard
   * from every instance.
   */
  async function applyMove({ userId, from, to }: AttendanceMove) {
    const sockets = io.local.in(rooms.user(userId));
    // Not a host screen of theirs (the organizer at their own event): it stays in the room.
    if (from !== null) sockets.except(rooms.eventHost(from)).socketsLeave(rooms.event(from));
    if (to !== null) sockets.socketsJoin(rooms.event(to));
    for (const read of reads.get(userId) ?? []) read.moved = true;
    if (from !== null) changedHere(from);
    if (to === null) return;
    // The count makes the user's other phones read the event: read before this instance hears its
    // room, a change the organizer made meanwhile on another instance would reach neither the read
    // nor the phone.
    await options.subscribed?.(rooms.event(to));
    changedHere(to);
  }

  /**
   * The user's current event, and whether a move of theirs was applied while it was read: that move has
   * put this instance's sockets of theirs where they are, and the answer may be older than it.
   */
  async function readCurrentEvent(userId: number) {
    const read = heedMoves(userId);
    try {
      const eventId = await currentEventIdOfUser(db, userId);
      return { eventId, moved: read.moved };
    } finally {
      read.stop();
    }
  }

  /** From now until `stop`, `moved` says whether a move of the user's was applied here meanwhile. */
  function heedMoves(userId: number) {
    const read = { moved: false };
    const inFlight = reads.get(userId) ?? new Set();
    reads.set(userId, inFlight.add(read));
    return {
      get moved() {
        return read.moved;
      },
      stop() {
        inFlight.delete(read);
        if (inFlight.size === 0 && reads.get(userId) === inFlight) reads.delete(userId);
      },
    };
  }

  /**
   * Each instance hears a user's moves in its own order: its own after their commit, and the other
   * instances' through Redis, later. A check-in and a leave (or two check-ins) of one user racing from
   * two of their tabs, on one instance or two, can reach it the wrong way round (two answers from the
   * database are read in either order), and the older move, applied last, would leave their sockets
   * there in a room they have left and out of the one they are at, hearing none of its news until they
   * reconnect. So after every move, where the user is is read again and this instance's sockets of
   * theirs put there; a read that a newer move overtook gives way to that move's own. Host screens keep
   * the room of the event they watch.
   */
  async function settle(userId: number) {
    if (!io.of('/').adapter.rooms.has(rooms.user(userId))) return;
    const { eventId, moved } = await readCurrentEvent(userId);
    if (moved || closed) return;
    const at = eventId === null ? null : rooms.event(eventId);
    for (const id of io.of('/').adapter.rooms.get(rooms.user(userId)) ?? []) {
      const socket = io.of('/').sockets.get(id);
      if (!socket?.connected) continue;
      let corrected = false;
      for (const room of [...socket.rooms]) {
        const other = room === at ? null : EVENT_ROOM.exec(room);
        if (other && !socket.rooms.has(rooms.eventHost(Number(other[1])))) {
          await socket.leave(room);
          corrected = true;
        }
      }
      if (at !== null && !socket.rooms.has(at)) {
        await socket.join(at);
        // As a check-in's: told to read again before this instance hears the room, the phone would
        // miss the organizer's change made on another instance just after its read.
        await options.subscribed?.(at);
        corrected = true;
      }
      // Its phone may show the event the older move said (the tab that checked in has its answer), and
      // would hear nothing of where the user is: it reads again.
      if (corrected) socket.emit('sync');
    }
  }

  /** The events each socket watches, oldest first (its socket in `eventHost(id)` too). */
  const watching = new WeakMap<RealtimeSocket, Set<number>>();

  /**
   * A host screen's socket out of the event's room, but for the room of an event its user is at: from
   * the moment it is no host, their moves take it in and out as any socket of theirs, and the event
   * they are at is read until no move came while it was.
   */
  async function stopWatching(socket: RealtimeSocket, eventId: number) {
    watching.get(socket)?.delete(eventId);
    if (!socket.rooms.has(rooms.eventHost(eventId))) return;
    await socket.leave(rooms.eventHost(eventId));
    for (;;) {
      const current = await readCurrentEvent(socket.data.user.id);
      if (current.moved) continue;
      if (current.eventId !== eventId && socket.connected) await socket.leave(rooms.event(eventId));
      return;
    }
  }

  /**
   * The move applied here, then the user's sockets here put where they are now, whichever move came
   * last. Resolves once the move's room is heard here.
   */
  function followMove(move: AttendanceMove) {
    const applied = applyMove(move);
    settle(move.userId).catch((error: unknown) => log.warn({ err: error, userId: move.userId }, 'could not settle the event rooms of a user'));
    return applied;
  }

  /** Resolves once the move is applied here and on every other instance that answered in time. */
  async function moved(move: AttendanceMove) {
    await Promise.all([followMove(move), options.broadcast?.(move)]);
  }

  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [eventId, state] of states) {
      const busy = [state.count, state.refresh].some((slot) => slot.timer || slot.running || slot.last + slot.interval > now);
      if (!busy && localSocketsIn(eventId) === 0) states.delete(eventId);
    }
  }, SWEEP_MS);
  sweep.unref();

  return {
    checkedIn(userId, eventId, previousEventId) {
      // The user's other phones hear of it by the event's own news (`event:count`) in its room, and
      // read again where they are. Not `sync`: at the doors, every phone would catch up twice.
      return moved({ userId, from: previousEventId, to: eventId });
    },
    left(userId, eventId) {
      void moved({ userId, from: eventId, to: null });
      // The user's other phones and tabs are out of its room now and would hear nothing more of it:
      // they read again where they are (`sync`), instead of showing the event they last knew.
      io.to(rooms.user(userId)).emit('sync');
    },
    changedByOrganizer(event, organizerId) {
      // As with a deletion (`removed`): their own phones are not told "the organizer" changed it.
      io.to(rooms.event(event.id)).except(rooms.user(organizerId)).emit('event:changed', { event });
      io.to(rooms.user(organizerId)).emit('event:changed', { event, by_you: true });
    },
    removed(eventId, organizerId) {
      // Its attendees are at no event now (their attendances went with it): their phones say so, then
      // read again where they are and their deck, as after a reconnect, instead of showing the event
      // until reloaded. Its host screens (deleted from the organizer's other phone) say so at once
      // too, rather than show a code that lets no one in until their next one is refused; they have
      // nothing else to read again. The organizer's own phones and tabs hear that it was their doing
      // (`by_you`), each of them, in its room or not (their room is one publish, the event's room and
      // theirs cannot be crossed): their deck, checked in to it, is not told "the organizer" canceled it.
      io.to(rooms.event(eventId)).except(rooms.user(organizerId)).emit('event:deleted', { event_id: eventId });
      io.to(rooms.user(organizerId)).emit('event:deleted', { event_id: eventId, by_you: true });
      io.to(rooms.event(eventId)).except(rooms.eventHost(eventId)).emit('sync');
      io.in(rooms.event(eventId)).socketsLeave([rooms.event(eventId), rooms.eventHost(eventId)]);
    },
    async socketConnected(socket) {
      const userId = socket.data.user.id;
      // Until the socket is connected, a move of the user's passes it by (only connected sockets are
      // moved): one applied meanwhile is followed once it is.
      const moves = heedMoves(userId);
      try {
        const eventId = await currentEventIdOfUser(db, userId);
        if (eventId !== null && !moves.moved && socket.conn.readyState === 'open') {
          await socket.join(rooms.event(eventId));
          // Only a socket at an event waits, for its room alone: the rest connect as fast as before.
          await options.subscribed?.(rooms.event(eventId));
        }
      } catch (error) {
        moves.stop();
        throw error;
      }
      let followed = false;
      return () => {
        if (followed) return;
        followed = true;
        moves.stop();
        if (moves.moved) settle(userId).catch((error: unknown) => log.warn({ err: error, userId }, 'could not settle the event rooms of a user'));
      };
    },
    async watch(socket, eventId) {
      const watched = watching.get(socket) ?? new Set();
      watching.set(socket, watched);
      const [oldest] = watched;
      if (oldest !== undefined && !watched.has(eventId) && watched.size >= EVENT_WATCHES_PER_SOCKET) await stopWatching(socket, oldest);
      watched.add(eventId);
      await socket.join([rooms.event(eventId), rooms.eventHost(eventId)]);
    },
    unwatch: stopWatching,
    movedElsewhere: followMove,
    async resettle() {
      const userIds = [...new Set([...io.of('/').sockets.values()].map((socket) => socket.data.user.id))];
      // A few at a time: one indexed read per user, not thousands of them at once on the pool.
      const next = () => userIds.pop();
      const worker = async () => {
        for (let userId = next(); userId !== undefined && !closed; userId = next()) {
          await settle(userId).catch((error: unknown) => log.warn({ err: error, userId }, 'could not settle the event rooms of a user'));
        }
      };
      await Promise.all(Array.from({ length: RESETTLE_CONCURRENCY }, worker));
    },
    close() {
      closed = true;
      clearInterval(sweep);
      for (const state of states.values()) {
        for (const slot of [state.count, state.refresh]) if (slot.timer) clearTimeout(slot.timer);
      }
      states.clear();
    },
  };
}
