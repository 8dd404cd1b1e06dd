import { sql } from 'drizzle-orm';
import type { AnalyticsDay, AnalyticsEventName } from '../../../shared/schemas/analytics';
import { type Db, type DbOrTx, rowsOf } from '../../db/client';
import { analyticsEvents } from '../../db/schema';
import { isForeignKeyViolation } from '../../lib/pg-errors';

/** What became of an event to store: stored, stored already (its `client_id` seen), or its account gone. */
export type Recorded = 'stored' | 'duplicate' | 'gone';

/**
 * Stores one event: who (a user id, never an e-mail), what, when (`ageMs` before now: kept on the
 * device while offline, it counts on the day it happened). One with the `clientId` of an event
 * of theirs stored already (sent again, its answer lost on the way back) is not stored twice. Answers
 * 'gone', storing nothing, for an account deleted meanwhile (a request that passed sign-in just
 * before): its row is gone, which the user id's foreign key refuses. Not for a transaction, which the
 * refusal would leave aborted.
 */
export async function recordEvent(db: Db, userId: number, name: AnalyticsEventName, clientId?: string, ageMs = 0): Promise<Recorded> {
  try {
    const createdAt = ageMs > 0 ? sql`now() - ${ageMs}::int * interval '1 millisecond'` : undefined;
    const stored = await db
      .insert(analyticsEvents)
      .values({ userId, name, clientId, createdAt })
      .onConflictDoNothing({ target: [analyticsEvents.userId, analyticsEvents.clientId] })
      .returning({ id: analyticsEvents.id });
    return stored.length > 0 ? 'stored' : 'duplicate';
  } catch (error) {
    if (isForeignKeyViolation(error)) return 'gone';
    throw error;
  }
}

/**
 * Before an account goes (in its deletion's transaction): marks the first of its events of each UTC
 * day it was active on, so that the day goes on counting it as an active user once its events have
 * lost its id.
 */
export async function keepActiveDays(tx: DbOrTx, userId: number): Promise<void> {
  await tx.execute(sql`
    update ${analyticsEvents} set anonymous_active = true
    where id in (
      select min(id) from ${analyticsEvents}
      where user_id = ${userId} and name <> 'matched'
      group by (created_at at time zone 'UTC')::date
    )`);
}

interface DayRow {
  date: string;
  signups: number | string;
  logins: number | string;
  active_users: number | string;
  matches: number | string;
  messages: number | string;
}

/**
 * The moderators' daily counts for the last `days` days (UTC, today included, oldest first, days
 * without activity as zeros), all from the recorded events, one read bounded by their time's index.
 * Matches are the `matched` events (recorded with each match by the like that made it), not the
 * conversations there now: a conversation goes with either account, its event stays. Active users
 * leave `matched` out, so that they count what they counted before matches were events (migration
 * 0014 recorded one for every earlier match, at its time), and count deleted accounts by their marks
 * (`keepActiveDays`).
 */
export async function dailySummary(db: DbOrTx, days: number): Promise<AnalyticsDay[]> {
  const rows = rowsOf<DayRow>(
    await db.execute(sql`
      with bounds as (
        select (now() at time zone 'UTC')::date - ${days - 1}::int as first_day
      ),
      calendar as (
        select (first_day + offset_days)::date as day
        from bounds, generate_series(0, ${days - 1}::int) as offset_days
      ),
      events as (
        select (e.created_at at time zone 'UTC')::date as day,
          count(*) filter (where e.name = 'signed_up') as signups,
          count(*) filter (where e.name = 'user_logged_in') as logins,
          count(distinct e.user_id) filter (where e.name <> 'matched') + count(*) filter (where e.anonymous_active) as active_users,
          count(*) filter (where e.name = 'matched') as matches,
          count(*) filter (where e.name = 'message_sent') as messages
        from ${analyticsEvents} e, bounds
        where e.created_at >= (bounds.first_day::timestamp at time zone 'UTC')
        group by 1
      )
      select to_char(calendar.day, 'YYYY-MM-DD') as date,
        coalesce(events.signups, 0) as signups,
        coalesce(events.logins, 0) as logins,
        coalesce(events.active_users, 0) as active_users,
        coalesce(events.matches, 0) as matches,
        coalesce(events.messages, 0) as messages
      from calendar
      left join events on events.day = calendar.day
      order by calendar.day`),
  );
  return rows.map((row) => ({
    date: row.date,
    signups: Number(row.signups),
    logins: Number(row.logins),
    active_users: Number(row.active_users),
    matches: Number(row.matches),
    messages: Number(row.messages),
  }));
}
