import { enModeration } from '../../shared/i18n/en-moderation';
import { esModeration } from '../../shared/i18n/es-moderation';
import { registerMessages } from './i18n';

// Imported by the moderation chunk: moderators' copy stays out of everyone else's download.
registerMessages({ en: enModeration, es: esModeration });
