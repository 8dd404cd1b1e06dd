import { sql } from 'drizzle-orm';
import { REPORT_REASONS } from '../../shared/constants';
import {
  type AnyPgColumn,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';
import { ANALYTICS_EVENTS } from '../../shared/schemas/analytics';
import type { SnapshotSender } from '../../shared/schemas/safety';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    email: varchar('email', { length: 254 }).notNull().unique(),
    // Null for accounts that only ever signed in with Google.
    passwordHash: text('password_hash'),
    firstName: varchar('first_name', { length: 150 }).notNull(),
    lastName: varchar('last_name', { length: 150 }).notNull(),
    googleSub: text('google_sub').unique(),
    hasSubscription: boolean('has_subscription').notNull().default(false),
    stripeCustomerId: text('stripe_customer_id').unique(),
    stripeSubscriptionId: text('stripe_subscription_id'),
    // The price the plan is on, as Stripe's events last named it (a switch in the customer portal moves it).
    planLookupKey: text('plan_lookup_key'),
    // The plan's dates as the subscription last said them, for the subscriber's page: the free trial's
    // end while it lasts, the next renewal, or the end of a plan canceled at the end of its period.
    planTrialEndsAt: timestamp('plan_trial_ends_at', { withTimezone: true, mode: 'date' }),
    planRenewsAt: timestamp('plan_renews_at', { withTimezone: true, mode: 'date' }),
    planEndsAt: timestamp('plan_ends_at', { withTimezone: true, mode: 'date' }),
    // A local test plan's first renewal: each renewal falls on its day of the month (or the month's last),
    // as Stripe keeps a subscription's billing anchor (31 January, 28 February, 31 March).
    planAnchorAt: timestamp('plan_anchor_at', { withTimezone: true, mode: 'date' }),
    // Stripe's status of the subscription the plan is on, or ended on (`past_due`, `unpaid`: a payment
    // failed); null with no subscription.
    planStatus: text('plan_status'),
    // Counts the Stripe events applied to the user's billing: one read from Stripe before another's
    // commit (outside the transaction, not to hold the database while Stripe answers) is read again.
    billingVersion: integer('billing_version').notNull().default(0),
    // A ban set the plan to end at its period's end (the user could no longer sign in to cancel it):
    // lifting the ban lets it renew again, as it did before. Not set for a plan its owner had cancelled.
    planStoppedByBan: boolean('plan_stopped_by_ban').notNull().default(false),
    // Set when the owner proves the address (the e-mailed link, a password reset, or Google vouching
    // for it). Google only links to a password account once this is set: no pre-account hijacking.
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, mode: 'date' }),
    // Moves with every new password: login throttle counts are keyed by it, so a reset clears them.
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true, mode: 'date' }),
    // The language of the e-mails this account is sent.
    language: text('language', { enum: ['es', 'en'] }).notNull().default('es'),
    /** `moderator`s work the report queue; only `npm run admin` changes it. */
    role: text('role', { enum: ['user', 'moderator'] }).notNull().default('user'),
    /** Set by a moderator's ban: hidden from everyone, signed out everywhere, refused at login. */
    bannedAt: timestamp('banned_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    check('users_email_lower', sql`${t.email} = lower(${t.email})`),
    check('users_language', sql`${t.language} in ('es', 'en')`),
    check('users_role', sql`${t.role} in ('user', 'moderator')`),
    // The visibility rule hashes the (few) banned ids once per statement.
    index('users_banned').on(t.id).where(sql`${t.bannedAt} is not null`),
    // The local test checkout's live plans, which the job test-plan-end reads every minute in every
    // mode: the few rows it looks at, not a scan of every account. Its queries write this predicate
    // out as it is here (`liveTestPlan`), or the planner could not prove they fall within it.
    index('users_test_plans').on(t.id).where(sql`${t.hasSubscription} and ${t.stripeSubscriptionId} like 'sub_local_%'`),
  ],
);

