import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { type Language, MIN_AGE } from '../../shared/constants';
import { clampDate, daysInMonth, earliestBirthDate, fromIsoDate, latestBirthDate, toIsoDate } from '../lib/dates';
import { localeOf } from '../lib/locale';
import { useLanguage, useT } from '../lib/i18n';
import { CalendarIcon, ChevronLeft, ChevronRight } from './AppIcons';

interface Props {
  id: string;
  value: string | null;
  onChange: (value: string) => void;
  invalid?: boolean;
  /** The id of what says why it is invalid. */
  describedBy?: string;
}

/**
 * A button that opens a small calendar: year and month dropdowns, then a grid of days, over every
 * date of birth a profile accepts (ages 18 to 100) and no other. Keyboard: arrows move a day or a week, Home
 * and End go to the week's ends, Page Up/Down change month (with Shift, year), Escape or leaving it closes. A line
 * under it says that one must be 18: why the calendar ends 18 years ago, before anyone is refused.
 */
export function DateField({ id, value, onChange, invalid, describedBy }: Props) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const selected = fromIsoDate(value);

  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent | globalThis.KeyboardEvent) => {
      if ('key' in event) {
        if (event.key !== 'Escape') return;
        trigger.current?.focus();
      } else if (root.current?.contains(event.target as Node)) return;
      setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  const label = selected ? longDate(language, selected, false) : t('profile.pickDate');

  return (
    // Tabbed past (to the next field), it closes too: open, it would cover the field now focused. Not
    // for a focus gone nowhere (a press on its blank space, a month button disabled as it is pressed).
    <div className="date-field" ref={root} onBlur={(event) => event.relatedTarget && !root.current?.contains(event.relatedTarget) && setOpen(false)}>
      <button
        id={id}
        ref={trigger}
        type="button"
        className={`input-like ${selected ? '' : 'is-placeholder'}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-invalid={invalid}
        aria-describedby={[invalid && describedBy, `${id}-hint`].filter(Boolean).join(' ')}
        onClick={() => setOpen((current) => !current)}
      >
        <CalendarIcon /> {label}
      </button>
      <p id={`${id}-hint`} className="help">
        {t('profile.dateOfBirthHint', { age: MIN_AGE })}
      </p>
      {open && (
        <Calendar
          language={language}
          selected={selected}
          onPick={(date) => {
            onChange(toIsoDate(date));
            setOpen(false);
            trigger.current?.focus();
          }}
        />
      )}
    </div>
  );
}

const longDate = (language: Language, date: Date, weekday: boolean) =>
  new Intl.DateTimeFormat(localeOf(language), { weekday: weekday ? 'long' : undefined, day: 'numeric', month: 'long', year: 'numeric' }).format(date);

/**
 * The day weeks start on (0 Sunday, 1 Monday), as where the dates are written starts them: Spanish
 * ones on Monday; English ones by their variant: American ("en", "en-US") and Canadian and Filipino
 * on Sunday, others (British, "en-GB" for anyone whose browser names no English) on Monday.
 */
const weekStartOf = (language: Language) => (language === 'es' || !/^en(-US|-CA|-PH)?$/.test(localeOf(language)) ? 1 : 0);

const capitalized = (language: Language, text: string) => text.charAt(0).toLocaleUpperCase(language) + text.slice(1);

function Calendar({ language, selected, onPick }: { language: Language; selected: Date | undefined; onPick: (date: Date) => void }) {
  const t = useT();
  const first = earliestBirthDate();
  const latest = latestBirthDate();
  // The day that holds the grid's focus; its month and year are the ones shown.
  const [active, setActive] = useState(() => clampDate(selected ?? latest, first, latest));
  const grid = useRef<HTMLTableElement>(null);
  const yearSelect = useRef<HTMLSelectElement>(null);
  // Set by the grid's keys: the newly active day takes the focus once it is rendered.
  const focusDay = useRef(false);
  const focusActiveDay = () => grid.current?.querySelector<HTMLButtonElement>('button[tabindex="0"]')?.focus();

  // Opening: to the chosen day if there is one, else to the year (a birth date starts there); the
  // whole month in view, clear of the bars (it opens below the field, which may be low on the screen).
  useEffect(() => {
    if (selected) focusActiveDay();
    else yearSelect.current?.focus();
    grid.current?.closest('.date-popover')?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  useEffect(() => {
    if (!focusDay.current) return;
    focusDay.current = false;
    focusActiveDay();
  }, [active]);

  const year = active.getFullYear();
  const month = active.getMonth();
  const show = (nextYear: number, nextMonth: number) =>
    setActive(clampDate(new Date(nextYear, nextMonth, Math.min(active.getDate(), daysInMonth(nextYear, nextMonth))), first, latest));
  const moveTo = (date: Date) => {
    focusDay.current = true;
    setActive(clampDate(date, first, latest));
  };

  const monthName = new Intl.DateTimeFormat(localeOf(language), { month: 'long' });
  const weekStart = weekStartOf(language);
  const lead = (new Date(year, month, 1).getDay() - weekStart + 7) % 7;
  const cells: (number | null)[] = [...Array<null>(lead).fill(null), ...Array.from({ length: daysInMonth(year, month) }, (_, index) => index + 1)];
  while (cells.length % 7) cells.push(null);
  const weeks = Array.from({ length: cells.length / 7 }, (_, row) => cells.slice(row * 7, row * 7 + 7));
  // 7 January 2024 was a Sunday: the column headers are the seven days from the week's first.
  const weekdays = Array.from({ length: 7 }, (_, index) => new Date(2024, 0, 7 + weekStart + index));
  const years = Array.from({ length: latest.getFullYear() - first.getFullYear() + 1 }, (_, index) => latest.getFullYear() - index);
  const firstMonth = year === first.getFullYear() ? first.getMonth() : 0;
  const lastMonth = year === latest.getFullYear() ? latest.getMonth() : 11;
  const canGoBack = year > first.getFullYear() || month > firstMonth;
  const canGoOn = year < latest.getFullYear() || month < lastMonth;

  const onGridKey = (event: KeyboardEvent) => {
    const day = active.getDate();
    const weekday = (active.getDay() - weekStart + 7) % 7;
    const moves: Record<string, () => Date> = {
      ArrowLeft: () => new Date(year, month, day - 1),
      ArrowRight: () => new Date(year, month, day + 1),
      ArrowUp: () => new Date(year, month, day - 7),
      ArrowDown: () => new Date(year, month, day + 7),
      Home: () => new Date(year, month, day - weekday),
      End: () => new Date(year, month, day + 6 - weekday),
      PageUp: () => (event.shiftKey ? sameDayIn(year - 1, month, day) : sameDayIn(year, month - 1, day)),
      PageDown: () => (event.shiftKey ? sameDayIn(year + 1, month, day) : sameDayIn(year, month + 1, day)),
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    moveTo(move());
  };

  return (
    <div className="date-popover" role="dialog" aria-label={t('profile.dateOfBirth')}>
      <div className="date-head">
        <button type="button" className="date-step" aria-label={t('profile.prevMonth')} disabled={!canGoBack} onClick={() => show(year, month - 1)}>
          <ChevronLeft />
        </button>
        <select aria-label={t('profile.month')} value={month} onChange={(event) => show(year, Number(event.target.value))}>
          {Array.from({ length: lastMonth - firstMonth + 1 }, (_, index) => firstMonth + index).map((option) => (
            <option key={option} value={option}>
              {capitalized(language, monthName.format(new Date(2000, option, 1)))}
            </option>
          ))}
        </select>
        <select ref={yearSelect} className="date-year" aria-label={t('profile.year')} value={year} onChange={(event) => show(Number(event.target.value), month)}>
          {years.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        <button type="button" className="date-step" aria-label={t('profile.nextMonth')} disabled={!canGoOn} onClick={() => show(year, month + 1)}>
          <ChevronRight />
        </button>
      </div>
      <table ref={grid} className="date-grid" role="grid" aria-label={capitalized(language, new Intl.DateTimeFormat(localeOf(language), { month: 'long', year: 'numeric' }).format(active))} onKeyDown={onGridKey}>
        <thead>
          <tr>
            {weekdays.map((date) => (
              <th key={date.getDay()} scope="col" abbr={new Intl.DateTimeFormat(localeOf(language), { weekday: 'long' }).format(date)}>
                {new Intl.DateTimeFormat(localeOf(language), { weekday: 'narrow' }).format(date)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week, row) => (
            <tr key={row}>
              {week.map((day, column) => {
                if (day === null) return <td key={column} />;
                const date = new Date(year, month, day);
                const isSelected = selected !== undefined && toIsoDate(selected) === toIsoDate(date);
                return (
                  <td key={column} aria-selected={isSelected}>
                    <button
                      type="button"
                      className="date-day"
                      tabIndex={day === active.getDate() ? 0 : -1}
                      disabled={date > latest || date < first}
                      aria-label={longDate(language, date, true)}
                      onClick={() => onPick(date)}
                    >
                      {day}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The same day of the month in another month, or that month's last day (31 January → 28 February). */
const sameDayIn = (year: number, month: number, day: number) => new Date(year, month, Math.min(day, daysInMonth(year, month)));
