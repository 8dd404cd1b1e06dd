import { loadMessages } from './i18n';

// Imported by the safety dialogs, the blocked list and moderation, in the reader's language only; the
// copy is in the app's copy chunk (shared/i18n/en-app.ts says why).
export const safetyMessages = loadMessages({
  en: () => import('../../shared/i18n/en-app').then((module) => module.enSafety),
  es: () => import('../../shared/i18n/es-app').then((module) => module.esSafety),
});
