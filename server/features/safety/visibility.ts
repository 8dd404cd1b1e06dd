import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { blocks, conversations, users } from '../../db/schema';

/**
 * The one visibility rule: may two people see and reach each other? Not when either
 * blocked the other, when they unmatched, or when either is banned (a deleted account has no row to
 * find). Every path that shows one user to another or lets one reach the other asks here: the deck,
 * profiles, reactions, conversation lists, a conversation and its messages, sends, typing, receipts,
 * presence. Whoever is hidden gets the answer of an id that never existed.
 *
 * Each rule is written once, in the two shapes a query needs it: for a list of candidates, the set of
 * people hidden from one viewer (read once and hashed per statement), and the test of one pair (a few
 * index probes, for a path that already knows both). `tests/server/visibility.test.ts` holds the two
 * shapes to each other.
 */
interface Rule {
  /** The ids hidden from `viewer` by this rule (a SELECT of one column). */
  hiddenFrom(viewer: SQL): SQL;
  /**
   * True when this rule hides everyone from `viewer`: a one-time check, kept out of the set so that the
   * planner's estimate of the set stays the size of what it holds (a branch that could return every
   * user made the planner hash the deck's whole age band instead of walking its index).
   */
  hidesEveryoneFrom?(viewer: SQL): SQL;
  /** True when this rule hides `a` and `b` from each other. */
  hides(a: SQL, b: SQL): SQL;
}

// Each rule reads its table under an alias of its own. The ids it is given may be columns of the
// caller's query (`conversations.user_low_id`, …), and a column named by its table inside a subquery
// that reads that same table unaliased would bind to the subquery's row, not the caller's: the test
// of one pair would then ask about every row of the table.
const blocked: Rule = {
  hiddenFrom: (viewer) => sql`select vb.blocked_id from ${blocks} vb where vb.blocker_id = ${viewer}
    union all select vb.blocker_id from ${blocks} vb where vb.blocked_id = ${viewer}`,
  hides: (a, b) => sql`exists (select 1 from ${blocks} vb
    where (vb.blocker_id = ${a} and vb.blocked_id = ${b}) or (vb.blocker_id = ${b} and vb.blocked_id = ${a}))`,
};

/** An unmatch is kept as the ended conversation of the pair (its row is never deleted). */
const unmatched: Rule = {
  hiddenFrom: (viewer) => sql`select vu.user_high_id from ${conversations} vu
      where vu.user_low_id = ${viewer} and vu.end_reason = 'unmatch'
    union all select vu.user_low_id from ${conversations} vu
      where vu.user_high_id = ${viewer} and vu.end_reason = 'unmatch'`,
  hides: (a, b) => sql`exists (select 1 from ${conversations} vu
    where vu.user_low_id = least(${a}, ${b}) and vu.user_high_id = greatest(${a}, ${b}) and vu.end_reason = 'unmatch')`,
};

const banned: Rule = {
  hiddenFrom: () => sql`select vn.id from ${users} vn where vn.banned_at is not null`,
  hidesEveryoneFrom: (viewer) => sql`exists (select 1 from ${users} vn where vn.id = ${viewer} and vn.banned_at is not null)`,
  hides: (a, b) => sql`exists (select 1 from ${users} vn where vn.id in (${a}, ${b}) and vn.banned_at is not null)`,
};

const RULES = [blocked, unmatched, banned];

/** A user id in a query: a column, an expression, or a number (a typed parameter). */
type UserRef = SQLWrapper | number;

const asSql = (value: UserRef): SQL => (typeof value === 'number' ? sql`${value}::int` : sql`${value}`);

/**
 * True when `candidate` may be shown to `viewer`, for a list of candidates: the people hidden from
 * the viewer are read once and hashed (`not in`), whatever the number of candidates.
 */
export function visibleAmong(viewer: UserRef, candidate: SQLWrapper): SQL {
  const me = asSql(viewer);
  const hidden = sql.join(
    RULES.map((rule) => rule.hiddenFrom(me)),
    sql` union all `,
  );
  const everyone = RULES.flatMap((rule) => (rule.hidesEveryoneFrom ? [sql`not ${rule.hidesEveryoneFrom(me)}`] : []));
  return sql.join([sql`${candidate} not in (${hidden})`, ...everyone], sql` and `);
}

/** True when `a` and `b` may see each other. */
export function visibleTo(a: UserRef, b: UserRef): SQL {
  const [x, y] = [asSql(a), asSql(b)];
  return sql`not (${sql.join(
    RULES.map((rule) => rule.hides(x, y)),
    sql` or `,
  )})`;
}

/** The conversations row of a query, by its columns (the table itself, or an alias such as `c`). */
export interface ConversationColumns {
  low: SQLWrapper;
  high: SQLWrapper;
  endedAt: SQLWrapper;
}

/** `conversations` as a query names it without an alias. */
export const conversationColumns: ConversationColumns = {
  low: conversations.userLowId,
  high: conversations.userHighId,
  endedAt: conversations.endedAt,
};

/** The same columns under an alias (`c.user_low_id`, …). */
export const aliasedConversation = (alias: string): ConversationColumns => ({
  low: sql.raw(`${alias}.user_low_id`),
  high: sql.raw(`${alias}.user_high_id`),
  endedAt: sql.raw(`${alias}.ended_at`),
});

function conversationParts(viewer: UserRef, c: ConversationColumns) {
  const me = asSql(viewer);
  return {
    me,
    partner: sql`(case when ${c.low} = ${me} then ${c.high} else ${c.low} end)`,
    mineAndLive: sql`(${c.low} = ${me} or ${c.high} = ${me}) and ${c.endedAt} is null`,
  };
}

/** A conversation `viewer` may use: theirs, not ended, with a partner they may see (one conversation). */
export function openConversationOf(viewer: UserRef, c: ConversationColumns): SQL {
  const { me, partner, mineAndLive } = conversationParts(viewer, c);
  return sql`${mineAndLive} and ${visibleTo(me, partner)}`;
}

/** The same, for a list of the viewer's conversations: the hidden people are read once. */
export function openConversationsOf(viewer: UserRef, c: ConversationColumns): SQL {
  const { me, partner, mineAndLive } = conversationParts(viewer, c);
  return sql`${mineAndLive} and ${visibleAmong(me, partner)}`;
}
