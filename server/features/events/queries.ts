import { type Placeholder, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { EVENT_AFTER_PARTY_HOURS } from '../../../shared/constants';
import { PreparedStatement } from '../../db/client';
import { attendances, events } from '../../db/schema';

/**
 * Whether an event's attendances are still current: until `ends_at + 24 h` (the after-party), after
 * which they lapse on their own, with no job to close them.
 */
export const eventIsLive = (event: SQL) =>
  sql`now() <= ${event}.ends_at + ${sql.raw(`interval '${EVENT_AFTER_PARTY_HOURS} hours'`)}`;

/**
 * The user's current event, if any: their one open attendance (`attendances_one_open`) whose event has
 * not lapsed. A scalar subquery, so that other statements (the deck's viewer, a new match) carry it.
 */
export const currentEventIdOf = (userId: Placeholder | number) => sql`(
  select a.event_id from ${attendances} a join ${events} e on e.id = a.event_id
  where a.user_id = ${userId} and a.left_at is null and ${eventIsLive(sql`e`)})`;

/** The event two users are both checked in to now (where their match is made), or null. */
export const sharedCurrentEventOf = (oneId: number | SQLWrapper, otherId: number | SQLWrapper) => sql`(
  select a.event_id from ${attendances} a
  join ${attendances} b on b.event_id = a.event_id and b.user_id = ${otherId} and b.left_at is null
  join ${events} e on e.id = a.event_id
  where a.user_id = ${oneId} and a.left_at is null and ${eventIsLive(sql`e`)})`;

/** An event's current attendees: none once it has lapsed. */
export const attendeeCountStatement = new PreparedStatement<{ eventId: number }>(sql`
  select count(*)::int as count from ${attendances} a join ${events} e on e.id = a.event_id
  where a.event_id = ${sql.placeholder('eventId')} and a.left_at is null and ${eventIsLive(sql`e`)}`);

/** The user's current event id (the socket's room on connect). */
export const currentEventStatement = new PreparedStatement<{ userId: number }>(
  sql`select ${currentEventIdOf(sql.placeholder('userId'))} as event_id`,
);
