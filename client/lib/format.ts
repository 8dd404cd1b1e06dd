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
