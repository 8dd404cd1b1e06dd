import { type SQL, sql } from 'drizzle-orm';
import { type Reaction, UNDO_WINDOW_MS } from '../../../shared/constants';
import { ageOn } from '../../../shared/schemas/common';
import type { Undoable, UndoResult } from '../../../shared/schemas/plan';
import type { DeckCard } from '../../../shared/schemas/users';
import type { MatchUser } from '../../../shared/events';
import { analyticsEvents, conversationMembers, conversations, events, profiles, reactions, users } from '../../db/schema';
import { ApiError, NotFound, PermissionDenied, ValidationError } from '../../errors';
import { type Db, PreparedStatement, rowsOf, transactionInOneRoundTrip } from '../../db/client';
import { sharedCurrentEventOf } from '../events/queries';
import { fitTermsOf, mutualFit, viewerFitOf } from '../deck/queries';
import { serverText } from '../../../shared/i18n/server-messages';
import { DailyLikesExhausted, likeComesBack, likeSpending, likesLock, requireSubscription } from '../plan/service';
import { visibleTo } from '../safety/visibility';
import { banLockShared, pairLock } from './locks';
import { isForeignKeyViolation } from '../../lib/pg-errors';

export const CANNOT_REACT_TO_SELF = serverText('cannot_react_to_self');
export const PROFILE_INCOMPLETE_LIKE = serverText('profile_incomplete_like');

export interface ReactOutcome {
  match: boolean;
  conversationId: number | null;
  /** On a new match: what each of the two users is told about the other (`match:new`). */
  matched: { userId: number; other: MatchUser }[];
}

/**
 * Stores (or replaces) my reaction to `otherId`. A like that meets their like creates the match and its
 * conversation, exactly once: both likes of a pair are serialised by a transaction-scoped advisory lock
 * on the ordered pair, so the second one sees the first; the unique (user_low_id, user_high_id) pair
 * makes a duplicate impossible even without the lock. A block, a report or a ban of either queues
 * with the like too (locks.ts), so none of them misses the match it made. A like of someone already
 * matched answers that match again (true, its conversation) and creates nothing, tells nobody here
 * (the route tells whoever has not seen it, `untoldMatch`): the client that lost the first answer
 * learns it; a dislike or a skip of them answers it too, and changes nothing. A new like without the
 * plan counts against `options.dailyLikes` in the rolling window (`likeSpending`): past it, a 429 and
 * nothing stored. A like from someone whose own profile is not complete is a 403 and stores nothing:
 * the other would match with a profile nobody can open. Their dislikes and skips are stored (the
 * profile page offers all three to them).
 *
 * Swipes are most of a party's requests, so each is one round trip: a transaction of two statements
 * sent together, the locks and then the reaction (a match included).
 */
