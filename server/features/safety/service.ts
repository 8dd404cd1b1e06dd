import { setImmediate } from 'node:timers/promises';
import { and, desc, eq, sql } from 'drizzle-orm';
import { ENDED_CHAT_KEPT_DAYS, REPORT_SNAPSHOT_MESSAGES, UNDO_WINDOW_MS } from '../../../shared/constants';
import { serverText } from '../../../shared/i18n/server-messages';
import { ageOn } from '../../../shared/schemas/common';
import type { BlockedUser, EndedChat, ReportInput } from '../../../shared/schemas/safety';
import { type Db, type DbOrTx, rowsOf, type Tx } from '../../db/client';
import {
  blocks,
  conversations,
  messages,
  profiles,
  reactions,
  type ReportSnapshot,
  reports,
  users,
} from '../../db/schema';
import { SessionEnded, ValidationError } from '../../errors';
import { isForeignKeyViolation } from '../../lib/pg-errors';
import { type Slice, sliceOf } from '../../lib/page';
import { fitTermsOf, mutualFit, viewerFitOf } from '../deck/queries';
import { addToTallies, startedIn } from '../events/tallies';
import { lockPair } from '../matching/locks';
import { type MediaStore, newMediaKey } from '../media/store';
import { conversationColumns, openConversationOf, visibleAmong, visibleTo } from './visibility';

export const CANNOT_BLOCK_SELF = serverText('cannot_block_self');
export const CANNOT_REPORT_SELF = serverText('cannot_report_self');

type EndReason = NonNullable<(typeof conversations.$inferSelect)['endReason']>;

/** A conversation that just ended: both its people are told (`match:removed`) once it has committed. */
export interface EndedConversation {
  conversationId: number;
  userIds: [number, number];
}

/**
 * Ends the open conversation between two people, if there is one, for both at once. Its row stays, so
 * that the pair is never matched again and an unmatch stays visible to the visibility rule.
 */
export async function endConversationBetween(tx: DbOrTx, a: number, b: number, reason: EndReason) {
  const [low, high] = a < b ? [a, b] : [b, a];
  return endConversations(
    tx,
    and(eq(conversations.userLowId, low), eq(conversations.userHighId, high))!,
    reason,
  );
}

/** Ends every open conversation of a user (a ban). */
export async function endConversationsOf(tx: DbOrTx, userId: number, reason: EndReason) {
  return endConversations(tx, sql`(${conversations.userLowId} = ${userId} or ${conversations.userHighId} = ${userId})`, reason);
}

async function endConversations(tx: DbOrTx, which: ReturnType<typeof sql>, reason: EndReason): Promise<EndedConversation[]> {
  const ended = await tx
    .update(conversations)
    .set({ endedAt: sql`now()`, endReason: reason })
    .where(and(which, sql`${conversations.endedAt} is null`))
    .returning({ id: conversations.id, low: conversations.userLowId, high: conversations.userHighId });
  return ended.map((row) => ({ conversationId: row.id, userIds: [row.low, row.high] }));
}

/**
 * How far back a person's activity makes their phone worth telling that someone is gone: a deck or a
 * "likes you" list on screen was read with a token, whose use marks the activity (at most a minute
 * late); a phone idle longer reads both afresh when it comes back.
 */
export const GONE_TOLD_ACTIVE_WITHIN_MS = 24 * 60 * 60 * 1000;

/**
 * Whose open phones may show `userId`, who is about to be banned or deleted (asked before, in the same
 * transaction: the visibility rule hides them once it commits): the people they like, whose "likes
 * you" holds them, every recently active person they mutually fit and whom they have not been
 * answered by (a skip is no answer), whose deck may hold their card, and whoever passed on them within
 * the undo window, whose undo offer names them. Each is told `person:gone`, as
 * after a block, so that no one learns which of the two it was, nor whether they were liked. Never
 * anyone the visibility rule already hides from them (a block either way, an unmatch): no phone of
 * theirs shows the person, and the news would tell them that the person has left or was banned.
 */
