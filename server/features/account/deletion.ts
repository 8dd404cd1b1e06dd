import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import { DELETE_CONFIRMATION } from '../../../shared/constants';
import type { DeleteAccountInput } from '../../../shared/schemas/account';
import { type Db, rowsOf } from '../../db/client';
import { attendances, authTokens, conversations, events, moderationActions, posthogErasures, uploads, users } from '../../db/schema';
import { ValidationError } from '../../errors';
import { isTransientConflict } from '../../lib/pg-errors';
import { serverText } from '../../../shared/i18n/server-messages';
import { keepActiveDays } from '../analytics/service';
import { tallyDeparture } from '../events/tallies';
import { photosShown } from '../media/service';
import { announceEnded, type EndedConversation, whoMayShow } from '../safety/service';
import type { Publish } from '../../realtime/types';
import type { MediaStore } from '../media/store';
import { type BillingLog, endStripeBilling } from '../payments/end-billing';
import { checkPassword } from './service';

export const WRONG_PASSWORD = serverText('wrong_password');
export const TYPE_DELETE_TO_CONFIRM = serverText('type_delete_to_confirm');

/**
 * The user confirmed their own deletion: with their password, or, for an account that has none
 * (Google only), by typing DELETE.
 */
export async function checkDeletionConsent(db: Db, userId: number, input: DeleteAccountInput): Promise<void> {
  const verdict = await checkPassword(db, userId, input.password ?? '');
  if (verdict === 'none') {
    if (input.confirm !== DELETE_CONFIRMATION) throw ValidationError.field('confirm', TYPE_DELETE_TO_CONFIRM);
    return;
  }
  if (!input.password) throw ValidationError.field('password', serverText('required'));
  if (verdict === 'wrong') throw ValidationError.field('password', WRONG_PASSWORD);
}

export interface DeletedAccount {
  /** Each conversation the account had (open or ended): both people are told it is gone. */
  conversations: EndedConversation[];
  /** Photo files to remove once the rows are gone. */
  photoKeys: string[];
  /** The event they were checked in to, whose headcount changes. */
  leftEventId: number | null;
  /** Whose phones may show them (their card, their like): told they are gone. */
  shownTo: number[];
  /** The hashes of their sessions' tokens, whose rows went with the account: forgotten everywhere after. */
  tokenHashes: string[];
}

/**
 * Deletes the account row in one transaction; the schema's cascades take the rest with it: tokens,
 * profile, uploads' rows, reactions, blocks, conversations and every message in them, checkouts,
 * e-mail links, attendances. Events they organize stay for their attendees, without an organizer or
 * a QR secret. Reports about the user (and by them) keep their snapshot for moderators, without the
 * user id; analytics keep their counts the same way (`keepActiveDays`), and so do the figures of the
 * events they were at (`tallyDeparture`). The e-mail is free again at once.
 * `postHogErasure`: their PostHog person and events are to go too, recorded here for the erasure job,
 * due `afterMs` after the deletion (`analytics.erasure`).
 * Answers what the caller still has to do outside the database (files, sockets).
 */
export async function deleteAccount(
  db: Db,
  userId: number,
  options: { postHogErasure?: { afterMs: number } | null; byAdmin?: boolean } = {},
): Promise<DeletedAccount | null> {
  // The cascade locks the account's rows in its own order (the tables' keys', breadth first), and
  // others' writes lock some of the same rows in theirs: a partner's like of this account, a message
  // batch, another deletion sharing a conversation. PostgreSQL breaks such a cycle by rolling one of
  // them back; when that is this deletion, it goes again, after the other has committed.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await deleteAccountOnce(db, userId, options.postHogErasure ?? null, options.byAdmin ?? false);
    } catch (error) {
      if (attempt >= DELETION_ATTEMPTS || !isTransientConflict(error)) throw error;
    }
  }
}

const DELETION_ATTEMPTS = 3;

async function deleteAccountOnce(
  db: Db,
  userId: number,
  postHogErasure: { afterMs: number } | null,
  byAdmin: boolean,
): Promise<DeletedAccount | null> {
  return db.transaction(async (tx) => {
    // Locked first, so that a concurrent deletion of the same account waits and then finds nothing.
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    if (!user) return null;
    const owned = await tx
      .select({ id: conversations.id, low: conversations.userLowId, high: conversations.userHighId })
      .from(conversations)
      .where(or(eq(conversations.userLowId, userId), eq(conversations.userHighId, userId)));
    const photos = await tx.select({ key: uploads.key }).from(uploads).where(eq(uploads.ownerId, userId));
    const [attending] = await tx
      .select({ eventId: attendances.eventId })
      .from(attendances)
      .where(and(eq(attendances.userId, userId), isNull(attendances.leftAt)));
    const shownTo = await whoMayShow(tx, userId);
    // Their sessions, to be forgotten once this commits: none can be added meanwhile (a new one takes the
    // account's row shared, `issueToken`, and finds it gone).
    const sessions = await tx.select({ tokenHash: authTokens.tokenHash }).from(authTokens).where(eq(authTokens.userId, userId));
    // The events they organize go on for those in them; their QR secrets go.
    await tx.update(events).set({ qrSecret: null }).where(eq(events.organizerId, userId));
    await keepActiveDays(tx, userId);
    // What their rows counted in events' figures stays there, anonymously.
    await tallyDeparture(tx, userId);
    await tx.delete(users).where(eq(users.id, userId));
    // The admin command's deletion is one of its changes, recorded with them, as it commits: when, and
    // nothing of the account, as the table keeps every other line once an account goes.
    if (byAdmin) await tx.insert(moderationActions).values({ action: 'delete_account' });
    // Their person in PostHog goes after (`jobs/posthog-erasure.ts`), as surely as the account goes here,
    // once no batch of their events let through before this commits can still reach PostHog. Last, and by
    // the clock (not `now()`, the transaction's start): counted from as close to the commit as can be.
    if (postHogErasure) {
      await tx.insert(posthogErasures).values({
        distinctId: String(userId),
        nextAttemptAt: sql`clock_timestamp() + ${postHogErasure.afterMs}::int * interval '1 millisecond'`,
      });
    }
    return {
      conversations: owned.map((row) => ({ conversationId: row.id, userIds: [row.low, row.high] })),
      photoKeys: photos.map((row) => row.key),
      leftEventId: attending?.eventId ?? null,
      shownTo,
      tokenHashes: sessions.map((row) => row.tokenHash),
    };
  });
}

