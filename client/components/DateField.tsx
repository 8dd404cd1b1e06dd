import { useEffect, useRef, useState } from 'react';
import { DayPicker } from 'react-day-picker';
import { es as esLocale } from 'react-day-picker/locale';
import 'react-day-picker/style.css';
import { earliestPickerMonth, fromIsoDate, latestBirthDate, toIsoDate } from '../lib/dates';
import { useLanguage, useT } from '../lib/i18n';
import { CalendarIcon } from './Icons';

interface Props {
  id: string;
  value: string | null;
  onChange: (value: string) => void;
  invalid?: boolean;
}

/** Year and month dropdowns over the last 100 years; nobody younger than 18 can be picked. */
export function DateField({ id, value, onChange, invalid }: Props) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const selected = fromIsoDate(value);
  const latest = latestBirthDate();

  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  const label = selected
    ? new Intl.DateTimeFormat(language, { day: 'numeric', month: 'long', year: 'numeric' }).format(selected)
    : t('profile.pickDate');

  return (
    <div className="date-field" ref={root}>
      <button
        id={id}
        type="button"
        className={`input-like ${selected ? '' : 'is-placeholder'}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-invalid={invalid}
        onClick={() => setOpen((current) => !current)}
      >
        <CalendarIcon /> {label}
      </button>
      {open && (
        <div className="date-popover" role="dialog" aria-label={t('profile.dateOfBirth')}>
          <DayPicker
            mode="single"
            captionLayout="dropdown"
            selected={selected}
            defaultMonth={selected ?? latest}
            startMonth={earliestPickerMonth()}
            endMonth={latest}
            disabled={{ after: latest }}
            locale={language === 'es' ? esLocale : undefined}
            onSelect={(date) => {
              if (!date) return;
              onChange(toIsoDate(date));
              setOpen(false);
            }}
          />
        </div>
      )}
    </div>
  );
}
