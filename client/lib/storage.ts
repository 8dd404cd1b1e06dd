import { DEFAULT_LANGUAGE, type Language, LANGUAGES } from '../../shared/constants';

/** The session's local storage keys. */
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
 * Logout and login clear local storage. The language is a choice about the device,
 * not the account, so it is written back: otherwise every logout would switch the app to Spanish.
 */
export function clearStorage() {
  const language = read(LANGUAGE_KEY);
  window.localStorage.clear();
  if (language) window.localStorage.setItem(LANGUAGE_KEY, language);
}

