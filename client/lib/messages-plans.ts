import { enPlans } from '../../shared/i18n/en-plans';
import { esPlans } from '../../shared/i18n/es-plans';
import { registerMessages } from './i18n';

// Imported by the plan cards: the landing page fetches them (and this copy) after its first paint.
registerMessages({ en: enPlans, es: esPlans });
