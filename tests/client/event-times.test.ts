/**
 * An event's times as its summary says them (the host screen, the event's page, the guest's "You're
 * at"). Ended before its start (in the hour the door opens early), the server brings the start to the
 * end: said as one time, not as "12:07 – 12:07", which read as a broken event.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { formatEventTimes } from '../../client/lib/format';

// An American browser, in UTC: the English below is written as it writes it.
beforeAll(() => {
  process.env.TZ = 'UTC';
  vi.stubGlobal('navigator', { languages: ['en-US', 'en'] });
});
afterAll(() => {
  vi.unstubAllGlobals();
});

it('says an evening on one day as its day and its two times', () => {
  expect(formatEventTimes('2026-12-05T21:00:00Z', '2026-12-05T23:30:00Z', 'en')).toBe('Sat, Dec 5, 9:00\u00a0PM – 11:30\u00a0PM');
  expect(formatEventTimes('2026-12-05T21:00:00Z', '2026-12-05T23:30:00Z', 'es')).toBe('sáb, 5 dic, 21:00 – 23:30');
});

it('says the end’s day too when the night goes past midnight', () => {
  expect(formatEventTimes('2026-12-05T21:00:00Z', '2026-12-06T04:00:00Z', 'es')).toBe('sáb, 5 dic, 21:00 – dom, 6 dic, 4:00');
});

it('says one time for an event ended as it began', () => {
  // The server's end of an event not yet started: the start a second before the end.
  expect(formatEventTimes('2026-12-05T12:06:59.500Z', '2026-12-05T12:07:00.500Z', 'es')).toBe('sáb, 5 dic, 12:07');
  expect(formatEventTimes('2026-12-05T12:06:59.500Z', '2026-12-05T12:07:00.500Z', 'en')).toBe('Sat, Dec 5, 12:07\u00a0PM');
  expect(formatEventTimes('2026-12-05T12:07:10Z', '2026-12-05T12:07:11Z', 'es')).toBe('sáb, 5 dic, 12:07');
});
