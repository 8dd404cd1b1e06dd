import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatActivity, formatDateTime, formatDay, formatTime, sameDay } from '../../client/lib/format';
import { localeOf } from '../../client/lib/locale';

// Local times throughout, as the phone shows them.
const at = (...parts: [number, number, number, number?, number?]) => {
  const [year, month, day, hour = 12, minute = 0] = parts;
  return new Date(year, month - 1, day, hour, minute);
};
const iso = (date: Date) => date.toISOString();

// An American browser: the English below is written as it writes it (see "the locale", at the end).
beforeEach(() => {
  vi.stubGlobal('navigator', { languages: ['en-US', 'en'] });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe("a chat day's heading", () => {
  const now = at(2026, 11, 28, 12, 0);

  it('says today and yesterday in words, by the calendar rather than by 24 hours', () => {
    expect(formatDay(iso(at(2026, 11, 28, 0, 5)), 'en', now)).toBe('Today');
    expect(formatDay(iso(at(2026, 11, 27, 23, 55)), 'en', now)).toBe('Yesterday');
    expect(formatDay(iso(at(2026, 11, 27, 0, 5)), 'es', now)).toBe('Ayer');
    expect(formatDay(iso(at(2026, 11, 28, 9, 0)), 'es', now)).toBe('Hoy');
  });

  it('names the weekday within the week, then gives the date, with the year once it is another year', () => {
    expect(formatDay(iso(at(2026, 11, 25)), 'en', now)).toBe('Wednesday');
    expect(formatDay(iso(at(2026, 11, 25)), 'es', now)).toBe('Miércoles');
    expect(formatDay(iso(at(2026, 11, 21)), 'en', now)).toBe('Sat, Nov 21');
    expect(formatDay(iso(at(2026, 11, 21)), 'es', now)).toBe('Sáb, 21 nov');
    expect(formatDay(iso(at(2025, 12, 31)), 'en', now)).toBe('Wed, Dec 31, 2025');
  });

  describe('across a change of the clocks', () => {
    const zone = process.env.TZ;
    afterEach(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });

    it('counts a day of 23 hours as one day', () => {
      process.env.TZ = 'Europe/Madrid';
      // Spring forward on 29 March 2026: from its midnight to the next is 23 hours.
      expect(formatDay(iso(at(2026, 3, 29, 0, 30)), 'en', at(2026, 3, 30, 0, 30))).toBe('Yesterday');
      expect(formatDay(iso(at(2026, 3, 28, 23, 30)), 'en', at(2026, 3, 30, 0, 30))).toBe('Saturday');
    });
  });
});

describe('same day', () => {
  it('compares local calendar days, not 24-hour spans', () => {
    expect(sameDay(iso(at(2026, 11, 28, 0, 1)), iso(at(2026, 11, 28, 23, 59)))).toBe(true);
    expect(sameDay(iso(at(2026, 11, 27, 23, 59)), iso(at(2026, 11, 28, 0, 1)))).toBe(false);
  });
});

describe("a conversation's last activity on the list", () => {
  const now = at(2026, 11, 28, 12, 0);

  it('is the time today, the day and month this year, and the year too before it', () => {
    expect(formatActivity(iso(at(2026, 11, 28, 9, 5)), 'es', now)).toBe('9:05');
    expect(formatActivity(iso(at(2026, 11, 10)), 'en', now)).toBe('Nov 10');
    expect(formatActivity(iso(at(2025, 11, 10)), 'en', now)).toBe('Nov 10, 2025');
    expect(formatActivity(iso(at(2025, 11, 10)), 'es', now)).toBe('10 nov 2025');
  });
});

describe('the locale', () => {
  it('is the browser’s own variant of the app’s language, or else the one of this app’s public', () => {
    expect(localeOf('en')).toBe('en-US');
    vi.stubGlobal('navigator', { languages: ['es-MX', 'en-GB'] });
    expect([localeOf('es'), localeOf('en')]).toEqual(['es-MX', 'en-GB']);
    vi.stubGlobal('navigator', { languages: ['de-DE'] });
    expect([localeOf('es'), localeOf('en')]).toEqual(['es-ES', 'en-GB']);
    // "Sat 21 Nov", 24-hour times: what an English reader in Spain gets from a browser in Spanish.
    expect(formatActivity(iso(at(2026, 11, 21)), 'en', at(2026, 11, 28))).toBe('21 Nov');
    expect(formatActivity(iso(at(2026, 11, 28, 22, 5)), 'en', at(2026, 11, 28))).toBe('22:05');
  });
});

describe("a message's time", () => {
  it('is written as the locale writes a short time: no leading zero before AM/PM, nor in Spain', () => {
    expect(formatTime(iso(at(2026, 11, 28, 7, 16)), 'en')).toBe('7:16\u00a0AM');
    expect(formatTime(iso(at(2026, 11, 28, 22, 5)), 'en')).toBe('10:05\u00a0PM');
    expect(formatTime(iso(at(2026, 11, 28, 7, 16)), 'es')).toBe('7:16');
    vi.stubGlobal('navigator', { languages: ['en-GB'] });
    expect(formatTime(iso(at(2026, 11, 28, 7, 16)), 'en')).toBe('07:16');
  });

  it('never breaks inside itself: a narrow line does not leave "PM" (or "p.m.") on a line of its own', () => {
    expect(formatTime(iso(at(2026, 11, 28, 21, 35)), 'en')).not.toMatch(/ /);
    expect(formatDateTime(iso(at(2026, 12, 4, 21, 35)), 'en', at(2026, 11, 28))).toBe('Fri, Dec 4, 9:35\u00a0PM');
    vi.stubGlobal('navigator', { languages: ['es-US'] });
    expect(formatTime(iso(at(2026, 11, 28, 21, 35)), 'es')).not.toMatch(/ /);
  });
});

describe('a moment to plan by (check-in opening, the deck open until, the likes back at)', () => {
  const now = at(2026, 11, 28, 12, 0);

  it('is said as an event’s times are: the weekday, the day, the time, and the year once it is another', () => {
    expect(formatDateTime(iso(at(2026, 12, 4, 20, 0)), 'en', now)).toBe('Fri, Dec 4, 8:00\u00a0PM');
    expect(formatDateTime(iso(at(2026, 12, 4, 20, 0)), 'es', now)).toBe('vie, 4 dic, 20:00');
    expect(formatDateTime(iso(at(2027, 1, 2, 0, 30)), 'en', now)).toBe('Sat, Jan 2, 2027, 12:30\u00a0AM');
    expect(formatDateTime(at(2027, 1, 2, 0, 30).getTime(), 'es', now)).toBe('sáb, 2 ene 2027, 0:30');
  });
});
