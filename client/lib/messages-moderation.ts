import { loadMessages } from './i18n';

// Imported by the moderation chunk: moderators' copy stays out of everyone else's download, in the reader's language only.
export const moderationMessages = loadMessages({
  en: () => import('../../shared/i18n/en-moderation').then((module) => module.enModeration),
  es: () => import('../../shared/i18n/es-moderation').then((module) => module.esModeration),
});
