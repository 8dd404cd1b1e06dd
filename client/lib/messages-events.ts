import { loadMessages } from './i18n';

// Imported by the event pages' chunks (public and signed in): their copy arrives with their code, in the reader's language only.
export const eventsMessages = loadMessages({
  en: () => import('../../shared/i18n/en-events').then((module) => module.enEvents),
  es: () => import('../../shared/i18n/es-events').then((module) => module.esEvents),
});
