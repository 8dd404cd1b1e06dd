import { type SQL, sql, type SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { attendances, conversationMembers, conversations, events, eventTallies, messages, reactions } from '../../db/schema';

/**
 * An event's figures outlive the rows they count. The stats count the attendances, likes and
 * conversations still there; when some of them go (an account's deletion takes its own, the purge an
 * ended conversation's messages), what they counted is first added to `event_tallies`, anonymous
 * counts per event and timeline slot, in the same transaction. A row is counted there once, as it
 * goes, and no more in the live count: a match counts once whichever of the two goes first, and not
 * again when the other goes. Nothing is written there as people check in, like or talk.
 */

/** The timeline's slot of a time: 15 minutes, from the epoch. */
export const slotOf = (at: SQLWrapper) => sql`date_bin('15 minutes', ${at}, timestamptz 'epoch')`;

/**
 * Adds rows of `(event_id, at, check_ins, likes, matches, conversations_started)` to the tallies,
 * summed per slot, in the order of the table's key (two transactions adding to the same slots wait
 * for each other, never for each other in a cycle). Rows of an event deleted since (a like keeps its
 * event's id, which no key holds) are left out.
 */
export const addToTallies = (counted: SQL) => sql`
  insert into ${eventTallies} as t (event_id, at, check_ins, likes, matches, conversations_started)
  select x.event_id, x.at, sum(x.check_ins)::int, sum(x.likes)::int, sum(x.matches)::int, sum(x.conversations_started)::int
  from (${counted}) x (event_id, at, check_ins, likes, matches, conversations_started)
  where exists (select 1 from ${events} e where e.id = x.event_id)
  group by x.event_id, x.at
  order by x.event_id, x.at
  on conflict (event_id, at) do update set
    check_ins = t.check_ins + excluded.check_ins,
    likes = t.likes + excluded.likes,
    matches = t.matches + excluded.matches,
    conversations_started = t.conversations_started + excluded.conversations_started`;

/** Whether a conversation (`c`) had messages: started, in the organizer's figures. */
const started = (conversation: SQL) =>
  sql`case when exists (select 1 from ${messages} m where m.conversation_id = ${conversation}.id) then 1 else 0 end`;

/** Takes the rows' locks, and answers how many: not the rows themselves (an account may have liked thousands). */
const locked = (rows: SQL) => sql`select count(*)::int as n from (${rows}) locked`;

/**
 * Before an account's deletion, in its transaction (the account's row locked): adds to the tallies what
 * its rows counted in the figures of the events they belong to. Its check-ins; the likes it gave and
 * got there (as the stats count them: given between attendees, the giver checked in there); the
 * matches made there with it, and whether each was started. Each row is locked first, and then read
 * afresh, by the statement after: a purge or another deletion that took or changed one meanwhile has
 * committed by then and is seen (an ended chat the purge emptied is not counted as started twice, a
 * match the partner's deletion took is not counted twice), and none can change once it is read.
 */
export async function tallyDeparture(tx: DbOrTx, userId: number): Promise<void> {
  await tx.execute(locked(sql`select 1 from ${attendances} where user_id = ${userId} for update`));
  await tx.execute(locked(sql`select 1 from ${reactions} where from_user_id = ${userId} or to_user_id = ${userId} for update`));
  // The members' rows too: a message on its way holds its member row (the message's key) until it commits.
  await tx.execute(
    locked(sql`
      select 1 from ${conversations} c join ${conversationMembers} m on m.conversation_id = c.id
      where (c.user_low_id = ${userId} or c.user_high_id = ${userId}) and c.event_id is not null
      for update`),
  );
  await tx.execute(
    addToTallies(sql`
      select a.event_id, ${slotOf(sql`a.checked_in_at`)}, 1, 0, 0, 0 from ${attendances} a where a.user_id = ${userId}
      union all
      select r.event_id, ${slotOf(sql`r.updated_at`)}, 0, 1, 0, 0 from ${reactions} r
      where (r.from_user_id = ${userId} or r.to_user_id = ${userId}) and r.kind = 'like' and r.event_id is not null
        and exists (select 1 from ${attendances} giver where giver.event_id = r.event_id and giver.user_id = r.from_user_id)
      union all
      select c.event_id, ${slotOf(sql`c.created_at`)}, 0, 0, 1, ${started(sql`c`)} from ${conversations} c
      where (c.user_low_id = ${userId} or c.user_high_id = ${userId}) and c.event_id is not null`),
  );
}

/**
 * What a purge batch (`ids`, conversations whose messages go in the same statement) counted as
 * started in its events' figures, for `addToTallies`: read before the messages go (a statement's
 * parts all see its start).
 */
export const startedIn = (ids: SQL) => sql`
  select c.event_id, ${slotOf(sql`c.created_at`)}, 0, 0, 0, 1 from ${conversations} c
  where c.id = any(${ids}) and c.event_id is not null
    and exists (select 1 from ${messages} m where m.conversation_id = c.id)`;