export const authTokens = pgTable(
  'auth_tokens',
  {
    // SHA-256 of the token, hex: the token itself is never stored.
    tokenHash: text('token_hash').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    // Sessions slide: a token unused for 60 days is dead. Touched at most hourly.
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    // Ended by a ban: it never authenticates again, and is kept until it would have expired only so
    // that the phone holding it, away while the ban happened, hears that the account is suspended.
    endedByBan: boolean('ended_by_ban').notNull().default(false),
  },
  (t) => [index('auth_tokens_user_id').on(t.userId), index('auth_tokens_last_used_at').on(t.lastUsedAt)],
);

/**
 * The links sent by e-mail (verify the address, reset the password): only the token's hash is kept,
 * and a token is deleted by the use that spends it, so it works once.
 */
export const emailTokens = pgTable(
  'email_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['verify_email', 'reset_password'] }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check('email_tokens_purpose', sql`${t.purpose} in ('verify_email', 'reset_password')`),
    index('email_tokens_user').on(t.userId, t.purpose),
    index('email_tokens_expires_at').on(t.expiresAt),
  ],
);

/** One row per user, created with the account; `is_completed` flips on the first valid save. */
export const profiles = pgTable(
  'profiles',
  {
    userId: integer('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: varchar('name', { length: 50 }),
    bio: varchar('bio', { length: 500 }),
    gender: text('gender', { enum: ['male', 'female', 'non_binary'] }),
    dateOfBirth: date('date_of_birth', { mode: 'string' }),
    image: text('image'),
    image2: text('image2'),
    image3: text('image3'),
    image4: text('image4'),
    image5: text('image5'),
    image6: text('image6'),
    gendersToMatch: text('genders_to_match').array().notNull().default(sql`'{}'::text[]`),
    minMatchingAge: smallint('min_matching_age').notNull().default(18),
    maxMatchingAge: smallint('max_matching_age').notNull().default(50),
    isCompleted: boolean('is_completed').notNull().default(false),
    // Kept beside the deck's filter columns so that one index can serve its order.
    lastActiveAt: timestamp('last_active_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    // The event of the user's open attendance, if any (it may have lapsed since): a copy that the
    // database keeps (a trigger on attendances), so that an event's deck walks profiles_event_deck.
    checkedInEventId: integer('checked_in_event_id').references(() => events.id, { onDelete: 'set null' }),
  },
  (t) => [
    check('profiles_gender', sql`${t.gender} in ('male', 'female', 'non_binary')`),
    check(
      'profiles_genders_to_match',
      sql`${t.gendersToMatch} <@ array['male', 'female', 'non_binary']::text[]`,
    ),
    check(
      'profiles_matching_ages',
      sql`18 <= ${t.minMatchingAge} and ${t.minMatchingAge} <= ${t.maxMatchingAge} and ${t.maxMatchingAge} <= 100`,
    ),
    check(
      'profiles_completed_fields',
      sql`not ${t.isCompleted} or (${t.name} is not null and ${t.bio} is not null and ${t.gender} is not null and ${t.dateOfBirth} is not null and ${t.image} is not null and cardinality(${t.gendersToMatch}) > 0)`,
    ),
    // The deck's walk: most recently active first, user_id breaks ties for the keyset cursor.
    index('profiles_deck').on(t.lastActiveAt.desc(), t.userId.desc()).where(sql`${t.isCompleted}`),
    // Picky viewers (a rare gender in a narrow age band): straight to the few rows that can fit,
    // instead of walking most of profiles_deck or scanning every profile.
    index('profiles_fit').on(t.gender, t.dateOfBirth).where(sql`${t.isCompleted}`),
    // An event's deck: the deck's walk over the people checked in there only, so that it stops after
    // a page of cards, or after the event's few thousand rows at worst, whatever the size of the town.
    index('profiles_event_deck')
      .on(t.checkedInEventId, t.lastActiveAt.desc(), t.userId.desc())
      .where(sql`${t.isCompleted} and ${t.checkedInEventId} is not null`),
  ],
);

/** Every stored image; a profile may only point at uploads its owner made. */
export const uploads = pgTable(
  'uploads',
  {
    key: text('key').primaryKey(),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('uploads_owner_id').on(t.ownerId)],
);

export const reactions = pgTable(
  'reactions',
  {
    fromUserId: integer('from_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    toUserId: integer('to_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['like', 'dislike', 'skip'] }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    // A like's event: the one both were checked in to when it was given (null elsewhere), for its
    // organizer's count of likes given there. Not a reference: only an event deleted before it starts
    // goes, its counts with it, and a reference would make that delete read every reaction.
    eventId: integer('event_id'),
  },
  (t) => [
    primaryKey({ columns: [t.fromUserId, t.toUserId] }),
    check('reactions_kind', sql`${t.kind} in ('like', 'dislike', 'skip')`),
    check('reactions_not_self', sql`${t.fromUserId} <> ${t.toUserId}`),
    index('reactions_to_user').on(t.toUserId, t.kind),
  ],
);

/**
 * Every like given, when it was given: the free plan's rolling window of likes counts these rows, not
 * `reactions` (a like later replaced by a dislike, or ended by an unmatch, was still given then). A
 * like of someone already liked is not a new one and is not written. Rows older than the window are
 * deleted as their user likes again, so each user keeps at most about a day of them.
 */
export const likesGiven = pgTable(
  'likes_given',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    // Not a reference: the person liked may delete their account, the like was still given.
    toUserId: integer('to_user_id').notNull(),
    givenAt: timestamp('given_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  // Leads with (user, time): the window's count and its oldest rows are one range of this key.
  (t) => [primaryKey({ columns: [t.userId, t.givenAt, t.toUserId] })],
);

export const blocks = pgTable(
  'blocks',
  {
    blockerId: integer('blocker_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    blockedId: integer('blocked_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.blockerId, t.blockedId] }),
    check('blocks_not_self', sql`${t.blockerId} <> ${t.blockedId}`),
    index('blocks_blocked').on(t.blockedId),
  ],
);

/**
 * A mutual like. The unique, ordered pair is what makes "exactly one match" true when both
 * likes arrive at the same instant. Its newest message is not kept here: whoever needs it reads it from
 * messages_conversation, so that storing a message is an insert and not an update of its conversation too.
 */
export const conversations = pgTable(
  'conversations',
  {
    id: serial('id').primaryKey(),
    userLowId: integer('user_low_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    userHighId: integer('user_high_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    // The event both were checked in to when the match was made, for its organizer's counts.
    eventId: integer('event_id').references(() => events.id, { onDelete: 'set null' }),
    /**
     * A conversation ends (block, unmatch, report, ban) for both at once and is never reopened: the row
     * stays, so that an unmatched pair is never matched or shown again; its messages are purged later.
     */
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
    endReason: text('end_reason', { enum: ['block', 'unmatch', 'report', 'ban'] }),
    /** When the purge deleted the messages of this ended conversation (`purgeEndedConversations`). */
    messagesPurgedAt: timestamp('messages_purged_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    unique('conversations_pair').on(t.userLowId, t.userHighId),
    check('conversations_ordered_pair', sql`${t.userLowId} < ${t.userHighId}`),
    check(
      'conversations_end',
      sql`(${t.endedAt} is null) = (${t.endReason} is null) and (${t.endReason} is null or ${t.endReason} in ('block', 'unmatch', 'report', 'ban'))`,
    ),
    index('conversations_user_high').on(t.userHighId),
    index('conversations_event').on(t.eventId).where(sql`${t.eventId} is not null`),
    // The ended conversations whose messages are still to be purged, oldest end first: a purge run
    // reads these and no conversation it purged before.
    index('conversations_to_purge')
      .on(t.endedAt)
      .where(sql`${t.endedAt} is not null and ${t.messagesPurgedAt} is null`),
  ],
);

/** Both participants of a conversation, with each one's read marker. */
export const conversationMembers = pgTable(
  'conversation_members',
  {
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lastReadMessageId: integer('last_read_message_id').notNull().default(0),
    /** How far the user has seen the match, on any phone: 0 not yet, else MATCH_SEEN's index plus one. */
    matchSeen: smallint('match_seen').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.userId] }), index('conversation_members_user').on(t.userId)],
);

