import { loadMessages } from './i18n';

// Imported by the /app/ chunk: its copy arrives with its code, in the reader's language only.
export const appMessages = loadMessages({
  en: () => import('../../shared/i18n/en-app').then((module) => module.enApp),
  es: () => import('../../shared/i18n/es-app').then((module) => module.esApp),
});
