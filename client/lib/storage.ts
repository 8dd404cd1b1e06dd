import { DEFAULT_LANGUAGE, type Language, LANGUAGES } from '../../shared/constants';

/** Local storage keys of PRODUCT.md §3 (Session). */
export const TOKEN_KEY = 'auth_token';
export const LANGUAGE_KEY = 'language_code';

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export const getToken = () => read(TOKEN_KEY);

export function setToken(token: string) {
  window.localStorage.setItem(TOKEN_KEY, token);
}

export function getStoredLanguage(): Language {
  const stored = read(LANGUAGE_KEY);
  return (LANGUAGES as readonly string[]).includes(stored ?? '') ? (stored as Language) : DEFAULT_LANGUAGE;
}

export function storeLanguage(language: Language) {
  window.localStorage.setItem(LANGUAGE_KEY, language);
}

/**
 * Logout and login clear local storage (PRODUCT.md §4). The language is a choice about the device,
 * not the account, so it is written back: otherwise every logout would switch the app to Spanish.
 */
export function clearStorage() {
  const language = read(LANGUAGE_KEY);
  window.localStorage.clear();
  if (language) window.localStorage.setItem(LANGUAGE_KEY, language);
}

/**
 * An event the visitor set out to join (EVENTS.md, "Rotating QR and the join pass"): the code, and the
 * pass the QR link was exchanged for. Kept for the tab in sessionStorage, which login and logout leave
 * alone, so that it survives registration, login and profile completion; dropped once used or expired.
 */
export interface PendingJoin {
  code: string;
  pass?: string;
  /** Epoch ms; without a pass, the intent alone is kept this long too. */
  expiresAt: number;
}
const PENDING_JOIN_KEY = 'pending_event_join';

export function getPendingJoin(): PendingJoin | null {
  try {
    const stored = JSON.parse(window.sessionStorage.getItem(PENDING_JOIN_KEY) ?? 'null') as PendingJoin | null;
    if (!stored || typeof stored.code !== 'string' || typeof stored.expiresAt !== 'number') return null;
    if (stored.expiresAt <= Date.now()) {
      clearPendingJoin();
      return null;
    }
    return stored;
  } catch {
    return null;
  }
}

export function setPendingJoin(join: PendingJoin) {
  try {
    window.sessionStorage.setItem(PENDING_JOIN_KEY, JSON.stringify(join));
  } catch {
    // Private mode with storage off: the guest scans again after signing up.
  }
}

export function clearPendingJoin() {
  try {
    window.sessionStorage.removeItem(PENDING_JOIN_KEY);
  } catch {
    // nothing stored
  }
}
