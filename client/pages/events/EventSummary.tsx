import type { ReactNode } from 'react';
import type { PublicEvent } from '../../../shared/schemas/events';
import { CalendarIcon } from '../../components/AppIcons';
import { useEventStatus } from '../../lib/event-status';
import { formatCount, formatDateTime, formatEventTimes } from '../../lib/format';
import type { EventStatus } from '../../../shared/event-status';
import type { Language } from '../../../shared/constants';
import { type Translate, useLanguage, useMessages, useT } from '../../lib/i18n';
import { eventsMessages } from '../../lib/messages-events';
import '../../events.css';

/**
 * What anyone may know of an event: where, when, whether it is open (by the clock: a page left open
 * follows the night), and how many are there (not with
 * `count={false}`: the host screen shows its own, in large type).
 */
export function EventSummary({ event, title = false, count = true }: { event: PublicEvent; title?: boolean; count?: boolean }) {
  useMessages(eventsMessages);
  const t = useT();
  const language = useLanguage((state) => state.language);
  const status = useEventStatus(event)!;
  return (
    <div className="event-summary">
      {title && <h2 className="event-summary-name" dir="auto">{event.name}</h2>}
      <p className={`event-status event-status-${status}`}>{statusText(t, event, status, language)}</p>
      {event.venue && (
        <p className="event-venue">
          <bdi>{event.venue}</bdi>
        </p>
      )}
      <p className="event-when muted">
        <CalendarIcon className="event-when-icon" /> {formatEventTimes(event.starts_at, event.ends_at, language)}
      </p>
      {count && status !== 'closed' && status !== 'upcoming' && (
        <p className="event-count" aria-live="polite">
          <span className="live-dot" aria-hidden="true" /> {t('events.count', { count: formatCount(event.attendee_count, language) })}
        </p>
      )}
    </div>
  );
}

/**
 * Where the event is in its life; one not open yet, when it starts (its date is known: no bare
 * "upcoming"). The start its organizer set, not the check-in's opening an hour before: the public
 * page's notice says that one, and an organizer reading another time than theirs would doubt it.
 */
export const statusText = (t: Translate, event: Pick<PublicEvent, 'starts_at'>, status: EventStatus, language: Language) =>
  t(`events.status.${status}`, { time: formatDateTime(event.starts_at, language) });

/** A card of the events pages: a section named by its heading. */
export function EventCard({ id, title, className = '', children }: { id: string; title: string; className?: string; children: ReactNode }) {
  return (
    <section className={`event-card ${className}`.trim()} aria-labelledby={id}>
      <h2 id={id} className="section-title">
        {title}
      </h2>
      {children}
    </section>
  );
}
