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

/** An event's span: "Sat 21 Nov, 22:00 – 04:00" (the end's date only when it differs). */
export function formatEventTimes(startsAt: string, endsAt: string, language: Language): string {
  const start = new Date(startsAt);
  const end = new Date(endsAt);
  const day = new Intl.DateTimeFormat(language, { weekday: 'short', day: 'numeric', month: 'short' });
  const time = (date: Date) => formatTime(date.toISOString(), language);
  const sameDay = start.toDateString() === end.toDateString();
  return `${day.format(start)}, ${time(start)} – ${sameDay ? '' : `${day.format(end)}, `}${time(end)}`;
}
