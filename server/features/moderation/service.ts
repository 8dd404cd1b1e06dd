import { type AnyColumn, and, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import { serverText } from '../../../shared/i18n/server-messages';
import type { ModerationReport, ModerationReportDetail, ResolveInput, SnapshotSender } from '../../../shared/schemas/safety';
import { type Db, type DbOrTx, rowsOf } from '../../db/client';
import { attendances, authTokens, moderationActions, profiles, type ReportAddition, type ReportSnapshot, reports, users } from '../../db/schema';
import { Conflict } from '../../errors';
import { type Slice, sliceOf } from '../../lib/page';
import { stopEventsOf } from '../events/service';
import { lockOutLikes } from '../matching/locks';
import type { BillingLog } from '../payments/end-billing';
import { resumeRenewalOfUnbanned } from '../payments/subscription';
import { type EndedConversation, endConversationsOf, whoMayShow } from '../safety/service';

export const ALREADY_RESOLVED = serverText('report_already_resolved');
export const ACCOUNT_DELETED = serverText('report_account_deleted');
export const ALREADY_BANNED = serverText('report_already_banned');

export type Role = (typeof users.$inferSelect)['role'];

export async function isModerator(db: Db, userId: number): Promise<boolean> {
  const [row] = await db.select({ role: users.role }).from(users).where(eq(users.id, userId));
  return row?.role === 'moderator';
}

export interface QueuePosition {
  atUs: string;
  id: number;
}

/** A row of the queue. */
interface QueueRow {
  id: number;
  reason: ModerationReport['reason'];
  details: string;
  created_at: string;
  status: ModerationReport['status'];
  reporter_id: number | null;
  reporter_name: string | null;
  reported_id: number | null;
  reported_name: string | null;
  reported_banned: boolean;
  report_count: number | string;
  at_us: string;
  resolution: ModerationReport['resolution'];
  resolved_at: string | null;
}

/** One report's row: the queue's, and what only its own page reads. */
interface ReportRow extends QueueRow {
  conversation_id: number | null;
  snapshot: ReportSnapshot | string;
  additions: ReportAddition[] | string;
  note: string | null;
  resolved_with: number | null;
  resolver_id: number | null;
  resolver_name: string | null;
}

/**
 * What a moderator may see and decide: every report but those about herself (she could otherwise
 * dismiss them, or read who reported her) and those she made (she could otherwise ban someone on her
 * own word alone), which another moderator decides.
 */
const notInvolving = (
  moderatorId: number,
  reportedId: SQL | AnyColumn = sql.raw('r.reported_id'),
  reporterId: SQL | AnyColumn = sql.raw('r.reporter_id'),
) => sql`${reportedId} is distinct from ${moderatorId} and ${reporterId} is distinct from ${moderatorId}`;

const iso = (column: string) => sql.raw(`to_char(${column} at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * Reports with their people; the reported person's name from the snapshot once their account is gone.
 * `detail`: with what only one report's page shows (its snapshot and additions, large JSON, its
 * conversation, note and who resolved it); a page of the queue reads only what its rows show.
 */
function reportRows(where: SQL, order: SQL, limit: number, atColumn: string, { detail }: { detail: boolean }) {
  const detailColumns = detail
    ? sql`, r.conversation_id, r.snapshot, r.additions, r.note, r.resolved_with,
      r.resolved_by as resolver_id, coalesce(resolver_p.name, resolver.first_name) as resolver_name`
    : sql``;
  const resolver = detail
    ? sql`left join ${users} resolver on resolver.id = r.resolved_by
    left join ${profiles} resolver_p on resolver_p.user_id = r.resolved_by`
    : sql``;
  return sql`
    select r.id, r.reason, r.details, ${iso('r.created_at')} as created_at, r.status,
      r.reporter_id, coalesce(reporter_p.name, reporter.first_name) as reporter_name,
      r.reported_id, coalesce(reported_p.name, reported.first_name, r.snapshot -> 'profile' ->> 'name', '') as reported_name,
      reported.banned_at is not null as reported_banned,
      (select count(*) from ${reports} x where x.reported_id = r.reported_id) as report_count,
      (extract(epoch from ${sql.raw(atColumn)}) * 1000000)::bigint::text as at_us,
      r.resolution, ${iso('r.resolved_at')} as resolved_at ${detailColumns}
    from ${reports} r
    left join ${users} reporter on reporter.id = r.reporter_id
    left join ${profiles} reporter_p on reporter_p.user_id = r.reporter_id
    left join ${users} reported on reported.id = r.reported_id
    left join ${profiles} reported_p on reported_p.user_id = r.reported_id
    ${resolver}
    where ${where}
    order by ${order}
    limit ${limit}`;
}

const presentReport = (row: QueueRow): ModerationReport => ({
  id: Number(row.id),
  reason: row.reason,
  details: row.details,
  created_at: row.created_at,
  reporter: row.reporter_id === null ? null : { id: Number(row.reporter_id), name: row.reporter_name ?? '' },
  reported: {
    id: row.reported_id === null ? null : Number(row.reported_id),
    name: row.reported_name ?? '',
    report_count: Number(row.report_count),
    banned: row.reported_banned,
  },
  status: row.status,
  resolution: row.resolution,
  resolved_at: row.resolved_at,
});

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

type QueueOptions = { status: 'open' | 'resolved'; after: QueuePosition | null; limit: number };

/**
 * The moderation queue's statement: open reports oldest first (the longest waiting is answered
 * first), through reports_queue; resolved ones most recently resolved first, through reports_resolved.
 * One more row than the page, which says whether another follows.
 */
export function queueQuery(moderatorId: number, options: QueueOptions): SQL {
  const open = options.status === 'open';
  const atColumn = open ? 'r.created_at' : 'r.resolved_at';
  const after = options.after
    ? sql`and (${sql.raw(atColumn)}, r.id) ${sql.raw(open ? '>' : '<')} (timestamptz 'epoch' + ${options.after.atUs}::bigint * interval '1 microsecond', ${options.after.id}::int)`
    : sql``;
  return reportRows(
    sql`r.status = ${options.status} and ${notInvolving(moderatorId)} ${after}`,
    open ? sql`r.created_at asc, r.id asc` : sql`r.resolved_at desc, r.id desc`,
    options.limit + 1,
    atColumn,
    { detail: false },
  );
}

/** A page of the moderation queue (`queueQuery`). */
export async function listReports(db: Db, moderatorId: number, options: QueueOptions): Promise<Slice<ModerationReport, QueuePosition>> {
  const rows = rowsOf<QueueRow>(await db.execute(queueQuery(moderatorId, options)));
  return sliceOf(rows, options.limit, presentReport, (row) => ({ atUs: row.at_us, id: Number(row.id) }));
}

/**
 * Whose a message of a snapshot taken before snapshots said so: found by the two ids, while the
 * report still has them (null once that account is deleted).
 */
function senderOf(sender: number, row: ReportRow): SnapshotSender | null {
  if (row.reported_id !== null && sender === Number(row.reported_id)) return 'reported';
  if (row.reporter_id !== null && sender === Number(row.reporter_id)) return 'reporter';
  return null;
}

/** One report with its snapshot; photo copies are served by a moderators-only route. */
export async function getReport(db: DbOrTx, moderatorId: number, reportId: number): Promise<ModerationReportDetail | null> {
  const where = sql`r.id = ${reportId} and ${notInvolving(moderatorId)}`;
  const [row] = rowsOf<ReportRow>(await db.execute(reportRows(where, sql`r.id`, 1, 'r.created_at', { detail: true })));
  if (!row) return null;
  const snapshot = json<ReportSnapshot>(row.snapshot);
  return {
    ...presentReport(row),
    conversation_id: row.conversation_id === null ? null : Number(row.conversation_id),
    snapshot: {
      profile: snapshot.profile && {
        ...snapshot.profile,
        photos: snapshot.profile.photos.map((_, index) => `/api/moderation/reports/${row.id}/photos/${index}/`),
      },
      messages: snapshot.messages.map((message) => ({ ...message, from: message.from ?? senderOf(message.sender, row) })),
    },
    additions: json<ReportAddition[]>(row.additions),
    note: row.note,
    resolved_with: row.resolved_with === null ? null : Number(row.resolved_with),
    resolved_by: row.resolver_id === null ? null : { id: Number(row.resolver_id), name: row.resolver_name ?? '' },
  };
}

/** The stored key of a report's nth photo copy, or null. */
export async function reportPhotoKey(db: Db, moderatorId: number, reportId: number, index: number): Promise<string | null> {
  const [row] = await db
    .select({ snapshot: reports.snapshot })
    .from(reports)
    .where(and(eq(reports.id, reportId), notInvolving(moderatorId, reports.reportedId, reports.reporterId)));
  return row ? (json<ReportSnapshot>(row.snapshot).profile?.photos[index] ?? null) : null;
}

export interface Resolution {
  report: ModerationReportDetail;
  /** The keys of the photo copies taken out of the resolved reports: the caller removes them. */
  photoCopies: string[];
  /**
   * Set on a ban: whose sessions it ended (their token hashes: marked `endedByBan` with the ban, they
   * are to be forgotten wherever they are trusted), which conversations ended with it, and the event
   * they were checked in to (they leave it: its count goes down), and whose phones may show them
   * (`whoMayShow`: their card, their like), to be told they are gone; and the events they organize
   * that the ban stopped (`stopEventsOf`), whose rooms are to be told.
   */
  banned: {
    userId: number;
    tokenHashes: string[];
    ended: EndedConversation[];
    leftEventId: number | null;
    shownTo: number[];
    events: { deleted: number[]; ended: number[] };
  } | null;
}

/**
 * Resolves an open report: dismissed, or the reported person banned. A ban hides them from everyone
 * at once (the visibility rule reads `banned_at`), ends their sessions, their conversations, checks
 * them out of their event, stops the events they organize, and resolves every other open report about them, all in one transaction:
 * whatever stops the request after it commits, no session of theirs outlives it where it is read
 * next (on another instance, or here once the cache's trust ends). The caller then drops their
 * sockets and tells their partners and the event's room. The photo copies kept with a report go once
 * it is resolved: taken out of its snapshot here, their files left for the caller to remove after the
 * rest.
 * Null for an unknown report, or one about the moderator herself or made by her; 409 when already
 * resolved, or for a ban when the reported account has been deleted or banned since.
 */
export async function resolveReport(
  db: Db,
  moderatorId: number,
  reportId: number,
  input: ResolveInput,
): Promise<Resolution | null> {
  const outcome = await db.transaction(async (tx) => {
    let alreadyBanned = false;
    if (input.action === 'ban') {
      // The user's row before the report's, in the order a report of them takes the two (its
      // reporter adding to this very report meanwhile): the other order waited in a cycle.
      const [reported] = await tx.select({ id: reports.reportedId }).from(reports).where(eq(reports.id, reportId));
      if (reported?.id) {
        const [user] = await tx.select({ bannedAt: users.bannedAt }).from(users).where(eq(users.id, reported.id)).for('no key update');
        alreadyBanned = user?.bannedAt != null;
      }
    }
    const [row] = await tx
      .select({ status: reports.status, reportedId: reports.reportedId })
      .from(reports)
      .where(and(eq(reports.id, reportId), notInvolving(moderatorId, reports.reportedId, reports.reporterId)))
      .for('update');
    if (!row) return null;
    if (row.status !== 'open') throw new Conflict(ALREADY_RESOLVED);
    // The reported account was deleted since (the report keeps its snapshot): a ban would bind no one, yet
    // say "banned" on the report, while its e-mail can sign up again at once.
    if (input.action === 'ban' && row.reportedId === null) throw new Conflict(ACCOUNT_DELETED);
    // Reported after their ban (from a chat it ended): banning again would move `banned_at` off the ban's
    // time and record a second ban over the first; the ban stays as it is, and Dismiss closes the report.
    if (input.action === 'ban' && alreadyBanned) throw new Conflict(ALREADY_BANNED);
    const resolved = { status: 'resolved' as const, resolvedBy: moderatorId, resolvedAt: sql`now()` };
    // A note of only white space (trimmed to nothing by the schema) is no note: null, as when none was written.
    await tx
      .update(reports)
      .set({ ...resolved, resolution: input.action, note: input.note || null })
      .where(eq(reports.id, reportId));
    await tx.insert(moderationActions).values({ action: input.action, moderatorId, userId: row.reportedId, reportId });

    const resolvedIds = [reportId];
    let banned: Resolution['banned'] = null;
    if (input.action === 'ban' && row.reportedId !== null) {
      const userId = row.reportedId;
      // Before `banned_at`, which a like reads: a like by or of them in flight commits its match first,
      // to be ended below; one that comes later waits for this commit and finds them banned.
      await lockOutLikes(tx, userId);
      const shownTo = await whoMayShow(tx, userId);
      await tx.update(users).set({ bannedAt: sql`now()` }).where(eq(users.id, userId));
      const sessions = await tx
        .update(authTokens)
        .set({ endedByBan: true })
        .where(and(eq(authTokens.userId, userId), eq(authTokens.endedByBan, false)))
        .returning({ tokenHash: authTokens.tokenHash });
      const ended = await endConversationsOf(tx, userId, 'ban');
      const [left] = await tx
        .update(attendances)
        .set({ leftAt: sql`now()` })
        .where(and(eq(attendances.userId, userId), isNull(attendances.leftAt)))
        .returning({ eventId: attendances.eventId });
      const stopped = await stopEventsOf(tx, userId);
      const others = await tx
        .update(reports)
        .set({ ...resolved, resolution: 'ban', resolvedWith: reportId })
        .where(and(eq(reports.reportedId, userId), eq(reports.status, 'open')))
        .returning({ id: reports.id });
      resolvedIds.push(...others.map((other) => other.id));
      banned = {
        userId,
        tokenHashes: sessions.map((session) => session.tokenHash),
        ended,
        leftEventId: left?.eventId ?? null,
        shownTo,
        events: stopped,
      };
    }
    const photos = await dropPhotoCopies(tx, resolvedIds);
    return { banned, photos };
  });
  if (!outcome) return null;
  return { report: (await getReport(db, moderatorId, reportId))!, photoCopies: outcome.photos, banned: outcome.banned };
}

/** Takes the photo copies out of these reports' snapshots; returns their keys, to remove after commit. */
async function dropPhotoCopies(tx: DbOrTx, reportIds: number[]): Promise<string[]> {
  const rows = await tx.select({ snapshot: reports.snapshot }).from(reports).where(inArray(reports.id, reportIds));
  const keys = rows.flatMap((row) => json<ReportSnapshot>(row.snapshot).profile?.photos ?? []);
  if (keys.length > 0) {
    await tx
      .update(reports)
      .set({ snapshot: sql`jsonb_set(${reports.snapshot}, '{profile,photos}', '[]'::jsonb)` })
      .where(and(inArray(reports.id, reportIds), sql`jsonb_typeof(${reports.snapshot} -> 'profile') = 'object'`));
  }
  return keys;
}

/** What an admin command did: `null` when no account has the e-mail. */
export type AdminOutcome = 'changed' | 'unchanged' | null;

/** `npm run admin`: roles and bans change only here, never through the API. */
export async function setRole(db: Db, email: string, role: Role): Promise<AdminOutcome> {
  const outcome = await setByEmail(db, email, 'role', role);
  if (outcome === 'changed') {
    const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email.toLowerCase()));
    await db.insert(moderationActions).values({ action: role === 'moderator' ? 'grant_moderator' : 'revoke_moderator', userId: user?.id ?? null });
  }
  return outcome;
}

/** One line of an account's moderation history (`npm run admin -- log <email>`). */
export interface ModerationAction {
  at: Date;
  action: (typeof moderationActions.$inferSelect)['action'];
  /** The moderator's e-mail; null for the admin command, or once their account is deleted. */
  moderator: string | null;
  reportId: number | null;
}

/** What moderators and the admin command did about the account with this e-mail, newest first; null without one. */
export async function moderationHistory(db: Db, email: string, limit = 100): Promise<ModerationAction[] | null> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email.toLowerCase()));
  if (!user) return null;
  return db
    .select({ at: moderationActions.at, action: moderationActions.action, moderator: users.email, reportId: moderationActions.reportId })
    .from(moderationActions)
    .leftJoin(users, eq(users.id, moderationActions.moderatorId))
    .where(eq(moderationActions.userId, user.id))
    .orderBy(desc(moderationActions.at), desc(moderationActions.id))
    .limit(limit);
}

/**
 * Lifts a ban. The conversations it ended stay ended, and so do its sessions: their rows, kept to tell
 * the phones that held them that the account was suspended, go now; the user signs in afresh. A plan
 * the ban set to end at its period's end renews again (`resumeRenewalOfUnbanned`, at Stripe with `stripe`).
 */
export async function unban(db: Db, email: string, stripe: Stripe | null = null, log: BillingLog = console): Promise<AdminOutcome> {
  const [user] = await db.select({ id: users.id, bannedAt: users.bannedAt }).from(users).where(eq(users.email, email.toLowerCase()));
  if (!user) return null;
  if (user.bannedAt === null) return 'unchanged';
  await db.transaction(async (tx) => {
    await tx.update(users).set({ bannedAt: null }).where(eq(users.id, user.id));
    await tx.insert(moderationActions).values({ action: 'unban', userId: user.id });
    await tx.delete(authTokens).where(and(eq(authTokens.userId, user.id), eq(authTokens.endedByBan, true)));
  });
  await resumeRenewalOfUnbanned(db, stripe, user.id, log);
  return 'changed';
}

/** Sets one column of the account with this e-mail, saying whether it already held the value. */
async function setByEmail<K extends 'role' | 'bannedAt'>(db: Db, email: string, key: K, value: (typeof users.$inferSelect)[K]): Promise<AdminOutcome> {
  const account = eq(users.email, email.toLowerCase());
  const [user] = await db.select({ value: users[key] }).from(users).where(account);
  if (!user) return null;
  if (user.value === value) return 'unchanged';
  await db.update(users).set({ [key]: value }).where(account);
  return 'changed';
}
