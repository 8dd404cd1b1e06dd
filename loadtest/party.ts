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
 *
 * `runParty` sets the run up and leads it through its phases (setup, connect, check-in, party, drain);
 * what each phone does is in attendee.ts, what is counted and timed in tally.ts, the sends and asks
 * left unanswered in unanswered.ts, the tool's own cost in tool-meter.ts, the setup steps in setup.ts,
 * what it gives back (its live figures, its result) in result.ts.
 */
import os from 'node:os';
import { Attendee, type Party } from './attendee';
import { ConnectError } from './lean-socket';
import { MatchOverlays } from './overlays';
import { openFilesProblem } from './open-files';
import { Rest } from './rest';
import type { PartyResult, Progress } from './result';
import {
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
} from './setup';
import { Tally } from './tally';
import { heapPerAttendee, ToolMeter } from './tool-meter';
import { Unanswered } from './unanswered';
import { Wheel } from './wheel';

export type { PartyResult, Progress } from './result';

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


/** How many lost match overlays the log describes one by one. */
const LOST_OVERLAYS_TOLD = 5;

const SECOND = 1000;
/**
 * After the party, answers and deliveries may still arrive: the drain waits while they do, and what
 * has not come once this long passes with nothing new arriving counts as lost (unless
 * `drainQuietSeconds` says how long). A busy server's catch-ups (after the reconnects the party's end
 * forces) take seconds each, and are no loss.
 */
const DRAIN_QUIET_MS = 10_000;
/** The drain's end, whatever still arrives. */
export const DRAIN_MAX_MS = 120_000;

export async function runParty(options: PartyOptions): Promise<PartyResult> {
  const log = options.log ?? (() => {});
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
  const overlays = new MatchOverlays(
    (phone, conversationId) => byId.get(phone)?.conversations.has(conversationId) ?? false,
    (ms) => tally.overlayShown(ms),
  );
  const party: Party = {
    rest,
    wheel: new Wheel((index, action) => people[index]!.act(action), options.slotMs),
    tally,
    overlays,
    unanswered: new Unanswered(tally),
    byId,
    checkIn: door(rest, base, event),
    likeShare: options.likeShare ?? 0.6,
    leaveShare: options.leaveShare ?? 0.2,
    partyMs,
    partyStarted: 0,
    stopping: false,
    ended: false,
    drainRetries: new Set(),
    throttleTold: false,
    log,
  };

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
      const attendee = new Attendee(index, account, instances[index % instances.length]!, party);
      people.push(attendee);
      byId.set(account.id, attendee);
    }

    // From the first connect on: a `presence:list` is asked at each.
    party.unanswered.start();
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
        await party.checkIn(attendee.base, attendee.account.token);
        tally.counts.checkIns += 1;
      });
      heapKeptPerAttendee = measureHeap(people.length);
    }

    // ---------------------------------------------------------- the party
    enter('party');
    party.partyStarted = performance.now();
    for (const attendee of people) {
      if (arriveOverMs === 0) attendee.startActing();
      else attendee.arriveWithin(arriveOverMs);
    }
    const meter = new ToolMeter(rest, tally);
    party.wheel.start();
    await partyOver(partyMs, options.signal);
    const interruptedAfter = options.signal?.aborted ? (performance.now() - party.partyStarted) / SECOND : null;

    // ---------------------------------------------------------- drain
    enter('drain');
    party.stopping = true;
    party.wheel.stop();
    party.wheel.clear();
    await drain(party, people, drainQuietMs);
    meter.stop();

    // ---------------------------------------------------------- the figures
    tellLostOverlays(log, overlays, byId, started);
    const run = {
      url: base.origin,
      instances: instances.map((each) => each.origin),
      attendees: people.length,
      minutes: options.minutes,
      interruptedAfter,
      event,
      stateFile,
      offlineAtEnd: people.filter((attendee) => !attendee.online && attendee.came).length,
    };
    return tally.result(run, overlays, rest, meter.figures(heapKeptPerAttendee));
  } finally {
    party.stopping = true;
    party.ended = true;
    party.wheel.stop();
    clearInterval(progressTimer);
    party.unanswered.stop();
    for (const timer of party.drainRetries) clearTimeout(timer);
    for (const attendee of people) attendee.socket.close();
    rest.close();
  }
}

/** The party's length, or its end by `signal` (Ctrl-C) before then. */
function partyOver(partyMs: number, signal: AbortSignal | undefined) {
  return new Promise<void>((resolve) => {
    const end = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', end);
      resolve();
    };
    const timer = setTimeout(end, signal?.aborted ? 0 : partyMs);
    signal?.addEventListener('abort', end);
  });
}

/**
 * After the party: the phones away come back, those on their way in arrive, and what was sent is
 * waited for while anything still arrives (`drainQuietMs`), DRAIN_MAX_MS at most.
 */
async function drain(party: Party, people: Attendee[], drainQuietMs: number) {
  const { rest, tally, overlays } = party;
  const { counts } = tally;
  const drainStarted = performance.now();
  const everyoneBack = Promise.all([
    ...people.filter((attendee) => attendee.away).map((attendee) => attendee.comeBack()),
    // On their way in, their last try failed (its next one, on the wheel, is gone): tried again likewise.
    ...people.filter((attendee) => attendee.arriving && !attendee.connectedOnce).map((attendee) => attendee.arrive()),
  ]);
  const settled = () =>
    people.every((attendee) => attendee.settled) &&
    rest.inFlight === 0 &&
    overlays.pending === 0 &&
    [...tally.messages.values()].every((message) => message.delivered);
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
}

/** The first few lost match overlays, with what the other phone went through: enough to tell a race from a pattern. */
function tellLostOverlays(log: (line: string) => void, overlays: MatchOverlays, byId: Map<number, Attendee>, started: number) {
  const at = (time: number | null) => (time === null ? 'never' : `${((time - started) / SECOND).toFixed(1)} s`);
  for (const { conversationId, phone, likedAt } of [...overlays.lost()].slice(0, LOST_OVERLAYS_TOLD)) {
    const other = byId.get(phone)!;
    const catchUp = other.lastCatchUp ? `${at(other.lastCatchUp.from)}–${at(other.lastCatchUp.to)}, ${other.lastCatchUp.listed} of 2 lists read` : 'none';
    log(
      `a match overlay was lost: conversation ${conversationId}, the like at ${at(likedAt)}; the other phone (${other.account.id}) ` +
        `${other.online ? 'online' : 'offline'}, its socket closed last at ${at(other.disconnectedAt)} and connected at ${at(other.connectedAt)}, its last catch-up ${catchUp}`,
    );
  }
  if (overlays.pending > LOST_OVERLAYS_TOLD) log(`… and ${overlays.pending - LOST_OVERLAYS_TOLD} more match overlays lost`);
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

