import { loadMessages } from './i18n';

// Imported by the privacy page, in the reader's language only.
export const privacyMessages = loadMessages({
  en: () => import('../../shared/i18n/en-privacy').then((module) => module.enPrivacy),
  es: () => import('../../shared/i18n/es-privacy').then((module) => module.esPrivacy),
});
