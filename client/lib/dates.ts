import { DATE_PICKER_YEARS, MIN_AGE } from '../../shared/constants';

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

/** The year dropdown covers the most recent 100 years. */
export function earliestPickerMonth(today = new Date()): Date {
  return new Date(today.getFullYear() - DATE_PICKER_YEARS, 0, 1);
}

export const daysInMonth = (year: number, month: number) => new Date(year, month + 1, 0).getDate();

export const clampDate = (date: Date, earliest: Date, latest: Date) => (date < earliest ? earliest : date > latest ? latest : date);
