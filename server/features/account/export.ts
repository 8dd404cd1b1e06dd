import { Readable } from 'node:stream';
import { and, asc, eq, gt } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { ZipFile } from 'yazl';
import { IMAGE_FIELDS } from '../../../shared/schemas/users';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import {
  analyticsEvents,
  attendances,
  conversations,
  events,
  messages,
  profiles,
  reactions,
  reports,
  uploads,
  users,
} from '../../db/schema';
import { partnerOf } from '../conversations/queries';
import { isTestPlan } from '../payments/stripe-client';
import { planPeriod } from '../../../shared/plan-prices';
import { type BlockPosition, type EndedChatPosition, listBlocks, listEndedChats } from '../safety/service';
import { conversationColumns, openConversationsOf } from '../safety/visibility';
import type { MediaStore } from '../media/store';
import type { BlockedUser, EndedChat } from '../../../shared/schemas/safety';
import type { Slice } from '../../lib/page';

/** The prices of the two plans (`config.stripe.lookupKeys`): a subscription's period is named by them. */
type LookupKeys = Config['stripe']['lookupKeys'];

/** Rows read per query while the archive streams: memory stays flat however long the history. */
const PAGE = 500;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** `photos/<key>` inside the archive, for an image URL of ours. */
const archivedPhoto = (store: MediaStore, url: string | null) => {
  const key = url ? store.keyOf(url) : null;
  return key ? `photos/${key}` : url;
};

async function* pages<Row>(read: (after: number) => Promise<Row[]>, idOf: (row: Row) => number): AsyncGenerator<Row> {
  let after = 0;
  for (;;) {
    const rows = await read(after);
    yield* rows;
    if (rows.length < PAGE) return;
    after = idOf(rows[rows.length - 1]!);
  }
}

/** A JSON array written element by element. */
async function* jsonArray<T>(items: AsyncIterable<T>, indent: string): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const item of items) {
    yield `${first ? '' : ','}\n${indent}  ${JSON.stringify(item)}`;
    first = false;
  }
  yield first ? ']' : `\n${indent}]`;
}

/**
 * `account.json`, written as it is read (GDPR art. 20): the account, the profile, reactions given,
 * matches, every conversation the user can open with all its messages, the ended ones still kept with
 * the messages the user wrote there, subscription state, events attended and organized, blocks, reports
 * made and analytics events.
 * About anyone else only what the user already sees: a partner's id and shown name in a conversation
 * (an ended one's as the list of ended chats shows it),
 * the id of someone they reacted to, the id and name of someone they blocked (as their list of blocks
 * shows) or reported (as they showed themselves when reported).
 */
