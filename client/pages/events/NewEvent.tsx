import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ChevronLeft } from '../../components/AppIcons';
import { EVENTS_CREATED_PER_DAY } from '../../../shared/constants';
import { Throttled, ValidationError } from '../../lib/api';
import { api } from '../../lib/api-app';
import { formatDateTime } from '../../lib/format';
import { useLanguage, useMessages, useT } from '../../lib/i18n';
import { serverNow } from '../../lib/server-clock';
import { eventsMessages } from '../../lib/messages-events';
import { EventForm, eventInput, toLocalInput } from './EventForm';
import '../../events.css';

const QUARTER_MS = 15 * 60_000;

/** `/app/events/new/`: name, venue, start, end and how people check in; then the host screen. */
export function NewEvent() {
  useMessages(eventsMessages);
  const t = useT();
  const language = useLanguage((state) => state.language);
  const [, navigate] = useLocation();
  // Now, to the quarter hour just gone, by the server's clock: the event is open as soon as it is made,
  // and its times, shown in the phone's time zone, are the moments the server will keep, as on every
  // other screen. By a phone's clock hours off, it would wait for check-in, or be refused as over.
  const [initial] = useState(() => {
    const start = new Date(Math.floor(serverNow() / QUARTER_MS) * QUARTER_MS);
    return {
      name: '',
      venue: '',
      starts_at: toLocalInput(start),
      ends_at: toLocalInput(new Date(start.getTime() + 5 * 60 * 60_000)),
      join_mode: 'qr' as const,
    };
  });

  return (
    <div className="page events-page">
      <Link href="/app/events/" className="back-link">
        <ChevronLeft /> {t('events.title')}
      </Link>
      <h1 className="page-title">{t('events.new.title')}</h1>
      <EventForm
        initial={initial}
        draft="new-event"
        fromNow
        submitLabel={t('events.new.submit')}
        onSubmit={async (values) => {
          const created = await api.createEvent(eventInput(values)).catch((error: unknown) => {
            // The only limit on creating: the day's events, said with when the next one can be made.
            throw error instanceof Throttled && error.retryAfterSeconds
              ? new ValidationError({
                  non_field_errors: [t('events.new.limit', { limit: EVENTS_CREATED_PER_DAY, time: formatDateTime(serverNow() + error.retryAfterSeconds * 1000, language) })],
                })
              : error;
          });
          // In the form's place: Back must not reopen it, blank, and make the same event twice.
          navigate(`/app/events/${created.id}/host/`, { replace: true });
        }}
      />
    </div>
  );
}