export async function react(
  db: Db,
  userId: number,
  input: { response: Reaction; other: number },
  options: { dailyLikes: number },
): Promise<ReactOutcome> {
  const otherId = input.other;
  if (otherId === userId) throw ValidationError.field('other', CANNOT_REACT_TO_SELF);
  const [low, high] = userId < otherId ? [userId, otherId] : [otherId, userId];
  const pair = { me: userId, other: otherId, low, high };
  if (input.response !== 'like') {
    // One round trip: the pair's lock, then the pass, between BEGIN and COMMIT.
    const [, [passed]] = await transactionInOneRoundTrip<[unknown[], PassRow[]]>(db, [
      pairLockStatement.with(pair),
      passStatement.with({ ...pair, kind: input.response }),
    ]).catch(goneMeanwhile);
    if (!passed) throw new NotFound();
    if (passed.outcome === 'open') return { match: true, conversationId: Number(passed.id), matched: [] };
    return { match: false, conversationId: null, matched: [] };
  }

  // One round trip: the locks, then the like and its match, between BEGIN and COMMIT.
  const [, rows] = await transactionInOneRoundTrip<[unknown[], LikeRow[]]>(db, [
    likeLocksStatement.with(pair),
    likeStatement.with({ ...pair, limit: options.dailyLikes }),
  ]).catch(goneMeanwhile);
  const [first] = rows;
  if (first?.outcome === 'unreachable') throw new NotFound();
  if (first?.outcome === 'incomplete') throw new PermissionDenied(PROFILE_INCOMPLETE_LIKE, 'profile_incomplete');
  if (first?.outcome === 'refused') {
    // Refused means `limit` likes in the window, so the limit-th newest of them is there.
    if (!first.resets_at) throw new Error(`user ${userId} was refused a like with no like in the window`);
    throw new DailyLikesExhausted(options.dailyLikes, new Date(first.resets_at));
  }
  // Matched already: the same answer as the like that made the match, but nothing new to tell.
  if (first?.outcome === 'open') return { match: true, conversationId: Number(first.id), matched: [] };
  const matchRows = rows.filter((row): row is MatchRow => row.outcome === 'match');
  if (matchRows.length === 0) return { match: false, conversationId: null, matched: [] };
  // Both rows are there: every account is made with its profile row, and theirs passed `reachable`.
  const card = (id: number): MatchUser => {
    const row = matchRows.find((each) => Number(each.user_id) === id)!;
    return { id, name: row.name, image: row.image };
  };
  return {
    match: true,
    conversationId: Number(matchRows[0]!.id),
    matched: [
      { userId, other: card(otherId) },
      { userId: otherId, other: card(userId) },
    ],
  };
}

/**
 * The answer to a reaction sent again (`retry`) whose first one was stored: a match when the two are
 * matched (as that one answered, or as a like that made it did), no match otherwise. Null when it is
 * no repeat (nothing stored, or another reaction), or when the other may not be reacted to now
 * (`reachable`: hidden since by a block, an unmatch or a ban): then it goes the usual way, to the 404
 * of an id that never existed, not to a 200 that tells the hidden apart from the unknown. Reads only:
 * the reaction keeps its time (the undo's order), and nobody is told anything twice.
 */
export async function repeatedReaction(db: Db, userId: number, input: { response: Reaction; other: number }): Promise<ReactOutcome | null> {
  const [low, high] = userId < input.other ? [userId, input.other] : [input.other, userId];
  const [row] = rowsOf<{ kind: Reaction | null; open: number | null }>(
    await db.execute(sql`
      select (select kind from ${reactions} where from_user_id = ${userId} and to_user_id = ${input.other}) as kind,
        (select id from ${conversations} where user_low_id = ${low} and user_high_id = ${high} and ended_at is null) as open
      where ${reachableBy(userId, input.other)}`),
  );
  if (!row) return null;
  if (row.open != null) return { match: true, conversationId: Number(row.open), matched: [] };
  if (row.kind === input.response) return { match: false, conversationId: null, matched: [] };
  return null;
}

// The swipe's statements, prepared: `$me` reacts to `$other`; `$low` and `$high` are the pair in order.
const $me = sql`${sql.placeholder('me')}::int`;
const $other = sql`${sql.placeholder('other')}::int`;
const $low = sql`${sql.placeholder('low')}::int`;
const $high = sql`${sql.placeholder('high')}::int`;
/** The free plan's likes a window, for a like's count (`likeSpending`). */
const $limit = sql`${sql.placeholder('limit')}::int`;
type Pair = { me: number; other: number; low: number; high: number };

/** Whether the user's own profile is complete: only then may they like (they would match unseen otherwise). */
const profileCompleted = (userId: SQL) =>
  sql`coalesce((select p.is_completed from ${profiles} p where p.user_id = ${userId}), false)`;

/** Whether `other` may be reacted to: unknown, incomplete or hidden by the visibility rule is as good as not there (the profile says 404 too). */
const reachableBy = (me: SQL | number, other: SQL | number) => sql`exists (select 1 from ${profiles} p
  where p.user_id = ${other} and p.is_completed and ${visibleTo(me, sql`p.user_id`)})`;
