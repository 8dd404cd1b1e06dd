import { eq, type SQLWrapper, sql } from 'drizzle-orm';
import { DAILY_LIKES_WINDOW_MS, FREE_DAILY_LIKES } from '../../../shared/constants';
import { serverText } from '../../../shared/i18n/server-messages';
import type { LikeAllowance } from '../../../shared/schemas/plan';
import { type DbOrTx, rowsOf } from '../../db/client';
import { likesGiven, reactions, users } from '../../db/schema';
import { ApiError } from '../../errors';

/**
 * What the plan buys. The plan is `users.has_subscription`, which only Stripe's events
 * (webhook or the local test checkout) change, and which is read fresh on every request: a cancelled
 * or unpaid subscription loses its perks with the event that says so.
 */

export const SUBSCRIPTION_REQUIRED_DETAIL = serverText('subscription_required');

export class SubscriptionRequired extends ApiError {
  constructor() {
    super(403, { detail: SUBSCRIPTION_REQUIRED_DETAIL, code: 'subscription_required' });
  }
}

export class DailyLikesExhausted extends ApiError {
  constructor(limit: number, resetsAt: Date) {
    const seconds = Math.max(1, Math.ceil((resetsAt.getTime() - Date.now()) / 1000));
    super(
      429,
      {
        detail: serverText('daily_likes_exhausted', { limit }),
        code: 'daily_likes_exhausted',
        resets_at: resetsAt.toISOString(),
      },
      { 'Retry-After': String(seconds) },
    );
  }
}

export async function isSubscriber(db: DbOrTx, userId: number): Promise<boolean> {
  const [row] = await db.select({ active: users.hasSubscription }).from(users).where(eq(users.id, userId));
  return row?.active ?? false;
}

export async function requireSubscription(db: DbOrTx, userId: number): Promise<void> {
  if (!(await isSubscriber(db, userId))) throw new SubscriptionRequired();
}

/** The free plan's likes per window; `RATE_LIMIT_MULTIPLIER` (benchmarks) lifts it as it does every per-user limit. */
export const freeDailyLikes = (multiplier: number) => FREE_DAILY_LIKES * multiplier;

const window = sql`(${DAILY_LIKES_WINDOW_MS}::bigint * interval '1 millisecond')`;
const inWindow = (userId: number | SQLWrapper) => sql`${likesGiven.userId} = ${userId} and ${likesGiven.givenAt} > now() - ${window}`;

/**
 * When the `limit`-th newest like of the window leaves it: from then on fewer than `limit` are in it.
 * With exactly `limit` likes that is the oldest one (likes given while subscribed may make more).
 */
export const likeComesBack = (userId: number | SQLWrapper, limit: number | SQLWrapper) => sql`(
  select ${likesGiven.givenAt} + ${window} from ${likesGiven} where ${inWindow(userId)}
  order by ${likesGiven.givenAt} desc offset (${limit}::int - 1) limit 1)`;

/**
 * Likes that have left the window count for nothing. A like deletes its giver's old rows as it goes
 * (`likeSpending`); this takes the rows of everyone who has not liked since, so the table holds one
 * window of likes at most. Returns how many rows went.
 */
export async function purgeSpentLikes(db: DbOrTx): Promise<number> {
  const deleted = rowsOf<{ n: number | string }>(
    await db.execute(sql`with spent as (delete from ${likesGiven} where ${likesGiven.givenAt} <= now() - ${window} returning 1)
      select count(*) as n from spent`),
  );
  return Number(deleted[0]?.n ?? 0);
}

/** A lock per user, in a key space of its own (the two-int form never meets the matching pair locks). */
const LIKES_LOCK_SPACE = 0x4c494b45;

/**
 * The lock that serialises a user's likes: taken by the like's first statement, with its other locks,
 * before the statement that counts it (`likeSpending`).
 */
export const likesLock = (userId: number | SQLWrapper) => sql`pg_advisory_xact_lock(${LIKES_LOCK_SPACE}::int, ${userId}::int)`;

/**
 * The free plan's count of a like, for `me` liking `other` with `limit` likes a window: the common
 * table expressions that go first in the like's own statement (matching's `likeStatement`), so that
 * counting it costs no round trip of its own. They take the giver's rows that have left the window,
 * count this like if it may be given, and define `allowed`: one row when the like goes ahead, none
 * when it is refused (then `likeComesBack` tells when one comes back).
 *
 * Every like given is counted, the plan's too: someone who cancels after a busy night has given those
 * likes in the window like anyone else. Liking someone already liked is no new like and costs
 * nothing. A like later replaced (by a dislike, an unmatch) still counts at the time it was given: it
 * was spent then, and counting it keeps like-then-dislike from costing less.
 *
 * The caller holds `likesLock(me)`, taken by an earlier statement of the same transaction, which
 * serialises the user's likes: the count and the insert are one step, and two likes at the same
 * instant cannot both see 99. (One statement sees one snapshot: the lock must be held before it starts.)
 * Only while `onlyIf` holds (the like's target can be reacted to): otherwise nothing is counted or
 * deleted, and `allowed` is empty.
 */
export const likeSpending = (me: SQLWrapper, other: SQLWrapper, limit: SQLWrapper, onlyIf: SQLWrapper) => sql`
  expired as (
    delete from ${likesGiven} where ${likesGiven.userId} = ${me} and ${likesGiven.givenAt} <= now() - ${window} and ${onlyIf}
  ),
  already as (
    select exists (select 1 from ${reactions}
      where ${reactions.fromUserId} = ${me} and ${reactions.toUserId} = ${other} and ${reactions.kind} = 'like') as liked
    where ${onlyIf}
  ),
  spent as (
    insert into ${likesGiven} (user_id, to_user_id, given_at)
    select ${me}, ${other}, now() from already
    where not already.liked
      and ((select ${users.hasSubscription} from ${users} where ${users.id} = ${me})
        or (select count(*) from ${likesGiven} where ${inWindow(me)}) < ${limit})
    returning 1
  ),
  allowed as (
    select 1 from already where liked union all select 1 from spent
  )`;

/** The likes a user has left in the window (the deck shows when they come back). */
export async function likeAllowance(db: DbOrTx, userId: number, limit: number): Promise<LikeAllowance> {
  const [row] = rowsOf<{ subscribed: boolean; used: number | string; resets_at: Date | string | null }>(
    await db.execute(sql`
      select ${users.hasSubscription} as subscribed,
        (select count(*) from ${likesGiven} where ${inWindow(userId)}) as used,
        ${likeComesBack(userId, limit)} as resets_at
      from ${users} where ${users.id} = ${userId}`),
  );
  if (row?.subscribed) return { unlimited: true, limit: null, remaining: null, resets_at: null };
  const remaining = Math.max(0, limit - Number(row?.used ?? 0));
  return {
    unlimited: false,
    limit,
    remaining,
    resets_at: remaining === 0 && row?.resets_at ? new Date(row.resets_at).toISOString() : null,
  };
}