export async function whoMayShow(tx: DbOrTx, userId: number): Promise<number[]> {
  const rows = rowsOf<{ id: number }>(
    await tx.execute(sql`
      select shown.id from (
        select p.user_id as id from ${profiles} p cross join (${viewerFitOf(userId)}) fit
        where p.is_completed and ${mutualFit(fitTermsOf('fit'))}
          and p.last_active_at > now() - ${GONE_TOLD_ACTIVE_WITHIN_MS}::bigint * interval '1 millisecond'
          and p.user_id not in (select from_user_id from ${reactions} where to_user_id = ${userId} and kind <> 'skip')
        union
        select to_user_id as id from ${reactions} where from_user_id = ${userId} and kind = 'like'
        union
        select from_user_id as id from ${reactions}
        where to_user_id = ${userId} and kind <> 'like'
          and updated_at > now() - ${UNDO_WINDOW_MS}::bigint * interval '1 millisecond'
      ) shown
      where ${visibleAmong(userId, sql`shown.id`)}`),
  );
  return rows.map((row) => Number(row.id));
}

/**
 * What `match:removed` tells, given a way to publish to users' sockets on every instance. `by`, the one
 * who ended it (a block, a report, an unmatch), hears that it was their doing, on every phone of theirs;
 * the other hears the same as for any ending (a ban, a deletion), so never which it was.
 */
export function announceEnded(
  publish: (userIds: number[], event: 'match:removed', payload: { conversation_id: number; by_you?: true }) => void,
  ended: EndedConversation[],
  by?: number,
) {
  for (const { conversationId, userIds } of ended) {
    const told = userIds.filter((userId) => userId !== by);
    publish(told, 'match:removed', { conversation_id: conversationId });
    if (told.length < userIds.length) publish([by!], 'match:removed', { conversation_id: conversationId, by_you: true });
  }
}

/** A person `viewerId` may act on: their completed profile exists and the visibility rule lets them see it. */
const isVisiblePersonCondition = (viewerId: number, userId: number) =>
  sql`exists (select 1 from ${profiles} p where p.user_id = ${userId} and p.is_completed and ${visibleTo(viewerId, sql`p.user_id`)})`;

/** `isVisiblePersonCondition`, asked on its own. */
async function isVisiblePerson(db: DbOrTx, viewerId: number, userId: number): Promise<boolean> {
  return rowsOf(await db.execute(sql`select 1 where ${isVisiblePersonCondition(viewerId, userId)}`)).length > 0;
}

/**
 * Whom a user may report, or block: someone they may see, someone they shared a conversation with (ended since
 * by a block, an unmatch or a ban: what was written there is what gets reported), someone on their own
 * list of blocked people (blocked from a profile in a hurry, the report thought of later), or someone
 * whose report by them is still open (a second report adds to it). The reporter's own block tells them
 * nothing they do not know, so it holds whatever else hides that person since: a 404 would tell them
 * what (a ban, a block the other way). Anyone else, among them whoever blocked the reporter, is as
 * unknown as an id that never existed, so that a report cannot tell a hidden account from none.
 * A block asks the same: two in a chat who block each other at the same moment each keep their own
 * block, so that the first to unblock does not bring the other back to the one who blocked them too.
 */
async function isReportable(tx: Tx, reporterId: number, reportedId: number): Promise<boolean> {
  const [low, high] = reporterId < reportedId ? [reporterId, reportedId] : [reportedId, reporterId];
  const rows = rowsOf(
    await tx.execute(sql`
      select 1 where ${isVisiblePersonCondition(reporterId, reportedId)}
        or exists (select 1 from ${conversations} c where c.user_low_id = ${low} and c.user_high_id = ${high})
        or exists (select 1 from ${blocks} b where b.blocker_id = ${reporterId} and b.blocked_id = ${reportedId})
        or exists (select 1 from ${reports} r where r.reporter_id = ${reporterId} and r.reported_id = ${reportedId} and r.status = 'open')`),
  );
  return rows.length > 0;
}

