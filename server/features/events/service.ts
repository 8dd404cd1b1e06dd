import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, lt, type SQL, sql, type SQLWrapper } from 'drizzle-orm';
import QRCode from 'qrcode';
import {
  EVENT_CHECK_IN_LEAD_MINUTES,
  EVENT_CODE_ALPHABET,
  EVENT_CODE_LENGTH,
  JOIN_PASS_MINUTES,
  QR_EARLY_SECONDS,
  QR_WINDOW_SECONDS,
} from '../../../shared/constants';
import {
  type CheckInInput,
  type EventErrorCode,
  type EventInput,
  type EventQr,
  type EventStats,
  type EventStatus,
  type EventUpdate,
  eventTimeIssues,
  type OrganizerEvent,
  type PublicEvent,
} from '../../../shared/schemas/events';
import { z } from '../../../shared/schemas/zod';
import { eventStatusAt } from '../../../shared/event-status';
import { type ServerText, serverText } from '../../../shared/i18n/server-messages';
import { type Db, type DbOrTx, PreparedStatement, rowsOf, transactionInOneRoundTrip } from '../../db/client';
import { attendances, conversations, events, eventTallies, messages, reactions, users } from '../../db/schema';
import { AccountSuspended, ApiError, Conflict, type FieldMessages, NotFound, SessionEnded, ValidationError } from '../../errors';
import { type Slice, sliceOf } from '../../lib/page';
import type { Sealer } from '../../lib/sealed';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/pg-errors';
import { banLockShared } from '../matching/locks';
import { attendeeCountStatement, currentEventStatement, eventIsLive } from './queries';
import { slotOf } from './tallies';

const MINUTE_MS = 60_000;
const WINDOW_MS = QR_WINDOW_SECONDS * 1000;
const EARLY_MS = QR_EARLY_SECONDS * 1000;
/** 128 bits of HMAC-SHA256 (no fewer than 96 may do), 22 base64url characters in the QR. */
const TOKEN_BYTES = 16;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;
const PASS_PURPOSE = 'event-pass';

/** An event as the service reads it: the row less its secret's use, plus its current attendees. */
export interface EventRecord {
  id: number;
  code: string;
  name: string;
  venue: string;
  startsAt: Date;
  endsAt: Date;
  joinMode: 'qr' | 'code';
  organizerId: number | null;
  qrSecret: string | null;
  createdAt: Date;
  /** Open attendances; counted as current only while the event has not lapsed (`present`). */
  openCount: number;
}

/** Where an event is in its life, by the clock `now` (`eventStatusAt`). */
export const eventStatus = (event: Pick<EventRecord, 'startsAt' | 'endsAt'>, now = Date.now()): EventStatus =>
  eventStatusAt(event.startsAt.getTime(), event.endsAt.getTime(), now);

export function presentEvent(event: EventRecord, now = Date.now()): PublicEvent {
  const status = eventStatus(event, now);
  return {
    id: event.id,
    code: event.code,
    name: event.name,
    venue: event.venue,
    starts_at: event.startsAt.toISOString(),
    ends_at: event.endsAt.toISOString(),
    join_mode: event.joinMode,
    status,
    attendee_count: status === 'closed' ? 0 : event.openCount,
  };
}

export const presentOrganizerEvent = (event: EventRecord, now = Date.now()): OrganizerEvent => ({
  ...presentEvent(event, now),
  is_organizer: true,
});

/** How many attendances of the event are open (whether they count as current is `presentEvent`'s call). */
const openAttendancesOf = (eventId: SQLWrapper) =>
  sql<number>`(select count(*)::int from ${attendances} a where a.event_id = ${eventId} and a.left_at is null)`;

const eventColumns = {
  id: events.id,
  code: events.code,
  name: events.name,
  venue: events.venue,
  startsAt: events.startsAt,
  endsAt: events.endsAt,
  joinMode: events.joinMode,
  organizerId: events.organizerId,
  qrSecret: events.qrSecret,
  createdAt: events.createdAt,
  openCount: openAttendancesOf(events.id).mapWith(Number),
};

