import { enAccount } from '../../shared/i18n/en-account';
import { esAccount } from '../../shared/i18n/es-account';
import { registerMessages } from './i18n';

// Imported by the public account pages' chunks (forgot and reset password, verify e-mail).
registerMessages({ en: enAccount, es: esAccount });