export interface BlockOutcome {
  /** False when the block was there already: nothing changed, and nobody is told again. */
  added: boolean;
  /**
   * True when the block hid the two from each other (they could see each other until then): only then
   * is the blocked person told that the blocker is out of reach. A block of someone who blocked first
   * changes nothing they see, and news of it would tell them of the block alone.
   */
  hid: boolean;
  ended: EndedConversation[];
}

/**
 * Blocks `otherId` for `userId`: two-way and at once. Blocking again changes nothing.
 * Returns null for someone the blocker could not report (`isReportable`: unknown, or hidden without
 * a chat between them), which the route answers as a missing id; otherwise what it changed. It
 * queues with the pair's likes (`lockPair`): a like that came first has its match ended here, one
 * that comes after finds the block.
 */
export async function block(db: Db, userId: number, otherId: number): Promise<BlockOutcome | null> {
  if (otherId === userId) throw ValidationError.field('non_field_errors', CANNOT_BLOCK_SELF);
  return db.transaction(async (tx): Promise<BlockOutcome | null> => {
    // First, as a like of the pair does: a like in flight commits its match before this looks for it.
    await lockPair(tx, userId, otherId);
    const [already] = await tx
      .select({ one: sql`1` })
      .from(blocks)
      .where(and(eq(blocks.blockerId, userId), eq(blocks.blockedId, otherId)));
    if (already) return { added: false, hid: false, ended: [] };
    if (!(await isReportable(tx, userId, otherId))) return null;
    const hid = await isVisiblePerson(tx, userId, otherId);
    await tx.insert(blocks).values({ blockerId: userId, blockedId: otherId }).onConflictDoNothing();
    return { added: true, hid, ended: await endConversationBetween(tx, userId, otherId, 'block') };
  }).catch(goneMeanwhile);
}

/**
 * One of the two accounts was deleted while the block was on its way. The blocker's (the request had
 * passed sign-in before the deletion committed, on another phone): the session ended with it, as the
 * next request will be told. The other's: as if they had been gone before, no one to block (404).
 */
function goneMeanwhile(error: unknown): null {
  if (!isForeignKeyViolation(error)) throw error;
  if (isForeignKeyViolation(error, 'blocks_blocker_id_users_id_fk')) throw new SessionEnded();
  return null;
}

/** Takes a block back; false when there was none. It does not reopen the conversation the block ended. */
export async function unblock(db: Db, userId: number, otherId: number): Promise<boolean> {
  const removed = await db
    .delete(blocks)
    .where(and(eq(blocks.blockerId, userId), eq(blocks.blockedId, otherId)))
    .returning({ one: blocks.blockedId });
  return removed.length > 0;
}

export interface BlockPosition {
  blockedAtUs: string;
  id: number;
}

/**
 * The people a user blocked, newest first, so that they can undo one, and whether the user has an
 * open report of each: their list offers a report only of those without one.
 */