export async function findEventByCode(db: Db, code: string): Promise<EventRecord | null> {
  const [row] = await eventByCodeStatement.run<EventRow>(db, { code });
  return row ? eventRecordOf(row) : null;
}

export async function findEventById(db: Db, id: number): Promise<EventRecord | null> {
  const [row] = await eventByIdStatement.run<EventRow>(db, { id });
  return row ? eventRecordOf(row) : null;
}

/**
 * An event by its id or its code, prepared: every check-in reads its event twice and every load of the
 * app asks for the current one, and drizzle built the statement's text at each call. Times come as
 * epoch milliseconds, which both drivers answer alike (drizzle's own columns read them as text).
 */
type EventRow = Omit<EventRecord, 'startsAt' | 'endsAt' | 'createdAt' | 'openCount'> & {
  startsMs: number;
  endsMs: number;
  createdMs: number;
  openCount: number;
};
const eventStatement = <Values extends Record<string, unknown>>(where: SQL) =>
  new PreparedStatement<Values>(sql`
    select e.id, e.code, e.name, e.venue, e.join_mode as "joinMode", e.organizer_id as "organizerId",
      e.qr_secret as "qrSecret",
      floor(extract(epoch from e.starts_at) * 1000)::float8 as "startsMs",
      floor(extract(epoch from e.ends_at) * 1000)::float8 as "endsMs",
      floor(extract(epoch from e.created_at) * 1000)::float8 as "createdMs",
      ${openAttendancesOf(sql`e.id`)} as "openCount"
    from ${events} e where ${where}`);
const eventByIdStatement = eventStatement<{ id: number }>(sql`e.id = ${sql.placeholder('id')}::int`);
const eventByCodeStatement = eventStatement<{ code: string }>(sql`e.code = ${sql.placeholder('code')}::text`);

const eventRecordOf = ({ startsMs, endsMs, createdMs, ...row }: EventRow): EventRecord => ({
  ...row,
  id: Number(row.id),
  organizerId: row.organizerId === null ? null : Number(row.organizerId),
  startsAt: new Date(Number(startsMs)),
  endsAt: new Date(Number(endsMs)),
  createdAt: new Date(Number(createdMs)),
  openCount: Number(row.openCount),
});

/** The event, if this user organizes it; anyone else is told it does not exist (404). */
export async function findOrganizedEvent(db: Db, id: number, userId: number): Promise<EventRecord | null> {
  const event = await findEventById(db, id);
  return event && event.organizerId === userId ? event : null;
}

function newEventCode(): string {
  let code = '';
  for (let i = 0; i < EVENT_CODE_LENGTH; i++) code += EVENT_CODE_ALPHABET[randomInt(EVENT_CODE_ALPHABET.length)];
  return code;
}

/** Creates an event for its organizer, with a fresh code (drawn again on the rare collision) and secret. */
export async function createEvent(db: Db, organizerId: number, input: EventInput) {
  for (let attempt = 0; ; attempt++) {
    try {
      const [row] = await db
        .insert(events)
        .values({
          code: newEventCode(),
          name: input.name,
          venue: input.venue,
          startsAt: new Date(input.starts_at),
          endsAt: new Date(input.ends_at),
          joinMode: input.join_mode,
          organizerId,
          qrSecret: randomBytes(32).toString('base64url'),
        })
        .returning({ id: events.id });
      return (await findEventById(db, row!.id))!;
    } catch (error) {
      // 31^6 codes: a collision is rare, two in a row rarer still.
      if (attempt < 5 && isUniqueViolation(error, 'events_code_unique')) continue;
      // The organizer's account was deleted while the request was on its way (another phone).
      if (isForeignKeyViolation(error)) throw new SessionEnded();
      throw error;
    }
  }
}

export type EventListPosition = { id: number };
export const EventListPositionSchema: z.ZodType<EventListPosition> = z.object({ id: z.number().int().min(1).max(2_147_483_647) });

/**
 * "My events": the ones this user organizes, newest first. None at all for a request that passed
 * sign-in just before its account was deleted (another phone): the session ended with the account.
 */
