import { loadMessages } from './i18n';

// Imported by the plan cards: the landing page fetches them (and this copy) after its first paint, in the reader's language only.
export const plansMessages = loadMessages({
  en: () => import('../../shared/i18n/en-plans').then((module) => module.enPlans),
  es: () => import('../../shared/i18n/es-plans').then((module) => module.esPlans),
});