export const messages = pgTable(
  'messages',
  {
    id: serial('id').primaryKey(),
    conversationId: integer('conversation_id').notNull(),
    senderId: integer('sender_id').notNull(),
    content: varchar('content', { length: 2000 }).notNull(),
    clientId: uuid('client_id'),
    createdAt: createdAt(),
  },
  (t) => [
    /**
     * The sender is a member of the conversation: one key for what two used to say (the conversation
     * exists, the sender exists) and one thing more. Each key is checked and locked per inserted row,
     * a quarter of a message batch's cost to PostgreSQL with two (bench/README.md). A message goes with
     * its member row, which goes with the conversation or the user.
     */
    foreignKey({
      name: 'messages_member_fk',
      columns: [t.conversationId, t.senderId],
      foreignColumns: [conversationMembers.conversationId, conversationMembers.userId],
    }).onDelete('cascade'),
    index('messages_conversation').on(t.conversationId, t.id.desc()),
    uniqueIndex('messages_sender_client_id').on(t.senderId, t.clientId),
    check('messages_content_length', sql`char_length(${t.content}) between 1 and 2000`),
  ],
);

/** Checkout sessions, Stripe's or the local test checkout's, linked to the user who started them. */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lookupKey: text('lookup_key').notNull(),
    provider: text('provider', { enum: ['stripe', 'local'] }).notNull(),
    status: text('status', { enum: ['open', 'complete', 'canceled'] }).notNull().default('open'),
    createdAt: createdAt(),
  },
  (t) => [
    check('checkout_sessions_provider', sql`${t.provider} in ('stripe', 'local')`),
    check('checkout_sessions_status', sql`${t.status} in ('open', 'complete', 'canceled')`),
  ],
);