export async function listOrganizedEvents(
  db: Db,
  organizerId: number,
  options: { after: EventListPosition | null; limit: number },
): Promise<Slice<OrganizerEvent, EventListPosition>> {
  const rows = await db
    .select(eventColumns)
    .from(events)
    .where(and(eq(events.organizerId, organizerId), options.after ? lt(events.id, options.after.id) : undefined))
    .orderBy(desc(events.id))
    .limit(options.limit + 1);
  if (rows.length === 0 && !(await accountExists(db, organizerId))) throw new SessionEnded();
  const now = Date.now();
  return sliceOf(rows, options.limit, (row) => presentOrganizerEvent(row, now), (row) => ({ id: row.id }));
}

/**
 * The user's current event (an open attendance, not lapsed), or null. A request that passed sign-in
 * just before its account was deleted is told its session ended, not that it is at no event.
 */
export async function currentEventOf(db: Db, userId: number): Promise<EventRecord | null> {
  const [row] = await currentEventStatement.run<{ event_id: number | null }>(db, { userId });
  if (!row || row.event_id === null) {
    if (!(await accountExists(db, userId))) throw new SessionEnded();
    return null;
  }
  return findEventById(db, Number(row.event_id));
}

async function accountExists(db: Db, userId: number): Promise<boolean> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
  return user !== undefined;
}

export async function currentEventIdOfUser(db: Db, userId: number): Promise<number | null> {
  const [row] = await currentEventStatement.run<{ event_id: number | null }>(db, { userId });
  return row?.event_id == null ? null : Number(row.event_id);
}

export async function attendeeCount(db: Db, eventId: number): Promise<number> {
  const [row] = await attendeeCountStatement.run<{ count: number }>(db, { eventId });
  return Number(row?.count ?? 0);
}

// Rotating QR tokens.

export const qrWindowAt = (now: number) => Math.floor(now / WINDOW_MS);
/**
 * The window whose token is handed out at `now`: the next one in the last seconds before the turn. The
 * host screen asks then and swaps the new code in before the turn, so that every code it shows is good
 * for a full window after the next swap. A photo of one lives those seconds longer (two minutes and
 * five, not two); in return a token handed out by an instance whose clock runs a little ahead is still
 * taken by the others.
 */
const issuedWindowAt = (now: number) => qrWindowAt(now + EARLY_MS);

/** The token of one window: HMAC-SHA256 of (event id, window) under the event's own secret, cut to 128 bits. */
export function qrToken(event: { id: number; qrSecret: string }, window: number): string {
  return createHmac('sha256', Buffer.from(event.qrSecret, 'base64url'))
    .update(`${event.id}:${window}`)
    .digest()
    .subarray(0, TOKEN_BYTES)
    .toString('base64url');
}

/**
 * The current window's token is good, and so is the previous one's: a photo of the code is dead two
 * minutes on. So is the next one's once it is handed out, in the last seconds before the turn.
 */
export function isValidQrToken(event: Pick<EventRecord, 'id' | 'qrSecret'>, token: string, now = Date.now()): boolean {
  const { id, qrSecret } = event;
  // The organizer deleted their account, and the secret with it: no token is good any more.
  if (qrSecret === null || !TOKEN_PATTERN.test(token)) return false;
  // Compared as text, not decoded: a token's last character carries spare bits, and only the one
  // spelling the server made is good.
  const given = Buffer.from(token, 'ascii');
  const window = qrWindowAt(now);
  let valid = false;
  // All compared every time, in constant time (the first is the current window except near a turn).
  for (const candidate of [issuedWindowAt(now), window, window - 1]) {
    if (timingSafeEqual(given, Buffer.from(qrToken({ id, qrSecret }, candidate), 'ascii'))) valid = true;
  }
  return valid;
}

/**
 * What the host screen shows now: the token, its link, the code drawn as SVG, and when it stops working.
 * None once the event has ended: a code that lets no one in would still look like a way in.
 */
