import { type FormEvent, useEffect, useRef, useState } from 'react';
import { EVENT_NAME_MAX_LENGTH, EVENT_VENUE_MAX_LENGTH, JOIN_MODES, type JoinModeName } from '../../../shared/constants';
import type { EventInputBody, EventUpdate, PublicEvent } from '../../../shared/schemas/events';
import { FieldErrors } from '../../components/AuthLayout';
import { formErrors, useFieldErrors, withoutError } from '../../lib/errors';
import { revealFirstError } from '../../lib/reveal-error';
import { useT } from '../../lib/i18n';
import { fitPaste, maxUnits } from '../../../shared/text-length';
import { BusyButton } from '../../components/BusyButton';
import { useDraft } from '../../lib/draft';
import { serverNow } from '../../lib/server-clock';

/** A `datetime-local` value (the phone's own time zone) for a moment. */
export function toLocalInput(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * The end the organizer means: a time at or before the start on the start's own day is the next
 * morning's (a party past midnight), not an end before the start.
 */
function overnight(startsAt: string, endsAt: string): string {
  const end = new Date(endsAt);
  if (endsAt.slice(0, 10) !== startsAt.slice(0, 10) || !(end <= new Date(startsAt))) return endsAt;
  end.setDate(end.getDate() + 1);
  return toLocalInput(end);
}

/** The end moved as far as the start was: the length set stays. */
function movedWith(endsAt: string, from: string, to: string): string {
  const end = Date.parse(endsAt) + Date.parse(to) - Date.parse(from);
  return Number.isNaN(end) ? endsAt : toLocalInput(new Date(end));
}

/** Whether the end falls on the day after the start's. */
function endsNextDay(startsAt: string, endsAt: string): boolean {
  const day = new Date(startsAt);
  day.setDate(day.getDate() + 1);
  return !Number.isNaN(day.getTime()) && toLocalInput(day).slice(0, 10) === endsAt.slice(0, 10);
}

/** What the form holds: the times as the phone's `datetime-local` values. */
export interface EventFormValues {
  name: string;
  venue: string;
  starts_at: string;
  ends_at: string;
  join_mode: JoinModeName;
}

export const eventFormValues = (event: Pick<PublicEvent, keyof EventFormValues>): EventFormValues => ({
  name: event.name,
  venue: event.venue,
  starts_at: toLocalInput(new Date(event.starts_at)),
  ends_at: toLocalInput(new Date(event.ends_at)),
  join_mode: event.join_mode,
});

/** A local `datetime-local` value as the API's moment; anything else as typed, for the server to refuse. */
function toMoment(value: string): string {
  const parsed = new Date(value);
  return value && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : value;
}

/** The form's values as the API creates an event from them. */
export const eventInput = (values: EventFormValues): EventInputBody => ({
  ...values,
  starts_at: toMoment(values.starts_at),
  ends_at: toMoment(values.ends_at),
});

/**
 * The fields that differ from `initial`, as the API changes them. A time shown as it was is not sent:
 * the phone shows minutes, and the server keeps the seconds it was given.
 */
export function eventChanges(values: EventFormValues, initial: EventFormValues): EventUpdate {
  const changed = Object.entries(eventInput(values)).filter(([key]) => values[key as keyof EventFormValues] !== initial[key as keyof EventFormValues]);
  return Object.fromEntries(changed) as EventUpdate;
}

/**
 * Whether times kept from a draft over `initial` have passed `now`: a start it moved before it, or the
 * end not after. `datetime-local` values, of one width, compare as text.
 */
const timesPassed = ({ starts_at, ends_at }: EventFormValues, initial: EventFormValues, now: string) =>
  (starts_at !== initial.starts_at && starts_at < now) || ends_at <= now;

interface Props {
  initial: EventFormValues;
  /** `initial`'s times start now (a new event): a draft's times have gone by if before that; else, if before the server's clock. */
  fromNow?: boolean;
  /** The form's draft (`useDraft`): what was changed in it, given back after a reload. */
  draft: string;
  /** The start can no longer change (the event has started): shown, not editable. */
  startLocked?: boolean;
  submitLabel: string;
  /** Sends the form's values; rejects with the server's error, whose fields the form then shows. */
  onSubmit: (values: EventFormValues) => Promise<void>;
}

/** Name, venue, start, end and how people check in: creating an event and changing one. */
export function EventForm({ initial, draft, fromNow = false, startLocked = false, submitLabel, onSubmit }: Props) {
  const t = useT();
  // What was changed before a reload, or before the phone discarded the tab: over the form as it opens
  // now (the event as saved since, here or on another screen; a new one's times from now), a start
  // that has since locked excepted, and times once passed: those would be refused, or start the event
  // hours ago (a new one, days ago). The rest is kept, and the form says why the times are as they are.
  const { draft: changedBefore, keep } = useDraft<Partial<EventFormValues>>(draft);
  const [passed] = useState(() => timesPassed({ ...initial, ...changedBefore }, initial, fromNow ? initial.starts_at : toLocalInput(new Date(serverNow()))));
  const [opened] = useState(() => ({
    ...initial,
    ...changedBefore,
    ...(startLocked && { starts_at: initial.starts_at }),
    ...(passed && { starts_at: initial.starts_at, ends_at: initial.ends_at }),
  }));
  const [joinMode, setJoinMode] = useState<JoinModeName>(opened.join_mode);
  const [times, setTimes] = useState({ starts_at: opened.starts_at, ends_at: opened.ends_at });
  // What the fields hold as typed, for the name's and venue's maxLength: the form reads them from the fields.
  const [typed, setTyped] = useState(opened);
  const [errors, setErrors] = useFieldErrors();
  const [busy, setBusy] = useState(false);
  const formElement = useRef<HTMLFormElement>(null);
  // Said until another start is picked; a locked start's line gives way to it, as the end may be new.
  const startHelp =
    passed && times.starts_at === initial.starts_at ? (fromNow ? 'events.new.timesPassed' : 'events.edit.timesPassed') : startLocked && 'events.edit.startLocked';
  const changes = Object.entries({ ...typed, ...times, join_mode: joinMode }).filter(([key, value]) => value !== initial[key as keyof EventFormValues]);
  const changesKept = JSON.stringify(changes);
  useEffect(() => keep(changes.length ? Object.fromEntries(changes) : null), [changesKept]);
  // Gone with the page (saved, cancelled, left); a reload or a discarded tab unmounts nothing.
  useEffect(() => () => keep(null), []);
  // A refused save: its first error, which may be above the fold, in view and focused (not when a
  // switch of language says the errors again).
  const refused = useRef(false);
  useEffect(() => {
    if (!refused.current) return;
    refused.current = false;
    revealFirstError(formElement.current);
  }, [errors]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '');
    const values: EventFormValues = {
      name: text('name'),
      venue: text('venue'),
      // A locked start cannot have changed.
      starts_at: times.starts_at,
      ends_at: overnight(times.starts_at, times.ends_at),
      join_mode: joinMode,
    };
    // A time cleared in the phone's picker: asked for here, not answered with the API's format.
    const missing = (['starts_at', 'ends_at'] as const).filter((field) => !values[field]);
    if (missing.length > 0) {
      refused.current = true;
      setErrors(Object.fromEntries(missing.map((field) => [field, [t('events.new.timeMissing')]])));
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      await onSubmit(values);
    } catch (error) {
      refused.current = true;
      setErrors(formErrors(error, t));
    }
    // Saved, the page has left; or it stays, refused or asking first (EditEvent's confirm sheet).
    setBusy(false);
  }

  return (
    <form
      ref={formElement}
      className="form event-form"
      onSubmit={(event) => void submit(event)}
      // A field changed since its error was said: the error no longer holds (as the profile's, EditProfile).
      onChange={(event) => {
        // The control changed, which the event bubbles from (not the form, as React types it).
        const { name, value } = event.target as EventTarget as HTMLInputElement;
        if (errors[name]) setErrors(withoutError(name));
        setTyped({ ...typed, [name]: value });
      }}
      noValidate
    >
      {/* Each label names its control only: the lines under it are the control's description. */}
      <div className="field">
        <label htmlFor="name">{t('events.new.name')}</label>
        <input id="name" name="name" dir="auto" required maxLength={maxUnits(typed.name, EVENT_NAME_MAX_LENGTH)} onPaste={fitPaste} autoComplete="off" defaultValue={opened.name} aria-invalid={Boolean(errors.name)} aria-describedby="name-error" />
        <FieldErrors id="name-error" errors={errors.name} />
      </div>
      <div className="field">
        <label htmlFor="venue">{t('events.new.venue')}</label>
        <input id="venue" name="venue" dir="auto" maxLength={maxUnits(typed.venue, EVENT_VENUE_MAX_LENGTH)} onPaste={fitPaste} autoComplete="off" defaultValue={opened.venue} aria-describedby="venue-help venue-error" aria-invalid={Boolean(errors.venue)} />
        <small id="venue-help" className="help">
          {t('events.new.venueHelp')}
        </small>
        <FieldErrors id="venue-error" errors={errors.venue} />
      </div>
      <div className="event-form-times">
        <div className="field">
          <label htmlFor="starts_at">{t('events.new.starts')}</label>
          <input
            id="starts_at"
            name="starts_at"
            type="datetime-local"
            required
            disabled={startLocked}
            value={times.starts_at}
            onChange={(event) => {
              const startsAt = event.target.value;
              setTimes((was) => ({ starts_at: startsAt, ends_at: movedWith(was.ends_at, was.starts_at, startsAt) }));
              // The end moved with it: what was said of the end was said of another time.
              if (errors.ends_at) setErrors(withoutError('ends_at'));
            }}
            aria-invalid={Boolean(errors.starts_at)}
            aria-describedby={startHelp ? 'starts-help starts-error' : 'starts-error'}
          />
          {startHelp && (
            <small id="starts-help" className="help">
              {t(startHelp)}
            </small>
          )}
          <FieldErrors id="starts-error" errors={errors.starts_at} />
        </div>
        <div className="field">
          <label htmlFor="ends_at">{t('events.new.ends')}</label>
          <input
            id="ends_at"
            name="ends_at"
            type="datetime-local"
            required
            value={times.ends_at}
            onChange={(event) => setTimes({ ...times, ends_at: event.target.value })}
            // Once set (not while the picker is still turning): 04:00 after a 23:00 start is the next day's, shown as such.
            onBlur={() => setTimes({ ...times, ends_at: overnight(times.starts_at, times.ends_at) })}
            aria-invalid={Boolean(errors.ends_at)}
            aria-describedby="ends-help ends-error"
          />
          {/* Said as it is picked: said only as the field lets go, it would push the button from under that tap. */}
          {endsNextDay(times.starts_at, overnight(times.starts_at, times.ends_at)) && (
            <small id="ends-help" className="help">
              {t('events.new.endsNextDay')}
            </small>
          )}
          <FieldErrors id="ends-error" errors={errors.ends_at} />
        </div>
      </div>
      {/* Once started, check-in has long opened: only the length still applies. */}
      <small className="help">{t(startLocked ? 'events.edit.timesHelpStarted' : 'events.new.timesHelp')}</small>
      <fieldset className="join-modes">
        <legend>{t('events.new.joinMode')}</legend>
        {JOIN_MODES.map((mode) => (
          <label key={mode} className={`join-mode${joinMode === mode ? ' is-selected' : ''}`}>
            <input type="radio" name="join_mode" value={mode} checked={joinMode === mode} onChange={() => setJoinMode(mode)} />
            <span>
              <strong>{t(`events.new.joinMode.${mode}`)}</strong>
              <small className="muted">{t(`events.new.joinMode.${mode}Help`)}</small>
            </span>
          </label>
        ))}
        <FieldErrors id="join-mode-error" errors={errors.join_mode} />
      </fieldset>
      {/* Not a field's: nothing takes the focus to it, so it is said as it shows. */}
      {errors.non_field_errors && (
        <p className="field-error" role="alert">
          {errors.non_field_errors.join(' ')}
        </p>
      )}
      <BusyButton type="submit" className="btn btn-primary btn-block" busy={busy}>
        {submitLabel}
      </BusyButton>
    </form>
  );
}
