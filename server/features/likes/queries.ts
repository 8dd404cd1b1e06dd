import { type SQL, sql } from 'drizzle-orm';
import { profiles, reactions } from '../../db/schema';
import { hiddenFrom } from '../safety/visibility';

/** Where a page of the likes list starts: after this like (keyset on its order). */
export interface LikePosition {
  /** Epoch microseconds of the like, exact, as a decimal string. */
  likedUs: string;
  id: number;
}

export interface LikeRow {
  id: number;
  name: string;
  date_of_birth: string;
  bio: string;
  image: string | null;
  liked_us: string;
}

/**
 * The people who like `me` and whom `me` has not answered: their reaction to me is a like, mine to
 * them is none or a skip (a skip is "later", not an answer; a like made the match, a dislike said no),
 * their profile is complete, and the visibility rule lets us see each other (no block either way, no
 * unmatch, nobody banned). Not filtered by my gender and age preferences: a like is shown as given.
 * Read through `reactions_to_user` (to_user_id, kind); my answers and the hidden people are each
 * read once and hashed.
 */
function unansweredLikes(me: number): SQL {
  return sql`
    from ${reactions} liked join ${profiles} p on p.user_id = liked.from_user_id
    where liked.to_user_id = ${me} and liked.kind = 'like' and p.is_completed
      and liked.from_user_id not in (
        select to_user_id from ${reactions} where from_user_id = ${me} and kind in ('like', 'dislike'))
      and liked.from_user_id not in (${hiddenFrom(me)})`;
}

export function likesCountQuery(me: number): SQL {
  return sql`select count(*) as count ${unansweredLikes(me)}`;
}

/** Newest like first; `limit` rows after `after`. */
export function likesPageQuery(me: number, after: LikePosition | null, limit: number): SQL {
  const resume = after
    ? sql`and (liked.updated_at, liked.from_user_id) < (timestamptz 'epoch' + ${after.likedUs}::bigint * interval '1 microsecond', ${after.id}::int)`
    : sql``;
  return sql`
    select p.user_id as id, p.name, p.date_of_birth::text as date_of_birth, p.bio, p.image,
      (extract(epoch from liked.updated_at) * 1000000)::bigint::text as liked_us
    ${unansweredLikes(me)} ${resume}
    order by liked.updated_at desc, liked.from_user_id desc
    limit ${limit}`;
}