export async function listBlocks(
  db: Db,
  userId: number,
  options: { after: BlockPosition | null; limit: number },
): Promise<Slice<BlockedUser, BlockPosition>> {
  const rows = rowsOf<{ id: number; name: string; blocked_at: string; blocked_at_us: string; reported: boolean }>(
    await db.execute(sql`
      select b.blocked_id as id, coalesce(p.name, u.first_name) as name,
        to_char(b.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as blocked_at,
        (extract(epoch from b.created_at) * 1000000)::bigint::text as blocked_at_us,
        exists (
          select 1 from ${reports} r where r.reporter_id = ${userId} and r.reported_id = b.blocked_id and r.status = 'open'
        ) as reported
      from ${blocks} b
      join ${users} u on u.id = b.blocked_id
      left join ${profiles} p on p.user_id = b.blocked_id
      where b.blocker_id = ${userId}
        ${
          options.after
            ? sql`and (b.created_at, b.blocked_id) < (timestamptz 'epoch' + ${options.after.blockedAtUs}::bigint * interval '1 microsecond', ${options.after.id}::int)`
            : sql``
        }
      order by b.created_at desc, b.blocked_id desc
      limit ${options.limit + 1}`),
  );
  return sliceOf(
    rows,
    options.limit,
    (row) => ({ id: Number(row.id), name: row.name, blocked_at: row.blocked_at, reported: Boolean(row.reported) }),
    (row) => ({ blockedAtUs: row.blocked_at_us, id: Number(row.id) }),
  );
}

export interface EndedChatPosition {
  endedAtUs: string;
  id: number;
}

/**
 * A user's conversations that ended since `since` (while their messages are kept for a report), newest
 * ending first, with the other person's name and whether the user has an open report of them. However
 * it ended (a block or an unmatch by either, a report, a ban) it is listed alike; an account deleted
 * since took its conversations with it.
 */
export async function listEndedChats(
  db: Db,
  userId: number,
  options: { since: Date; after: EndedChatPosition | null; limit: number },
): Promise<Slice<EndedChat, EndedChatPosition>> {
  const rows = rowsOf<{ id: number; user_id: number; name: string; ended_at: string; ended_at_us: string; reported: boolean }>(
    await db.execute(sql`
      select c.id, o.user_id, coalesce(p.name, u.first_name) as name,
        to_char(c.ended_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ended_at,
        (extract(epoch from c.ended_at) * 1000000)::bigint::text as ended_at_us,
        exists (
          select 1 from ${reports} r where r.reporter_id = ${userId} and r.reported_id = o.user_id and r.status = 'open'
        ) as reported
      from ${conversations} c
      cross join lateral (
        select case when c.user_low_id = ${userId} then c.user_high_id else c.user_low_id end as user_id
      ) o
      join ${users} u on u.id = o.user_id
      left join ${profiles} p on p.user_id = o.user_id
      where (c.user_low_id = ${userId} or c.user_high_id = ${userId})
        and c.ended_at >= ${options.since.toISOString()}::timestamptz
        and c.messages_purged_at is null
        ${
          options.after
            ? sql`and (c.ended_at, c.id) < (timestamptz 'epoch' + ${options.after.endedAtUs}::bigint * interval '1 microsecond', ${options.after.id}::int)`
            : sql``
        }
      order by c.ended_at desc, c.id desc
      limit ${options.limit + 1}`),
  );
  return sliceOf(
    rows,
    options.limit,
    (row) => ({ id: Number(row.id), user_id: Number(row.user_id), name: row.name, ended_at: row.ended_at, reported: Boolean(row.reported) }),
    (row) => ({ endedAtUs: row.ended_at_us, id: Number(row.id) }),
  );
}

/**
 * Ends a conversation for both at a participant's request (unmatch): the two are never
 * shown to each other again, and a dislike from the one who ended it is recorded. Null when the
 * conversation is not one the user may use.
 */
export async function unmatch(db: Db, userId: number, conversationId: number): Promise<EndedConversation[] | null> {
  return db.transaction(async (tx) => {
    const [conversation] = await tx
      .select({ low: conversations.userLowId, high: conversations.userHighId })
      .from(conversations)
      .where(and(eq(conversations.id, conversationId), openConversationOf(userId, conversationColumns)))
      .for('update');
    if (!conversation) return null;
    const partnerId = conversation.low === userId ? conversation.high : conversation.low;
    await tx
      .insert(reactions)
      .values({ fromUserId: userId, toUserId: partnerId, kind: 'dislike' })
      .onConflictDoUpdate({ target: [reactions.fromUserId, reactions.toUserId], set: { kind: 'dislike', updatedAt: sql`now()` } });
    return endConversationBetween(tx, userId, partnerId, 'unmatch');
  });
}

