import { LIKES_YOU_PAGE_SIZE } from '../../../shared/constants';
import { ageOn } from '../../../shared/schemas/common';
import type { DeckCard } from '../../../shared/schemas/users';
import { z } from '../../../shared/schemas/zod';
import { type Db, rowsOf } from '../../db/client';
import { type Slice, sliceOf } from '../../lib/page';
import { isSubscriber } from '../plan/service';
import { type LikePosition, type LikeRow, likesCountQuery, likesPageQuery } from './queries';

/** A likes cursor, once opened: checked again, since its parts are written into the statement. */
export const LikePositionSchema: z.ZodType<LikePosition> = z.object({
  likedUs: z.string().regex(/^\d{1,18}$/),
  id: z.number().int().min(1).max(2_147_483_647),
});

export interface LikesYou extends Slice<DeckCard, LikePosition> {
  count: number;
}

/**
 * "Likes you": how many people like me and wait for my answer, and, for a subscriber, who
 * they are, newest first. Without the plan the count alone: the people stay hidden until they match.
 */
export async function likesYou(
  db: Db,
  userId: number,
  options: { after?: LikePosition | null; limit?: number } = {},
): Promise<LikesYou> {
  const [subscribed, counted] = await Promise.all([
    isSubscriber(db, userId),
    db.execute(likesCountQuery(userId)),
  ]);
  const count = Number(rowsOf<{ count: number | string }>(counted)[0]?.count ?? 0);
  if (!subscribed || count === 0) return { count, results: [], next: null };

  const limit = options.limit ?? LIKES_YOU_PAGE_SIZE;
  const rows = rowsOf<LikeRow>(await db.execute(likesPageQuery(userId, options.after ?? null, limit + 1)));
  return {
    count,
    ...sliceOf(
      rows,
      limit,
      (row) => ({ id: Number(row.id), name: row.name, age: ageOn(row.date_of_birth), bio: row.bio, image: row.image }),
      (row) => ({ likedUs: row.liked_us, id: Number(row.id) }),
    ),
  };
}
