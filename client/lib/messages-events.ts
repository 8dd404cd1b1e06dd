import { enEvents } from '../../shared/i18n/en-events';
import { esEvents } from '../../shared/i18n/es-events';
import { registerMessages } from './i18n';

// Imported by the event pages' chunks (public and signed in): their copy arrives with their code.
registerMessages({ en: enEvents, es: esEvents });