export async function currentQr(event: EventRecord, publicUrl: string, now = Date.now()): Promise<EventQr> {
  const status = eventStatus(event, now);
  if (status === 'after' || status === 'closed') throw eventError(409, 'ended', serverText('event_ended'));
  const window = issuedWindowAt(now);
  // Organizer routes only ever find events whose organizer is there, and so is their secret.
  if (event.qrSecret === null) throw new Error(`event ${event.id} has no QR secret`);
  const token = qrToken({ id: event.id, qrSecret: event.qrSecret }, window);
  const url = `${publicUrl}/e/${event.code}?t=${token}`;
  const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  // Accepted through the next window too.
  const expires = (window + 2) * WINDOW_MS;
  return { token, url, svg, expires_at: new Date(expires).toISOString(), expires_in_ms: expires - now };
}

// Join passes.

const PassValue = z.object({ event: z.number().int() });

/** A token from the door, exchanged for 30 minutes in which to sign up and check in without scanning again. */
export function issueJoinPass(sealer: Sealer, event: EventRecord, token: string, now = Date.now()) {
  if (!isValidQrToken(event, token, now)) throw eventError(403, 'qr_expired', serverText('event_qr_expired'));
  const expiresAt = new Date(now + JOIN_PASS_MINUTES * MINUTE_MS);
  return {
    pass: sealer.seal(PASS_PURPOSE, { event: event.id }, { expiresAt }),
    expires_at: expiresAt.toISOString(),
    expires_in_ms: JOIN_PASS_MINUTES * MINUTE_MS,
  };
}

/**
 * Whether a pass is ours, unexpired and for this event, and the event still lets people in by QR: its
 * secret goes when the organizer's account does, and the passes issued before with it.
 */
export function isValidJoinPass(sealer: Sealer, event: EventRecord, pass: string): boolean {
  if (event.qrSecret === null) return false;
  const parsed = PassValue.safeParse(sealer.open(PASS_PURPOSE, pass));
  return parsed.success && parsed.data.event === event.id;
}

/**
 * What the door's limits read of a pass's event: its window, and whether it still lets people in by QR
 * and its organizer's e-mail is verified (an account made for the purpose lends no door) and they are
 * not banned.
 */
const passEventStatement = new PreparedStatement<{ id: number }>(sql`
  select floor(extract(epoch from e.starts_at) * 1000)::float8 as "startsMs",
    floor(extract(epoch from e.ends_at) * 1000)::float8 as "endsMs"
  from ${events} e join ${users} u on u.id = e.organizer_id
  where e.id = ${sql.placeholder('id')}::int and e.qr_secret is not null and u.email_verified_at is not null
    and u.banned_at is null`);

/**
 * The event a sign-up or sign-in's pass lets it count against (`auth/door-limit.ts`): its id when the
 * pass is ours and unexpired, and its event still lets people in by QR, is open for check-in now, and
 * is organized by someone whose e-mail is verified and who is not banned; otherwise null. One indexed row and its
 * organizer's, none of the attendances' count.
 */
export async function openEventOfPass(db: Db, sealer: Sealer, pass: string, now = Date.now()): Promise<number | null> {
  const parsed = PassValue.safeParse(sealer.open(PASS_PURPOSE, pass));
  if (!parsed.success) return null;
  const [row] = await passEventStatement.run<{ startsMs: number; endsMs: number }>(db, { id: parsed.data.event });
  return row && eventStatusAt(Number(row.startsMs), Number(row.endsMs), now) === 'open' ? parsed.data.event : null;
}

/** Errors of the check-in, with a machine `code` beside `detail`. */
export const eventError = (status: 403 | 409, code: EventErrorCode, detail: ServerText) => new ApiError(status, { detail, code });

export interface CheckInOutcome {
  event: EventRecord;
  /** False when the user was already checked in there: nothing changed, nobody is told. */
  changed: boolean;
  /** The event the user was at until now, left by this check-in. */
  previousEventId: number | null;
}

/** Every check-in of one user queues here (one lock key per user, in a key space of its own). */
export const CHECK_IN_LOCK_SPACE = 16;

/**
 * Checks the user in to the event of `code`: the window, then the proof of presence a `qr` event asks
 * of anyone but its organizer, then, in one transaction sent in one round trip, leaving any other event
 * and opening (or reopening) the attendance here. The partial unique index keeps "one current event"
 * true whatever races.
 */
