import { type SQLWrapper, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';

/**
 * The locks that keep a match and whatever ends one (a block, a report, a ban) from missing each
 * other. A like decides from one snapshot whether the two may still see each other and creates
 * their conversation; an ending ends the conversations it can see. Without a lock in common, a
 * like could take its snapshot before the ending committed and commit its conversation after the
 * ending looked for it: a live match that nobody ended, back in a list after an unblock or unban.
 * With one, whichever comes second sees the first: the like answers 404, or the ending ends the
 * conversation the like made.
 *
 * All of them are transaction-scoped advisory locks. Lock order: a like takes its locks in
 * one statement before anything else (the user's likes lock, the pair's, then both users' ban locks
 * shared); a block or a report takes its pair's lock first; a ban takes its user's ban lock before
 * it changes anything the like reads. A block or a report never takes a ban lock, a ban never takes
 * a pair lock, so nothing waits in a cycle. A check-in holds its user's ban lock shared too, after
 * the user's check-in lock, which a ban never takes (events/service.ts).
 */

type UserRef = SQLWrapper | number;

/** The pair's lock (one key per pair, `low` < `high`; ids are < 2^31): a like and a block or report of the same two queue here. */
export const pairLock = (low: UserRef, high: UserRef) => sql`pg_advisory_xact_lock(${low}::bigint * 2147483648 + ${high}::bigint)`;

/** Takes the lock of the pair `a`, `b` (either order) for the rest of the transaction. */
export async function lockPair(tx: DbOrTx, a: number, b: number): Promise<void> {
  const [low, high] = a < b ? [a, b] : [b, a];
  await tx.execute(sql`select ${pairLock(low, high)}`);
}

/** A key space of its own for the ban locks, one key per user (the two-int form, as the likes lock's). */
export const BAN_LOCK_SPACE = 0x42414e53;

/**
 * Held shared by each like for both of its users: likes never wait on each other here, but a ban of
 * either waits for the like to commit, and a like that comes while a ban is in progress waits for it.
 * Shared advisory locks live in the lock table only: unlike `FOR SHARE` on the two users' rows, they
 * write nothing to the rows and make no like wait for an unrelated update of a user's row.
 */
export const banLockShared = (userId: UserRef) => sql`pg_advisory_xact_lock_shared(${BAN_LOCK_SPACE}::int, ${userId}::int)`;

/** A ban's side of `banLockShared`: waits for the likes of `userId` in flight, and holds new ones off until the ban commits. */
export async function lockOutLikes(tx: DbOrTx, userId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${BAN_LOCK_SPACE}::int, ${userId}::int)`);
}
