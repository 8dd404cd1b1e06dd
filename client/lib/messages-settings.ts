import { loadMessages } from './i18n';

// Imported by the settings and activity pages' chunks, in the reader's language only.
export const settingsMessages = loadMessages({
  en: () => import('../../shared/i18n/en-settings').then((module) => module.enSettings),
  es: () => import('../../shared/i18n/es-settings').then((module) => module.esSettings),
});
