import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { OrganizerEvent } from '../../../shared/schemas/events';
import { ChevronLeft } from '../../components/AppIcons';
import { Loading } from '../../components/Loading';
import { TryAgain } from '../../components/Waiting';
import { api } from '../../lib/api-app';
import { useMessages, useT } from '../../lib/i18n';
import { eventsMessages } from '../../lib/messages-events';
import { type LoadFailure, loadFailure, useRetryWhenBackOnline } from '../../lib/socket';
import { toast } from '../../lib/toast';
import { findMine } from '../../stores/host';
import { EventForm, eventChanges, eventFormValues } from './EventForm';
import '../../events.css';

/**
 * `/app/events/<id>/edit/`: the organizer changes the name, venue, times or door of an event still to
 * come or going on (a typo on the big screen, a party that runs late, a projector that failed and a
 * code to read out instead); once it has started, its start stays. Saved, back to the host screen.
 */
export function EditEvent({ id }: { id: number }) {
  useMessages(eventsMessages);
  const t = useT();
  const [, navigate] = useLocation();
  /** undefined while loading; null: not one of mine (or gone). */
  const [event, setEvent] = useState<OrganizerEvent | null | undefined>(undefined);
  const [failed, setFailed] = useState<LoadFailure | null>(null);
  const hostScreen = `/app/events/${id}/host/`;

  const load = () => {
    setFailed(null);
    findMine(id).then(setEvent, (error: unknown) => setFailed(loadFailure(error)));
  };
  useEffect(load, [id]);
  useRetryWhenBackOnline(failed !== null, load);

  const back = (
    <Link href={hostScreen} className="back-link">
      <ChevronLeft /> {t('host.title')}
    </Link>
  );
  if (event === undefined) {
    return (
      <div className="page events-page">
        {back}
        {failed ? (
          <>
            <p className="center-text muted" role="status">
              {t(failed === 'offline' ? 'events.edit.offline' : 'error.generic')}
            </p>
            <TryAgain onRetry={load} />
          </>
        ) : (
          <Loading />
        )}
      </div>
    );
  }
  if (event === null || event.status === 'after' || event.status === 'closed') {
    return (
      <div className="page events-page">
        {back}
        <p className="center-text muted">{t(event === null ? 'host.notFound' : 'events.edit.over')}</p>
      </div>
    );
  }

  const initial = eventFormValues(event);
  return (
    <div className="page events-page">
      {back}
      <h1 className="page-title">{t('events.edit.title')}</h1>
      <EventForm
        key={event.id}
        initial={initial}
        startLocked={Date.parse(event.starts_at) <= Date.now()}
        submitLabel={t('events.edit.submit')}
        onSubmit={async (values) => {
          await api.updateEvent(event.id, eventChanges(values, initial));
          toast.success(t('events.edit.saved'));
          // In the form's place: Back goes to where the organizer came from, not to the saved form.
          navigate(hostScreen, { replace: true });
        }}
      />
    </div>
  );
}