export async function* accountJson(db: Db, store: MediaStore, lookupKeys: LookupKeys, userId: number): AsyncGenerator<string> {
  const [account] = await db
    .select({ user: users, profile: profiles })
    .from(users)
    .innerJoin(profiles, eq(profiles.userId, users.id))
    .where(eq(users.id, userId));
  if (!account) throw new Error(`user ${userId} has no account to export`);
  const { user, profile } = account;

  yield `{\n  "format": "eventmatch-export/1",\n  "exported_at": ${JSON.stringify(new Date().toISOString())},\n`;
  yield `  "account": ${JSON.stringify({
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    email_verified: user.emailVerifiedAt !== null,
    has_password: user.passwordHash !== null,
    google_linked: user.googleSub !== null,
    language: user.language,
    created_at: iso(user.createdAt),
    password_changed_at: iso(user.passwordChangedAt),
  })},\n`;
  yield `  "profile": ${JSON.stringify({
    name: profile.name,
    bio: profile.bio,
    gender: profile.gender,
    date_of_birth: profile.dateOfBirth,
    ...Object.fromEntries(IMAGE_FIELDS.map((field) => [field, archivedPhoto(store, profile[field])])),
    genders_to_match: profile.gendersToMatch,
    min_matching_age: profile.minMatchingAge,
    max_matching_age: profile.maxMatchingAge,
    is_completed: profile.isCompleted,
    last_active_at: iso(profile.lastActiveAt),
  })},\n`;
  yield `  "subscription": ${JSON.stringify({
    active: user.hasSubscription,
    provider: user.stripeSubscriptionId ? (isTestPlan(user.stripeSubscriptionId) ? 'local_test_checkout' : 'stripe') : null,
    subscription_id: user.stripeSubscriptionId,
    // Stripe's word for it (`trialing`, `active`, `past_due` when a payment failed, ...), as the plan page
    // shows it: a plan still active whose renewal went unpaid is not one that renews as it should.
    status: user.planStatus,
    period: planPeriod(user.planLookupKey, lookupKeys),
    trial_ends_at: iso(user.planTrialEndsAt),
    renews_at: iso(user.planRenewsAt),
    ends_at: iso(user.planEndsAt),
  })},\n`;

  yield '  "reactions_given": ';
  yield* jsonArray(
    (async function* () {
      // Walks the (from_user_id, to_user_id) primary key.
      const rows = pages(
        (after) =>
          db
            .select({ userId: reactions.toUserId, response: reactions.kind, time: reactions.updatedAt })
            .from(reactions)
            .where(and(eq(reactions.fromUserId, userId), gt(reactions.toUserId, after)))
            .orderBy(asc(reactions.toUserId))
            .limit(PAGE),
        (row) => row.userId,
      );
      for await (const row of rows) yield { user_id: row.userId, response: row.response, time: iso(row.time) };
    })(),
    '  ',
  );
  yield ',\n';

  const partner = partnerOf(userId);
  const matched = await db
    .select({ id: conversations.id, partnerId: partner.id, partnerName: partner.name, matchedAt: conversations.createdAt })
    .from(conversations)
    .innerJoin(partner.profile, eq(partner.profile.userId, partner.id))
    .innerJoin(partner.user, eq(partner.user.id, partner.id))
    // The conversations the user can open: an ended one (unmatched, blocked) stays hidden from both,
    // and a partner hidden since (banned, blocking) is someone the user no longer sees.
    .where(openConversationsOf(userId, conversationColumns))
    .orderBy(asc(conversations.id));
  const partnerOfRow = (row: (typeof matched)[number]) => ({ id: Number(row.partnerId), name: row.partnerName });

  yield '  "matches": ';
  yield* jsonArray(
    (async function* () {
      for (const row of matched) yield { conversation_id: row.id, partner: partnerOfRow(row), matched_at: iso(row.matchedAt) };
    })(),
    '  ',
  );
  yield ',\n  "conversations": [';
  for (const [index, row] of matched.entries()) {
    const head = JSON.stringify({ id: row.id, partner: partnerOfRow(row), matched_at: iso(row.matchedAt) });
    yield `${index === 0 ? '' : ','}\n    ${head.slice(0, -1)},"messages":`;
    yield* jsonArray(
      (async function* () {
        const rows = pages(
          (after) =>
            db
              .select({ id: messages.id, sender: messages.senderId, content: messages.content, time: messages.createdAt })
              .from(messages)
              .where(and(eq(messages.conversationId, row.id), gt(messages.id, after)))
              .orderBy(asc(messages.id))
              .limit(PAGE),
          (message) => message.id,
        );
        for await (const message of rows) {
          yield { id: message.id, sender: message.sender, from_me: message.sender === userId, content: message.content, time: iso(message.time) };
        }
      })(),
      '    ',
    );
    yield '}';
  }
  yield matched.length === 0 ? '],\n' : '\n  ],\n';

  // The chats that ended (unmatched, blocked, reported) and whose messages are still kept until the
  // purge: what the user wrote there is still held, so it is theirs to take. As their list of ended
  // chats shows them (the partner's id and name, newest end first), with their own messages only:
  // the partner's are no longer theirs to see, and how it ended is not said.
  yield '  "ended_conversations": [';
  let endedCount = 0;
  let endedAfter: EndedChatPosition | null = null;
  do {
    const page: Slice<EndedChat, EndedChatPosition> = await listEndedChats(db, userId, { since: new Date(0), after: endedAfter, limit: PAGE });
    for (const chat of page.results) {
      const head = JSON.stringify({ id: chat.id, partner: { id: chat.user_id, name: chat.name }, ended_at: chat.ended_at });
      yield `${endedCount === 0 ? '' : ','}\n    ${head.slice(0, -1)},"messages":`;
      endedCount += 1;
      yield* jsonArray(
        (async function* () {
          const rows = pages(
            (after) =>
              db
                .select({ id: messages.id, content: messages.content, time: messages.createdAt })
                .from(messages)
                .where(and(eq(messages.conversationId, chat.id), eq(messages.senderId, userId), gt(messages.id, after)))
                .orderBy(asc(messages.id))
                .limit(PAGE),
            (message) => message.id,
          );
          for await (const message of rows) {
            yield { id: message.id, sender: userId, from_me: true, content: message.content, time: iso(message.time) };
          }
        })(),
        '    ',
      );
      yield '}';
    }
    endedAfter = page.next;
  } while (endedAfter);
  yield endedCount === 0 ? '],\n' : '\n  ],\n';

  // Events: where they checked in, and what they organized (never an event's QR secret).
  const attended = await db
    .select({ event: events, checkedInAt: attendances.checkedInAt, leftAt: attendances.leftAt })
    .from(attendances)
    .innerJoin(events, eq(events.id, attendances.eventId))
    .where(eq(attendances.userId, userId))
    .orderBy(asc(attendances.checkedInAt));
  const organized = await db.select().from(events).where(eq(events.organizerId, userId)).orderBy(asc(events.id));
  const eventOf = (event: typeof events.$inferSelect) => ({
    id: event.id,
    code: event.code,
    name: event.name,
    venue: event.venue,
    starts_at: iso(event.startsAt),
    ends_at: iso(event.endsAt),
  });
  yield `  "events_attended": `;
  yield* jsonArray(
    (async function* () {
      for (const row of attended) {
        yield { event: eventOf(row.event), checked_in_at: iso(row.checkedInAt), left_at: iso(row.leftAt) };
      }
    })(),
    '  ',
  );
  yield ',\n  "events_organized": ';
  yield* jsonArray(
    (async function* () {
      for (const event of organized) yield { ...eventOf(event), join_mode: event.joinMode, created_at: iso(event.createdAt) };
    })(),
    '  ',
  );
  yield ',\n';

  // As their list of blocks shows them (newest first), with the name it shows, so that they can
  // tell who is who.
  yield `  "blocks": `;
  yield* jsonArray(
    (async function* () {
      let after: BlockPosition | null = null;
      do {
        const page: Slice<BlockedUser, BlockPosition> = await listBlocks(db, userId, { after, limit: PAGE });
        for (const row of page.results) yield { user_id: row.id, name: row.name, time: row.blocked_at };
        after = page.next;
      } while (after);
    })(),
    '  ',
  );

  // What they wrote and when. The person reported by the name they showed then (the report's
  // snapshot), which the reporter saw; nothing of the snapshot else, nor what moderators decided.
  yield ',\n  "reports_made": ';
  yield* jsonArray(
    (async function* () {
      const rows = pages(
        (after) =>
          db
            .select({
              id: reports.id,
              reportedId: reports.reportedId,
              snapshot: reports.snapshot,
              reason: reports.reason,
              details: reports.details,
              additions: reports.additions,
              conversationId: reports.conversationId,
              time: reports.createdAt,
            })
            .from(reports)
            .where(and(eq(reports.reporterId, userId), gt(reports.id, after)))
            .orderBy(asc(reports.id))
            .limit(PAGE),
        (row) => row.id,
      );
      for await (const row of rows) {
        yield {
          id: row.id,
          reported: { id: row.reportedId, name: row.snapshot.profile?.name ?? null },
          reason: row.reason,
          details: row.details,
          conversation_id: row.conversationId,
          time: iso(row.time),
          // Reports of the same person while this one was open.
          additions: row.additions.map((addition) => ({ reason: addition.reason, details: addition.details, time: addition.at })),
        };
      }
    })(),
    '  ',
  );

  yield ',\n  "analytics_events": ';
  yield* jsonArray(
    (async function* () {
      const rows = pages(
        (after) =>
          db
            .select({ id: analyticsEvents.id, name: analyticsEvents.name, time: analyticsEvents.createdAt })
            .from(analyticsEvents)
            .where(and(eq(analyticsEvents.userId, userId), gt(analyticsEvents.id, after)))
            .orderBy(asc(analyticsEvents.id))
            .limit(PAGE),
        (event) => event.id,
      );
      for await (const event of rows) yield { name: event.name, time: iso(event.time) };
    })(),
    '  ',
  );
  yield '\n}\n';
}

