/** Events: the payloads of `/api/events/…` and their rules, shared by server and client. */
import {
  EVENT_MAX_DURATION_HOURS,
  EVENT_MAX_LEAD_DAYS,
  EVENT_NAME_MAX_LENGTH,
  EVENT_VENUE_MAX_LENGTH,
  JOIN_MODES,
} from '../constants';
import { EVENT_CODE_PATTERN, normalizeEventCode } from '../event-code';
import { EVENT_STATUSES } from '../event-status';
import type { ErrorCode } from '../error-codes';
import type { ServerMessageCode } from '../i18n/server-messages';
import { Id } from './common';
import { visibleText } from './text';
import { hasVisibleText } from '../visible-text';
import { codedIssue, message, z } from './zod';

export const JoinMode = z.enum(JOIN_MODES);
export type JoinMode = z.infer<typeof JoinMode>;

export { EVENT_STATUSES, type EventStatus } from '../event-status';

/** `{code}` in a path: anything that is not a code is "no such event" (the route's params → 404). */
export const EventCodeParams = z.object({
  event: z.string().max(20).transform(normalizeEventCode).pipe(z.string().regex(EVENT_CODE_PATTERN)),
});
export type EventCodeParams = z.infer<typeof EventCodeParams>;

export const EventIdParams = z.object({ event: Id });
export type EventIdParams = z.infer<typeof EventIdParams>;


const wrongFormat = message('date_time_format').error;
/**
 * A time, with its format named when it is not one. A time left out or null says so, as any other
 * field does (`undefined` leaves the issue to the shared messages: shared/schemas/zod.ts).
 */
const DateTime = z.iso.datetime({ offset: true, error: (issue) => (issue.input == null ? undefined : wrongFormat(issue)) });

const HOUR_MS = 3_600_000;

/** A rule of an event's times that a proposed start and end break: the field it names and why. */
export interface EventTimeIssue {
  field: 'starts_at' | 'ends_at';
  code: ServerMessageCode;
  params?: Record<string, number>;
}

/**
 * The rules an event's times follow, whether it is created or changed: the end after the start, at
 * most `EVENT_MAX_DURATION_HOURS` later and still to come; the start within `EVENT_MAX_LEAD_DAYS`.
 */
export function eventTimeIssues(starts: number, ends: number, now: number): EventTimeIssue[] {
  const issues: EventTimeIssue[] = [];
  if (ends <= starts) issues.push({ field: 'ends_at', code: 'event_end_before_start' });
  else if (ends - starts > EVENT_MAX_DURATION_HOURS * HOUR_MS) {
    issues.push({ field: 'ends_at', code: 'event_too_long', params: { hours: EVENT_MAX_DURATION_HOURS } });
  }
  if (ends <= now) issues.push({ field: 'ends_at', code: 'event_end_in_past' });
  if (starts > now + EVENT_MAX_LEAD_DAYS * 24 * HOUR_MS) issues.push({ field: 'starts_at', code: 'event_start_too_far' });
  return issues;
}

const eventFields = {
  name: visibleText(EVENT_NAME_MAX_LENGTH, { oneLine: true }),
  // Optional: a venue that would show nothing (zero-width characters, say) is no venue, as spaces are.
  venue: z
    .string()
    .trim()
    .max(EVENT_VENUE_MAX_LENGTH)
    .transform((venue) => (hasVisibleText(venue) ? venue : '')),
  starts_at: DateTime,
  ends_at: DateTime,
  join_mode: JoinMode,
};

/**
 * A time its field accepted, or NaN, which breaks no rule of `eventTimeIssues`: its field's own issue
 * says what is wrong. `Date.parse` alone would read 30 February as 2 March, and add issues about a
 * time the organizer never wrote.
 */
const timeOf = (value: string) => (DateTime.safeParse(value).success ? Date.parse(value) : Number.NaN);

/** What an organizer sends to create an event; the times are checked against now. */
export const EventInput = z
  .object({ ...eventFields, venue: eventFields.venue.optional().default('') })
  .superRefine((input, context) => {
    for (const issue of eventTimeIssues(timeOf(input.starts_at), timeOf(input.ends_at), Date.now())) {
      context.addIssue(codedIssue([issue.field], issue.code, issue.params));
    }
  });
