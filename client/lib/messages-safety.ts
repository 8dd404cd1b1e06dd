import { enSafety } from '../../shared/i18n/en-safety';
import { esSafety } from '../../shared/i18n/es-safety';
import { registerMessages } from './i18n';

// Imported by the safety dialogs, the blocked list and moderation: their copy comes with them.
registerMessages({ en: enSafety, es: esSafety });
