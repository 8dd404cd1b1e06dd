import { DEFAULT_LANGUAGE, type Language, LANGUAGES } from '../../shared/constants';

/** The session's local storage keys. */
export const TOKEN_KEY = 'auth_token';
export const LANGUAGE_KEY = 'language_code';
/** Read by index.html's script too, before the app loads. */
export const THEME_KEY = 'theme';

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
 * Logout and login clear local storage, all but the language and the theme, choices about the device
 * rather than the account: otherwise every logout would switch the app to Spanish.
 */
export function clearStorage() {
  for (const key of Object.keys(window.localStorage)) if (key !== LANGUAGE_KEY && key !== THEME_KEY) window.localStorage.removeItem(key);
}


/**
 * A user's chat messages written and not yet stored (`client/stores/chat.ts`), kept on the device so
 * that a reload, or a phone closing the tab, does not lose them. Per user, and cleared with the rest
 * of local storage at sign-in and sign-out.
 */
export interface OutboxEntry {
  conversation_id: number;
  client_id: string;
  content: string;
  time: string;
}

const outboxKey = (userId: number) => `chat_outbox:${userId}`;

const isOutboxEntry = (value: unknown): value is OutboxEntry => {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    Number.isInteger(entry.conversation_id) &&
    typeof entry.client_id === 'string' &&
    typeof entry.content === 'string' &&
    typeof entry.time === 'string'
  );
};

export function readOutbox(userId: number): OutboxEntry[] {
  try {
    const parsed: unknown = JSON.parse(read(outboxKey(userId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isOutboxEntry) : [];
  } catch {
    return [];
  }
}

export function writeOutbox(userId: number, entries: OutboxEntry[]) {
  const write = () => {
    if (entries.length === 0) window.localStorage.removeItem(outboxKey(userId));
    else window.localStorage.setItem(outboxKey(userId), JSON.stringify(entries));
  };
  try {
    write();
  } catch {
    // A full storage: what is kept of the server's (`lib/device-cache.ts`) gives way to what is not stored yet.
    try {
      for (const key of Object.keys(window.localStorage)) if (key.startsWith('cache:')) window.localStorage.removeItem(key);
      write();
    } catch {
      // Private mode, or full all the same: the messages stay in this tab only.
    }
  }
}

