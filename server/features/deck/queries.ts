import { type Placeholder, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { PreparedStatement } from '../../db/client';
import { profiles, reactions } from '../../db/schema';
import { currentEventIdOf } from '../events/queries';
import { visibleAmong } from '../safety/visibility';

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

/** What the deck needs to know about its viewer, read once by `viewerFitQuery`. */
export interface ViewerFit {
  user_id: number;
  gender: string;
  /** Comma-separated (the same on every driver). */
  genders_to_match: string;
  age: number;
  /** Candidates born on or before this date are at least my minimum age (UTC today). */
  born_by: string;
  /** Candidates born after this date are at most my maximum age. */
  born_after: string;
  /** My current event: while I have one, the deck holds only the people checked in there. */
  event_id: number | null;
}

/**
 * The viewer's fit values, computed in SQL against UTC today, in their own types (`born_by` a date,
 * `genders_to_match` a text[]); no row for an incomplete profile. `viewerFitStatement` reads them for
 * the deck; a statement about one candidate joins them (`fitTermsOf`).
 */
export const viewerFitOf = (userId: Placeholder | number) => sql`
  select user_id, gender, genders_to_match,
    date_part('year', age(today, date_of_birth))::int as age,
    (today - make_interval(years => min_matching_age::int))::date as born_by,
    (today - make_interval(years => max_matching_age::int + 1))::date as born_after,
    ${currentEventIdOf(userId)} as event_id
  from ${profiles}, (select (now() at time zone 'utc')::date as today) clock
  where user_id = ${userId} and is_completed`;

/** The viewer's fit values as the deck's parameters take them (`ViewerFit`). */
export const viewerFitStatement = new PreparedStatement<{ userId: number }>(sql`
  select user_id, gender, array_to_string(genders_to_match, ',') as genders_to_match, age,
    born_by::text as born_by, born_after::text as born_after, event_id
  from (${viewerFitOf(sql.placeholder('userId'))}) fit`);

/** A viewer's fit values as the mutual fit reads them: SQL expressions of the columns' own types. */
export interface FitTerms {
  me: SQL;
  /** text[] */
  genders: SQL;
  /** text[]: the viewer's gender alone. */
  gender: SQL;
  bornBy: SQL;
  bornAfter: SQL;
  age: SQL;
}

/** The fit values of a `viewerFitOf` row joined under `alias`. */
export function fitTermsOf(alias: string): FitTerms {
  const column = (name: string) => sql.raw(`${alias}.${name}`);
  return {
    me: column('user_id'),
    genders: column('genders_to_match'),
    gender: sql`array[${column('gender')}]::text[]`,
    bornBy: column('born_by'),
    bornAfter: column('born_after'),
    age: column('age'),
  };
}

/** Whom the viewer is looking for, of the profile `p`: gender and age. */
const whomTheViewerWants = (viewer: FitTerms) => sql`p.user_id <> ${viewer.me}
    and p.gender = any(${viewer.genders})
    and p.date_of_birth <= ${viewer.bornBy} and p.date_of_birth > ${viewer.bornAfter}`;

/** Whether the profile `p` is looking for the viewer back. */
const wantsTheViewerBack = (viewer: FitTerms) => sql`
    p.genders_to_match @> ${viewer.gender}
    and p.min_matching_age <= ${viewer.age} and p.max_matching_age >= ${viewer.age}`;

/**
 * The deck's mutual fit of the profile `p` with a viewer, the visibility rule aside (each statement
 * asks it in the shape it needs, safety/visibility.ts): what an undo asks of the card it brings back.
 */
export const mutualFit = (viewer: FitTerms) => sql`${whomTheViewerWants(viewer)} and ${wantsTheViewerBack(viewer)}`;

/**
 * A condition the planner cannot see into, so it assumes half the rows pass. For "wants me back" that
 * is closer to the truth than its own estimate: it multiplies each part's selectivity as if they were
 * independent, but they are not (older people accept older ages, and a woman looking for men is
 * mostly looked for by men), so it under-estimated the unseen tier several times over for older
 * viewers and sorted thousands of candidates instead of walking the deck index (bench/README.md).
 * The result is the same: every part is over NOT NULL columns and lists, so the condition is never null.
 */
const opaqueToPlanner = (condition: SQL) => sql`(case when ${condition} then true else false end)`;

/**
 * The deck in one statement, every value a parameter, its text one of a few (the event scope or not,
 * the tier a cursor resumes in): the app runs it as a named prepared statement (`deckStatement`, its
 * text built once per shape), parsed once per connection and sent in one round trip. Town-wide it is
 * planned at every execution for its viewer's values (`runWithCustomPlan`), so that the planner walks
 * the index that fits them; within an event its text leaves the planner one way (below), and the plan
 * made once per connection serves every viewer (`runWithGenericPlan`). `deckQuery` is the same
 * statement with its values (the benchmarks' EXPLAIN and their ways of sending it).
 * Every value is the database's own (ids, dates, ages, enum genders) or a cursor part already checked
 * to be digits. Three LIMITed branches, each on an index that fits it:
 *   0: reactions_to_user (to_user_id = me, kind = 'like'), then profiles by primary key;
 *   1: profiles_deck (last_active_at desc, user_id desc where is_completed), or within an event
 *      profiles_event_deck (the same order after the event id), walked in order and
 *      filtered against hashed lists (my reactions, my likers, the people hidden from me, each read once
 *      through its index) — it stops after `limit` fitting rows instead of sorting every candidate
 *      (or, for a narrow age range, the profiles_fit bitmap);
 *   2: the reactions primary key (from_user_id = me), kind = 'skip'.
 */
export function deckQuery(fit: ViewerFit, after: DeckPosition | null, limit: number): SQL {
  const values = deckValues(fit, after, limit);
  return deckSql(shapeOf(fit, after), (name) => sql`${values[name]}`);
}

/** The values of a deck statement, by name (`deckQuery` writes them as parameters, in this order of use). */
export interface DeckValues {
  [name: string]: unknown;
  me: number;
  genders: string;
  gender: string;
  bornBy: string;
  bornAfter: string;
  age: number;
  eventId: number;
  activeUs: string;
  afterId: number;
  limit: number;
}

/** What a deck statement's text depends on: the event scope, and the tier a cursor resumes in. */
interface DeckShape {
  eventId: number | null;
  after: DeckTier | null;
}

const shapeOf = (fit: ViewerFit, after: DeckPosition | null): DeckShape => ({ eventId: fit.event_id, after: after?.tier ?? null });

export function deckValues(fit: ViewerFit, after: DeckPosition | null, limit: number): DeckValues {
  return {
    me: fit.user_id,
    // text[] parameters (drizzle would spread a JS array into a list); values are enum-checked.
    genders: `{${fit.genders_to_match}}`,
    gender: `{${fit.gender}}`,
    bornBy: fit.born_by,
    bornAfter: fit.born_after,
    age: fit.age,
    eventId: Number(fit.event_id ?? 0),
    activeUs: after?.activeUs ?? '0',
    afterId: after?.id ?? 0,
    limit,
  };
}

/**
 * The deck as the app sends it: one statement per shape (event scope or not × the cursor's tier),
 * its text built once, its values filled in per request (`deckValues`). The same text as `deckQuery`.
 */
export function deckStatement(fit: ViewerFit, after: DeckPosition | null): PreparedStatement<DeckValues> {
  const shape = shapeOf(fit, after);
  const key = `${shape.eventId === null ? 'all' : 'event'}/${shape.after ?? '-'}`;
  let statement = deckStatements.get(key);
  if (!statement) {
    statement = new PreparedStatement<DeckValues>(deckSql(shape, (name) => sql.placeholder(name)));
    deckStatements.set(key, statement);
  }
  return statement;
}

const deckStatements = new Map<string, PreparedStatement<DeckValues>>();

function deckSql(shape: DeckShape, value: (name: keyof DeckValues & string) => SQLWrapper): SQL {
  const me = sql`${value('me')}::int`;
  const limit = value('limit');
  const after = shape.after;

  // Where: everyone, or while I am checked in, only the people of my event. My event is live, so
  // whoever is placed there has their attendance open and current. A column of the profile, so that
  // the unseen tier walks profiles_event_deck, the deck's order within the event, and stops after a
  // page (at worst after the event's rows) instead of joining the event's attendees to the town.
  const scope = shape.eventId === null ? sql`true` : sql`p.checked_in_event_id = ${value('eventId')}::int`;
  const viewer: FitTerms = {
    me,
    genders: sql`${value('genders')}::text[]`,
    gender: sql`${value('gender')}::text[]`,
    bornBy: sql`${value('bornBy')}::date`,
    bornAfter: sql`${value('bornAfter')}::date`,
    age: sql`${value('age')}`,
  };
  // The mutual fit, the same for every tier, in two halves. First whom I am looking for: gender and
  // age, which the planner estimates well and profiles_fit can serve.
  const genderAndAge = whomTheViewerWants(viewer);
  const whomIWant = sql`${scope} and p.is_completed and ${genderAndAge}`;
  // Then whether they want me back, and whether we may see each other at all (the visibility rule).
  const wantsMeBack = sql`${wantsTheViewerBack(viewer)}
    and ${visibleAmong(me, sql`p.user_id`)}`;
  const fits = sql`${whomIWant} and ${wantsMeBack}`;

  // NOT IN over NOT NULL columns: each list is read once and hashed (a "hashed SubPlan"), which keeps
  // the planner's join search out of it; planning, not execution, was the larger cost.
  const notReactedByMe = sql`p.user_id not in (select to_user_id from ${reactions} where from_user_id = ${me})`;

  const columns = (tier: DeckTier) => sql`p.user_id as id, p.name, p.date_of_birth::text as date_of_birth, p.bio,
    p.image, p.last_active_at, p.user_id, ${sql.raw(String(tier))} as tier`;

  const branch = (tier: DeckTier, from: SQL, where: SQL): SQL | null => {
    if (after !== null && after > tier) return null;
    const resume =
      after === tier
        ? sql`and (p.last_active_at, p.user_id) < (timestamptz 'epoch' + ${value('activeUs')}::bigint * interval '1 microsecond', ${value('afterId')}::int)`
        : sql``;
    return sql`(select ${columns(tier)} from ${from} where ${where} ${resume}
      order by p.last_active_at desc nulls last, p.user_id desc nulls last limit ${limit})`;
  };

  // Tiers 0 and 2 start from my reactions' rows (those who liked me, those I skipped): a few dozen,
  // read through their index, each profile then found by its key and the survivors sorted. The
  // profile sits behind a lateral subquery that cannot be flattened (`offset 0`), so that is the only
  // order the planner can take: left to its estimates, at an event where everyone is in the room it
  // walked the whole event in the deck's order, probing the reactions at every profile.
  const profileOf = (userId: SQL) => sql`lateral (select * from ${profiles} where user_id = ${userId} offset 0) p`;

  // The unseen tier: whom I want, then, hidden from the planner, the rest. Within an event, whom I want
  // is hidden too: the room is a few thousand rows at most, so walking it in the deck's order is never
  // much worse than reading it all, and usually stops after a page. Left to its estimates for a narrow
  // age range, the planner read the whole room through a bitmap and sorted it — for a third of the
  // viewers, 1.5–2× the walk's time (bench/README.md). Town-wide, the profiles_fit bitmap is the right
  // plan for a narrow range, so there the planner keeps seeing gender and age.
  const unseenRest = sql`${wantsMeBack} and ${notReactedByMe}
    and p.user_id not in (select from_user_id from ${reactions} where to_user_id = ${me} and kind = 'like')`;
  const unseen =
    shape.eventId === null
      ? sql`${whomIWant} and ${opaqueToPlanner(unseenRest)}`
      : sql`${scope} and p.is_completed and ${opaqueToPlanner(sql`${genderAndAge} and ${unseenRest}`)}`;

  const branches = [
    branch(
      0,
      sql`${reactions} liked cross join ${profileOf(sql`liked.from_user_id`)}`,
      sql`liked.to_user_id = ${me} and liked.kind = 'like' and ${fits} and ${notReactedByMe}`,
    ),
    branch(1, sql`${profiles} p`, unseen),
    branch(
      2,
      sql`${reactions} skipped cross join ${profileOf(sql`skipped.to_user_id`)}`,
      sql`skipped.from_user_id = ${me} and skipped.kind = 'skip' and ${fits}`,
    ),
  ].filter((part): part is SQL => part !== null);

  return sql`
    select id, name, date_of_birth, bio, image, tier,
      (extract(epoch from last_active_at) * 1000000)::bigint::text as active_us
    from (${sql.join(branches, sql` union all `)}) deck
    order by tier, last_active_at desc nulls last, user_id desc nulls last
    limit ${limit}`;
}