const reachable = reachableBy($me, $other);

/**
 * The other account was deleted between the statement's snapshot (they were there) and its insert,
 * which found their row gone: as if they had been gone before, a 404.
 */
function goneMeanwhile(error: unknown): never {
  if (isForeignKeyViolation(error)) throw new NotFound();
  throw error;
}

/** The pair's lock alone: a dislike or a skip queues with the pair's likes (`pairLock`). */
const pairLockStatement = new PreparedStatement<Pair>(sql`select ${pairLock($low, $high)}`);

/**
 * What a dislike or a skip answers: `stored`; `open` with the conversation when the two are matched,
 * which it leaves as it is; no row for someone who cannot be reacted to (a 404).
 */
type PassRow = { outcome: 'stored'; id: null } | { outcome: 'open'; id: number };

/**
 * A dislike or a skip, stored only where `reachable`. Of someone already matched it changes nothing:
 * the like behind the match stays (a match ends by unmatching, which records the dislike), so the two
 * never come back in each other's deck or likes list, and a stale card swiped on another phone, or a
 * pass sent while the match was being made, cannot undo half of it. Begun once the pair's lock is
 * held, so it sees the conversation of a like of the pair that came first; a like that comes after
 * sees the pass.
 */
const passStatement = new PreparedStatement<Pair & { kind: 'dislike' | 'skip' }>(sql`
  with target as (select ${reachable} as ok),
  open as (
    select c.id from target, ${conversations} c
    where ok and c.user_low_id = ${$low} and c.user_high_id = ${$high} and c.ended_at is null
  ), stored as (
    insert into ${reactions} (from_user_id, to_user_id, kind)
    select ${$me}, ${$other}, ${sql.placeholder('kind')}::text from target where ok and not exists (select 1 from open)
    on conflict (from_user_id, to_user_id) do update set kind = excluded.kind, updated_at = now()
    returning 1
  )
  select 'open' as outcome, id from open
  union all
  select 'stored', null from stored`);

/**
 * A like's locks, the user's likes lock first, then the pair's (`pairLock`): always in that order, so
 * two likes never wait on each other in a cycle. The two likes of a pair queue here, other pairs do
 * not; so does a block or a report of the pair. Then both users' ban locks, shared: a ban of either
 * waits for this like, or this like for the ban (locks.ts). In the one statement, so no round trip.
 */
const likeLocksStatement = new PreparedStatement<Pair>(sql`
  select ${likesLock($me)}, ${pairLock($low, $high)}, ${banLockShared($me)}, ${banLockShared($other)}`);

/**
 * The event a match is made at, locked until the match commits: a deletion of the event in progress
 * (its organizer may delete it in the hour check-in is open before it starts) is waited for, and
 * then the event is gone and the match is made at none, instead of failing the conversation's
 * foreign key on an event this statement's snapshot still saw, which answered the like 404.
 * Taken only by a like that makes a match: the room's likes do not queue on its event's row.
 */
const eventStillThere = (eventId: SQL) => sql`(select e.id from ${events} e where e.id = ${eventId} for key share)`;

/**
 * What the like's statement answers: on a match, one `match` row per user of the pair (the
 * conversation and what the other is told about them); when the two were matched already (their
 * conversation open), one `open` row with it; past the free plan's limit, one `refused` row with when
 * a like comes back; from a user whose own profile is not complete, one `incomplete` row; for someone
 * who cannot be reacted to, one `unreachable` row (from an incomplete profile too: a 404 tells nothing
 * of them); otherwise (a like stored, no match) no rows.
 */
type MatchRow = { outcome: 'match'; id: number; user_id: number; name: string; image: string | null };
type LikeRow =
  | MatchRow
  | { outcome: 'open'; id: number }
  | { outcome: 'refused'; resets_at: Date | string | null }
  | { outcome: 'incomplete' }
  | { outcome: 'unreachable' };

