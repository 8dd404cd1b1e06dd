import { loadMessages } from './i18n';

// Imported by the settings and activity pages' chunks, in the reader's language only; the copy is in
// the app's copy chunk (shared/i18n/en-app.ts says why).
export const settingsMessages = loadMessages({
  en: () => import('../../shared/i18n/en-app').then((module) => module.enSettings),
  es: () => import('../../shared/i18n/es-app').then((module) => module.esSettings),
});
