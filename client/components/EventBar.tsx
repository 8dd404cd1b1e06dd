import { useState } from 'react';
import { Link } from 'wouter';
import type { PublicEvent } from '../../shared/schemas/events';
import { useT } from '../lib/i18n';
import { useEvents } from '../stores/events';
import { CalendarIcon } from './AppIcons';
import { ConfirmSheet, useSheetAction } from './Sheet';

/**
 * The confirm step before leaving an event: coming back takes the event's code again, or for a QR
 * event a scan at the door.
 */
export function LeaveEventSheet({ event, onClose }: { event: PublicEvent; onClose: () => void }) {
  const t = useT();
  const { busy, error, run } = useSheetAction(useEvents((state) => state.leave), onClose);

  return (
    <ConfirmSheet
      title={t('deck.event.leaveTitle', { name: event.name })}
      confirmLabel={t('deck.event.leaveConfirm')}
      cancelLabel={t('deck.event.stay')}
      busy={busy}
      error={error}
      onConfirm={run}
      onClose={onClose}
    >
      <p>{t(event.join_mode === 'qr' ? 'deck.event.leaveQr' : 'deck.event.leaveCode')}</p>
    </ConfirmSheet>
  );
}

/**
 * Above the deck: the event I am at, its live headcount and **Leave**; when I am at none, the way
 * into one.
 */
export function EventBar() {
  const t = useT();
  const current = useEvents((state) => state.current);
  const [leaving, setLeaving] = useState(false);

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
      </span>
      <button type="button" className="btn btn-light btn-small" onClick={() => setLeaving(true)}>
        {t('deck.event.leave')}
      </button>
      {leaving && <LeaveEventSheet event={current} onClose={() => setLeaving(false)} />}
    </div>
  );
}
