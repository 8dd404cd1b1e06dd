import type { Catalogue } from './en';
import { esAccount } from './es-account';
import { esApp } from './es-app';
import { esPrivacy } from './es-privacy';
import { esPublic } from './es-public';
import { esSettings } from './es-settings';

/** Spanish catalogue (the default language): a natural translation of every key in `en`. */
export const es: Catalogue = { ...esPublic, ...esPrivacy, ...esApp, ...esAccount, ...esSettings };
