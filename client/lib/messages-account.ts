import { loadMessages } from './i18n';

// Imported by the public account pages' chunks (forgot and reset password, verify e-mail), in the reader's language only.
export const accountMessages = loadMessages({
  en: () => import('../../shared/i18n/en-account').then((module) => module.enAccount),
  es: () => import('../../shared/i18n/es-account').then((module) => module.esAccount),
});