export type EventInput = z.output<typeof EventInput>;
/** What a client sends (`venue` may be left out). */
export type EventInputBody = z.input<typeof EventInput>;

/**
 * What an organizer changes of an event (`PATCH`): any of its fields, the others kept. The times are
 * checked with the event's others, as it stands, by the server: `eventTimeIssues`.
 */
export const EventUpdate = z.object(eventFields).partial();
export type EventUpdate = z.output<typeof EventUpdate>;

/** What anyone may see of an event: never who is there, only how many. */
export const PublicEvent = z.object({
  id: z.number(),
  code: z.string(),
  name: z.string(),
  venue: z.string(),
  starts_at: z.string(),
  ends_at: z.string(),
  join_mode: JoinMode,
  status: z.enum(EVENT_STATUSES),
  attendee_count: z.number(),
});
export type PublicEvent = z.infer<typeof PublicEvent>;

export const OrganizerEvent = PublicEvent.extend({ is_organizer: z.literal(true) });
export type OrganizerEvent = z.infer<typeof OrganizerEvent>;

/** The server's time as it answered: the app's clock for events (client/lib/server-clock.ts). */
const ServerNow = z.string().describe("The server's time as it answered (ISO 8601): a phone times events by it, whatever its own clock says.");

/** An event's public page, with the server's time (`now`): the clock of a visitor not signed in. */
export const PublicEventPage = PublicEvent.extend({ now: ServerNow });
export type PublicEventPage = z.infer<typeof PublicEventPage>;

/** Where I am, and the server's time as it answered (`now`). */
export const CurrentEvent = z.object({ event: PublicEvent.nullable(), now: ServerNow });
export type CurrentEvent = z.infer<typeof CurrentEvent>;

export const CheckedIn = z.object({ event: PublicEvent });
export type CheckedIn = z.infer<typeof CheckedIn>;

/** A QR token or a join pass, as a client may send it: its content is the server's to judge (403). */
const Credential = z.string().min(1).max(2048);

export const PassInput = z.object({ token: Credential });
export type PassInput = z.infer<typeof PassInput>;

/**
 * `expires_in_ms`: how long from this answer the pass (or the code) stays good, by the server's clock; a
 * phone times it from there, whatever its own clock says (`expires_at` is the same moment, as the server
 * counts it).
 */
const ExpiresInMs = z.number().int().describe('How long from this answer it stays good: a phone times it from here, whatever its own clock says.');

export const JoinPass = z.object({ pass: z.string(), expires_at: z.string(), expires_in_ms: ExpiresInMs });
export type JoinPass = z.infer<typeof JoinPass>;

export const CheckInInput = z.object({ token: Credential.optional(), pass: Credential.optional() });
export type CheckInInput = z.infer<typeof CheckInInput>;

export const EventQr = z.object({ token: z.string(), url: z.string(), svg: z.string(), expires_at: z.string(), expires_in_ms: ExpiresInMs });
export type EventQr = z.infer<typeof EventQr>;

export const EventStats = z.object({
  attendee_count: z.number(),
  checked_in_total: z.number(),
  likes: z.number(),
  matches: z.number(),
  conversations_started: z.number(),
  timeline: z.array(z.object({ at: z.string(), check_ins: z.number(), matches: z.number() })),
});
export type EventStats = z.infer<typeof EventStats>;

/** The `code` of an event error body, beside `detail`: why a check-in was refused. */
export type EventErrorCode = Extract<ErrorCode, 'qr_required' | 'qr_expired' | 'not_open' | 'ended'>;

export const EVENT_ERRORS = {
  qrRequired: 'Scan the code at the event to check in.',
  qrExpired: 'This code has expired. Scan the code at the event again.',
  notOpen: 'Check-in opens one hour before the event starts.',
  ended: 'This event has ended.',
  alreadyStarted: 'An event that has started cannot be deleted. End it instead.',
} as const;
