import { sql } from 'drizzle-orm';
import type { Reaction } from '../../../shared/constants';
import type { MatchUser } from '../../../shared/events';
import { conversationMembers, conversations, profiles, reactions, users } from '../../db/schema';
import { NotFound, ValidationError } from '../../errors';
import { type Db, rowsOf } from '../../db/client';
import { visibleTo } from '../safety/visibility';

export const CANNOT_REACT_TO_SELF = 'You cannot react to yourself.';

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
 * makes a duplicate impossible even without the lock.
 */
export async function react(db: Db, userId: number, input: { response: Reaction; other: number }): Promise<ReactOutcome> {
  const otherId = input.other;
  if (otherId === userId) throw ValidationError.field('other', CANNOT_REACT_TO_SELF);
  const [low, high] = userId < otherId ? [userId, otherId] : [otherId, userId];

  const conversationId = await db.transaction(async (tx) => {
    // Unknown, incomplete or hidden by the visibility rule: as good as not there (the profile says 404 too).
    const target = rowsOf<{ ok: number }>(
      await tx.execute(sql`
        select 1 as ok from ${profiles} p
        where p.user_id = ${otherId} and p.is_completed and ${visibleTo(userId, sql`p.user_id`)}
      `),
    );
    if (target.length === 0) throw new NotFound();

    if (input.response === 'like') {
      // One key per pair (ids are < 2^31): the two likes of a pair queue here, other pairs do not.
      await tx.execute(sql`select pg_advisory_xact_lock(${low}::bigint * 2147483648 + ${high}::bigint)`);
    }
    await tx
      .insert(reactions)
      .values({ fromUserId: userId, toUserId: otherId, kind: input.response })
      .onConflictDoUpdate({
        target: [reactions.fromUserId, reactions.toUserId],
        set: { kind: input.response, updatedAt: sql`now()` },
      });
    if (input.response !== 'like') return null;

    const created = rowsOf<{ id: number }>(
      await tx.execute(sql`
        insert into ${conversations} (user_low_id, user_high_id)
        select ${low}, ${high}
        where exists (select 1 from ${reactions} r
          where r.from_user_id = ${otherId} and r.to_user_id = ${userId} and r.kind = 'like')
        on conflict (user_low_id, user_high_id) do nothing
        returning id
      `),
    );
    const id = created[0] ? Number(created[0].id) : null;
    if (id === null) return null;
    await tx.insert(conversationMembers).values([
      { conversationId: id, userId: low },
      { conversationId: id, userId: high },
    ]);
    return id;
  });

  if (conversationId === null) return { match: false, conversationId: null, matched: [] };
  const cards = await matchCards(db, [userId, otherId]);
  return {
    match: true,
    conversationId,
    matched: [
      { userId, other: cards.get(otherId)! },
      { userId: otherId, other: cards.get(userId)! },
    ],
  };
}

async function matchCards(db: Db, ids: number[]): Promise<Map<number, MatchUser>> {
  const rows = rowsOf<{ id: number; name: string; image: string | null }>(
    await db.execute(sql`
      select u.id, coalesce(p.name, u.first_name) as name, p.image
      from ${users} u join ${profiles} p on p.user_id = u.id
      where u.id in (${sql.join(ids, sql`, `)})
    `),
  );
  return new Map(rows.map((row) => [Number(row.id), { id: Number(row.id), name: row.name, image: row.image }]));
}
