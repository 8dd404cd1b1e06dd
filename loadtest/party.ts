/**
 * The party simulator (`npm run loadtest`, or `runParty()` from code): N attendees, each a phone with a
 * Socket.IO connection, who check in to an event, swipe the deck at human pace, chat with their matches,
 * and now and then put the phone away and come back. It speaks to the server only as the web client does:
 * the REST API and the socket events of `shared/`.
 *
 * What it times is what people feel:
 * - match overlay: the like that completes a pair, sent → `match:new` on the other person's phone;
 * - message delivery: `message:send` emitted → `message:new` on the recipient's phone;
 * - every REST route, and the handshake of every reconnection (a leave's return, or after a drop).
 * What it counts: messages sent, acknowledged, delivered (over the socket), recovered (fetched by the
 * catch-up after a reconnect, as the client does), lost (acknowledged but never seen by the recipient),
 * duplicated (one message seen twice, or one client_id stored twice), unanswered; the same for match overlays.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DECK_REFILL_AT, SEND_ACK_TIMEOUT_MS } from '../shared/constants';
import type { Message } from '../shared/schemas/conversations';
import type { Ack, MatchUser, ServerToClientEvents } from '../shared/events';
import type { Histogram } from './histogram';
import { ConnectError, LeanSocket } from './lean-socket';
import { MatchOverlays } from './overlays';
import { openFilesProblem } from './open-files';
import { NetworkError, Rest } from './rest';
import {
  type Account,
  attendeeAccounts,
  checkInstances,
  defaultStatePath,
  door,
  ensureAccount,
  ensureEvent,
  inPool,
  loadState,
  saveState,
  serverUrl,
  SetupError,
  THROTTLE_HINT,
} from './setup';
import { Tally } from './tally';
import { Thread } from './thread';
import { heapPerAttendee, ToolMeter } from './tool-meter';
import { Wheel } from './wheel';

export interface PartyOptions {
  /** Where setup goes (accounts, the event); also the instance list when `instances` is empty. */
  url: string;
  attendees: number;
  minutes: number;
  /** An existing event's code; without it, a QR event is created for the party. */
  event?: string;
  /** Base URLs the attendees are spread over (REST and socket), round robin. */
  instances?: string[];
  /** The accounts of earlier runs (default `./data/loadtest/<host>_<port>.json`). */
  stateFile?: string;
  /** Register new attendees rather than reuse the state file's (whose decks are already swiped). */
  fresh?: boolean;
  /** Share of attendees who put their phone away once (socket closed 2–10 s) and come back. Default 0.2. */
  leaveShare?: number;
  /** Share of swipes that are likes; of the rest, five in eight are dislikes and three skips. Default 0.6. */
  likeShare?: number;
  /** Setup requests in flight at once (registration hashes passwords: the server's CPU). Default 16. */
  setupConcurrency?: number;
  /**
   * Attendees arrive over this many seconds of the party: each opens the app (its socket), checks in and
   * starts swiping at a random moment of it, as a venue fills. At most half the party. Default 0:
   * everyone is connected and checked in before the party starts, and all start within its first 5 s.
   */
  arriveOverSeconds?: number;
  /**
   * After the party, how long the drain waits with nothing new arriving before what has not come counts
   * as lost, s. Default 10; the drain ends after two minutes (DRAIN_MAX_MS) whatever it is.
   */
  drainQuietSeconds?: number;
  /** The width of the timer wheel's slots, ms: everything due in one slot goes out at once. Default 5. */
  slotMs?: number;
  /** Called about once a second with the live figures, and at once when the phase changes. */
  onProgress?: (progress: Progress) => void;
  /**
   * Ends the party early (Ctrl-C): what was sent drains, and the figures are those of the party so far.
   * It ends the party only: setup, before it, goes on, and the party then ends as it begins.
   */
  signal?: AbortSignal;
  /** One line of what setup is doing. */
  log?: (line: string) => void;
}

export interface Progress {
  phase: 'setup' | 'connect' | 'check-in' | 'party' | 'drain';
  elapsedSeconds: number;
  attendees: number;
  ready: number;
  connected: number;
  checkIns: number;
  swipes: number;
  matches: number;
  messagesSent: number;
  messagesDelivered: number;
  errors: number;
  /** p99 over the last few seconds, ms (null: nothing in that window). */
  recentP99: { matchOverlay: number | null; messageDelivery: number | null; rest: number | null };
}

type Summary = ReturnType<Histogram['summary']>;

