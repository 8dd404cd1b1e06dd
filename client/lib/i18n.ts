import { create } from 'zustand';
import type { Language } from '../../shared/constants';
import { type MessageKey, type MessageVars, translate } from '../../shared/i18n';
import { getStoredLanguage, storeLanguage } from './storage';

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

/** The translate function for the current language; re-renders when it changes. */
export function useT(): Translate {
  const language = useLanguage((state) => state.language);
  return (key, vars) => translate(language, key, vars);
}

/** For code outside React (stores, toasts raised from actions). */
export const t: Translate = (key, vars) => translate(useLanguage.getState().language, key, vars);