/** Which of the reporter's daily quotas a report takes: a new report's, an addition's, or a repeat's. */
export type ReportQuota = 'new' | 'addition' | 'repeat';

export interface ReportOutcome {
  id: number;
  /** False when it was added to an open report of the same person by the same reporter. */
  created: boolean;
  /**
   * True when the report hid the two from each other (they could see each other until then): only
   * then is the reported person told that the reporter is out of reach. A report of someone hidden
   * already (on the reporter's list of blocked people, after a chat that ended, a second report)
   * changes nothing they see, and news of it would tell them of the report alone.
   */
  hid: boolean;
  /**
   * True when the report made the reporter's block (not on their list until then). With `created`, it
   * is what the reporter's other phones are told of (`person:gone`): the same report again, or an
   * addition to it, of someone blocked already changes nothing they show.
   */
  blocked: boolean;
  ended: EndedConversation[];
}

/**
 * Reports a user: keeps a snapshot of what they showed (their profile, with copies of its photos, and
 * the last messages of any conversation the two shared, even an ended one), and blocks them for the
 * reporter, queued with the pair's likes as `block` is. A second report while the first is open adds
 * to it. Null for an unknown user, one the reporter may not report (`isReportable`), or a
 * `conversation_id` that is not the two's. The reported user is never told.
 *
 * `takeQuota` takes one of the reporter's reports of the day (`new`), of their additions of the day
 * for an addition to an open report (`addition`), or of their repeats of the day for the same report
 * sent again (`repeat`), throwing (`Throttled`) when none is left, before anything is written.
 */
export async function report(
  db: Db,
  evidence: MediaStore,
  media: MediaStore,
  reporterId: number,
  input: ReportInput,
  takeQuota: (kind: ReportQuota) => Promise<void>,
): Promise<ReportOutcome | null> {
  const reportedId = input.user_id;
  if (reportedId === reporterId) throw ValidationError.field('user_id', CANNOT_REPORT_SELF);
  const details = input.details ?? '';

  const copied: string[] = [];
  try {
    return await db.transaction(async (tx) => {
      // It blocks: the pair's lock first, as `block` takes it (before the row lock below: locks.ts).
      await lockPair(tx, reporterId, reportedId);
      const [target] = await tx.select({ id: users.id }).from(users).where(eq(users.id, reportedId)).for('update');
      // Looked for under the pair's lock, so that whether this adds to a report or makes one is
      // settled once, and counted against the day's reports or the day's additions accordingly.
      const [open] = await tx
        .select({ id: reports.id, reason: reports.reason, details: reports.details, additions: reports.additions, conversationId: reports.conversationId })
        .from(reports)
        .where(and(eq(reports.reporterId, reporterId), eq(reports.reportedId, reportedId), eq(reports.status, 'open')));
      // The same report again (a double tap, a retry after an answer lost) adds nothing and takes none
      // of the day's additions, but one of the day's repeats: each is a transaction, and without a bound
      // a client could send it without end. It still blocks and ends any chat, as every report does: the
      // reporter may have unblocked the person since (the report still open), and even matched them again.
      const latest = open && (open.additions.at(-1) ?? open);
      const repeated = latest !== undefined && latest.reason === input.reason && latest.details === details;
      // An id it cannot report is counted too: were it not, past the limit a 404 (no one, or someone
      // hidden) beside a 429 (someone reportable) would tell the two apart with no limit at all.
      await takeQuota(repeated ? 'repeat' : open ? 'addition' : 'new');
      if (!target || !(await isReportable(tx, reporterId, reportedId))) return null;
      // The chat it was sent from, when it names one, is the two's: any other is as unknown as an id that never existed.
      if (input.conversation_id !== undefined && !(await isConversationOf(tx, input.conversation_id, reporterId, reportedId))) return null;
      const hid = await isVisiblePerson(tx, reporterId, reportedId);
      const added = await tx
        .insert(blocks)
        .values({ blockerId: reporterId, blockedId: reportedId })
        .onConflictDoNothing()
        .returning({ blockedId: blocks.blockedId });
      const blocked = added.length > 0;
      const ended = await endConversationBetween(tx, reporterId, reportedId, 'report');
      if (open) await addConversationTo(tx, open, reporterId, reportedId);
      if (repeated) return { id: open!.id, created: false, hid, blocked, ended };

      if (open) {
        const addition = { reason: input.reason, details, at: new Date().toISOString() };
        await tx
          .update(reports)
          .set({ additions: sql`${reports.additions} || ${JSON.stringify([addition])}::jsonb` })
          .where(eq(reports.id, open.id));
        return { id: open.id, created: false, hid, blocked, ended };
      }

      const { snapshot, conversationId } = await takeSnapshot(tx, evidence, media, reporterId, reportedId, copied);
      // Its time is the insert's, moments before the commit, not the transaction's start (`now()`): this
      // one may have waited above, and copied photos, while later reports committed. Dated before them,
      // it would land behind a page of the open queue a moderator has already read, and "Show more",
      // which reads on from that page's last report, would never reach it.
      const [row] = await tx
        .insert(reports)
        .values({ reporterId, reportedId, reason: input.reason, details, conversationId, snapshot, createdAt: sql`clock_timestamp()` })
        .returning({ id: reports.id });
      return { id: row!.id, created: true, hid, blocked, ended };
    });
  } catch (error) {
    // The copies of a report that was not stored go with it.
    await Promise.all(copied.map((key) => evidence.remove(key)));
    // The reported account is locked above: a row gone can only be the reporter's, deleted meanwhile.
    if (isForeignKeyViolation(error)) throw new SessionEnded();
    throw error;
  }
}

