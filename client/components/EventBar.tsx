import { useState } from 'react';
import { Link } from 'wouter';
import { errorMessage } from '../lib/errors';
import { useT } from '../lib/i18n';
import { useEvents } from '../stores/events';
import { CalendarIcon } from './AppIcons';

/**
 * Above the deck: the event I am at, its live headcount and **Leave**; when I am at none, the way
 * into one.
 */
export function EventBar() {
  const t = useT();
  const current = useEvents((state) => state.current);
  const leave = useEvents((state) => state.leave);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (current === undefined) return null;
  if (current === null) {
    return (
      <Link href="/app/events/" className="event-bar event-bar-join">
        <CalendarIcon className="event-bar-icon" />
        <span className="event-bar-text">
          <strong>{t('deck.event.join')}</strong>
          <span className="muted">{t('deck.event.joinHint')}</span>
        </span>
      </Link>
    );
  }
  return (
    <div className="event-bar" role="region" aria-label={current.name}>
      <span className="live-dot" aria-hidden="true" />
      <span className="event-bar-text">
        <strong className="event-bar-name">{current.name}</strong>
        <span className="muted" aria-live="polite">
          {t('deck.event.here', { count: current.attendee_count })}
        </span>
        {error && (
          <span className="field-error" role="alert">
            {error}
          </span>
        )}
      </span>
      <button
        type="button"
        className="btn btn-light btn-small"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setError(null);
          leave()
            .catch((failure: unknown) => setError(errorMessage(failure, t)))
            .finally(() => setBusy(false));
        }}
      >
        {t('deck.event.leave')}
      </button>
    </div>
  );
}
