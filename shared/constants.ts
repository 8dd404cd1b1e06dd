/** Business constants, named once for server and client. */

export const GENDERS = ['male', 'female', 'non_binary'] as const;
export type Gender = (typeof GENDERS)[number];

export const MIN_AGE = 18;
export const MAX_AGE = 100;
export const DEFAULT_MIN_MATCHING_AGE = 18;
export const DEFAULT_MAX_MATCHING_AGE = 50;
export const DEFAULT_GENDER: Gender = 'male';

export const MAX_PHOTOS = 6;
export const PHOTO_GRID_COLUMNS = 3;
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Every JSON body but the profile save's (which may carry its photos as data: URIs). */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

export const NAME_MAX_LENGTH = 50;
export const BIO_MAX_LENGTH = 500;
export const MESSAGE_MAX_LENGTH = 2000;
export const MESSAGES_PAGE_SIZE = 50;
export const DECK_PAGE_SIZE = 20;
/** When a phone's deck is down to this many cards, it asks for the next ones behind the current card. */
export const DECK_REFILL_AT = 5;
export const CONVERSATIONS_PAGE_SIZE = 50;

export const FREE_TRIAL_DAYS = 30;
export const PLAN_MONTHLY_PRICES = { starter: 15, pro: 30, enterprise: 60 } as const;
export const YEARLY_PRICE_FACTOR = 2 / 3;
/** The currency every plan price is charged in (ISO 4217), whatever the reader's language. */
export const PLAN_CURRENCY = 'USD';
export const LOOKUP_KEYS = { monthly: 'basic_monthly', yearly: 'basic_yearly' } as const;

/** What the plan buys. Without it: this many likes per rolling window; dislikes and skips are unlimited. */
export const FREE_DAILY_LIKES = 100;
export const DAILY_LIKES_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long after a dislike or a skip a subscriber may take it back. */
export const UNDO_WINDOW_MS = 5 * 60 * 1000;
/**
 * An analytics event that reached no server waits on the device at most this long (and this many of
 * them), and the server takes none older: it counts on the day it happened.
 */
export const ANALYTICS_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const ANALYTICS_MAX_KEPT = 100;
export const LIKES_YOU_PAGE_SIZE = 20;

/**
 * How long the app waits for the server's answer to a socket send (a message, `presence:list`) before
 * it counts the connection as dead: it drops it, connects again and sends once more (the load tool
 * gives a send up likewise).
 */
export const SEND_ACK_TIMEOUT_MS = 8000;

export const TOAST_AUTO_CLOSE_MS = 5000;
export const SWIPE_THRESHOLD_PX = 100;
export const SWIPE_EXIT_OFFSET_PX = 200;
export const SWIPE_EXIT_MS = 300;
export const DRAG_ROTATION = { offset: 200, degrees: 30 } as const;
export const DRAG_OPACITY_OFFSETS = [-200, -100, 0, 100, 200] as const;
export const DECK_MATCH_OVERLAY_MS = 2000;
export const PROFILE_MATCH_OVERLAY_MS = 600;
export const SKELETON_COUNT = 5;
/**
 * How far a user has seen a match, on any of their phones, in order: its overlay ("You like each
 * other!", shown no more anywhere), then the chats (the matches list or a chat on screen: the dot on
 * Chats goes everywhere too).
 */
export const MATCH_SEEN = ['overlay', 'chats'] as const;
export type MatchSeen = (typeof MATCH_SEEN)[number];

export const REACTIONS = ['like', 'dislike', 'skip'] as const;
export type Reaction = (typeof REACTIONS)[number];

export const LANGUAGES = ['es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'es';

/** Events. */
export const JOIN_MODES = ['qr', 'code'] as const;
export type JoinModeName = (typeof JOIN_MODES)[number];
/** No 0/O, 1/I/L: a code is read off a screen across a loud room. */
export const EVENT_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const EVENT_CODE_LENGTH = 6;
export const EVENT_NAME_MAX_LENGTH = 100;
export const EVENT_VENUE_MAX_LENGTH = 200;
export const EVENT_MAX_DURATION_HOURS = 48;
export const EVENT_MAX_LEAD_DAYS = 365;
/** Events one organizer may create in a day (rolling): the server's limit, said by the form that meets it. */
export const EVENTS_CREATED_PER_DAY = 10;
/** Check-in opens this long before the start. */
export const EVENT_CHECK_IN_LEAD_MINUTES = 60;
/** The deck stays open to those checked in this long after the end. */
export const EVENT_AFTER_PARTY_HOURS = 24;
/** A QR token's window; the current and the previous one are accepted (and the next, QR_EARLY_SECONDS before it). */
export const QR_WINDOW_SECONDS = 60;
/**
 * The next window's token is handed out (and accepted) this long before the window turns, so that the
 * host screen swaps it in a little before the turn, as a code good through the window after.
 */
export const QR_EARLY_SECONDS = 5;
export const JOIN_PASS_MINUTES = 30;
/** At most one `event:count` per event this often, and one `deck:refresh`. */
export const EVENT_COUNT_INTERVAL_MS = 1000;
export const DECK_REFRESH_INTERVAL_MS = 5000;
/**
 * The events one socket may watch at once (`event:watch`): the host screen's one, or those of the
 * organizer's list that people are in; one more stops watching the one watched longest.
 */
export const EVENT_WATCHES_PER_SOCKET = 20;

/** The word a Google-only account types to confirm its deletion (it has no password to give). */
export const DELETE_CONFIRMATION = 'DELETE';
/** Why someone can be reported. */
export const REPORT_REASONS = [
  'fake_profile',
  'harassment',
  'inappropriate_photos',
  'spam',
  'underage',
  'offline_behaviour',
  'other',
] as const;
export const REPORT_DETAILS_MAX_LENGTH = 1000;
/** How many messages of their conversation a report keeps. */
export const REPORT_SNAPSHOT_MESSAGES = 50;
/** How long an ended chat's messages are kept for a report that may follow, and the chat listed for one. */
export const ENDED_CHAT_KEPT_DAYS = 30;
/** The most sockets one user may hold open at once. */
export const MAX_SOCKETS_PER_USER = 10;
