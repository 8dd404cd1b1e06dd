/**
 * The profile's age check counts from midnight in the time zone the save names (the phone's), not
 * from UTC's: the schema the server validates a save with, on fixed clocks.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { todayIn } from '../../shared/schemas/common';
import { ProfileInput } from '../../shared/schemas/users';
import { validProfile } from '../helpers/factories';

/** What the age check says of a date of birth at `now`, in `timeZone` (none: UTC). */
async function ageCheck(now: Date, dateOfBirth: string, timeZone?: string) {
  vi.setSystemTime(now);
  const parsed = ProfileInput.safeParse({ ...(await validProfile({ date_of_birth: dateOfBirth })), ...(timeZone ? { time_zone: timeZone } : {}) });
  if (parsed.success) return 'accepted';
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}

describe('the age check of a profile save', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts from midnight where the user is', async () => {
    // 15 June 2025, 03:00 UTC: still the 14th, at 21:00, in Mexico City; the 15th, at 05:00, in Madrid.
    const now = new Date(Date.UTC(2025, 5, 15, 3));
    const eighteenOnThe15th = '2007-06-15';
    expect(await ageCheck(now, eighteenOnThe15th, 'America/Mexico_City')).toMatch(/^date_of_birth: .*at least 18/);
    expect(await ageCheck(now, eighteenOnThe15th, 'Europe/Madrid')).toBe('accepted');
    // 14 June 2025, 22:30 UTC: past midnight in Madrid, where the 15th's eighteen-year-olds now are 18.
    const madridPastMidnight = new Date(Date.UTC(2025, 5, 14, 22, 30));
    expect(await ageCheck(madridPastMidnight, eighteenOnThe15th, 'Europe/Madrid')).toBe('accepted');
    expect(await ageCheck(madridPastMidnight, eighteenOnThe15th, 'UTC')).toMatch(/at least 18/);
    // A save that names no zone is counted in UTC, as before zones were sent.
    expect(await ageCheck(madridPastMidnight, eighteenOnThe15th)).toMatch(/at least 18/);
    expect(await ageCheck(now, eighteenOnThe15th)).toBe('accepted');
  });

  it('finds the 100-year limit in the user’s zone too, and 29 February where it is', async () => {
    // 29 February 2028, 12:00 UTC: already 1 March, at 02:00, in Kiritimati (UTC+14).
    const leapNoon = new Date(Date.UTC(2028, 1, 29, 12));
    expect(await ageCheck(leapNoon, '2010-03-01', 'Pacific/Kiritimati')).toBe('accepted');
    expect(await ageCheck(leapNoon, '2010-03-01', 'UTC')).toMatch(/at least 18/);
    // 101 on 1 March: too old in Kiritimati, still 100 in Honolulu (the 29th, 02:00).
    expect(await ageCheck(leapNoon, '1927-03-01', 'Pacific/Kiritimati')).toMatch(/^date_of_birth: .*last 100 years/);
    expect(await ageCheck(leapNoon, '1927-03-01', 'Pacific/Honolulu')).toBe('accepted');
  });

  it('counts in UTC for a zone Intl does not know, and checks no age beside a zone of the wrong shape', async () => {
    // Past midnight in Madrid, not in UTC: an unknown zone is UTC's day, so not 18 yet.
    const madridPastMidnight = new Date(Date.UTC(2025, 5, 14, 22, 30));
    expect(await ageCheck(madridPastMidnight, '2007-06-15', 'Mars/Olympus_Mons')).toMatch(/^date_of_birth: .*at least 18/);
    expect(await ageCheck(madridPastMidnight, '2007-06-14', 'Mars/Olympus_Mons')).toBe('accepted');
    expect(await ageCheck(madridPastMidnight, '2012-01-01', 'Europe/Madrid; drop')).toBe('time_zone: Enter a time zone such as Europe/Madrid.');
  });

  it('reads the calendar day of a zone', () => {
    const now = new Date(Date.UTC(2025, 11, 31, 23, 30));
    expect(todayIn('UTC', now).toISOString()).toBe('2025-12-31T00:00:00.000Z');
    expect(todayIn('Europe/Madrid', now).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(todayIn('America/Los_Angeles', now).toISOString()).toBe('2025-12-31T00:00:00.000Z');
  });
});