export async function checkIn(
  db: Db,
  sealer: Sealer,
  userId: number,
  code: string,
  input: CheckInInput,
  now = Date.now(),
): Promise<CheckInOutcome> {
  const event = await findEventByCode(db, code);
  if (!event) throw new NotFound();
  // Already here: nothing to grant, so nothing sent is judged (a guest scanning the door's code again
  // from a photo, its token rotated since, is not told they may not come in).
  if ((await currentEventIdOfUser(db, userId)) === event.id) return { event, changed: false, previousEventId: null };

  const status = eventStatus(event, now);
  if (status === 'upcoming') throw eventError(409, 'not_open', serverText('event_not_open'));
  if (status !== 'open') throw eventError(409, 'ended', serverText('event_ended'));

  const qrRequired = () => eventError(403, 'qr_required', serverText('event_qr_required'));
  // A credential that was sent to get in must be good, whatever the mode: a forged one is never ignored.
  if (input.token !== undefined && !isValidQrToken(event, input.token, now)) throw qrRequired();
  if (input.pass !== undefined && !isValidJoinPass(sealer, event, input.pass)) throw qrRequired();
  // The organizer holds the door's code: theirs alone lets them in to their own event.
  const proofNeeded = event.joinMode === 'qr' && event.organizerId !== userId;
  if (proofNeeded && input.token === undefined && input.pass === undefined) throw qrRequired();

  const [, left, opened, [joined]] = await transactionInOneRoundTrip<[unknown[], LeftRow[], unknown[], EventRow[]]>(db, [
    checkInLockStatement.with({ userId }),
    leaveOthersStatement.with({ userId, eventId: event.id }),
    joinStatement.with({ userId, eventId: event.id }),
    eventByIdStatement.with({ id: event.id }),
  ]).catch(deletedMeanwhile);
  if (opened.length === 0) throw await refusedMeanwhile(db, userId, joined);
  return { event: joined ? eventRecordOf(joined) : event, changed: true, previousEventId: liveEventLeft(left) };
}

/**
 * The organizer deleted the event between its read and the attendance's insert, which found its row
 * gone: as if it had been gone before, a 404 (the transaction, leaving the other event included, rolled back).
 * The user's own account went instead (deleted on another phone after this request signed in): their
 * session ended with it, which the phone is told, as any request of theirs that finds the account gone.
 */
function deletedMeanwhile(error: unknown): never {
  if (isForeignKeyViolation(error, 'attendances_user_id_users_id_fk')) throw new SessionEnded();
  if (isForeignKeyViolation(error)) throw new NotFound();
  throw error;
}

/**
 * Why a check-in that got as far as its transaction opened no attendance:
 * the event was deleted, or its door closed (ended early by its organizer), since it was read; or the
 * user was banned since the request was let in, the ban having closed their attendances.
 */
async function refusedMeanwhile(db: Db, userId: number, event: EventRow | undefined): Promise<ApiError> {
  if (!event) return new NotFound();
  const [user] = await db.select({ bannedAt: users.bannedAt }).from(users).where(eq(users.id, userId));
  if (!user) return new SessionEnded();
  if (user.bannedAt !== null) return new AccountSuspended();
  // Not open by the database's clock when it was asked: after the start, the door has closed.
  return Date.now() >= Number(event.startsMs)
    ? eventError(409, 'ended', serverText('event_ended'))
    : eventError(409, 'not_open', serverText('event_not_open'));
}

// The check-in's and the leave's statements, prepared (a party's doors see a check-in per attendee):
// `userId` checks in to `eventId`, or leaves.
const $userId = sql`${sql.placeholder('userId')}::int`;
const $eventId = sql`${sql.placeholder('eventId')}::int`;

/**
 * Every check-in of the user waits here for the one before it; and, holding the user's ban lock
 * shared as a like does (locks.ts), for a ban of theirs in progress, or the ban for it: whichever
 * commits second sees the first, so a ban closes the attendance a check-in opened, or the check-in
 * finds the user banned and opens none.
 */
const checkInLockStatement = new PreparedStatement<{ userId: number }>(
  sql`select pg_advisory_xact_lock(${sql.raw(String(CHECK_IN_LOCK_SPACE))}, ${$userId}), ${banLockShared($userId)}`,
);