export interface PartyResult {
  url: string;
  instances: string[];
  attendees: number;
  minutes: number;
  /** When the party was ended early (`signal`): how long it had lasted, s; null when it ran its length. */
  interrupted_after_s: number | null;
  event: { id: number; code: string; join_mode: 'qr' | 'code' };
  stateFile: string;
  counts: {
    check_ins: number;
    swipes: number;
    likes: number;
    matches: number;
    reconnects: number;
    /**
     * Sockets the server or the network dropped (not the deliberate leaves), or that a phone gave up as
     * dead when a send or a `presence:list` went unanswered too long (`… no answer` among the errors),
     * reconnected on their own.
     */
    drops: number;
    /**
     * Of the drops, those the server disconnected itself (a restart or drain that disconnects the
     * sockets, a revoked token): socket.io-client leaves these down, the app connects again (and so do
     * these phones).
     */
    server_disconnects: number;
    /**
     * Phones at the party (or on their way in) whose socket was still down when the drain ended: the
     * server gone, or refusing them. What was meant for them is unconfirmed, and the run is no pass.
     */
    offline_at_end: number;
    messages: { sent: number; acknowledged: number; delivered: number; recovered: number; lost: number; duplicated: number; unanswered: number; refused: number };
    match_overlays: { expected: number; delivered: number; recovered: number; lost: number };
    errors: Record<string, number>;
  };
  latency_ms: {
    match_overlay: Summary;
    message_delivery: Summary;
    reconnect: Summary;
    /** `presence:list`, asked at every connect as the app asks it: who of the matches is online. */
    presence_list: Summary;
    rest: Record<string, Summary & { statuses: Record<string, number> }>;
  };
  tool: {
    cpu_seconds: number;
    /** Socket frames in and out plus REST calls during the party. */
    operations: number;
    cpu_us_per_operation: number;
    /** CPU per chat message sent, everything the tool did during the party included (null: none sent). */
    cpu_us_per_message: number | null;
    /** Measured after everyone has connected and checked in; null when they arrive during the party. */
    heap_kb_per_attendee: number | null;
    rss_mb: number;
    /**
     * The tool's own event-loop delay during the party: every latency above is timed on this loop, so
     * a delay here is in them too. Well under the latencies, the figures are the server's.
     */
    event_loop_delay_ms: { p99: number; max: number };
    /**
     * How long the party's REST calls waited for a connection of the tool's pool (`maxSockets` per
     * instance): a wait no phone has, in the REST latencies and the match overlay. Phones with
     * connections of their own moved the wait into the server, and cost the tool more (bench/README.md).
     */
    rest_pool_wait_ms: { p99: number; max: number };
  };
  ok: boolean;
}

/** How many lost match overlays the log describes one by one. */
const LOST_OVERLAYS_TOLD = 5;

// Wheel actions.
const SWIPE = 0;
const CHAT = 1;
const SEND = 2;
const LEAVE = 3;
const RECONNECT = 4;
const REFRESH = 5;
const ARRIVE = 6;
const SYNC = 7;

const between = (low: number, high: number) => low + Math.random() * (high - low);
const SECOND = 1000;

/** A `message:new` as heard: without `previous_id` from a server that does not tell it. */
type MessageNew = Omit<Parameters<ServerToClientEvents['message:new']>[0], 'previous_id'> & { previous_id?: number | null };

interface Conversation {
  id: number;
  other: number;
  /** How far this phone has heard it, with none missing: where its catch-up starts. */
  thread: Thread;
  /** Ids the catch-ups fetched (the socket may bring them too: not a duplicate). */
  fetched: Set<number> | null;
}

export interface Attendee {
  index: number;
  account: Account;
  base: URL;
  socket: LeanSocket;
  online: boolean;
  /** A deliberate leave is in progress (the socket is closed on purpose). */
  away: boolean;
  connectedOnce: boolean;
  /** It has tried to arrive (`arriveOverSeconds`): from then on it should be online. */
  arriving: boolean;
  deck: number[];
  deckStale: boolean;
  /** A `deck:refresh` was heard: the deck goes stale at a moment of its window, as in the app. */
  refreshWaiting: boolean;
  /** An empty deck is asked again at a deck:refresh, or after this time. */
  deckRetryAt: number;
  /** The deck request in flight: one at a time, as in the app. */
  deckRequest: Promise<void> | null;
  /** Cards swiped while `deckRequest` was out: its answer may still hold them. */
  swipedDuringRequest: Set<number> | null;
  conversations: Map<number, Conversation>;
  /** client_ids sent and not yet acknowledged: sent again after a reconnect. */
  unacked: Set<string>;
  typingIn: number | null;
  busy: boolean;
  /** When its socket last closed and last connected, and its last catch-up: what a lost overlay is read against. */
  disconnectedAt: number | null;
  connectedAt: number | null;
  catchUp: { from: number; to: number | null; listed: number } | null;
  /** Where each thread stood when `sync` was heard: its catch-up, a moment later, starts there. */
  syncFrom: Map<number, number> | null;
  /** Its connections that have ended: an answer, or a give-up, belongs to the connection it was asked on. */
  connectionsEnded: number;
  /** `presence:list` asked on this connection and not answered yet: the drain waits for them. */
  presencePending: number;
}

/** A `presence:list` asked: answered, given up after UNANSWERED_MS, or let go with its connection. */
interface PresenceAsk {
  attendee: Attendee;
  /** The `connectionsEnded` of its phone when it was asked. */
  connection: number;
  at: number;
  open: boolean;
}

const SOCKET_EVENTS = new Set(['message:new', 'match:new', 'deck:refresh', 'sync']);
/** The spread over which the app's phones fetch after `sync` (client/stores/realtime.ts). */
const SYNC_SPREAD_MS = 2000;
/**
 * After the party, answers and deliveries may still arrive: the drain waits while they do, and what
 * has not come once this long passes with nothing new arriving counts as lost (unless
 * `drainQuietSeconds` says how long). A busy server's catch-ups (after the reconnects the party's end
 * forces) take seconds each, and are no loss.
 */