/** Webhook events already handled: the same event twice changes nothing. */
export const stripeEvents = pgTable('stripe_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Secrets the server makes for itself and every instance shares (the key that seals cursors and join
 * passes when `SECRET_KEY` is not set): made once, by whichever instance starts first.
 */
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});

/**
 * An event: while a user is checked in, their deck holds only the others checked in there.
 * `qr_secret` keys the rotating QR tokens of this one event and never leaves the server.
 */
export const events = pgTable(
  'events',
  {
    id: serial('id').primaryKey(),
    code: varchar('code', { length: 6 }).notNull().unique(),
    name: varchar('name', { length: 100 }).notNull(),
    venue: varchar('venue', { length: 200 }).notNull().default(''),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * When check-in opened, kept by an end in the check-in hour, which brings the start back to the end:
     * the hour before that start is not when the door opened. Null otherwise (an hour before the start).
     */
    checkInOpenedAt: timestamp('check_in_opened_at', { withTimezone: true, mode: 'date' }),
    joinMode: text('join_mode', { enum: ['qr', 'code'] }).notNull(),
    /** Null once the organizer deleted their account: the event goes on for those in it. */
    organizerId: integer('organizer_id').references(() => users.id, { onDelete: 'set null' }),
    /** Null once the organizer deleted their account: no QR check-in any more, the code still works. */
    qrSecret: text('qr_secret'),
    createdAt: createdAt(),
  },
  (t) => [
    // No 0/O, 1/I/L: a code is read off a screen across a loud room.
    check('events_code', sql`${t.code} ~ '^[A-HJKMNP-Z2-9]{6}$'`),
    check('events_name', sql`char_length(${t.name}) between 1 and 100`),
    check('events_join_mode', sql`${t.joinMode} in ('qr', 'code')`),
    check('events_times', sql`${t.endsAt} > ${t.startsAt} and ${t.endsAt} <= ${t.startsAt} + interval '48 hours'`),
    // "My events", newest first.
    index('events_organizer').on(t.organizerId, t.id.desc()),
  ],
);