/** Whether `conversationId` is the conversation of these two (open or ended). */
async function isConversationOf(tx: Tx, conversationId: number, a: number, b: number): Promise<boolean> {
  const [low, high] = a < b ? [a, b] : [b, a];
  const [conversation] = await tx
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.userLowId, low), eq(conversations.userHighId, high)));
  return conversation !== undefined;
}

async function takeSnapshot(
  tx: Tx,
  evidence: MediaStore,
  media: MediaStore,
  reporterId: number,
  reportedId: number,
  copied: string[],
): Promise<{ snapshot: ReportSnapshot; conversationId: number | null }> {
  const [profile] = await tx.select().from(profiles).where(eq(profiles.userId, reportedId));
  const photos: string[] = [];
  for (const url of profile ? [profile.image, profile.image2, profile.image3, profile.image4, profile.image5, profile.image6] : []) {
    const key = url ? media.keyOf(url) : null;
    const bytes = key ? await media.read(key) : null;
    if (!bytes) continue;
    const copy = newMediaKey();
    await evidence.put(copy, bytes);
    copied.push(copy);
    photos.push(copy);
  }
  const { conversationId, messages } = await lastMessagesBetween(tx, reporterId, reportedId);
  return {
    conversationId,
    snapshot: {
      profile: profile
        ? {
            name: profile.name ?? '',
            bio: profile.bio ?? '',
            age: profile.dateOfBirth ? ageOn(profile.dateOfBirth) : null,
            gender: profile.gender,
            photos,
          }
        : null,
      messages,
    },
  };
}

