import { type Language } from '../constants';
import { type Catalogue, en, type MessageKey } from './en';
import { es } from './es';

export type { Catalogue, MessageKey };
export const catalogues: Record<Language, Catalogue> = { en, es };

/** Where privacy questions go (PRODUCT.md §9 leaves the address open). */
export const PRIVACY_EMAIL = 'privacy@eventmatch.app';

export type MessageVars = Record<string, string | number>;

/** Fills `{name}` placeholders; an unknown placeholder is left as written so it shows in review. */
export function format(template: string, vars?: MessageVars): string {
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

export function translate(language: Language, key: MessageKey, vars?: MessageVars): string {
  return format(catalogues[language][key], vars);
}