/**
 * The like, counted against the plan (`likeSpending`: its common table expressions define `allowed`),
 * and the match if theirs is there: the conversation, its members, its `matched` analytics event and
 * the two match cards. The event is what the moderators' daily matches count (`dailySummary`): it stays
 * when the conversation goes with either account. Its user is the one whose like made the match. A
 * statement of its own, begun once the pair's and the user's locks are held, so it sees their like if
 * it came first and the user's likes given so far; the cards come with it, so that `match:new` leaves
 * as soon as it commits. A refused like, or one to someone not `reachable`, stores nothing.
 *
 * A like of someone already matched (sent again because the first one's answer was lost) answers
 * their open conversation: the statement's snapshot does not see the row `created` may insert, so
 * `open` only finds one that was there before. An ended conversation is no match: nothing reopens it.
 */
const likeStatement = new PreparedStatement<Pair & { limit: number }>(sql`
  with target as (select ${reachable} as ok, ${profileCompleted($me)} as ready),
  ${likeSpending($me, $other, $limit, sql`(select ok and ready from target)`)},
  here as (select ${sharedCurrentEventOf($low, $high)} as event_id),
  mine as (
    insert into ${reactions} (from_user_id, to_user_id, kind, event_id) select ${$me}, ${$other}, 'like', here.event_id from allowed, here
    on conflict (from_user_id, to_user_id) do update set kind = 'like', updated_at = now(), event_id = excluded.event_id
  ), mutual as (
    select 1 from allowed where exists (select 1 from ${reactions} r
      where r.from_user_id = ${$other} and r.to_user_id = ${$me} and r.kind = 'like')
  ), created as (
    insert into ${conversations} (user_low_id, user_high_id, event_id)
    select ${$low}, ${$high}, ${eventStillThere(sql`here.event_id`)} from mutual, here
    on conflict (user_low_id, user_high_id) do nothing
    returning id
  ), members as (
    insert into ${conversationMembers} (conversation_id, user_id)
    select id, ${$low} from created union all select id, ${$high} from created
  ), matched_event as (
    insert into ${analyticsEvents} (user_id, name) select ${$me}, 'matched' from created
  )
  select 'match' as outcome, created.id, u.id as user_id, coalesce(p.name, u.first_name) as name, p.image, null::timestamptz as resets_at
  from created, ${users} u join ${profiles} p on p.user_id = u.id
  where u.id in (${$low}, ${$high})
  union all
  select 'open', c.id, null, null, null, null
  from mutual, ${conversations} c
  where c.user_low_id = ${$low} and c.user_high_id = ${$high} and c.ended_at is null
  union all
  select 'refused', null, null, null, null, ${likeComesBack($me, $limit)}
  from target where ok and ready and not exists (select 1 from allowed)
  union all
  select 'incomplete', null, null, null, null, null from target where ok and not ready
  union all
  select 'unreachable', null, null, null, null, null from target where not ok`);

export const NOTHING_TO_UNDO_DETAIL = serverText('nothing_to_undo');

/** 409: the last reaction is a like, older than the undo window, about someone no longer visible or no longer in my deck, or not about the person named. */
export class NothingToUndo extends ApiError {
  constructor() {
    super(409, { detail: NOTHING_TO_UNDO_DETAIL, code: 'nothing_to_undo' });
  }
}

/**
 * What an undo would take back now, one row or none: my latest reaction, when it is a dislike or a
 * skip of the last UNDO_WINDOW_MS about someone I may still see (a complete profile, `visibleTo`),
 * and who may be in my deck now (a card comes back on top of the deck): someone who fits me and whom I
 * fit, as the deck has it (`mutualFit`: either of us may have changed whom we look for since the
 * pass; my own profile complete), and while I am checked in, someone checked in to my event (the
 * room's deck holds only the room: not someone who has left since, nor someone passed over in the
 * general deck before I came), with the columns of their card. Only the very last reaction counts:
 * after a like (a match or not) there is nothing to undo, until the next dislike or skip.
 */
