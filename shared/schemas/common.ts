import { message, z } from './zod';

/**
 * A whole number from `min` to `max`. A value out of the range is told only the range: not also that
 * it is past the largest safe integer (zod's own bound of an integer), which would come second.
 */
export const integerIn = (min: number, max: number) => z.number().min(min, { abort: true }).max(max, { abort: true }).int();

/**
 * A whole number from `min` to `max`, taken from a path segment, a query string or a JSON body. Only
 * plain digits, with a minus sign or not, are read as a number: `1e3`, `0x10`, ` 12`, `12.0` or nothing
 * at all are not numbers (as Django's `<int:pk>`), not 1000, 16, 12 or 0; `-1` is one, told its range.
 */
export const wholeNumber = (min: number, max: number) =>
  z.preprocess((value) => (typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value), integerIn(min, max));

/** A positive integer id (a row's serial). */
export const Id = wholeNumber(1, 2_147_483_647);
export type Id = z.infer<typeof Id>;

export const IdParams = z.object({ id: Id });
export type IdParams = z.infer<typeof IdParams>;

/** `?cursor=&limit=` for every list; the cursor is opaque to clients. */
export const PageQuery = z.object({
  cursor: z.string().max(200).optional(),
  limit: wholeNumber(1, 100).optional(),
});
export type PageQuery = z.infer<typeof PageQuery>;

export const page = <T extends z.ZodType>(item: T) =>
  z.object({ results: z.array(item), next: z.string().nullable() });

export const Detail = z.object({ detail: z.string() });
export type Detail = z.infer<typeof Detail>;

/** An answer with no body (204, or a redirect whose `Location` says where). */
export const NoBody = z.null().describe('No body.');

/** The 400 body: every bad field at once, plus `non_field_errors`. */
export type FieldErrors = Record<string, string[]>;


const isIsoDate = (value: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
};

/**
 * `YYYY-MM-DD` that is a real calendar date. One aborting check: a bad date gets one message,
 * and checks chained after it (an age range) do not run on it.
 */
export const IsoDate = z.string().refine(isIsoDate, { ...message('date_format'), abort: true });

/** Whether this runtime's Intl knows the IANA time zone (`Europe/Madrid`, `America/Mexico_City`, `UTC`). */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The calendar day it is in a time zone at `now`, as that day's UTC midnight: the `today` of `ageOn`. */
export function todayIn(timeZone: string, now: Date = new Date()): Date {
  const parts = new Intl.DateTimeFormat('en', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((each) => each.type === type)?.value);
  return new Date(Date.UTC(part('year'), part('month') - 1, part('day')));
}

/** Whole years between a `YYYY-MM-DD` birth date and `today` (its UTC calendar day). */
export function ageOn(dateOfBirth: string, today: Date = new Date()): number {
  const [year, month, day] = dateOfBirth.split('-').map(Number) as [number, number, number];
  let age = today.getUTCFullYear() - year;
  const beforeBirthday =
    today.getUTCMonth() + 1 < month || (today.getUTCMonth() + 1 === month && today.getUTCDate() < day);
  if (beforeBirthday) age -= 1;
  return age;
}