const DRAIN_QUIET_MS = 10_000;
/** The drain's end, whatever still arrives. */
export const DRAIN_MAX_MS = 120_000;
/**
 * A `message:send` or `presence:list` the server has not answered in this long is given up as the app
 * gives it up after SEND_ACK_TIMEOUT_MS (client/lib/socket.ts), with a margin for this tool's own event
 * loop: an error, the connection dropped as dead, and once it is back the send sent again (same
 * client_id), who is online asked again (as at every connect). Left to the heartbeat, a server that
 * keeps the socket but never answers held it for 45 s, or for ever.
 */
const UNANSWERED_MS = SEND_ACK_TIMEOUT_MS + 2000;

export async function runParty(options: PartyOptions): Promise<PartyResult> {
  const log = options.log ?? (() => {});
  const likeShare = options.likeShare ?? 0.6;
  const base = serverUrl('--url', options.url);
  const partyMs = options.minutes * 60 * SECOND;
  const arriveOverMs = (options.arriveOverSeconds ?? 0) * SECOND;
  const drainQuietMs = options.drainQuietSeconds === undefined ? DRAIN_QUIET_MS : options.drainQuietSeconds * SECOND;
  if (!(arriveOverMs >= 0 && arriveOverMs <= partyMs / 2)) {
    throw new SetupError(`--arrive-over ${options.arriveOverSeconds} s: at least 0 and at most half the party (${partyMs / 2 / SECOND} s)`);
  }
  const instances = options.instances?.length ? options.instances.map((each) => serverUrl('--instances', each)) : [base];
  const rest = new Rest();
  const started = performance.now();
  const tally = new Tally(options.attendees, started);
  const { counts, messages, resent } = tally;
  const error = (what: string) => tally.error(what);

  // ------------------------------------------------------------ setup
  const origins = new Set([base.origin, ...instances.map((each) => each.origin)]);
  // Before anything is asked of the server: a limit met thousands of sockets in fails as EMFILE, deep inside.
  const tooFewFiles = openFilesProblem(options.attendees, rest.maxSockets * origins.size);
  if (tooFewFiles) throw new SetupError(tooFewFiles);
  await checkInstances(rest, origins);
  const stateFile = options.stateFile ?? defaultStatePath(base);
  const state = await loadState(stateFile, base.origin);
  const tag = Date.now().toString(36);
  const { profileCompleted: _, ...organizer } = await ensureAccount(rest, base, state.organizer, 'Organizer', `${tag}-org`);
  state.organizer = organizer;
  await saveState(stateFile, state);
  const event = await ensureEvent(rest, base, state, options.event, options.minutes);
  await saveState(stateFile, state);
  log(`event ${event.code} (${event.joinMode === 'qr' ? 'rotating QR' : 'code'}), accounts in ${stateFile}`);

  const progressTimer = setInterval(() => options.onProgress?.(tally.progress(rest)), SECOND);
  /** A new phase is told at once, not with the next second's figures: a Ctrl-C just after it is read in it. */
  const enter = (next: Progress['phase']) => {
    tally.phase = next;
    options.onProgress?.(tally.progress(rest));
  };

  const people: Attendee[] = [];
  const byId = new Map<number, Attendee>();
  /** Every `message:send` emitted, in order (so by deadline), from `awaitingFrom` on: `giveUpUnanswered` reads them. */
  let awaiting: Array<{ attendee: Attendee; clientId: string; at: number }> = [];
  let awaitingFrom = 0;
  /** Every `presence:list` asked, in order (so by deadline), from `presenceAsksFrom` on: `giveUpUnanswered` reads them too. */
  let presenceAsks: PresenceAsk[] = [];
  let presenceAsksFrom = 0;
  let unansweredTimer: NodeJS.Timeout | undefined;
  /** The drain's tries again of phones whose return or arrival failed (the wheel, which tries them during the party, is stopped). */
  const drainReturns = new Set<NodeJS.Timeout>();
  /** The run has returned: no phone connects any more. */
  let ended = false;
  /** Arrivals under way: one at a time for each phone. */
  const arrivalsUnderWay = new Set<Attendee>();
  /**
   * Returns under way: one at a time for each phone. The drain tries every phone still away again, and
   * one whose return is connecting would open a second socket: counted twice, the first left open.
   */
  const returnsUnderWay = new Set<Attendee>();
  const overlays = new MatchOverlays(
    (phone, conversationId) => byId.get(phone)?.conversations.has(conversationId) ?? false,
    (ms) => tally.overlayShown(ms),
  );
  let partyStarted = 0;
  let stopping = false;
  const leaveShare = options.leaveShare ?? 0.2;
  let hinted = false;
  const checkIn = door(rest, base, event);
  const wheel = new Wheel((index, action) => act(people[index]!, action), options.slotMs);

  try {
    const measureHeap = heapPerAttendee();
    const accounts = await attendeeAccounts(
      rest,
      base,
      state,
      stateFile,
      { attendees: options.attendees, fresh: options.fresh ?? false, concurrency: options.setupConcurrency ?? 16, tag },
      () => {
        tally.ready += 1;
      },
    );

    // ---------------------------------------------------------- phones
    for (const [index, account] of accounts.entries()) {
      const attendeeBase = instances[index % instances.length]!;
      const attendee: Attendee = {
        index,
        account,
        base: attendeeBase,
        socket: null as unknown as LeanSocket,
        online: false,
        away: false,
        connectedOnce: false,
        arriving: false,
        deck: [],
        deckStale: true,
        refreshWaiting: false,
        deckRetryAt: 0,
        deckRequest: null,
        swipedDuringRequest: null,
        conversations: new Map(),
        unacked: new Set(),
        typingIn: null,
        busy: false,
        disconnectedAt: null,
        connectedAt: null,
        catchUp: null,
        syncFrom: null,
        connectionsEnded: 0,
        presencePending: 0,
      };
      attendee.socket = new LeanSocket(attendeeBase.origin, { token: account.token }, {
        reconnect: { minDelayMs: 500, maxDelayMs: 5000 },
        events: SOCKET_EVENTS,
        onEvent: (_socket, name, payload) => onEvent(attendee, name, payload),
        onConnect: () => onConnect(attendee),
        onDisconnect: (_socket, reason) => {
          attendee.online = false;
          attendee.disconnectedAt = performance.now();
          tally.connected -= 1;
          // Its acknowledgements go with the connection: the app's ask fails, and the next connect asks again.
          attendee.connectionsEnded += 1;
          attendee.presencePending = 0;
          if (attendee.away) return;
          counts.drops += 1;
          if (reason === 'io server disconnect') counts.serverDisconnects += 1;
        },
        onReconnectError: (_socket, failure) => error(failure instanceof ConnectError ? `socket connect_error ${failure.message}` : 'socket reconnect failed'),
      });
      people.push(attendee);
      byId.set(account.id, attendee);
    }

    // From the first connect on: a `presence:list` is asked at each.
    unansweredTimer = setInterval(() => giveUpUnanswered(performance.now()), SECOND / 2);
    let heapKeptPerAttendee: number | null = null;
    if (arriveOverMs === 0) {
      enter('connect');
      await inPool(people, 200, async (attendee) => {
        try {
          await attendee.socket.connect();
        } catch (failure) {
          if (failure instanceof ConnectError) throw new SetupError(`the server refused a socket: ${failure.message}`);
          throw new SetupError(`cannot open a socket to ${attendee.base.origin}: ${(failure as Error).message}`);
        }
      });

      enter('check-in');
      await inPool(people, options.setupConcurrency ?? 16, async (attendee) => {
        await checkIn(attendee.base, attendee.account.token);
        counts.checkIns += 1;
      });
      heapKeptPerAttendee = measureHeap(people.length);
    }

    // ---------------------------------------------------------- the party
    enter('party');
    partyStarted = performance.now();
    for (const attendee of people) {
      if (arriveOverMs === 0) startActing(attendee);
      else wheel.schedule(attendee.index, ARRIVE, between(0, arriveOverMs));
    }
    const meter = new ToolMeter(rest, tally);
    wheel.start();
    await new Promise<void>((resolve) => {
      const end = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', end);
        resolve();
      };
      const timer = setTimeout(end, options.signal?.aborted ? 0 : partyMs);
      options.signal?.addEventListener('abort', end);
    });
    const interruptedAfter = options.signal?.aborted ? (performance.now() - partyStarted) / SECOND : null;

    // ---------------------------------------------------------- drain
    enter('drain');
    stopping = true;
    wheel.stop();
    wheel.clear();
    const drainStarted = performance.now();
    const everyoneBack = Promise.all([
      ...people.filter((attendee) => attendee.away).map((attendee) => comeBack(attendee)),
      // On their way in, their last try failed (its next one, on the wheel, is gone): tried again likewise.
      ...people.filter((attendee) => attendee.arriving && !attendee.connectedOnce).map((attendee) => arrive(attendee)),
    ]);
    const settled = () =>
      people.every((attendee) => (attendee.online || !came(attendee)) && !attendee.busy && attendee.unacked.size === 0 && attendee.presencePending === 0) &&
      rest.inFlight === 0 &&
      overlays.pending === 0 &&
      [...messages.values()].every((message) => message.delivered);
    // Anything that arrives: an answer, a delivery, a recovery, a reconnect.
    const arrivals = () =>
      counts.acknowledged + counts.delivered + counts.recovered + overlays.delivered + overlays.recovered + counts.reconnects + rest.answers;
    let lastArrivals = arrivals();
    let lastArrivalAt = performance.now();
    let cap: NodeJS.Timeout | undefined;
    await Promise.race([everyoneBack, new Promise((resolve) => (cap = setTimeout(resolve, DRAIN_MAX_MS)))]);
    clearTimeout(cap);
    while (!settled()) {
      const now = performance.now();
      if (arrivals() !== lastArrivals) [lastArrivals, lastArrivalAt] = [arrivals(), now];
      if (now - lastArrivalAt > drainQuietMs || now - drainStarted > DRAIN_MAX_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    meter.stop();

    // ---------------------------------------------------------- the figures
    const at = (time: number | null) => (time === null ? 'never' : `${((time - started) / SECOND).toFixed(1)} s`);
    // The first few, with what the other phone went through: enough to tell a race from a pattern.
    for (const { conversationId, phone, likedAt } of [...overlays.lost()].slice(0, LOST_OVERLAYS_TOLD)) {
      const other = byId.get(phone)!;
      const catchUp = other.catchUp ? `${at(other.catchUp.from)}–${at(other.catchUp.to)}, ${other.catchUp.listed} of 2 lists read` : 'none';
      log(
        `a match overlay was lost: conversation ${conversationId}, the like at ${at(likedAt)}; the other phone (${other.account.id}) ` +
          `${other.online ? 'online' : 'offline'}, its socket closed last at ${at(other.disconnectedAt)} and connected at ${at(other.connectedAt)}, its last catch-up ${catchUp}`,
      );
    }
    if (overlays.pending > LOST_OVERLAYS_TOLD) log(`… and ${overlays.pending - LOST_OVERLAYS_TOLD} more match overlays lost`);
    const run = {
      url: base.origin,
      instances: instances.map((each) => each.origin),
      attendees: people.length,
      minutes: options.minutes,
      interruptedAfter,
      event,
      stateFile,
      offlineAtEnd: people.filter((attendee) => !attendee.online && came(attendee)).length,
    };
    return tally.result(run, overlays, rest, meter.figures(heapKeptPerAttendee));
  } finally {
    stopping = true;
    ended = true;
    wheel.stop();
    clearInterval(progressTimer);
    clearInterval(unansweredTimer);
    for (const timer of drainReturns) clearTimeout(timer);
    for (const attendee of people) attendee.socket.close();
    rest.close();
  }

  // ------------------------------------------------------------ behaviour

  /** At the party, or on the way in: its phone should be online by the end (not one whose arrival never came). */
  function came(attendee: Attendee) {
    return attendee.connectedOnce || attendee.arriving;
  }

  function act(attendee: Attendee, action: number) {
    if (stopping) return;
    if (action === SWIPE) void swipe(attendee);
    else if (action === CHAT) chat(attendee);
    else if (action === SEND) send(attendee);
    else if (action === LEAVE) leave(attendee);
    else if (action === RECONNECT) void comeBack(attendee);
    else if (action === ARRIVE) void arrive(attendee);
    else if (action === SYNC) caughtUpAfterSync(attendee);
    else if (action === REFRESH) {
      attendee.refreshWaiting = false;
      attendee.deckStale = true;
    }
  }

  /** The attendee is there (connected and checked in): the first card within 5 s, the first message later. */
  function startActing(attendee: Attendee) {
    wheel.schedule(attendee.index, SWIPE, between(0, 5 * SECOND));
    wheel.schedule(attendee.index, CHAT, between(5, 20) * SECOND);
    // Leaves happen in the first 80 % of the party, after the arrival, so that everyone is back before it ends.
    if (Math.random() < leaveShare) {
      const sinceStart = performance.now() - partyStarted;
      const leaveAt = between(Math.max(0.1 * partyMs, sinceStart + 2 * SECOND), 0.8 * partyMs);
      wheel.schedule(attendee.index, LEAVE, leaveAt - sinceStart);
    }
  }

  /**
   * An attendee arriving during the party (`arriveOverSeconds`), as a phone does: the app opens (its
   * socket connects), the door's QR is scanned (check-in), and the app reads its conversations: matches
   * made while it was closed, by a guest of an earlier run on this event, are in the lists.
   */
  async function arrive(attendee: Attendee) {
    if (ended || arrivalsUnderWay.has(attendee)) return;
    attendee.arriving = true;
    arrivalsUnderWay.add(attendee);
    try {
      if (!attendee.connectedOnce) await attendee.socket.connect();
      await checkIn(attendee.base, attendee.account.token);
    } catch (failure) {
      error(`arrival ${failure instanceof ConnectError ? `socket connect_error ${failure.message}` : (failure as Error).message}`);
      if (!stopping) wheel.schedule(attendee.index, ARRIVE, 2 * SECOND);
      else inDrainAgain(() => arrive(attendee));
      return;
    } finally {
      arrivalsUnderWay.delete(attendee);
    }
    counts.checkIns += 1;
    void catchUp(attendee);
    startActing(attendee);
  }

  /** A REST call during the party: failures are counted, never thrown. */
  async function call<T>(attendee: Attendee, method: string, route: string, path: string, json?: unknown) {
    try {
      const reply = await rest.request<T>(attendee.base, method, route, path, { token: attendee.account.token, json });
      if (reply.status >= 400) error(`${route} ${reply.status}`);
      return reply;
    } catch (failure) {
      error(failure instanceof NetworkError ? `${route} no answer` : `${route} ${(failure as Error).message}`);
      return null;
    }
  }

  async function swipe(attendee: Attendee) {
    if (!attendee.online || attendee.busy) return wheel.schedule(attendee.index, SWIPE, between(2, 5) * SECOND);
    attendee.busy = true;
    try {
      if (attendee.deckStale) {
        attendee.deckStale = false;
        await askDeck(attendee);
      } else if (attendee.deck.length === 0 && (attendee.deckRequest || performance.now() >= attendee.deckRetryAt)) {
        await askDeck(attendee);
      }
      const other = attendee.deck.shift();
      if (other === undefined) return;
      attendee.swipedDuringRequest?.add(other);
      // Mostly likes: people at a party are there to meet.
      const roll = Math.random();
      const response = roll < likeShare ? 'like' : roll < likeShare + (1 - likeShare) * 0.625 ? 'dislike' : 'skip';
      counts.swipes += 1;
      if (response === 'like') counts.likes += 1;
      const likedAt = performance.now();
      const reply = await call<{ match: boolean; conversation_id: number | null }>(attendee, 'POST', 'POST /api/matching/', '/api/matching/', {
        response,
        other,
      });
      if (reply?.status === 200 && reply.body.match && reply.body.conversation_id !== null) completed(attendee, other, reply.body.conversation_id, likedAt);
      // As the app: the next cards are asked for while a few are left, once the reaction is answered,
      // so that the deck does not run dry between pages; the swipes go on meanwhile.
      if (attendee.deck.length <= DECK_REFILL_AT && !stopping) void askDeck(attendee);
    } finally {
      attendee.busy = false;
      if (!stopping) wheel.schedule(attendee.index, SWIPE, between(2, 5) * SECOND);
    }
  }

  /**
   * The deck's next cards, asked for as the app asks (client/stores/deck.ts): one request at a time,
   * its cards queued behind the deck less those already there or swiped while it was out.
   */
  function askDeck(attendee: Attendee): Promise<void> {
    attendee.deckRequest ??= (async () => {
      attendee.deckRetryAt = performance.now() + 30 * SECOND;
      attendee.swipedDuringRequest = new Set();
      try {
        const reply = await call<{ results: Array<{ id: number }> }>(attendee, 'GET', 'GET /api/users/matching-profiles/', '/api/users/matching-profiles/');
        if (reply?.status === 200) {
          const known = new Set([...attendee.deck, ...attendee.swipedDuringRequest]);
          for (const card of reply.body.results) if (!known.has(card.id)) attendee.deck.push(card.id);
        }
      } finally {
        attendee.deckRequest = null;
        attendee.swipedDuringRequest = null;
      }
    })();
    return attendee.deckRequest;
  }

  /** A conversation the phone has just heard of, with `otherId`: nothing seen or fetched in it yet. */
  function listConversation(attendee: Attendee, conversationId: number, otherId: number): Conversation {
    const conversation: Conversation = { id: conversationId, other: otherId, thread: new Thread(), fetched: null };
    attendee.conversations.set(conversationId, conversation);
    return conversation;
  }

  /** This like completed a pair: the other person's phone should show the overlay. */
  function completed(attendee: Attendee, otherId: number, conversationId: number, likedAt: number) {
    counts.matches += 1;
    if (!attendee.conversations.has(conversationId)) listConversation(attendee, conversationId, otherId);
    // Someone not of this party (an earlier run's guest) has no phone here to time.
    overlays.liked(conversationId, attendee.account.id, byId.has(otherId) ? otherId : null, likedAt);
  }

  function chat(attendee: Attendee) {
    wheel.schedule(attendee.index, CHAT, between(5, 20) * SECOND);
    if (!attendee.online || attendee.typingIn !== null || attendee.conversations.size === 0) return;
    const conversations = [...attendee.conversations.keys()];
    const conversationId = conversations[Math.floor(Math.random() * conversations.length)]!;
    attendee.typingIn = conversationId;
    attendee.socket.emit('typing', { conversation_id: conversationId });
    wheel.schedule(attendee.index, SEND, between(1, 3) * SECOND);
  }

  function send(attendee: Attendee) {
    const conversationId = attendee.typingIn;
    attendee.typingIn = null;
    if (conversationId === null || !attendee.online) return;
    const conversation = attendee.conversations.get(conversationId)!;
    const clientId = randomUUID();
    tally.seq += 1;
    messages.set(clientId, { sender: attendee, recipient: conversation.other, conversationId, seq: tally.seq, at: 0, answered: false, acked: false, delivered: false });
    counts.sent += 1;
    attendee.unacked.add(clientId);
    emitMessage(attendee, clientId);
  }

  function emitMessage(attendee: Attendee, clientId: string) {
    const message = messages.get(clientId)!;
    message.at = performance.now();
    message.answered = false;
    const emitted = attendee.socket.emit(
      'message:send',
      { conversation_id: message.conversationId, content: `Hello! (${message.seq})`, client_id: clientId },
      (reply: Ack<{ message: Message }>) => {
        message.answered = true;
        if (reply.ok) {
          if (!attendee.unacked.delete(clientId)) return;
          counts.acknowledged += 1;
          message.acked = true;
          if (message.delivered || !byId.has(message.recipient)) messages.delete(clientId);
          return;
        }
        // Shutting down: sent again after the reconnect (same client_id).
        if (reply.error.code === 'unavailable') return;
        attendee.unacked.delete(clientId);
        messages.delete(clientId);
        counts.refused += 1;
        error(`message:send ${reply.error.code}`);
        if (reply.error.code === 'throttled') throttledOnce();
      },
    );
    // Not emitted (the socket is down): sent again at the reconnect.
    if (emitted) awaiting.push({ attendee, clientId, at: message.at });
  }

  /**
   * The sends still unanswered on the connection they went out on after UNANSWERED_MS: the phone
   * drops that connection as dead, as the app does; the reconnect sends them again. The message is still
   * timed and counted when it arrives (it may have been stored: the resend is answered with it).
   * Likewise a `presence:list`: the reconnect asks again.
   */
  function giveUpUnanswered(now: number) {
    giveUpPresence(now);
    while (awaitingFrom < awaiting.length && now - awaiting[awaitingFrom]!.at >= UNANSWERED_MS) {
      const { attendee, clientId, at } = awaiting[awaitingFrom]!;
      awaitingFrom += 1;
      // Answered, or sent again since (after a reconnect): not this send's to give up.
      const message = messages.get(clientId);
      if (!message || message.answered || message.at !== at || !attendee.socket.connected) continue;
      error(`message:send no answer within ${UNANSWERED_MS / SECOND} s`);
      attendee.socket.drop();
    }
    if (awaitingFrom > 1024 && awaitingFrom * 2 > awaiting.length) {
      awaiting = awaiting.slice(awaitingFrom);
      awaitingFrom = 0;
    }
  }

  function giveUpPresence(now: number) {
    while (presenceAsksFrom < presenceAsks.length && now - presenceAsks[presenceAsksFrom]!.at >= UNANSWERED_MS) {
      const ask = presenceAsks[presenceAsksFrom]!;
      presenceAsksFrom += 1;
      // Answered, or let go with a connection that has ended since.
      if (!ask.open || ask.connection !== ask.attendee.connectionsEnded) continue;
      ask.open = false;
      ask.attendee.presencePending -= 1;
      error(`presence:list no answer within ${UNANSWERED_MS / SECOND} s`);
      ask.attendee.socket.drop();
    }
    if (presenceAsksFrom > 1024 && presenceAsksFrom * 2 > presenceAsks.length) {
      presenceAsks = presenceAsks.slice(presenceAsksFrom);
      presenceAsksFrom = 0;
    }
  }

  function leave(attendee: Attendee) {
    if (!attendee.online) return;
    attendee.away = true;
    attendee.socket.close();
    wheel.schedule(attendee.index, RECONNECT, between(2, 10) * SECOND);
  }

  async function comeBack(attendee: Attendee) {
    if (!attendee.away || ended || returnsUnderWay.has(attendee)) return;
    returnsUnderWay.add(attendee);
    try {
      await attendee.socket.connect();
      attendee.away = false;
    } catch (failure) {
      error(failure instanceof ConnectError ? `socket connect_error ${failure.message}` : 'socket reconnect failed');
      if (!stopping) wheel.schedule(attendee.index, RECONNECT, 2 * SECOND);
      else inDrainAgain(() => comeBack(attendee));
    } finally {
      returnsUnderWay.delete(attendee);
    }
  }

  /** The drain: what failed is tried again as during the party, 2 s later, until it is over (its end closes every socket). */
  function inDrainAgain(again: () => Promise<void>) {
    if (ended) return;
    const timer = setTimeout(() => {
      drainReturns.delete(timer);
      void again();
    }, 2 * SECOND);
    drainReturns.add(timer);
  }

  function onConnect(attendee: Attendee) {
    attendee.online = true;
    attendee.connectedAt = performance.now();
    tally.connected += 1;
    askPresence(attendee);
    if (!attendee.connectedOnce) {
      attendee.connectedOnce = true;
      return;
    }
    counts.reconnects += 1;
    tally.reconnect.record(attendee.socket.handshakeMs);
    // What a phone does after a reconnect: send again what was not acknowledged, fetch what it missed.
    for (const clientId of attendee.unacked) {
      resent.add(clientId);
      emitMessage(attendee, clientId);
    }
    void catchUp(attendee);
    void askAfterReconnect(attendee);
  }

  /** As the app at every connect: which of its matches are online (the dots), then `presence` events keep it. */
  function askPresence(attendee: Attendee) {
    const ask: PresenceAsk = { attendee, connection: attendee.connectionsEnded, at: performance.now(), open: true };
    const emitted = attendee.socket.emit('presence:list', {}, (reply: Ack<{ online: number[] }>) => {
      // Given up already: the app has stopped waiting for it.
      if (!ask.open) return;
      ask.open = false;
      attendee.presencePending -= 1;
      if (!reply.ok) return error(`presence:list ${reply.error.code}`);
      tally.presenceList.record(performance.now() - ask.at);
    });
    if (!emitted) return;
    attendee.presencePending += 1;
    presenceAsks.push(ask);
  }

  /** After `sync` (the servers' Redis came back), at its moment within the spread: as after a reconnect, and who is online. */
  function caughtUpAfterSync(attendee: Attendee) {
    const from = attendee.syncFrom ?? undefined;
    attendee.syncFrom = null;
    if (!attendee.online) return;
    void catchUp(attendee, from);
    void askAfterReconnect(attendee);
    askPresence(attendee);
  }

  /**
   * What else the app reads once its socket is back (client/stores/realtime.ts), so that a party's
   * reconnects weigh on the server as a room of phones coming back does: where it is checked in, the
   * deck afresh (who arrived meanwhile) and the likes left beside it.
   */
  async function askAfterReconnect(attendee: Attendee) {
    await Promise.all([
      call(attendee, 'GET', 'GET /api/events/current/', '/api/events/current/'),
      askDeck(attendee),
      call(attendee, 'GET', 'GET /api/matching/allowance/', '/api/matching/allowance/'),
    ]);
  }

  /** Where each thread stands now: the last message heard in it with none missing before it. */
  function cursorsOf(attendee: Attendee) {
    return new Map([...attendee.conversations.values()].map((conversation) => [conversation.id, conversation.thread.heardTo]));
  }

  /** The client's catch-up after a reconnect: new matches, then messages after the last one held. */
  async function catchUp(attendee: Attendee, from = cursorsOf(attendee)) {
    // As the app does: each thread from where it stood when the socket came back (or `sync` was
    // heard), with none missing before it. What the socket brings meanwhile may have overtaken a
    // message still on its way, so it is no cursor here.
    const progress = (attendee.catchUp = { from: performance.now(), to: null as number | null, listed: 0 });
    for (const list of ['empty', 'started'] as const) {
      const reply = await call<{ results: Array<{ id: number; other_user_id: number }> }>(
        attendee,
        'GET',
        `GET /api/conversations/${list}/`,
        `/api/conversations/${list}/`,
      );
      if (reply?.status !== 200) continue;
      progress.listed += 1;
      for (const summary of reply.body.results) {
        if (attendee.conversations.has(summary.id)) continue;
        listConversation(attendee, summary.id, summary.other_user_id);
        overlays.learned(summary.id, attendee.account.id);
      }
    }
    progress.to = performance.now();
    for (const conversation of attendee.conversations.values()) {
      const fetched = (conversation.fetched ??= new Set());
      let after = from.get(conversation.id) ?? 0;
      for (;;) {
        const reply = await call<{ results: Message[] }>(
          attendee,
          'GET',
          'GET /api/conversations/:id/messages/?after',
          `/api/conversations/${conversation.id}/messages/?after=${after}&limit=100`,
        );
        if (reply?.status !== 200) break;
        for (const message of reply.body.results) {
          after = Math.max(after, message.id);
          if (message.sender === attendee.account.id) continue;
          fetched.add(message.id);
          const sent = message.client_id ? messages.get(message.client_id) : undefined;
          if (sent && !sent.delivered) {
            sent.delivered = true;
            counts.recovered += 1;
            if (sent.acked) messages.delete(message.client_id!);
          }
        }
        conversation.thread.fetched(after);
        if (reply.body.results.length < 100) break;
      }
    }
  }

  function onEvent(attendee: Attendee, name: string, payload: unknown) {
    if (name === 'message:new') return received(attendee, payload as MessageNew);
    if (name === 'match:new') return matched(attendee, payload as { conversation_id: number; user: MatchUser });
    if (name === 'deck:refresh') {
      // The app fetches at a random moment within the server's window, once for every refresh heard meanwhile.
      if (attendee.refreshWaiting) return;
      attendee.refreshWaiting = true;
      wheel.schedule(attendee.index, REFRESH, Math.random() * (payload as { within_ms: number }).within_ms);
    } else if (name === 'sync') {
      // Every phone hears it at once: the app fetches at a random moment within SYNC_SPREAD_MS, from
      // where its threads stood then. A second one heard meanwhile is covered by the first.
      if (attendee.syncFrom) return;
      attendee.syncFrom = cursorsOf(attendee);
      wheel.schedule(attendee.index, SYNC, Math.random() * SYNC_SPREAD_MS);
    }
  }

  function received(attendee: Attendee, { conversation_id: conversationId, message, previous_id: previousId }: MessageNew) {
    const mine = message.sender === attendee.account.id;
    let conversation = attendee.conversations.get(conversationId);
    if (!conversation) {
      if (mine) return;
      // A conversation this phone had not heard of: a match made while its socket was down that the
      // catch-up has not listed yet (its first news, for the overlays), or one of an earlier run's.
      conversation = listConversation(attendee, conversationId, message.sender);
      overlays.learned(conversationId, attendee.account.id);
    }
    // Its own messages too: the thread is heard with none missing, whoever wrote them.
    const news = conversation.thread.pushed(message.id, previousId);
    if (mine) return;
    if (!news) {
      // Fetched by the catch-up and pushed too, or pushed again for its resend: the client shows it once.
      if (conversation.fetched?.has(message.id) || (message.client_id && resent.has(message.client_id))) return;
      counts.duplicated += 1;
      error('message:new seen twice');
      return;
    }
    if (!message.client_id) return;
    const sent = messages.get(message.client_id);
    if (!sent || sent.delivered) {
      // A client_id already delivered under another id: stored twice.
      if (sent || /^[0-9a-f-]{36}$/.test(message.client_id)) {
        counts.duplicated += 1;
        error('message stored twice (one client_id, two ids)');
      }
      return;
    }
    sent.delivered = true;
    counts.delivered += 1;
    tally.deliveredIn(performance.now() - sent.at);
    if (sent.acked) messages.delete(message.client_id);
  }

  function matched(attendee: Attendee, { conversation_id: conversationId, user }: { conversation_id: number; user: MatchUser }) {
    if (attendee.conversations.has(conversationId)) return;
    listConversation(attendee, conversationId, user.id);
    overlays.heard(conversationId, attendee.account.id, performance.now());
  }

  function throttledOnce() {
    if (hinted) return;
    hinted = true;
    log(`the server throttled a simulated phone: ${THROTTLE_HINT}`);
  }
}

export { SetupError };
export const machine = () => `${os.cpus().length} CPUs, load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}`;

/** A party's errors by kind, for a summary line: `none`, or each with its count. */
export const errorsText = (errors: PartyResult['counts']['errors']) => {
  const kinds = Object.entries(errors);
  return kinds.length ? kinds.map(([what, n]) => `${what} ×${n}`).join(', ') : 'none';
};

/** The tool's own waits, for a summary line: they are in what it times, so a reader weighs them first. */
export const heapText = (kb: number | null) => (kb === null ? 'heap per attendee not measured (they arrived during the party)' : `${kb} KB heap per attendee`);
export const toolWaitsText = ({ event_loop_delay_ms: loop, rest_pool_wait_ms: pool }: PartyResult['tool']) =>
  `its event-loop delay p99 ${loop.p99} / max ${loop.max} ms (in every latency it times), ` +
  `a REST call's wait for one of its connections p99 ${pool.p99} / max ${pool.max} ms (in the REST latencies and the match overlay)`;
