import { and, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { MATCH_SEEN, type MatchSeen, MESSAGES_PAGE_SIZE } from '../../../shared/constants';
import {
  type ConversationDetail,
  type ConversationSummary,
  type Message,
  MessageInput,
} from '../../../shared/schemas/conversations';
import { z } from '../../../shared/schemas/zod';
import { type Db, PreparedStatement } from '../../db/client';
import { type Slice, sliceOf } from '../../lib/page';
import { isConnectionLost } from '../../lib/pg-errors';
import { aliasedConversation, conversationColumns, openConversationOf, openConversationsOf } from '../safety/visibility';
import { conversationMembers, conversations, messages } from '../../db/schema';
import { ApiError, NotFound, toFieldErrors, ValidationError } from '../../errors';
import {
  conversationListQuery,
  type MessagePageRow,
  messagePage,
  newestMessageOf,
  openConversationRow,
  partnerOf,
  sendLock,
} from './queries';
import { serverText } from '../../../shared/i18n/server-messages';

type MessageRow = typeof messages.$inferSelect;

export const CLIENT_ID_REUSED = serverText('client_id_reused');

export const presentMessage = (row: MessageRow): Message => ({
  id: row.id,
  sender: row.senderId,
  content: row.content,
  time: row.createdAt.toISOString(),
  client_id: row.clientId,
});

/**
 * Both participants when userId may use the conversation (the visibility rule), else null. `settled`:
 * once any write in flight on the conversation's row is over (read FOR SHARE, it waits for that write
 * and reads the row as committed). On its own, holding no other lock, so that wait closes no cycle:
 * the send's insert, which holds the send lock, skips a held row instead; and on its own connection
 * (`runApart`), so that the main pool's are never held up by it, however many conversations a ban
 * ends at once.
 */
export async function getParticipantIds(
  db: Db,
  conversationId: number,
  userId: number,
  { settled = false }: { settled?: boolean } = {},
): Promise<[number, number] | null> {
  const values = { conversationId, userId };
  const [row] = settled
    ? await settledParticipantsStatement.runApart<{ low: number; high: number }>(db, values)
    : await participantsStatement.run<{ low: number; high: number }>(db, values);
  return row ? [Number(row.low), Number(row.high)] : null;
}

/**
 * Prepared, as the statements below: each typing burst asks it (and the sends a batch could not
 * answer), and building its text (the visibility rule's parts) at every call cost more than running it.
 */
const participantsStatementFor = (lock: SQL) => {
  const me = sql`${sql.placeholder('userId')}::int`;
  return new PreparedStatement<{ conversationId: number; userId: number }>(sql`
    select ${conversations.userLowId} as low, ${conversations.userHighId} as high from ${conversations}
    where ${conversations.id} = ${sql.placeholder('conversationId')}::int and ${openConversationOf(me, conversationColumns)}
    ${lock}`);
};
const participantsStatement = participantsStatementFor(sql``);
const settledParticipantsStatement = participantsStatementFor(sql`for share of ${conversations}`);

/** Everyone the user has an open match (conversation) with: presence goes only to them. */
export async function listPartnerIds(db: Db, userId: number): Promise<number[]> {
  const rows = await partnerIdsStatement.run<{ partner_id: number }>(db, { userId });
  return rows.map((row) => Number(row.partner_id));
}

/**
 * Prepared: every socket that connects or goes asks it (presence), so a room of phones opening at once
 * asks it thousands of times, and building its text (the visibility rule included) each time was most
 * of its cost. Mine on either side: the (user_low_id, …) unique index and the user_high_id index, OR-ed.
 */
const partnerIdsStatement = (() => {
  const me = sql`${sql.placeholder('userId')}::int`;
  const partner = sql`case when ${conversations.userLowId} = ${me} then ${conversations.userHighId} else ${conversations.userLowId} end`;
  return new PreparedStatement<{ userId: number }>(
    sql`select ${partner} as partner_id from ${conversations} where ${openConversationsOf(me, conversationColumns)}`,
  );
})();

/**
 * Stores a message (content trimmed, 1–2000 chars) idempotently by (sender, clientId). Throws NotFound
 * if sender is not a participant, ValidationError({content: [...]}) for bad content. `created` is false
 * when the same clientId was already stored (the stored message is returned, nothing new is written).
 * `previousId`: the message stored just before it in the conversation (null for its first), as
 * `message:new` tells it.
 */
export async function sendMessage(
  db: Db,
  input: { conversationId: number; senderId: number; content: string; clientId?: string | null },
): Promise<{ message: Message; participantIds: [number, number]; created: boolean; previousId: number | null }> {
  try {
    return await storeMessage(db, input);
  } catch (error) {
    // Its connection to PostgreSQL ended under it (a backend ended, a restart, a failover), stored or
    // not: with a client_id, once more is safe (on a new connection, stored once, answered as a retry
    // if the first was stored), and the sender is answered instead of refused.
    if (!input.clientId || !isConnectionLost(error)) throw error;
    return storeMessage(db, input);
  }
}

/** `sendMessage`, once. */
async function storeMessage(db: Db, input: Parameters<typeof sendMessage>[1]): ReturnType<typeof sendMessage> {
  const parsed = MessageInput.safeParse({ content: input.content, client_id: input.clientId ?? undefined });
  const participantIds = await getParticipantIds(db, input.conversationId, input.senderId);
  if (!participantIds) throw new NotFound();
  if (!parsed.success) throw new ValidationError(toFieldErrors(parsed.error.issues));
  const { content, client_id: clientId = null } = parsed.data;

  for (let attempt = 1; ; attempt += 1) {
    const [inserted] = await insertStatement.run<InsertedRow>(db, {
      conversationId: input.conversationId,
      senderId: input.senderId,
      content,
      clientId,
    });
    if (inserted) {
      const { id, sender_id: sender, time, client_id, previous_id } = inserted;
      const message = { id: Number(id), sender: Number(sender), content: inserted.content, time, client_id };
      return { message, participantIds, created: true, previousId: previous_id === null ? null : Number(previous_id) };
    }

    // The conversation ended while the send waited for its lock, or another write held its row and the
    // insert passed it by (`openConversationRow`): an ending, or one that leaves it open (an event
    // deleted sets its `event_id` to null). Asked once that write is over: ended, as if before.
    if (!(await getParticipantIds(db, input.conversationId, input.senderId, { settled: true }))) throw new NotFound();
    if (clientId) {
      // The same (sender, client_id) is already stored: a retried send.
      const found = await findSent(db, input.senderId, clientId);
      if (found && found.stored.conversationId !== input.conversationId) throw ValidationError.field('client_id', CLIENT_ID_REUSED);
      if (found) return { message: presentMessage(found.stored), participantIds, created: false, previousId: found.previousId };
    }
    // Still open, and not stored: its row was held by a write that has let go of it. Again.
    if (attempt === SEND_ATTEMPTS) throw new ApiError(503, { detail: serverText('busy_try_again') }, { 'Retry-After': '1' });
  }
}

/** The message stored under (sender, client_id), with the one stored before it in its conversation. */
async function findSent(db: Db, senderId: number, clientId: string) {
  const [found] = await db
    .select({ stored: messages, previousId: sql<number | null>`previous_message_id(${messages.conversationId}, ${messages.id})` })
    .from(messages)
    .where(and(eq(messages.senderId, senderId), eq(messages.clientId, clientId)));
  return found;
}

/**
 * A send refused by the sender's limit: when it resends a message stored already, `sendMessage`'s
 * answer to that retry (`created` false), as nothing is written for it; else null, and it stays
 * refused. Throws NotFound if the sender is no longer a participant, as `sendMessage` would.
 */
export async function resentMessage(
  db: Db,
  input: { conversationId: number; senderId: number; clientId?: string | null },
): Promise<Awaited<ReturnType<typeof sendMessage>> | null> {
  const clientId = MessageInput.shape.client_id.safeParse(input.clientId ?? undefined);
  if (!clientId.success || !clientId.data) return null;
  const found = await findSent(db, input.senderId, clientId.data);
  if (found?.stored.conversationId !== input.conversationId) return null;
  const participantIds = await getParticipantIds(db, input.conversationId, input.senderId);
  if (!participantIds) throw new NotFound();
  return { message: presentMessage(found.stored), participantIds, created: false, previousId: found.previousId };
}

/**
 * How many times a send is tried while other writes keep holding its conversation's row; then a 503 as
 * a deadlock's (docs/operations.md), which the client sends again.
 */
const SEND_ATTEMPTS = 3;

interface InsertedRow {
  id: number;
  sender_id: number;
  content: string;
  client_id: string | null;
  time: string;
  previous_id: number | null;
}

/**
 * `sendMessage`'s insert, behind the conversation's send lock (`sendLock`): it inserts the lock's one
 * row, so its id is drawn once the lock is held. Skipped for a (sender, client_id) already stored, and
 * for a conversation no longer open (`openConversationRow`). The message before it is read by
 * `previous_message_id` (drizzle/0021), whose own snapshot holds a send committed while this one
 * waited for the lock.
 */
const insertStatement = (() => {
  const conversationId = sql`${sql.placeholder('conversationId')}::int`;
  return new PreparedStatement<{ conversationId: number; senderId: number; content: string; clientId: string | null }>(sql`
    with locked as (select ${sendLock(conversationId)} as held)
    insert into ${messages} (conversation_id, sender_id, content, client_id)
    select c.id, ${sql.placeholder('senderId')}::int, ${sql.placeholder('content')}::text, ${sql.placeholder('clientId')}::uuid
    from locked cross join ${openConversationRow(conversationId, sql`locked.held`)} c
    on conflict (sender_id, client_id) do nothing
    returning id, sender_id, content, client_id::text as client_id,
      to_char(created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as time,
      previous_message_id(conversation_id, id) as previous_id`);
})();

/**
 * Moves the user's read marker forward (never backward) to lastReadId (clamped to the newest message id).
 * `moved`: whether it moved; a receipt for what was already read writes nothing, and nobody is told.
 * Throws NotFound if not a participant.
 */
export async function markRead(
  db: Db,
  input: { conversationId: number; userId: number; lastReadId: number },
): Promise<{ participantIds: [number, number]; lastReadId: number; moved: boolean }> {
  const [row] = await markReadStatement.run<{ low: number; high: number; last_read_id: number; moved: boolean }>(db, input);
  if (!row) throw new NotFound();
  return { participantIds: [Number(row.low), Number(row.high)], lastReadId: Number(row.last_read_id), moved: row.moved };
}

/**
 * A read told to the server (the socket's `message:read`, or `POST /api/conversations/{id}/read/` from
 * a tab with no socket): the mark moved (`markRead`), and, when it moved, both told: the partner's
 * "Read", and the reader's other phones and tabs, whose unread counts follow.
 */
export async function readAndTell(
  db: Db,
  publish: (userIds: number[], event: 'message:read', payload: { conversation_id: number; user_id: number; last_read_id: number }) => void,
  input: { conversationId: number; userId: number; lastReadId: number },
): Promise<void> {
  const { participantIds, lastReadId, moved } = await markRead(db, input);
  if (moved) publish(participantIds, 'message:read', { conversation_id: input.conversationId, user_id: input.userId, last_read_id: lastReadId });
}

/**
 * The user saw these matches (`seen`: their overlay, or the chats) on one of their phones: the
 * conversations of theirs whose mark that moves forward (a mark never goes back), to tell their
 * other phones.
 */
export async function markMatchesSeen(db: Db, userId: number, conversationIds: number[], seen: MatchSeen): Promise<number[]> {
  const level = MATCH_SEEN.indexOf(seen) + 1;
  const moved = await db
    .update(conversationMembers)
    .set({ matchSeen: level })
    .where(
      and(
        eq(conversationMembers.userId, userId),
        inArray(conversationMembers.conversationId, conversationIds),
        lt(conversationMembers.matchSeen, level),
      ),
    )
    .returning({ id: conversationMembers.conversationId });
  return moved.map((row) => row.id);
}

/**
 * Prepared: an open chat sends `message:read` for each message it shows. The membership and the
 * marker wanted are read first; the update writes only a marker that moves forward, compared with the
 * row as it is when locked (a receipt further on, committed meanwhile, is not undone). The
 * conversation's row is locked FOR SHARE as it is read: the update may wait for the marker (behind a
 * receipt from another tab), with the statement's snapshot from before the wait, and a block, an
 * unmatch, a report or a ban that ended the conversation meanwhile was not in it, so the receipt was
 * told to the one who had just ended it. With the lock, the ending waits for the receipt, which is
 * told first (PostgreSQL reads a row it locks again as committed now: one that ended is not found).
 */
const markReadStatement = (() => {
  const me = sql`${sql.placeholder('userId')}::int`;
  const conversationId = sql`${sql.placeholder('conversationId')}::int`;
  return new PreparedStatement<{ conversationId: number; userId: number; lastReadId: number }>(sql`
    with member as (
      select c.user_low_id as low, c.user_high_id as high, m.last_read_message_id as old,
        least(${sql.placeholder('lastReadId')}::int, coalesce(${newestMessageOf(sql`c.id`, sql`x.id`)}, 0)) as wanted
      from ${conversationMembers} as m
      join ${conversations} as c on c.id = m.conversation_id
      where m.conversation_id = ${conversationId} and m.user_id = ${me}
        and ${openConversationOf(me, aliasedConversation('c'))}
      for share of c
    ), moved as (
      update ${conversationMembers} as m
      set last_read_message_id = member.wanted
      from member
      where m.conversation_id = ${conversationId} and m.user_id = ${me} and member.wanted > m.last_read_message_id
      returning m.last_read_message_id
    )
    select low, high, coalesce((select last_read_message_id from moved), greatest(old, wanted)) as last_read_id,
      exists (select from moved) as moved
    from member`);
})();

/**
 * The partner's name and primary photo, and how far they have read (their read marker), or null when
 * the user is not a participant.
 */
export async function getConversation(
  db: Db,
  conversationId: number,
  userId: number,
): Promise<ConversationDetail | null> {
  const partner = partnerOf(userId);
  const partnerMember = alias(conversationMembers, 'partner_member');
  const [row] = await db
    .select({
      id: conversations.id,
      name: partner.name,
      image: partner.image,
      other_user_id: partner.id,
      partner_last_read_id: sql<number>`coalesce(${partnerMember.lastReadMessageId}, 0)`.mapWith(Number),
    })
    .from(conversations)
    .innerJoin(partner.profile, eq(partner.profile.userId, partner.id))
    .innerJoin(partner.user, eq(partner.user.id, partner.id))
    .leftJoin(partnerMember, and(eq(partnerMember.conversationId, conversations.id), eq(partnerMember.userId, partner.id)))
    .where(and(eq(conversations.id, conversationId), openConversationOf(userId, conversationColumns)));
  return row ?? null;
}

/**
 * A match's news (`match:new`) for those of its two who have not seen it on any phone yet: told again
 * when a like is sent again, as the instance that made the match may have gone (or lost Redis) before
 * telling of it. Whoever has seen it is not told twice (their overlay would show again).
 */
export async function untoldMatch(db: Db, conversationId: number): Promise<Array<{ userId: number; other: { id: number; name: string; image: string | null } }>> {
  const members = await db
    .select({ userId: conversationMembers.userId })
    .from(conversationMembers)
    .where(and(eq(conversationMembers.conversationId, conversationId), eq(conversationMembers.matchSeen, 0)));
  const told = [];
  for (const { userId } of members) {
    const detail = await getConversation(db, conversationId, userId);
    if (detail) told.push({ userId, other: { id: detail.other_user_id, name: detail.name, image: detail.image } });
  }
  return told;
}

/** Where the next page of a conversation list starts: after this activity time and id. */
export interface ConversationListPosition {
  activityUs: string;
  id: number;
}
export const ConversationListPositionSchema: z.ZodType<ConversationListPosition> = z.object({
  activityUs: z.string().regex(/^\d{1,18}$/),
  id: z.number().int().min(1).max(2_147_483_647),
});

/**
 * The user's conversations: `empty` (matched, no message yet, newest match first) or `started` (newest
 * activity first, with the unread count). Keyset-paginated on (activity, id).
 */
export async function listConversations(
  db: Db,
  userId: number,
  options: { kind: 'empty' | 'started'; after: ConversationListPosition | null; limit: number },
): Promise<Slice<ConversationSummary, ConversationListPosition>> {
  const rows = await conversationListQuery(db, userId, options.kind, options.after, options.limit + 1);
  return sliceOf(
    rows,
    options.limit,
    (row) => ({
      id: row.id,
      name: row.name,
      image: row.image,
      other_user_id: row.otherUserId,
      last_message: row.lastMessage,
      last_activity: new Date(Number(row.activityUs) / 1000).toISOString(),
      // On both lists: a match whose partner wrote first is as new as one in `empty` until seen.
      seen: MATCH_SEEN[row.matchSeen - 1] ?? null,
      ...(options.kind === 'started' ? { unread_count: row.unreadCount, last_message_mine: row.lastMessageMine, entered: row.entered } : {}),
    }),
    (row) => ({ activityUs: row.activityUs, id: row.id }),
  );
}

/** Where the next page of messages starts: before (`older`) or after (`newer`) this message id. */
export interface MessagePosition {
  direction: 'older' | 'newer';
  id: number;
}
export const MessagePositionSchema: z.ZodType<MessagePosition> = z.object({
  direction: z.enum(['older', 'newer']),
  id: z.number().int().min(0).max(2_147_483_647),
});

/**
 * A page of a conversation's messages, or null when the user is not a participant. Newest first, or
 * with `afterId` (the catch-up after a reconnect) the messages with a greater id, oldest first. A
 * position (from a cursor) wins over `afterId`.
 */
export async function listMessages(
  db: Db,
  conversationId: number,
  userId: number,
  options: { position?: MessagePosition | null; afterId?: number; limit?: number },
): Promise<Slice<Message, MessagePosition> | null> {
  const limit = options.limit ?? MESSAGES_PAGE_SIZE;
  const position: MessagePosition | null =
    options.position ?? (options.afterId === undefined ? null : { direction: 'newer', id: options.afterId });
  const statement =
    position === null ? messagePage.newest : position.direction === 'newer' ? messagePage.newer : messagePage.older;
  const rows = await statement.run<MessagePageRow>(db, {
    conversationId,
    userId,
    bound: position?.id ?? 0,
    limit: limit + 1,
  });
  if (rows.length === 0) return null;
  const direction = position?.direction ?? 'older';
  return sliceOf(
    rows.filter((row) => row.id !== null),
    limit,
    (row) => ({
      id: Number(row.id),
      sender: Number(row.sender_id),
      content: row.content ?? '',
      time: row.time ?? '',
      client_id: row.client_id,
    }),
    (row) => ({ direction, id: Number(row.id) }),
  );
}