/** Check-in's opening: `EVENT_CHECK_IN_LEAD_MINUTES` before the start. */
const CHECK_IN_LEAD = sql.raw(`interval '${EVENT_CHECK_IN_LEAD_MINUTES} minutes'`);

/**
 * Whether the event's door is open now, by the clock as this statement runs (not as its transaction
 * began: it may have waited for the user's lock), and by the event as it is now: an end by its
 * organizer that committed since the check-in read the event is seen, and the check-in that read it
 * open lets no one in, nor leaves another event. The row is not locked (an end, or the organizer's
 * account deletion, would queue on a party's check-ins, the deletion in a deadlock with their own).
 */
const doorOpen = sql`exists (select 1 from ${events} w where w.id = ${$eventId}
  and clock_timestamp() >= w.starts_at - ${CHECK_IN_LEAD}
  and clock_timestamp() < w.ends_at)`;

/** An event the user left, and whether it is still live (its room is told). */
type LeftRow = { event_id: number; live: boolean };

/** Closes the user's open attendance, `which` narrowing it; answers it as a `LeftRow`. */
const leaveStatement = <Values extends { userId: number }>(which: SQL) =>
  new PreparedStatement<Values>(sql`
    update ${attendances} a set left_at = now()
    from ${events} e
    where a.user_id = ${$userId} and a.left_at is null and e.id = a.event_id ${which}
    returning a.event_id, ${eventIsLive(sql`e`)} as live`);
/** Leaves the user's event, whichever it is. */
const leaveAnyStatement = leaveStatement<{ userId: number }>(sql``);
/** Leaves any event the user is at but this one (a check-in). */
const leaveOthersStatement = leaveStatement<{ userId: number; eventId: number }>(sql`and a.event_id <> ${$eventId} and ${doorOpen}`);

/** The event left, if it is still live: someone must be told. */
const liveEventLeft = ([row]: LeftRow[]) => (row && row.live ? Number(row.event_id) : null);

/** Opens the attendance, or reopens the one from an earlier visit, unless the user is banned or the door has closed: a row when it did. */
const joinStatement = new PreparedStatement<{ userId: number; eventId: number }>(sql`
  insert into ${attendances} (event_id, user_id)
  select ${$eventId}, ${$userId} where not exists (select 1 from ${users} u where u.id = ${$userId} and u.banned_at is not null)
    and ${doorOpen}
  on conflict (event_id, user_id) do update set left_at = null
  returning 1`);

/** Leaves the user's event, if they have one open: returns it (still live, so someone must be told). */
export async function leaveEvent(db: Db, userId: number): Promise<number | null> {
  return liveEventLeft(await leaveAnyStatement.run<LeftRow>(db, { userId }));
}

/**
 * What ending an event now sets: its end; and where it had not started yet (its check-in hour), its
 * start a second before that end, the door's opening kept apart (no longer an hour before the start).
 */
const endingNow = sql`ends_at = now(),
  check_in_opened_at = case when starts_at > now() - interval '1 second' then starts_at - ${CHECK_IN_LEAD} end,
  starts_at = least(starts_at, now() - interval '1 second')`;

/**
 * Ends an event now (an early end; one that had not started starts a second before); an event already
 * over keeps its end. One deleted since it was found (from another of the organizer's screens) is not
 * there to end: 404, not the event as it was read, which had never ended. `changed`: whether this end
 * did end it (an end sent again, or from the organizer's other screen, changes nothing).
 */
export async function endEvent(db: Db, event: EventRecord): Promise<{ event: EventRecord; changed: boolean }> {
  const endedNow = rowsOf(
    await db.execute(sql`
      update ${events} set ${endingNow}
      where id = ${event.id} and ends_at > now()
        and starts_at - ${CHECK_IN_LEAD} <= now() returning id`),
  );
  const ended = await findEventById(db, event.id);
  if (!ended) throw new NotFound();
  // Not opened yet: ended, it would be a night that never was, past deleting; deleted, it is gone.
  if (endedNow.length === 0 && ended.endsAt.getTime() > Date.now()) throw eventError(409, 'not_open', serverText('event_end_not_open'));
  return { event: ended, changed: endedNow.length > 0 };
}

