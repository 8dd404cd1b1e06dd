import { enPrivacy } from '../../shared/i18n/en-privacy';
import { esPrivacy } from '../../shared/i18n/es-privacy';
import { registerMessages } from './i18n';

registerMessages({ en: enPrivacy, es: esPrivacy });
