import type { Language } from '../constants';
import { type Catalogue, type CataloguePart, en, type MessageKey } from './en';
import { es } from './es';
import { format, type MessageVars } from './format';

export type { Catalogue, CataloguePart, MessageKey, MessageVars };
export { format };
/** Both whole catalogues, for tests and tools; the client loads them part by part instead. */
export const catalogues: Record<Language, Catalogue> = { en, es };

export { PRIVACY_EMAIL } from './contact';

export function translate(language: Language, key: MessageKey, vars?: MessageVars): string {
  return format(catalogues[language][key], vars);
}
