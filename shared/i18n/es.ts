import type { Catalogue } from './en';
import { esAccount } from './es-account';
import { esApp } from './es-app';
import { esEvents } from './es-events';
import { esModeration } from './es-moderation';
import { esPlans } from './es-plans';
import { esPrivacy } from './es-privacy';
import { esPublic } from './es-public';
import { esSafety } from './es-safety';
import { esSettings } from './es-settings';

/** Spanish catalogue (the default language): a natural translation of every key in `en`. */
export const es: Catalogue = { ...esPublic, ...esPrivacy, ...esPlans, ...esApp, ...esSafety, ...esModeration, ...esEvents, ...esAccount, ...esSettings };
