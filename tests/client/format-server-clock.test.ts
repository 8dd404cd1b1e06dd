/**
 * Dates said relative to now ("Today", "Yesterday", a time for today's chats, "2 minutes ago", the year
 * once it is another) are said by the server's clock: a phone whose own clock is minutes off at
 * midnight would put today's messages under "Tomorrow", or a report just made at "now".
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { formatActivity, formatAge, formatDateTime, formatDay } from '../../client/lib/format';
import { useServerAhead } from '../../client/lib/server-clock';

const MINUTE = 60_000;
// Local times throughout, as the phone shows them.
const at = (year: number, month: number, day: number, hour: number, minute: number) => new Date(year, month - 1, day, hour, minute);
const iso = (date: Date) => date.toISOString();

beforeEach(() => {
  vi.stubGlobal('navigator', { languages: ['en-US', 'en'] });
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  useServerAhead.setState(0, true);
});

/** The phone's clock says `phone`; the server's is `ahead` ms ahead of it. */
function clocks(phone: Date, ahead: number) {
  vi.setSystemTime(phone);
  useServerAhead.setState(ahead, true);
}

it("heads a chat's day and dates a conversation by the server's day, the phone's still yesterday", () => {
  // 23:50 on the phone, ten past midnight on the server: a message of five past is today's.
  clocks(at(2026, 11, 28, 23, 50), 20 * MINUTE);
  const justNow = iso(at(2026, 11, 29, 0, 5));
  expect(formatDay(justNow, 'en')).toBe('Today');
  expect(formatDay(iso(at(2026, 11, 28, 22, 0)), 'es')).toBe('Ayer');
  expect(formatActivity(justNow, 'en')).toBe('12:05\u00a0AM');
});

it("gives a report's age by the server's clock, the phone's behind it", () => {
  clocks(at(2026, 11, 28, 12, 0), 10 * MINUTE);
  expect(formatAge(iso(at(2026, 11, 28, 12, 8)), 'en')).toBe('2 minutes ago');
  expect(formatAge(iso(at(2026, 11, 28, 9, 10)), 'es')).toBe('hace 3 horas');
});

it("says the year of a moment once it is another year by the server's clock", () => {
  // The phone still in 2026, the server in 2027: a party on 2 January is this year's.
  clocks(at(2026, 12, 31, 23, 55), 10 * MINUTE);
  expect(formatDateTime(iso(at(2027, 1, 2, 22, 0)), 'en')).toBe('Sat, Jan 2, 10:00\u00a0PM');
});
