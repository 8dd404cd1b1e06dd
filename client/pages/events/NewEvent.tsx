import { type FormEvent, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { EVENT_NAME_MAX_LENGTH, EVENT_VENUE_MAX_LENGTH, JOIN_MODES, type JoinModeName } from '../../../shared/constants';
import type { FieldErrors as FieldErrorMap } from '../../../shared/schemas/common';
import { FieldErrors } from '../../components/AuthLayout';
import { ChevronLeft } from '../../components/AppIcons';
import { api } from '../../lib/api-app';
import { formErrors } from '../../lib/errors';
import { useMessages, useT } from '../../lib/i18n';
import { eventsMessages } from '../../lib/messages-events';
import '../../events.css';

const QUARTER_MS = 15 * 60_000;

/** A `datetime-local` value (the phone's own time zone) for a moment. */
function toLocalInput(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** `/app/events/new/`: name, venue, start, end and how people check in; then the host screen. */
export function NewEvent() {
  useMessages(eventsMessages);
  const t = useT();
  const [, navigate] = useLocation();
  const [start] = useState(() => new Date(Math.floor(Date.now() / QUARTER_MS) * QUARTER_MS));
  const [joinMode, setJoinMode] = useState<JoinModeName>('qr');
  const [errors, setErrors] = useState<FieldErrorMap>({});
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const moment = (name: string) => {
      const value = String(data.get(name) ?? '');
      const parsed = new Date(value);
      return value && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : value;
    };
    setBusy(true);
    setErrors({});
    try {
      const created = await api.createEvent({
        name: String(data.get('name') ?? ''),
        venue: String(data.get('venue') ?? ''),
        starts_at: moment('starts_at'),
        ends_at: moment('ends_at'),
        join_mode: joinMode,
      });
      // In the form's place: Back must not reopen it, blank, and make the same event twice.
      navigate(`/app/events/${created.id}/host/`, { replace: true });
    } catch (error) {
      setErrors(formErrors(error, t));
      setBusy(false);
    }
  }

  return (
    <div className="page events-page">
      <Link href="/app/events/" className="back-link">
        <ChevronLeft /> {t('events.title')}
      </Link>
      <h1 className="page-title">{t('events.new.title')}</h1>
      <form className="form event-form" onSubmit={(event) => void submit(event)}>
        <label className="field">
          <span>{t('events.new.name')}</span>
          <input name="name" required maxLength={EVENT_NAME_MAX_LENGTH} autoComplete="off" aria-invalid={Boolean(errors.name)} aria-describedby="name-error" />
          <FieldErrors id="name-error" errors={errors.name} />
        </label>
        <label className="field">
          <span>{t('events.new.venue')}</span>
          <input name="venue" maxLength={EVENT_VENUE_MAX_LENGTH} autoComplete="off" aria-describedby="venue-help venue-error" aria-invalid={Boolean(errors.venue)} />
          <small id="venue-help" className="help">
            {t('events.new.venueHelp')}
          </small>
          <FieldErrors id="venue-error" errors={errors.venue} />
        </label>
        <div className="event-form-times">
          <label className="field">
            <span>{t('events.new.starts')}</span>
            <input name="starts_at" type="datetime-local" required defaultValue={toLocalInput(start)} aria-invalid={Boolean(errors.starts_at)} aria-describedby="starts-error" />
            <FieldErrors id="starts-error" errors={errors.starts_at} />
          </label>
          <label className="field">
            <span>{t('events.new.ends')}</span>
            <input name="ends_at" type="datetime-local" required defaultValue={toLocalInput(new Date(start.getTime() + 5 * 60 * 60_000))} aria-invalid={Boolean(errors.ends_at)} aria-describedby="ends-error" />
            <FieldErrors id="ends-error" errors={errors.ends_at} />
          </label>
        </div>
        <small className="help">{t('events.new.timesHelp')}</small>
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
        <FieldErrors id="form-error" errors={errors.non_field_errors} />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {t('events.new.submit')}
        </button>
      </form>
    </div>
  );
}
