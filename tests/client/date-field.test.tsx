// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense, useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProfileInput } from '../../shared/schemas/users';
import { es } from '../../shared/i18n/es';
import { DateField } from '../../client/components/DateField';
import { earliestBirthDate, latestBirthDate, phoneTimeZone, toIsoDate } from '../../client/lib/dates';
import { ageOn } from '../../shared/schemas/common';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';

function Field() {
  useMessages(appMessages);
  const [value, setValue] = useState<string | null>(null);
  return (
    <>
      <DateField id="dob" value={value} onChange={setValue} />
      <output>{value}</output>
    </>
  );
}

async function openPicker() {
  await initLanguage();
  render(
    <Suspense fallback={null}>
      <Field />
    </Suspense>,
  );
  fireEvent.click(await screen.findByRole('button', { name: new RegExp(es['profile.pickDate']) }));
  return {
    year: screen.getByLabelText<HTMLSelectElement>(es['profile.year']),
    month: screen.getByLabelText<HTMLSelectElement>(es['profile.month']),
  };
}

const options = (select: HTMLSelectElement) => [...select.options].map((option) => option.value);
const day = (number: number) => [...document.querySelectorAll<HTMLButtonElement>('.date-day')].find((button) => button.textContent === String(number))!;

/** Whether the profile's own check takes this date of birth, made on this phone (its time zone). */
function accepted(date: string) {
  const parsed = ProfileInput.safeParse({ date_of_birth: date, time_zone: phoneTimeZone() });
  return !parsed.error?.issues.some((issue) => issue.path[0] === 'date_of_birth');
}

describe('the date of birth picker', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 10, 29, 12));
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it('offers every date of birth the profile accepts, from 18 to 100 years old, and no other', async () => {
    const { year, month } = await openPicker();
    const years = options(year);
    expect(years[0]).toBe('2008');
    expect(years.at(-1)).toBe('1925');

    // The youngest: 18 today. The day after is not offered.
    expect(month.value).toBe('10');
    expect(day(29).disabled).toBe(false);
    expect(day(30).disabled).toBe(true);
    expect([accepted('2008-11-29'), accepted('2008-11-30')]).toEqual([true, false]);

    // The oldest: 100 until tomorrow, when they turn 101. The months before are not offered.
    fireEvent.change(year, { target: { value: '1925' } });
    expect(options(month)).toEqual(['10', '11']);
    expect(month.value).toBe('10');
    expect(day(29).disabled).toBe(true);
    expect(day(30).disabled).toBe(false);
    expect([accepted('1925-11-30'), accepted('1925-11-29')]).toEqual([true, false]);
    expect(screen.getByRole('button', { name: es['profile.prevMonth'] })).toHaveProperty('disabled', true);

    fireEvent.click(day(30));
    expect(document.querySelector('output')!.textContent).toBe('1925-11-30');
  });

  it.each([
    ['es', ['es-ES'], 'lunes', '29 de noviembre de 2008'],
    // English with no English of the browser's: British dates, and British weeks, from Monday.
    ['en', ['es-ES'], 'Monday', '29 November 2008'],
    ['en', ['en-GB', 'en'], 'Monday', '29 November 2008'],
    // American dates, American weeks: from Sunday.
    ['en', ['en-US', 'en'], 'Sunday', 'November 29, 2008'],
  ])('in %s (a browser in %j) starts its weeks on %s, as the dates it writes do (%s)', async (language, languages, firstDay, date) => {
    localStorage.setItem('language_code', language);
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(languages);
    try {
      await initLanguage();
      render(
        <Suspense fallback={null}>
          <Field />
        </Suspense>,
      );
      fireEvent.click(await screen.findByRole('button', { name: /./, expanded: false }));
      expect(document.querySelector('.date-grid th')!.getAttribute('abbr')).toBe(firstDay);
      expect(day(29).getAttribute('aria-label')).toMatch(date);
    } finally {
      localStorage.removeItem('language_code');
      vi.restoreAllMocks();
    }
  });

  it('closes when the focus leaves it, as the next field takes it, and not while it moves within', async () => {
    const { year } = await openPicker();
    const next = document.body.appendChild(document.createElement('button'));
    try {
      expect(document.activeElement).toBe(year);
      act(() => day(3).focus());
      screen.getByRole('dialog');
      act(() => next.focus());
      expect(screen.queryByRole('dialog')).toBeNull();
    } finally {
      next.remove();
    }
  });

  it('says under the field that one must be 18, to a screen reader too: why the calendar ends 18 years ago', async () => {
    await openPicker();
    const hint = screen.getByText('Debes tener al menos 18 años.');
    const field = screen.getByRole('button', { name: new RegExp(es['profile.pickDate']) });
    expect(field.getAttribute('aria-describedby')).toBe(hint.id);
  });

  it('counts today on the phone’s calendar, as the save’s time zone makes the server do, and finds 29 February’s limits', () => {
    const iso = (date: Date) => toIsoDate(date);
    // 29 February 2028, noon (this process's zone): 18 today is born on 28 February 2010 (no 29th that year), not 1 March.
    const leapDay = new Date(2028, 1, 29, 12);
    expect(iso(latestBirthDate(leapDay))).toBe('2010-02-28');
    // The oldest: 100 on 1 March 1927 (101 tomorrow), which the picker used to leave out.
    expect(iso(earliestBirthDate(leapDay))).toBe('1927-03-01');
    const leapDayUtc = new Date(Date.UTC(2028, 1, 29, 12));
    expect([ageOn('2010-02-28', leapDayUtc), ageOn('2010-03-01', leapDayUtc)]).toEqual([18, 17]);
    expect([ageOn('1927-03-01', leapDayUtc), ageOn('1927-02-28', leapDayUtc)]).toEqual([100, 101]);

    // Past midnight in Madrid, still the 14th in UTC: the picker offers the 15th's eighteen-year-olds
    // there, and the save says it is made in Madrid. In Mexico City, hours behind UTC, not yet.
    const zone = process.env.TZ;
    try {
      const madridPastMidnight = new Date(Date.UTC(2025, 5, 14, 22, 30));
      process.env.TZ = 'Europe/Madrid';
      expect(iso(latestBirthDate(madridPastMidnight))).toBe('2007-06-15');
      expect(phoneTimeZone()).toBe('Europe/Madrid');
      process.env.TZ = 'America/Mexico_City';
      expect(iso(latestBirthDate(new Date(Date.UTC(2025, 5, 15, 3))))).toBe('2007-06-14');
      expect(phoneTimeZone()).toBe('America/Mexico_City');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});