/**
 * Who checked in where. One row per user and event (checking in again after leaving reopens it); a
 * user has at most one open row, and an open row is current until its event's `ends_at + 24 h`.
 */
export const attendances = pgTable(
  'attendances',
  {
    eventId: integer('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    checkedInAt: timestamp('checked_in_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    leftAt: timestamp('left_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.userId] }),
    // At most one current event per user, settled by the database even when two check-ins race.
    uniqueIndex('attendances_one_open').on(t.userId).where(sql`${t.leftAt} is null`),
    // The live count and the host's figures: the event's people, straight from the index.
    index('attendances_event_open').on(t.eventId, t.userId).where(sql`${t.leftAt} is null`),
  ],
);

/**
 * What the people who have gone left in an event's counts: when an account is deleted, its
 * attendances, likes and conversations go with it, and the purge takes an ended conversation's
 * messages; what they added to the organizer's figures is added here first, in the same transaction
 * (`events/tallies.ts`), per 15 minutes of the timeline. Counts only, never who: not personal data.
 * Nothing is written here as people check in, like or talk; the stats add these to the rows still there.
 */
export const eventTallies = pgTable(
  'event_tallies',
  {
    eventId: integer('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    /** The timeline's slot (15 minutes, from the epoch) of the check-ins, likes and matches counted. */
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
    checkIns: integer('check_ins').notNull().default(0),
    likes: integer('likes').notNull().default(0),
    matches: integer('matches').notNull().default(0),
    /** Conversations of matches made then that had messages: by the match's slot. */
    conversationsStarted: integer('conversations_started').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.at] })],
);

/**
 * First-party product analytics: who (a user id, never an e-mail), what, when. A deleted
 * account's events stay as anonymous counts; one of each UTC day it was active on is marked
 * `anonymousActive`, to go on counting it among that day's active users without its id.
 */
export const analyticsEvents = pgTable(
  'analytics_events',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name', { enum: ANALYTICS_EVENTS }).notNull(),
    createdAt: createdAt(),
    anonymousActive: boolean('anonymous_active').notNull().default(false),
    /** The client's id for the event, so that one sent again (its answer lost) is stored once. */
    clientId: uuid('client_id'),
  },
  (t) => [
    check('analytics_events_name', sql`${t.name} in (${sql.raw(ANALYTICS_EVENTS.map((name) => `'${name}'`).join(', '))})`),
    index('analytics_events_created_at').on(t.createdAt),
    index('analytics_events_user').on(t.userId),
    uniqueIndex('analytics_events_user_client_id').on(t.userId, t.clientId),
  ],
);

/**
 * A deleted account's person and events still to delete in PostHog (`jobs/posthog-erasure.ts`),
 * written in the deletion's transaction: the account is gone at once, PostHog follows when it answers,
 * after a restart too. Keyed by the PostHog distinct id (the old user id), the only thing kept of it.
 */
