import { DEFAULT_LANGUAGE, type Language, LANGUAGES } from '../../shared/constants';
import { PHOTO_CACHE } from '../sw/photo-cache';

/** The session's local storage keys. */
export const TOKEN_KEY = 'auth_token';
/** The language chosen on this device (the language switch). */
export const LANGUAGE_KEY = 'language_code';
/** The signed-in account's language as last read (`GET /api/users/me/`): the app's where none was chosen, until sign-out. */
export const ACCOUNT_LANGUAGE_KEY = 'account_language';
/** Read by index.html's script too, before the app loads. */
export const THEME_KEY = 'theme';
/** An event the visitor set out to join (`lib/pending-join.ts`). */
export const PENDING_JOIN_KEY = 'pending_event_join';
/** The start of a user's outbox key, their chat messages not stored yet (`lib/outbox.ts`). */
export const OUTBOX_KEY = 'chat_outbox:';
/** The start of a user's chat drafts key, what they typed and did not send (`stores/chat/drafts.ts`). */
export const CHAT_DRAFTS_KEY = 'chat_drafts:';
/** The analytics events not answered yet (`lib/analytics-unsent.ts`). */
export const ANALYTICS_KEY = 'analytics_unsent';
/** The server's Google client id as this device last read it (`components/GoogleButton.tsx`). */
export const GOOGLE_CLIENT_KEY = 'google_client_id';
/** The start of a form's draft key, in session storage: what was typed in it so far (`lib/draft.ts`). */
export const DRAFT_KEY = 'draft:';
/**
 * There while the drafts of the last session are kept for their user (`clearStorage`): a tab that
 * follows another's sign-out (`stores/session.ts`) keeps its own as that tab did, or drops them.
 */
export const DRAFTS_KEPT_KEY = 'drafts_kept';

/** A key's value; null when it is not there or storage cannot be read (private mode, say). */
export function readStorage(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * A key's value read as JSON, of local storage (session storage: `session`); null when it is not
 * there, or cannot be read or parsed. What it holds is the caller's to check.
 */
export function readJson(key: string, session = false): unknown {
  try {
    return JSON.parse((session ? window.sessionStorage : window.localStorage).getItem(key) ?? 'null');
  } catch {
    return null;
  }
}

/**
 * Writes `value` as JSON under `key` of local storage (session storage: `session`); null removes the
 * key. Whether it went: storage may refuse (private mode, or full).
 */
export function writeJson(key: string, value: unknown, session = false): boolean {
  try {
    const storage = session ? window.sessionStorage : window.localStorage;
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}

export const getToken = () => readStorage(TOKEN_KEY);

export function setToken(token: string) {
  window.localStorage.setItem(TOKEN_KEY, token);
}

function languageAt(key: string): Language | null {
  const stored = readStorage(key);
  return (LANGUAGES as readonly string[]).includes(stored ?? '') ? (stored as Language) : null;
}

/** The language chosen on this device, if one was: it stays whatever the account's. */
export const chosenLanguage = () => languageAt(LANGUAGE_KEY);

/** The one chosen here; else the account's as last read; else Spanish. */
export const getStoredLanguage = (): Language => chosenLanguage() ?? languageAt(ACCOUNT_LANGUAGE_KEY) ?? DEFAULT_LANGUAGE;

export function storeLanguage(language: Language, key = LANGUAGE_KEY) {
  window.localStorage.setItem(key, language);
}

/**
 * Logout and login clear local storage, all but the language chosen on the device and the theme,
 * choices about the device rather than the account (otherwise every logout would switch the app to
 * Spanish), the server's Google client id (the login page's Google button in its place at once), and
 * an event the visitor is on their way into: signing up and in is the way in. The language that only
 * came from the account (`ACCOUNT_LANGUAGE_KEY`) goes with its session: on a shared phone, the next
 * person reads the device's, not the last account's. `keepOutbox`: the outboxes too, the messages of
 * a session the server ended that are still to go (`endRevokedSession`), and the drafts with them, the
 * chat's and the forms' (`dropDrafts`), given back if that user signs in again. `deleted`: the
 * account is gone, and so is the event it was on its way into, for whoever signs in here next. The
 * photos the service worker stored go every time: faces of people this account blocked or unmatched,
 * or whose accounts are gone, are nobody's to see offline on this phone.
 */
export function clearStorage({ keepOutbox = false, deleted = false } = {}) {
  const kept = [LANGUAGE_KEY, THEME_KEY, GOOGLE_CLIENT_KEY, ...(deleted ? [] : [PENDING_JOIN_KEY]), ...(keepOutbox ? [DRAFTS_KEPT_KEY] : [])];
  // Said before the token goes, which the other tabs follow.
  if (keepOutbox) writeJson(DRAFTS_KEPT_KEY, true);
  removeKeys((key) => !kept.includes(key) && !(keepOutbox && (key.startsWith(OUTBOX_KEY) || key.startsWith(CHAT_DRAFTS_KEY))));
  dropDrafts(keepOutbox);
  // Not in every context: a page served over plain HTTP (not localhost) has no cache storage.
  if ('caches' in window) void caches.delete(PHOTO_CACHE);
}

/** Removes every key of local storage (or `storage`) that `drop` picks. */
export function removeKeys(drop: (key: string) => boolean, storage = window.localStorage) {
  for (const key of Object.keys(storage)) if (drop(key)) storage.removeItem(key);
}

/** A form's draft as kept (`lib/draft.ts`): the session it was typed in, by a mark of its token; its user, once known. */
export interface KeptDraft<T> {
  session: number;
  user?: number;
  value: T;
}

/** The form's draft kept under `key`; null when there is none, or it cannot be read. */
export const readDraft = <T>(key: string) => readJson(key, true) as KeptDraft<T> | null;

/**
 * The forms' drafts go with the session they were typed in: at a sign-in or sign-out, here or in
 * another tab. `keepOutbox`: but for a session the server ended, those whose user is known are kept
 * for that user, as the chat drafts are, given back only if they sign in again.
 */
export const dropDrafts = (keepOutbox = false) =>
  removeKeys((key) => key.startsWith(DRAFT_KEY) && !(keepOutbox && readDraft(key)?.user !== undefined), window.sessionStorage);

/** A user now known signed in here: the drafts kept for another (`dropDrafts`) go, as the chat drafts do. */
export const dropOthersDrafts = (userId: number) =>
  removeKeys((key) => key.startsWith(DRAFT_KEY) && ![undefined, userId].includes(readDraft(key)?.user), window.sessionStorage);