/**
 * Removes the deleted account's photo files, except one another profile still shows (seeded demo
 * profiles share the demo account's photos; no user's own profile can show another's upload).
 * Called once the deletion has committed: a failure here (the bucket down) is the caller's to log,
 * not to undo the deletion with; the orphan sweep removes what is left later.
 */
export async function removePhotoFiles(db: Db, store: MediaStore, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const urls = keys.map((key) => store.url(key));
  const shown = new Set(
    rowsOf<{ url: string }>(
      await db.execute(sql`
        select distinct named.url from (${photosShown}) named
        where named.url in (${sql.join(urls.map((url) => sql`${url}`), sql`, `)})`),
    ).map((row) => row.url),
  );
  const removed = keys.filter((key) => !shown.has(store.url(key)));
  await Promise.all(removed.map((key) => store.remove(key)));
  return removed;
}

/** What a whole deletion works with: the server's own (`DELETE /api/users/me/`), or the admin command's. */
export interface ErasureDeps {
  db: Db;
  /** Null without Stripe checkout: billing kept at Stripe is then logged for removal by hand. */
  stripe: Stripe | null;
  media: MediaStore;
  log: BillingLog;
  /** `analytics.erasure`: their PostHog person is to go too, once due. */
  postHogErasure: { afterMs: number } | null;
  /**
   * Ends their sessions, whose rows went with the account (`tokenHashes`), once the deletion has
   * committed: their open phones told why (`account:deleted`), then the sessions forgotten on every
   * instance, their sockets dropped. Told before the commit, a deletion that then failed had signed
   * them out of an account still there. A request of theirs that passed sign-in before the sessions are
   * forgotten finds the account gone as it writes, and is answered that the session ended
   * (`SessionEnded`). Without it (the admin command with no Redis to reach the instances through) a
   * running server stops trusting them within its token trust (10 s), their sockets within the token
   * sweep's minute.
   */
  endSessions?: (userId: number, tokenHashes: string[]) => Promise<unknown>;
  /** Tells whoever is affected (`announceDeletion`), once the deletion has committed; before the files go. */
  announce?: (userId: number, deleted: DeletedAccount) => void;
  /** The admin command's deletion, recorded in the moderation history (`delete_account`); not the owner's own. */
  byAdmin?: boolean;
}

/**
 * What the deletion tells, once it has committed, on every instance: their partners' apps drop the
 * conversation (`match:removed`); whoever may have them on screen (their card, their like) drops them,
 * as after a block (`person:gone`); the event they were at, its count and its decks (`left`). The
 * server's own deletion and the admin command's (through Redis) alike.
 */
export function announceDeletion(
  news: { publish: Publish; left: (userId: number, eventId: number) => void },
  userId: number,
  gone: DeletedAccount,
) {
  announceEnded(news.publish, gone.conversations);
  news.publish(gone.shownTo, 'person:gone', { user_id: userId });
  if (gone.leftEventId !== null) news.left(userId, gone.leftEventId);
}

/**
 * The whole deletion of an account, the API's and the admin command's alike: first their billing ended
 * at Stripe (`endStripeBilling`: a Stripe outage throws `PaymentsUnavailable` with the account whole,
 * to be tried again), then the rows (`deleteAccount`), then their sessions (`endSessions`), and their
 * photo files. Null when there is no such account. A deletion that fails in the database leaves the
 * account whole, its sessions too, and tells no one.
 */
export async function eraseAccount(deps: ErasureDeps, userId: number): Promise<DeletedAccount | null> {
  await endStripeBilling(deps.db, deps.stripe, userId, deps.log);
  const deleted = await deleteAccount(deps.db, userId, { postHogErasure: deps.postHogErasure, byAdmin: deps.byAdmin });
  if (!deleted) return null;
  await deps.endSessions?.(userId, deleted.tokenHashes);
  deps.announce?.(userId, deleted);
  // The account is gone by now: files that cannot be removed (the bucket down) do not undo that, nor
  // fail it. The orphan sweep removes them later.
  try {
    await removePhotoFiles(deps.db, deps.media, deleted.photoKeys);
  } catch (error) {
    deps.log.warn({ userId, photos: deleted.photoKeys.length, err: error }, 'account deleted, but its photo files were not removed');
  }
  return deleted;
}
