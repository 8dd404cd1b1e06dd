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

/** The latest birth date allowed: someone who turns 18 today. */
export function latestBirthDate(today = new Date()): Date {
  return new Date(today.getFullYear() - MIN_AGE, today.getMonth(), today.getDate());
}

/**
 * The earliest birth date allowed: someone who turns MAX_AGE + 1 tomorrow. The picker offers every
 * date the profile accepts (ages 18 to 100), and no year of which no day could be chosen.
 */
export function earliestBirthDate(today = new Date()): Date {
  return new Date(today.getFullYear() - MAX_AGE - 1, today.getMonth(), today.getDate() + 1);
}

export const daysInMonth = (year: number, month: number) => new Date(year, month + 1, 0).getDate();

export const clampDate = (date: Date, earliest: Date, latest: Date) => (date < earliest ? earliest : date > latest ? latest : date);