const undoable = (userId: number) => sql`
  select last.to_user_id, last.kind, last.updated_at,
    floor(extract(epoch from last.updated_at - now()) * 1000)::bigint + ${UNDO_WINDOW_MS} as closes_in_ms,
    p.name, p.date_of_birth::text as date_of_birth, p.bio, p.image
  from (
    select to_user_id, kind, updated_at from ${reactions} where from_user_id = ${userId}
    order by updated_at desc, to_user_id desc limit 1
  ) last
  join ${profiles} p on p.user_id = last.to_user_id and p.is_completed
  cross join (${viewerFitOf(userId)}) viewer
  where last.kind in ('dislike', 'skip')
    and last.updated_at > now() - ${UNDO_WINDOW_MS}::bigint * interval '1 millisecond'
    and (viewer.event_id is null or p.checked_in_event_id = viewer.event_id)
    and ${mutualFit(fitTermsOf('viewer'))}
    and ${visibleTo(userId, sql`last.to_user_id`)}`;

type UndoableRow = {
  to_user_id: number;
  kind: 'dislike' | 'skip';
  updated_at: Date | string;
  /** What is left of the window by the database's clock, the one that decides (`now()`). */
  closes_in_ms: number | string;
  name: string;
  date_of_birth: string;
  bio: string;
  image: string | null;
};

const cardOf = (row: UndoableRow): DeckCard => ({
  id: Number(row.to_user_id),
  name: row.name,
  age: ageOn(row.date_of_birth),
  bio: row.bio,
  image: row.image,
});

/**
 * The card an undo would bring back now, and when the window to undo it closes, on either plan (the
 * undo itself is a subscriber's; a free plan's phone names that card in what the plan would do): how a
 * client that did not see the pass (after a reload, or a pass on another phone while it was offline),
 * or that has just undone one, learns what undo would do next. The window comes as what is left of it
 * too (`expires_in_ms`): a phone whose clock is off by minutes would read `expires_at` as long past, or
 * as further off than the server allows.
 */
export async function undoableNow(db: Db, userId: number): Promise<Undoable> {
  const [row] = rowsOf<UndoableRow>(await db.execute(undoable(userId)));
  if (!row) return { card: null, expires_at: null, expires_in_ms: null };
  return {
    card: cardOf(row),
    expires_at: new Date(new Date(row.updated_at).getTime() + UNDO_WINDOW_MS).toISOString(),
    expires_in_ms: Number(row.closes_in_ms),
  };
}

/**
 * Takes back what `undoable` names, for a subscriber (`SubscriptionRequired` otherwise): the reaction
 * is deleted, so the person is in my deck again, and their card comes back for the client to put on
 * top. Each undo takes back one; the one before it may follow while it is within the window. With
 * `expected`, only if that is who it names: the client means the card it shows, and a pass made on
 * another phone since is not what it should bring back (`NothingToUndo`, and the client asks again).
 *
 * One statement: it deletes the row only if it is still the one it chose (same kind and time), so an
 * undo racing a new reaction to the same person, or a second undo, takes back nothing twice.
 */
export async function undoLast(db: Db, userId: number, expected?: number): Promise<UndoResult> {
  await requireSubscription(db, userId);
  const [row] = rowsOf<UndoableRow>(
    await db.execute(sql`
      with target as (${undoable(userId)})
      delete from ${reactions} r
      using target
      where r.from_user_id = ${userId} and r.to_user_id = target.to_user_id
        and r.kind = target.kind and r.updated_at = target.updated_at
        ${expected === undefined ? sql`` : sql`and target.to_user_id = ${expected}`}
      returning target.*`),
  );
  if (!row) throw new NothingToUndo();
  return { undone: row.kind, card: cardOf(row) };
}
