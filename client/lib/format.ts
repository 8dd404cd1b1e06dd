import type { Language } from '../../shared/constants';
import { localeOf } from './locale';
import { serverNow } from './server-clock';

/**
 * A time as the locale writes it short ("7:16 AM" in the US, "07:16" in Britain, "7:16" in Spain), as
 * `formatDateTime` does; its spaces no-break, so a narrow line never leaves "AM" on a line of its own.
 */
export function formatTime(iso: string, language: Language): string {
  return new Intl.DateTimeFormat(localeOf(language), { timeStyle: 'short' }).format(new Date(iso)).replace(/ /g, '\u00a0');
}

/**
 * A time as said after "at" ("a" in Spanish): Spanish says the hour with its article, "la" for one
 * o'clock and "las" for the others ("Más a la 1:05", "a las 22:00"); English says it bare.
 */
export const withHourArticle = (time: string, language: Language) => (language === 'es' ? `${/^0?1\D/.test(time) ? 'la' : 'las'} ${time}` : time);

/*
 * "Now" below is the server's (`serverNow`): at midnight a phone whose clock is minutes off would say
 * of today's messages that they were yesterday's, or tomorrow's.
 */

/** A count as the locale writes it: "12,345" in English, "12.345" in Spanish (which groups from five digits). */
export const formatCount = (count: number, language: Language) => count.toLocaleString(localeOf(language));

/** Today: the time; earlier: the date. */
export function formatActivity(iso: string, language: Language, now = new Date(serverNow())): string {
  const date = new Date(iso);
  if (date.toDateString() === now.toDateString()) return formatTime(iso, language);
  // With the year once it is another year's, as a chat's day headings have it.
  const year = date.getFullYear() === now.getFullYear() ? undefined : 'numeric';
  return new Intl.DateTimeFormat(localeOf(language), { day: 'numeric', month: 'short', year }).format(date);
}

const capitalized = (text: string) => text.charAt(0).toLocaleUpperCase() + text.slice(1);

/** Whole calendar days from `date` to `now`, in local time (a day of 23 or 25 hours counts as one). */
function daysBetween(date: Date, now: Date): number {
  const midnight = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  return Math.round((midnight(now) - midnight(date)) / 86_400_000);
}

/**
 * The heading of a chat's day, as messaging apps put it: "Today", "Yesterday", the weekday within the
 * week, then the date ("Fri, Nov 21"), with the year once it is another year's.
 */
export function formatDay(iso: string, language: Language, now = new Date(serverNow())): string {
  const date = new Date(iso);
  const days = daysBetween(date, now);
  if (days === 0 || days === 1) return capitalized(new Intl.RelativeTimeFormat(localeOf(language), { numeric: 'auto' }).format(-days, 'day'));
  if (days > 1 && days < 7) return capitalized(new Intl.DateTimeFormat(localeOf(language), { weekday: 'long' }).format(date));
  const year = date.getFullYear() === now.getFullYear() ? undefined : 'numeric';
  return capitalized(new Intl.DateTimeFormat(localeOf(language), { weekday: 'short', day: 'numeric', month: 'short', year }).format(date));
}

/** Whether two instants fall on the same local calendar day. */
export const sameDay = (a: string, b: string) => new Date(a).toDateString() === new Date(b).toDateString();

/** An event's span: "Sat 21 Nov, 22:00 – 04:00" (the end's date only when it differs; one time when it lasted under a minute). */
export function formatEventTimes(startsAt: string, endsAt: string, language: Language): string {
  const start = new Date(startsAt);
  const end = new Date(endsAt);
  const day = new Intl.DateTimeFormat(localeOf(language), { weekday: 'short', day: 'numeric', month: 'short' });
  const time = (date: Date) => formatTime(date.toISOString(), language);
  // Ended as it began (ended before its start, the server brings the start to a second before): one time.
  if (end.getTime() - start.getTime() < 60_000) return `${day.format(end)}, ${time(end)}`;
  const sameDay = start.toDateString() === end.toDateString();
  return `${day.format(start)}, ${time(start)} – ${sameDay ? '' : `${day.format(end)}, `}${time(end)}`;
}

const AGE_UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** How long ago, in the largest whole unit: "3 hours ago", "hace 2 días"; under a minute, "now". */
export function formatAge(iso: string, language: Language, now = serverNow()): string {
  const elapsed = Math.max(0, now - new Date(iso).getTime());
  const format = new Intl.RelativeTimeFormat(localeOf(language), { numeric: 'auto' });
  for (const [unit, ms] of AGE_UNITS) if (elapsed >= ms) return format.format(-Math.floor(elapsed / ms), unit);
  return format.format(0, 'second');
}

export function formatDate(iso: string, language: Language): string {
  return new Intl.DateTimeFormat(localeOf(language), { day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(iso));
}

/**
 * A moment, as an event's times are said: "Fri, Dec 4, 8:00 PM", the weekday a guest plans by, and
 * the year only once it is another year's.
 */
export function formatDateTime(at: string | number, language: Language, now = new Date(serverNow())): string {
  const date = new Date(at);
  const year = date.getFullYear() === now.getFullYear() ? undefined : 'numeric';
  const day = new Intl.DateTimeFormat(localeOf(language), { weekday: 'short', day: 'numeric', month: 'short', year }).format(date);
  return `${day}, ${formatTime(date.toISOString(), language)}`;
}