/** The conversation the two share, if any (even an ended one), and its last messages, oldest first. */
async function lastMessagesBetween(
  tx: Tx,
  reporterId: number,
  reportedId: number,
): Promise<{ conversationId: number | null; messages: ReportSnapshot['messages'] }> {
  const [low, high] = reporterId < reportedId ? [reporterId, reportedId] : [reportedId, reporterId];
  const [conversation] = await tx
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.userLowId, low), eq(conversations.userHighId, high)));
  if (!conversation) return { conversationId: null, messages: [] };
  const last = await tx
    .select({ id: messages.id, sender: messages.senderId, content: messages.content, time: messages.createdAt })
    .from(messages)
    .where(eq(messages.conversationId, conversation.id))
    .orderBy(desc(messages.id))
    .limit(REPORT_SNAPSHOT_MESSAGES);
  return {
    conversationId: conversation.id,
    messages: last.reverse().map((message) => ({
      ...message,
      time: message.time.toISOString(),
      from: message.sender === reportedId ? ('reported' as const) : ('reporter' as const),
    })),
  };
}

/**
 * An open report made when the two shared no conversation (from a profile), to which the reporter adds
 * now that they do (unblocked since, and matched again): its snapshot takes that conversation's last
 * messages, which the moderator would otherwise never see.
 */
async function addConversationTo(tx: Tx, report: { id: number; conversationId: number | null }, reporterId: number, reportedId: number) {
  if (report.conversationId !== null) return;
  const { conversationId, messages } = await lastMessagesBetween(tx, reporterId, reportedId);
  if (conversationId === null) return;
  await tx
    .update(reports)
    .set({ conversationId, snapshot: sql`jsonb_set(${reports.snapshot}, '{messages}', ${JSON.stringify(messages)}::jsonb)` })
    .where(eq(reports.id, report.id));
}

/** How long the messages of an ended conversation are kept for a report that may follow. */
export const ENDED_CONVERSATION_MESSAGES_KEPT_MS = ENDED_CHAT_KEPT_DAYS * 24 * 60 * 60 * 1000;

/** How many ended conversations one statement of the purge takes. */
export const PURGE_BATCH_CONVERSATIONS = 500;

/**
 * Deletes the messages of conversations that ended before `before`. The conversation rows stay (an
 * unmatched pair is never matched again); a report keeps its own copy of the last messages. Each
 * conversation purged is marked (`messages_purged_at`), so that a run reads only the ended
 * conversations not purged yet (`conversations_to_purge`), never those of the runs before. They go
 * `batchSize` conversations a statement (their messages deleted and the mark set at once), oldest end
 * first, until a batch comes back short: on the embedded database the requests waiting meanwhile run
 * between two batches. The batch is an array (`= any`), not a join: the planner, which cannot see its
 * length, probes messages_conversation for it, where a join of its 500 estimated rows hash-joined
 * over a scan of all messages. Each conversation's row is taken before its messages, as an account's
 * deletion takes them (a purge that deleted the messages first deadlocked with it); one another
 * transaction holds is left to the next run. A conversation of a match made at an event that had
 * messages stays counted as started there (`events/tallies.ts`). Returns how many messages went.
 */
export async function purgeEndedConversations(db: DbOrTx, before: Date, batchSize = PURGE_BATCH_CONVERSATIONS): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [batch] = rowsOf<{ conversations: number; messages: number }>(
      await db.execute(sql`
        with batch as materialized (
          select array_agg(id) as ids, count(*)::int as n from (
            select id from ${conversations}
            where ended_at < ${before.toISOString()}::timestamptz and messages_purged_at is null
            order by ended_at
            limit ${batchSize}
            for no key update skip locked
          ) oldest
        ), gone as (
          delete from ${messages} where conversation_id = any((select ids from batch)::int[])
          returning 1
        ), marked as (
          update ${conversations} set messages_purged_at = now() where id = any((select ids from batch)::int[])
        ), tallied as (
          ${addToTallies(startedIn(sql`(select ids from batch)::int[]`))}
        )
        select (select n from batch) as conversations, (select count(*) from gone)::int as messages`),
    );
    deleted += batch!.messages;
    if (batch!.conversations < batchSize) return deleted;
    await setImmediate();
  }
}