export const posthogErasures = pgTable(
  'posthog_erasures',
  {
    id: serial('id').primaryKey(),
    distinctId: text('distinct_id').notNull(),
    createdAt: createdAt(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('posthog_erasures_next_attempt_at').on(t.nextAttemptAt)],
);

/**
 * A user's report of another, with what the reported person showed at that moment (the snapshot), so
 * that a moderator can judge it after the reported user has changed or deleted everything. Either
 * account may be deleted later: the report and its snapshot stay.
 */
export const reports = pgTable(
  'reports',
  {
    id: serial('id').primaryKey(),
    reporterId: integer('reporter_id').references(() => users.id, { onDelete: 'set null' }),
    reportedId: integer('reported_id').references(() => users.id, { onDelete: 'set null' }),
    reason: text('reason', { enum: REPORT_REASONS }).notNull(),
    details: varchar('details', { length: 1000 }).notNull().default(''),
    conversationId: integer('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
    /** Reports of the same person by the same reporter while this one was open. */
    additions: jsonb('additions').$type<ReportAddition[]>().notNull().default(sql`'[]'::jsonb`),
    snapshot: jsonb('snapshot').$type<ReportSnapshot>().notNull(),
    status: text('status', { enum: ['open', 'resolved'] }).notNull().default('open'),
    resolution: text('resolution', { enum: ['dismiss', 'ban'] }),
    note: varchar('note', { length: 1000 }),
    /** Resolved by a ban decided on another report of the same person: that report. */
    resolvedWith: integer('resolved_with').references((): AnyPgColumn => reports.id, { onDelete: 'set null' }),
    resolvedBy: integer('resolved_by').references(() => users.id, { onDelete: 'set null' }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    check('reports_reason', sql`${t.reason} in (${sql.raw(REPORT_REASONS.map((reason) => `'${reason}'`).join(', '))})`),
    check('reports_not_self', sql`${t.reporterId} <> ${t.reportedId}`),
    check('reports_status', sql`${t.status} in ('open', 'resolved')`),
    check('reports_resolution', sql`(${t.status} = 'open') = (${t.resolution} is null)`),
    // One open report per reporter and reported person: a second one adds to it.
    uniqueIndex('reports_open_pair').on(t.reporterId, t.reportedId).where(sql`${t.status} = 'open'`),
    // The queue: oldest open first.
    index('reports_queue').on(t.status, t.createdAt, t.id),
    // The resolved ones: most recently resolved first, a page at a time (walked backwards).
    index('reports_resolved').on(t.resolvedAt, t.id).where(sql`${t.status} = 'resolved'`),
    index('reports_reported').on(t.reportedId),
  ],
);

export const MODERATION_ACTIONS = ['dismiss', 'ban', 'unban', 'grant_moderator', 'revoke_moderator', 'delete_account'] as const;

/**
 * Who decided what about whom, and when: a moderator's decision on a report, and what the admin
 * command changed (its `moderatorId` null: an operator at the server, not an account), its deletions
 * of accounts among them (`delete_account`: when, nothing of the account). Kept when the accounts go,
 * without them. An owner's deletion of their own account is no moderation, and is not recorded here.
 */
export const moderationActions = pgTable(
  'moderation_actions',
  {
    id: serial('id').primaryKey(),
    action: text('action', { enum: MODERATION_ACTIONS }).notNull(),
    moderatorId: integer('moderator_id').references(() => users.id, { onDelete: 'set null' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    reportId: integer('report_id').references(() => reports.id, { onDelete: 'set null' }),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('moderation_actions_action', sql`${t.action} in (${sql.raw(MODERATION_ACTIONS.map((action) => `'${action}'`).join(', '))})`),
    // An account's history, newest first.
    index('moderation_actions_user').on(t.userId, t.at),
  ],
);

export interface ReportAddition {
  reason: (typeof REPORT_REASONS)[number];
  details: string;
  at: string;
}

export interface ReportSnapshot {
  profile: { name: string; bio: string; age: number | null; gender: string | null; photos: string[] } | null;
  /** The last messages of their conversation, oldest first, when they shared one. */
  messages: Array<{
    id: number;
    sender: number;
    content: string;
    time: string;
    /**
     * Whose it was: the report loses an account's id when the account is deleted, and with it the
     * sender's. Absent from snapshots taken before it was kept.
     */
    from?: SnapshotSender;
  }>;
}
