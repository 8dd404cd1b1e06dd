import { type SQL, sql } from 'drizzle-orm';
import { blocks, profiles, reactions } from '../../db/schema';

/** Where a page of the deck starts: after this card of this tier (keyset on the deck's order). */
export interface DeckPosition {
  tier: DeckTier;
  /** Epoch microseconds of the card's last_active_at, exact, as a decimal string. */
  activeUs: string;
  id: number;
}

/**
 * 0: people who liked me and whom I have not reacted to (shown early);
 * 1: everyone else I have not reacted to; 2: people I skipped, once 0 and 1 are exhausted.
 */
export type DeckTier = 0 | 1 | 2;

export interface DeckRow {
  id: number;
  name: string;
  date_of_birth: string;
  bio: string;
  image: string | null;
  tier: number;
  active_us: string;
}

/**
 * The deck in one statement. My own profile is read once in `me`; every use of it is a scalar
 * sub-select (an InitPlan, evaluated once), so that each tier's plan is an ordered index walk with a
 * LIMIT rather than a join that would have to sort every fitting candidate.
 *
 * Each tier is its own LIMITed branch, each on an index that fits it:
 *   0: reactions_to_user (to_user_id = me, kind = 'like'), then profiles by primary key;
 *   1: profiles_deck (last_active_at desc, user_id desc where is_completed), anti-joined on the
 *      reactions primary key both ways and on blocks;
 *   2: the reactions primary key (from_user_id = me), kind = 'skip'.
 */
export function deckQuery(userId: number, after: DeckPosition | null, limit: number): SQL {
  const me = (column: string) => sql.raw(`(select ${column} from me)`);

  // The mutual fit, the same for every tier. An event scope is one more line here
  // (`and p.event_id = (select event_id from me)`), with event_id leading the deck index.
  const fits = sql`
    p.is_completed and p.user_id <> ${me('user_id')}
    and p.gender = any(${me('genders_to_match')}::text[]) and ${me('gender')} = any(p.genders_to_match)
    and p.date_of_birth <= ${me('born_by')} and p.date_of_birth > ${me('born_after')}
    and p.min_matching_age <= ${me('age')} and p.max_matching_age >= ${me('age')}
    and not exists (select 1 from ${blocks} b where b.blocker_id = ${me('user_id')} and b.blocked_id = p.user_id)
    and not exists (select 1 from ${blocks} b where b.blocker_id = p.user_id and b.blocked_id = ${me('user_id')})`;

  const notReactedByMe = sql`not exists (select 1 from ${reactions} mine
    where mine.from_user_id = ${me('user_id')} and mine.to_user_id = p.user_id)`;

  const columns = (tier: DeckTier) => sql`p.user_id as id, p.name, p.date_of_birth::text as date_of_birth, p.bio,
    p.image, p.last_active_at, p.user_id, ${sql.raw(String(tier))} as tier`;

  const branch = (tier: DeckTier, from: SQL, where: SQL): SQL | null => {
    if (after && after.tier > tier) return null;
    const resume =
      after && after.tier === tier
        ? sql`and (p.last_active_at, p.user_id) < (timestamptz 'epoch' + ${after.activeUs}::bigint * interval '1 microsecond', ${after.id}::int)`
        : sql``;
    return sql`(select ${columns(tier)} from ${from} where ${fits} and ${where} ${resume}
      order by p.last_active_at desc nulls last, p.user_id desc nulls last limit ${limit})`;
  };

  const branches = [
    branch(
      0,
      sql`${reactions} liked join ${profiles} p on p.user_id = liked.from_user_id`,
      sql`liked.to_user_id = ${me('user_id')} and liked.kind = 'like' and ${notReactedByMe}`,
    ),
    branch(
      1,
      sql`${profiles} p`,
      sql`${notReactedByMe} and not exists (select 1 from ${reactions} theirs
        where theirs.from_user_id = p.user_id and theirs.to_user_id = ${me('user_id')} and theirs.kind = 'like')`,
    ),
    branch(
      2,
      sql`${reactions} skipped join ${profiles} p on p.user_id = skipped.to_user_id`,
      sql`skipped.from_user_id = ${me('user_id')} and skipped.kind = 'skip'`,
    ),
  ].filter((part): part is SQL => part !== null);

  return sql`
    with me as materialized (
      select user_id, gender, genders_to_match,
        date_part('year', age(today, date_of_birth))::int as age,
        (today - make_interval(years => min_matching_age::int))::date as born_by,
        (today - make_interval(years => max_matching_age::int + 1))::date as born_after
      from ${profiles}, (select (now() at time zone 'utc')::date as today) clock
      where user_id = ${userId} and is_completed
    )
    select id, name, date_of_birth, bio, image, tier,
      (extract(epoch from last_active_at) * 1000000)::bigint::text as active_us
    from (${sql.join(branches, sql` union all `)}) deck
    order by tier, last_active_at desc nulls last, user_id desc nulls last
    limit ${limit}`;
}
