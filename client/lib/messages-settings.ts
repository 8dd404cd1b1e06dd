import { enSettings } from '../../shared/i18n/en-settings';
import { esSettings } from '../../shared/i18n/es-settings';
import { registerMessages } from './i18n';

// Imported by the settings and activity pages' chunks.
registerMessages({ en: enSettings, es: esSettings });
