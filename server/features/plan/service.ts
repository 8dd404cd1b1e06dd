import { eq, type SQLWrapper, sql } from 'drizzle-orm';
import { DAILY_LIKES_WINDOW_MS, FREE_DAILY_LIKES } from '../../../shared/constants';
import type { LikeAllowance } from '../../../shared/schemas/plan';
import { type DbOrTx, PreparedStatement, rowsOf, type Tx } from '../../db/client';
import { likesGiven, reactions, users } from '../../db/schema';
import { ApiError } from '../../errors';

/**
 * What the plan buys. The plan is `users.has_subscription`, which only Stripe's events
 * (webhook or the local test checkout) change, and which is read fresh on every request: a cancelled
 * or unpaid subscription loses its perks with the event that says so.
 */

export const SUBSCRIPTION_REQUIRED_DETAIL = 'This is part of the paid plan.';

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
        detail: `You have used your ${limit} likes of the last 24 hours.`,
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
const likeComesBack = (userId: number, limit: number) => sql`(
  select ${likesGiven.givenAt} + ${window} from ${likesGiven} where ${inWindow(userId)}
  order by ${likesGiven.givenAt} desc offset ${limit - 1} limit 1)`;

/**
 * Likes that have left the window count for nothing. A like deletes its giver's old rows as it goes
 * (`spendLike`); this takes the rows of everyone who has not liked since, so the table holds one
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
 * The lock that serialises a user's likes: taken by the reaction's transaction before `spendLike`
 * (with its other locks, in one statement: a round trip less per like).
 */
export const likesLock = (userId: number | SQLWrapper) => sql`pg_advisory_xact_lock(${LIKES_LOCK_SPACE}::int, ${userId}::int)`;

const giver = sql`${sql.placeholder('userId')}::int`;
const taker = sql`${sql.placeholder('otherId')}::int`;

/** The like counted, if it may be: one statement, which also takes the giver's rows that have left the window. */
const spendStatement = new PreparedStatement<{ userId: number; otherId: number; limit: number }>(sql`
  with expired as (
    delete from ${likesGiven} where ${likesGiven.userId} = ${giver} and ${likesGiven.givenAt} <= now() - ${window}
  )
  insert into ${likesGiven} (user_id, to_user_id, given_at)
  select ${giver}, ${taker}, now()
  where not exists (select 1 from ${reactions}
      where ${reactions.fromUserId} = ${giver} and ${reactions.toUserId} = ${taker} and ${reactions.kind} = 'like')
    and ((select ${users.hasSubscription} from ${users} where ${users.id} = ${giver})
      or (select count(*) from ${likesGiven} where ${inWindow(giver)}) < ${sql.placeholder('limit')}::int)
  returning 1 as ok`);

/**
 * Counts a like `userId` is giving `otherId`, inside the reaction's transaction, before the reaction is
 * written: without the plan, the like past `limit` in the rolling window throws `DailyLikesExhausted`
 * and the transaction stores nothing. Liking someone already liked is no new like and costs nothing.
 *
 * Every like given is counted, the plan's too: someone who cancels after a busy night has given those
 * likes in the window like anyone else. A like later replaced (by a dislike, an unmatch) still counts
 * at the time it was given: it was spent then, and counting it keeps like-then-dislike from costing less.
 *
 * The caller holds `likesLock(userId)`, which serialises the user's likes, so the count and the
 * insert are one step: two likes at the same instant cannot both see 99. The insert decides in SQL
 * (one statement), and takes the user's rows that have left the window with it.
 */
export async function spendLike(tx: Tx, userId: number, otherId: number, limit: number): Promise<void> {
  const inserted = await spendStatement.runIn<{ ok: number }>(tx, { userId, otherId, limit });
  if (inserted.length > 0) return;

  const [state] = rowsOf<{ liked: boolean; resets_at: Date | string | null }>(
    await tx.execute(sql`
      select exists (select 1 from ${reactions}
          where ${reactions.fromUserId} = ${userId} and ${reactions.toUserId} = ${otherId} and ${reactions.kind} = 'like') as liked,
        ${likeComesBack(userId, limit)} as resets_at`),
  );
  if (state?.liked) return;
  if (!state?.resets_at) throw new Error(`user ${userId} was refused a like with no like in the window`);
  throw new DailyLikesExhausted(limit, new Date(state.resets_at));
}

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
