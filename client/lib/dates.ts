import { MAX_AGE, MIN_AGE } from '../../shared/constants';

/** A local calendar day as `YYYY-MM-DD` (no time zone shift). */
export function toIsoDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function fromIsoDate(value: string | null | undefined): Date | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, day);
}

/** Today's calendar day on the phone, as a local Date at its midnight, as the picker's are. */
const localToday = (now: Date) => new Date(now.getFullYear(), now.getMonth(), now.getDate());

/**
 * The phone's IANA time zone, sent with a profile save: the server counts the age from midnight
 * there, as the picker's limits do, so that it never refuses a date the picker offers. Undefined where
 * the browser does not say (the server then counts in UTC).
 */
export function phoneTimeZone(): string | undefined {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
}

/** The same day `years` earlier, or the month's last day where it has none (29 February). */
function yearsBefore(today: Date, years: number): Date {
  const year = today.getFullYear() - years;
  return new Date(year, today.getMonth(), Math.min(today.getDate(), daysInMonth(year, today.getMonth())));
}

/** The latest birth date allowed: someone who turns 18 today. */
export function latestBirthDate(now = new Date()): Date {
  return yearsBefore(localToday(now), MIN_AGE);
}

/**
 * The earliest birth date allowed: someone who turns MAX_AGE + 1 tomorrow. The picker offers every
 * date the profile accepts (ages 18 to 100), and no year of which no day could be chosen.
 */
export function earliestBirthDate(now = new Date()): Date {
  const limit = yearsBefore(localToday(now), MAX_AGE + 1);
  return new Date(limit.getFullYear(), limit.getMonth(), limit.getDate() + 1);
}

export const daysInMonth = (year: number, month: number) => new Date(year, month + 1, 0).getDate();

export const clampDate = (date: Date, earliest: Date, latest: Date) => (date < earliest ? earliest : date > latest ? latest : date);
