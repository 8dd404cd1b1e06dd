import type { Language } from '../../shared/constants';

export function formatTime(iso: string, language: Language): string {
  return new Intl.DateTimeFormat(language, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso));
}

/** Today: the time; earlier: the date. */
export function formatActivity(iso: string, language: Language, now = new Date()): string {
  const date = new Date(iso);
  if (date.toDateString() === now.toDateString()) return formatTime(iso, language);
  return new Intl.DateTimeFormat(language, { day: 'numeric', month: 'short' }).format(date);
}

const AGE_UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** How long ago, in the largest whole unit: "3 hours ago", "hace 2 días"; under a minute, "now". */
export function formatAge(iso: string, language: Language, now = Date.now()): string {
  const elapsed = Math.max(0, now - new Date(iso).getTime());
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  for (const [unit, ms] of AGE_UNITS) if (elapsed >= ms) return format.format(-Math.floor(elapsed / ms), unit);
  return format.format(0, 'second');
}

export function formatDate(iso: string, language: Language): string {
  return new Intl.DateTimeFormat(language, { day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(iso));
}

export function formatDateTime(iso: string, language: Language): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}
