import { type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type Db, PreparedStatement } from '../../db/client';
import { conversationMembers, conversations, messages, profiles, users } from '../../db/schema';
import { aliasedConversation, openConversationOf, openConversationsOf } from '../safety/visibility';

/** The other participant of a conversation, seen from `userId`: its id, and joinable user/profile tables. */
export function partnerOf(userId: number) {
  const profile = alias(profiles, 'partner_profile');
  const user = alias(users, 'partner_user');
  const id = sql<number>`case when ${conversations.userLowId} = ${userId} then ${conversations.userHighId} else ${conversations.userLowId} end`;
  return {
    id,
    profile,
    user,
    name: sql<string>`coalesce(${profile.name}, ${user.firstName})`,
    image: profile.image,
  };
}

export interface ConversationListRow {
  id: number;
  name: string;
  image: string | null;
  otherUserId: number;
  lastMessage: string | null;
  /** Whether the newest message is the reader's own. */
  lastMessageMine: boolean;
  /** Whether the reader has read or written anything in it, on any device (the started list only). */
  entered: boolean;
  /** Epoch microseconds of the activity the list is ordered by, as an exact decimal string. */
  activityUs: string;
  unreadCount: number;
  /** How far the reader has seen the match: 0 not yet, else MATCH_SEEN's index plus one. */
  matchSeen: number;
}

type ConversationListRawRow = {
  id: number;
  name: string;
  image: string | null;
  other_user_id: number;
  last_message: string | null;
  last_message_mine: boolean | null;
  read_any: boolean;
  /** Above my read marker: the partner's messages (unread) and mine. */
  counts: [number, number];
  activity_us: string | number;
  match_seen: number;
};

/**
 * `columns` (of `x`) of a conversation's newest message, a subquery of at most one row; a conversation
 * is no longer told its newest message when one is stored, so whoever needs it reads it here. The ORDER
 * BY spells messages_conversation's own order (`id desc nulls last`): written `id desc` (nulls first,
 * the primary key's backward order), PostgreSQL walked the primary key back through every
 * conversation's messages instead of reading the index's first entry.
 */
export const newestMessageOf = (conversationId: SQL, columns: SQL) =>
  sql`(select ${columns} from ${messages} x where x.conversation_id = ${conversationId} order by x.id desc nulls last limit 1)`;

/**
 * The send locks' advisory key space ('MSGS'), in the two-int form: no other lock of the code's uses
 * it (`grep -rn pg_advisory server/`), and the one-bigint keys (jobs, migrations, matching's pairs)
 * never meet the two-int ones.
 */
export const SEND_LOCK_SPACE = 0x4d534753;

/**
 * A conversation's send lock, held to the end of the transaction: every statement that stores messages
 * takes the lock of each of their conversations before any of its rows draws an id. The id is drawn
 * at insert and becomes visible at commit, so without it a send could draw id N, commit late, and be
 * passed over by a catch-up `?after=` (or a read marker) that has already seen N+1, committed by a send
 * beside it (another instance's batch, or the REST route). With it, ids of one conversation are drawn
 * in commit order. Sends to different conversations do not wait on each other.
 */
export const sendLock = (conversationId: SQL) => sql`pg_advisory_xact_lock(${sql.raw(String(SEND_LOCK_SPACE))}, ${conversationId})`;

/**
 * The conversation's row while it is still open, locked FOR SHARE: what a statement that stores
 * messages reads it through. Such a statement's snapshot is taken before it waits for the send lock,
 * behind a send of the partner's, so a block, an unmatch, a report or a ban that ended the
 * conversation meanwhile is not in it: the visibility rule asked of that snapshot let the send
 * through, and it was stored after the ending and pushed to the one who had just ended it. A row it
 * locks, PostgreSQL reads again as committed now (READ COMMITTED re-checks its newest version); an
 * ending's UPDATE, which the lock conflicts with, waits for a send that holds it, so the message is
 * stored before the ending and gone with it. A row another write holds right now (an ending, a
 * deletion with an account, or an event deleted setting its `event_id` to null) is skipped rather than
 * waited for: a send then never waits on it holding its send locks, and a ban, which ends many
 * conversations in one UPDATE, cannot close a cycle with a batch sending to two of them. The send
 * skipped is not refused for that: `sendMessage` waits for that write on its own, holding nothing, and
 * reads the row again (ended: not found; still open: sent again).
 * Every way two people are hidden from each other ends their conversation in the same transaction
 * (a deletion deletes it), so `ended_at` is what needs reading again; the rest of the rule is asked
 * of the statement's snapshot. `held` is a column of the statement's send locks' row: a lateral
 * subquery that names it is read only once the locks are held, whatever plan PostgreSQL picks.
 */
export const openConversationRow = (conversationId: SQL, held: SQL) =>
  sql`lateral (select * from ${conversations}
    where id = ${conversationId} and ended_at is null and ${held} is not null offset 0 for share skip locked)`;

