/**
 * English catalogue: every user-visible string of the web client, all of it written for this product
 * (no template residue: basketball, websites, reviews). `{name}` placeholders are filled by the
 * client's `t()`. Split in parts so the landing page only ships the copy it shows (bench/README.md,
 * "Web client"). "e-mail" is written `e\u2011mail`, a non-breaking hyphen: a narrow phone never
 * breaks it as "e-" at a line's end and "mail" on the next (and "Wi-Fi" `Wi\u2011Fi`).
 */
import { enAccount } from './en-account';
import { enApp } from './en-app';
import { enEvents } from './en-events';
import { enModeration } from './en-moderation';
import { enPlans } from './en-plans';
import { enPrivacy } from './en-privacy';
import { enPublic } from './en-public';
import { enSafety } from './en-safety';
import { enSettings } from './en-settings';

export const en = { ...enPublic, ...enPrivacy, ...enPlans, ...enApp, ...enSafety, ...enModeration, ...enEvents, ...enAccount, ...enSettings } as const;

export type MessageKey = keyof typeof en;
export type Catalogue = Record<MessageKey, string>;
/** A part of the catalogue, in both languages. */
export type CataloguePart = { en: Partial<Catalogue>; es: Partial<Catalogue> };