/**
 * Changes what an organizer set: any field while the event is still going, but its start only until it
 * has started (the check-ins, matches and stats before it are the night's history), and once check-in
 * has opened, not so late that it would close again on the people inside. The times are
 * checked as creation checks them, the unchanged one with the changed. An event over is history: 409.
 * The row is locked while it is checked, so an end or another change at the same moment is not undone.
 * `changed`: whether any field took a new value (a form saved again as it was changes nothing).
 */
export async function updateEvent(
  db: Db,
  eventId: number,
  change: EventUpdate,
  clock: () => number = Date.now,
): Promise<{ event: EventRecord; changed: boolean }> {
  const changed = await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ name: events.name, venue: events.venue, joinMode: events.joinMode, startsAt: events.startsAt, endsAt: events.endsAt })
      .from(events)
      .where(eq(events.id, eventId))
      .for('update');
    if (!row) throw new NotFound();
    // Read once the row is ours: an end that committed while this waited for the lock (an end does not
    // wait for the check-ins' key locks on the row, a change does) is over by now, not by an earlier time.
    const now = clock();
    if (row.endsAt.getTime() <= now) throw eventError(409, 'ended', serverText('event_ended'));
    const startsAt = change.starts_at === undefined ? row.startsAt : new Date(change.starts_at);
    const endsAt = change.ends_at === undefined ? row.endsAt : new Date(change.ends_at);
    const fields: FieldMessages = {};
    const add = (field: string, text: ServerText) => (fields[field] ??= []).push(text);
    if (startsAt.getTime() !== row.startsAt.getTime()) {
      const lead = EVENT_CHECK_IN_LEAD_MINUTES * MINUTE_MS;
      if (row.startsAt.getTime() <= now) add('starts_at', serverText('event_start_fixed'));
      // Check-in has opened, and people may be inside: it must not close again until a later start.
      else if (row.startsAt.getTime() - lead <= now && startsAt.getTime() - lead > now) {
        add('starts_at', serverText('event_check_in_open', { minutes: EVENT_CHECK_IN_LEAD_MINUTES }));
      }
    }
    for (const issue of eventTimeIssues(startsAt.getTime(), endsAt.getTime(), now)) add(issue.field, serverText(issue.code, issue.params));
    if (Object.keys(fields).length > 0) throw new ValidationError(fields);
    const differs =
      (change.name !== undefined && change.name !== row.name) ||
      (change.venue !== undefined && change.venue !== row.venue) ||
      (change.join_mode !== undefined && change.join_mode !== row.joinMode) ||
      startsAt.getTime() !== row.startsAt.getTime() ||
      endsAt.getTime() !== row.endsAt.getTime();
    if (!differs) return false;
    await tx
      .update(events)
      .set({ name: change.name, venue: change.venue, startsAt, endsAt, joinMode: change.join_mode })
      .where(eq(events.id, eventId));
    return true;
  });
  // Deleted from another of the organizer's screens as soon as this committed: gone, as if before.
  const event = await findEventById(db, eventId);
  if (!event) throw new NotFound();
  return { event, changed };
}

/**
 * Deletes an event that has not started; once it has, its history belongs to its attendees' matches.
 * One deleted since it was found (the same deletion from another of the organizer's screens) is not
 * there to delete: 404, as if it had been gone before, not "it has started".
 */
export async function deleteEvent(db: Db, event: EventRecord): Promise<void> {
  const deleted = await db
    .delete(events)
    .where(and(eq(events.id, event.id), sql`${events.startsAt} > now()`))
    .returning({ id: events.id });
  if (deleted.length > 0) return;
  if (!(await findEventById(db, event.id))) throw new NotFound();
  throw new Conflict(serverText('event_already_started'));
}

/**
 * A banned organizer's events stop, as the organizer would stop them: those not started yet are
 * deleted, those going on end now (their after-party stays open to the people inside, who met each
 * other, not the organizer). No one new checks in to any of them. Returns the ids of each kind, for
 * their rooms to be told once this has committed.
 */