/**
 * One page of the user's conversations, from their membership rows (conversation_members_user index).
 * `empty`: no message yet, ordered by the match time; `started`: ordered by the last message time.
 * Each conversation's newest message (`newestMessageOf`) and, in one scan of the messages above my
 * read marker, the unread count (the partner's) and mine (with no marker, whether I have written
 * there: have I been in it?) are read on messages_conversation. A test of my messages of its own
 * was planned on the sender's index, reading every message of mine for each row (twice the page's
 * CPU at 300 conversations). A prepared statement per list: planning it was most of its cost (~2.7 ms
 * of PostgreSQL's ~4 for a user with 30 conversations), and no plan of it depends on the values.
 */
function conversationListStatement(kind: 'empty' | 'started') {
  const userId = sql`${sql.placeholder('userId')}::int`;
  const afterUs = sql`${sql.placeholder('afterUs')}::bigint`;
  const activity = kind === 'empty' ? sql`c.created_at` : sql`lm.created_at`;
  return new PreparedStatement<{ userId: number; afterUs: string | null; afterId: number | null; limit: number }>(sql`
    select c.id, coalesce(p.name, u.first_name) as name, p.image, partner.id as other_user_id,
      lm.content as last_message, lm.sender_id = ${userId} as last_message_mine,
      (extract(epoch from ${activity}) * 1000000)::bigint::text as activity_us,
      m.last_read_message_id > 0 as read_any, m.match_seen,
      ${
        kind === 'started'
          ? sql`(select array[count(*) filter (where x.sender_id <> ${userId}), count(*) filter (where x.sender_id = ${userId})]::int[]
               from ${messages} x where x.conversation_id = c.id and x.id > m.last_read_message_id)`
          : sql`array[0, 0]`
      } as counts
    from ${conversationMembers} m
    join ${conversations} c on c.id = m.conversation_id
    cross join lateral (select case when c.user_low_id = ${userId} then c.user_high_id else c.user_low_id end as id) partner
    join ${users} u on u.id = partner.id
    join ${profiles} p on p.user_id = partner.id
    left join lateral ${newestMessageOf(sql`c.id`, sql`x.content, x.created_at, x.sender_id`)} lm on true
    where m.user_id = ${userId} and ${openConversationsOf(userId, aliasedConversation('c'))}
      and lm.created_at is ${kind === 'empty' ? sql`null` : sql`not null`}
      and (${afterUs} is null
        or (${activity}, c.id) < (timestamptz 'epoch' + ${afterUs} * interval '1 microsecond', ${sql.placeholder('afterId')}::int))
    order by ${activity} desc, c.id desc
    limit ${sql.placeholder('limit')}
  `);
}

const conversationList = { empty: conversationListStatement('empty'), started: conversationListStatement('started') };

export async function conversationListQuery(
  db: Db,
  userId: number,
  kind: 'empty' | 'started',
  after: { activityUs: string; id: number } | null,
  limit: number,
): Promise<ConversationListRow[]> {
  const rows = await conversationList[kind].run<ConversationListRawRow>(db, {
    userId,
    afterUs: after?.activityUs ?? null,
    afterId: after?.id ?? null,
    limit,
  });
  return rows.map((row) => ({
    id: Number(row.id),
    name: row.name,
    image: row.image,
    otherUserId: Number(row.other_user_id),
    lastMessage: row.last_message,
    lastMessageMine: row.last_message_mine === true,
    // Below a read marker I have read something; with none, my own messages are counted from the start.
    entered: row.read_any || row.counts[1] > 0,
    activityUs: String(row.activity_us),
    unreadCount: row.counts[0],
    matchSeen: Number(row.match_seen),
  }));
}

export interface MessagePageRow {
  id: number | null;
  sender_id: number | null;
  content: string | null;
  client_id: string | null;
  time: string | null;
}

/**
 * A page of a conversation's messages for one of its participants, in one statement: no row at all
 * when `userId` may not use the conversation (the visibility rule), one all-null row when there is no
 * message in range. Both
 * directions walk messages_conversation (conversation_id, id desc nulls last).
 */
function messagePageStatement(direction: 'older' | 'newer', bounded: boolean) {
  const order = direction === 'older' ? sql`id desc nulls last` : sql`id asc nulls first`;
  const bound = sql.placeholder('bound');
  const range = !bounded ? sql`` : direction === 'older' ? sql`and x.id < ${bound}` : sql`and x.id > ${bound}`;
  return new PreparedStatement<{ conversationId: number; userId: number; bound: number; limit: number }>(sql`
    select page.id, page.sender_id, page.content, page.client_id::text as client_id,
      to_char(page.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as time
    from ${conversations} c
    left join lateral (
      select x.id, x.sender_id, x.content, x.client_id, x.created_at from ${messages} x
      where x.conversation_id = c.id ${range}
      order by x.${order} limit ${sql.placeholder('limit')}
    ) page on true
    where c.id = ${sql.placeholder('conversationId')}
      and ${openConversationOf(sql`${sql.placeholder('userId')}::int`, aliasedConversation('c'))}
    order by page.${order}`);
}

/** The three shapes of a page: the newest messages, those before `bound`, those after `bound` (`newest` ignores it). */
export const messagePage = {
  newest: messagePageStatement('older', false),
  older: messagePageStatement('older', true),
  newer: messagePageStatement('newer', true),
};
