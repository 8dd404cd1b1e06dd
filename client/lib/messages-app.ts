import { enApp } from '../../shared/i18n/en-app';
import { esApp } from '../../shared/i18n/es-app';
import { registerMessages } from './i18n';

// Imported by the /app/ chunk: its copy arrives with its code.
registerMessages({ en: enApp, es: esApp });