export async function stopEventsOf(tx: DbOrTx, organizerId: number): Promise<{ deleted: number[]; ended: number[] }> {
  const deleted = await tx
    .delete(events)
    .where(and(eq(events.organizerId, organizerId), sql`${events.startsAt} > now()`))
    .returning({ id: events.id });
  const ended = rowsOf<{ id: number }>(
    await tx.execute(sql`
      update ${events} set ${endingNow}
      where organizer_id = ${organizerId} and ends_at > now() returning id`),
  );
  return { deleted: deleted.map((row) => row.id), ended: ended.map((row) => Number(row.id)) };
}

/**
 * The organizer's counts. Likes are the ones given there (between two attendees checked in to it at
 * the time: the event each like keeps); matches and conversations are the ones made there. The
 * timeline has one slot per 15 minutes, from the opening of check-in (or the first check-in, if a
 * later start moved it) until now (or the end), and on through the after-party only as far as something
 * happened in it. Each figure adds what the rows
 * gone since counted (`tallies.ts`, kept as they went) to what the rows still there count.
 */
export async function eventStats(db: Db, event: EventRecord): Promise<EventStats> {
  const id = event.id;
  const tallied = (column: 'check_ins' | 'likes' | 'matches' | 'conversations_started') =>
    sql`(select coalesce(sum(${sql.identifier(column)}), 0)::int from ${eventTallies} where event_id = ${id})`;
  const [totals] = rowsOf<{ checked_in_total: number; likes: number; matches: number; conversations_started: number }>(
    await db.execute(sql`
      select
        (select count(*)::int from ${attendances} where event_id = ${id}) + ${tallied('check_ins')} as checked_in_total,
        -- From the event's attendees to their reactions: the reactions' primary key, no index on event_id.
        (select count(*)::int from ${attendances} giver
          join ${reactions} r on r.from_user_id = giver.user_id and r.event_id = ${id} and r.kind = 'like'
          where giver.event_id = ${id}) + ${tallied('likes')} as likes,
        (select count(*)::int from ${conversations} where event_id = ${id}) + ${tallied('matches')} as matches,
        (select count(*)::int from ${conversations} c where c.event_id = ${id}
          and exists (select 1 from ${messages} x where x.conversation_id = c.id)) + ${tallied('conversations_started')} as conversations_started`),
  );
  const timeline = rowsOf<{ at: Date | string; check_ins: number; matches: number }>(
    await db.execute(sql`
      with counted as (
        select at, sum(check_ins)::int as check_ins, sum(matches)::int as matches from (
          select ${slotOf(sql`checked_in_at`)} as at, 1 as check_ins, 0 as matches from ${attendances} where event_id = ${id}
          union all
          select ${slotOf(sql`created_at`)}, 0, 1 from ${conversations} where event_id = ${id}
          union all
          select at, check_ins, matches from ${eventTallies} where event_id = ${id}
        ) contributions group by at
      ), bounds as (
        -- From the first slot with something in it where that is earlier: a start moved later while
        -- check-in was open leaves the check-ins from before it on the timeline.
        select least(date_bin('15 minutes', coalesce(check_in_opened_at, starts_at - ${CHECK_IN_LEAD}), timestamptz 'epoch'),
            (select min(at) from counted)) as first,
          -- Until the end (or now, before it); after it, only as far as the after-party's last slot
          -- with something in it: a day of empty slots would squeeze the night's bars.
          greatest(least(now(), ends_at), (select max(at) from counted)) as last
        from ${events} where id = ${id}
      ), slots as (
        select generate_series(first, last, interval '15 minutes') as at from bounds
      )
      select slots.at, coalesce(counted.check_ins, 0) as check_ins, coalesce(counted.matches, 0) as matches
      from slots left join counted using (at)
      order by slots.at`),
  );
  const now = Date.now();
  return {
    attendee_count: presentEvent(event, now).attendee_count,
    checked_in_total: Number(totals?.checked_in_total ?? 0),
    likes: Number(totals?.likes ?? 0),
    matches: Number(totals?.matches ?? 0),
    conversations_started: Number(totals?.conversations_started ?? 0),
    timeline: timeline.map((row) => ({
      at: new Date(row.at).toISOString(),
      check_ins: Number(row.check_ins),
      matches: Number(row.matches),
    })),
  };
}