/**
 * The export archive (`GET /api/users/me/export/`): `account.json` and `photos/` with the user's own
 * images (their uploads and the photos their profile shows), streamed as it is built. A failure once
 * bytes have gone out can only cut the stream: it is logged and the response ends broken, which the
 * client reports as a failed download.
 */
export function exportArchive(db: Db, store: MediaStore, lookupKeys: LookupKeys, userId: number, log: FastifyBaseLogger): Readable {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  zip.on('error', (error: unknown) => {
    log.error({ err: error, userId }, 'export failed while streaming');
    output.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  const mtime = new Date();
  zip.addReadStreamLazy('account.json', { mtime }, (callback) => {
    const json = Readable.from(accountJson(db, store, lookupKeys, userId));
    // yazl pipes the stream it is given and listens for none of its errors: a read that fails (the
    // account deleted meanwhile, the database gone) was an uncaught exception, which stops the server.
    json.once('error', (error) => zip.emit('error', error));
    callback(null, json);
  });

  void (async () => {
    const owned = await db
      .select({ key: uploads.key })
      .from(uploads)
      .where(eq(uploads.ownerId, userId))
      .orderBy(asc(uploads.createdAt), asc(uploads.key));
    // And the photos their profile shows that they did not upload: a seeded person's are the demo
    // account's, and `account.json` names them under `photos/` all the same.
    const [profile] = await db.select().from(profiles).where(eq(profiles.userId, userId));
    const shown = IMAGE_FIELDS.map((field) => (profile?.[field] ? store.keyOf(profile[field]) : null));
    const keys = new Set([...owned.map((row) => row.key), ...shown.filter((key) => key !== null)]);
    for (const key of keys) {
      const bytes = await store.read(key);
      // WebP is compressed already.
      if (bytes) zip.addBuffer(bytes, `photos/${key}`, { mtime, compress: false });
      else log.warn({ key, userId }, 'export: a photo file is missing; left out');
    }
    zip.end();
  })().catch((error: unknown) => zip.emit('error', error));
  return output;
}
