import { create } from 'zustand';
import type { Language } from '../../shared/constants';
import type { CataloguePart, MessageKey } from '../../shared/i18n/en';
import { enPublic } from '../../shared/i18n/en-public';
import { esPublic } from '../../shared/i18n/es-public';
import { format, type MessageVars } from '../../shared/i18n/format';
import { getStoredLanguage, storeLanguage } from './storage';

/**
 * The messages this tab has loaded: the public part ships with the first page, the app and privacy
 * parts register themselves when their chunk loads (client/lib/messages-*.ts).
 */
const registry: Record<Language, Partial<Record<MessageKey, string>>> = { en: { ...enPublic }, es: { ...esPublic } };

export function registerMessages(part: CataloguePart) {
  Object.assign(registry.en, part.en);
  Object.assign(registry.es, part.es);
}

interface LanguageState {
  language: Language;
  setLanguage: (language: Language) => void;
}

function applyToDocument(language: Language) {
  document.documentElement.lang = language;
}

/** Spanish unless the visitor chose otherwise (localStorage.language_code); <html lang> follows. */
export const useLanguage = create<LanguageState>()((set) => ({
  language: getStoredLanguage(),
  setLanguage: (language) => {
    storeLanguage(language);
    applyToDocument(language);
    set({ language });
  },
}));

export function initLanguage() {
  const language = getStoredLanguage();
  useLanguage.setState({ language });
  applyToDocument(language);
}

export type Translate = (key: MessageKey, vars?: MessageVars) => string;

function lookup(language: Language, key: MessageKey, vars?: MessageVars): string {
  // A key whose part is not loaded shows as the key itself: visible in review, never a crash.
  return format(registry[language][key] ?? key, vars);
}

/** The translate function for the current language; re-renders when it changes. */
export function useT(): Translate {
  const language = useLanguage((state) => state.language);
  return (key, vars) => lookup(language, key, vars);
}

/** For code outside React (stores, toasts raised from actions). */
export const t: Translate = (key, vars) => lookup(useLanguage.getState().language, key, vars);
