import type { Language } from '../../shared/constants';

/**
 * The locale dates, numbers and prices are written in: the browser's own variant of the app's language
 * ("en-GB": 21 Nov, 22:00; "en-US": Nov 21, 10:00 PM), or where it names none, the variant of this
 * app's public (Spain: "en-GB", "es-ES"). A module of its own: the landing page's plan cards write
 * prices with it, and the date helpers (lib/format.ts), which only the app loads, stay out of its way.
 */
export function localeOf(language: Language): string {
  const own = typeof navigator === 'undefined' ? undefined : navigator.languages?.find((tag) => tag.split('-')[0] === language);
  return own ?? (language === 'en' ? 'en-GB' : 'es-ES');
}
