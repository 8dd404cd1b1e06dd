import { loadMessages } from './i18n';

// Imported by the safety dialogs, the blocked list and moderation: their copy comes with them, in the reader's language only.
export const safetyMessages = loadMessages({
  en: () => import('../../shared/i18n/en-safety').then((module) => module.enSafety),
  es: () => import('../../shared/i18n/es-safety').then((module) => module.esSafety),
});
