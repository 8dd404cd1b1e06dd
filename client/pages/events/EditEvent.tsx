import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { EventUpdate, OrganizerEvent } from '../../../shared/schemas/events';
import { ChevronLeft } from '../../components/AppIcons';
import { Loading } from '../../components/Loading';
import { ConfirmSheet, useSheetAction } from '../../components/Sheet';
import { TryAgain } from '../../components/Waiting';
import { type ApiError, NotFound } from '../../lib/api';
import { api } from '../../lib/api-app';
import { goBack } from '../../lib/back-closes';
import { useEventStatus } from '../../lib/event-status';
import { formatTime, withHourArticle } from '../../lib/format';
import { useLanguage, useMessages, useT } from '../../lib/i18n';
import { eventsMessages } from '../../lib/messages-events';
import { serverNow } from '../../lib/server-clock';
import { type LoadFailure, loadFailure, useRetryWhenBackOnline } from '../../lib/socket';
import { toast } from '../../lib/toast';
import { findMine } from '../../stores/host';
import { EventForm, eventChanges, eventFormValues } from './EventForm';
import '../../events.css';

const HOUR = 3_600_000;

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
  // Opened from the host screen: leaving goes back to that entry, so Back then leaves the host screen
  // as it would have (no form, and no second host screen, in between). Opened by its address: the
  // host screen in its place.
  const [fromHost] = useState(() => (window.history.state as { from?: string } | null)?.from === 'host');
  // Past the confirm sheet's own entry, when it is what saved (`goBack`): a bare back would only close it.
  const leave = () => (fromHost ? goBack() : navigate(hostScreen, { replace: true }));
  const language = useLanguage((state) => state.language);
  /** An end brought forward to within the hour, waiting for the organizer's confirm. */
  const [shortened, setShortened] = useState<EventUpdate | null>(null);

  async function save(changes: EventUpdate) {
    // Nothing changed: nothing to send, nor to announce to the room.
    if (Object.keys(changes).length === 0) return;
    try {
      await api.updateEvent(id, changes);
      toast.success(t('events.edit.saved'));
    } catch (error) {
      // Deleted or ended meanwhile from another of the organizer's screens: nothing is left to save, and
      // the host screen the form goes back to says the event is gone or over ("Not found." or "This
      // event has ended." under a form that could only be refused again did not).
      if (!(error instanceof NotFound || (error as ApiError).code === 'ended')) throw error;
    }
  }
  // Saved: the sheet closes as the page is left, or going back would find it still there, busy.
  const confirmed = useSheetAction(
    () => save(shortened!),
    () => {
      setShortened(null);
      leave();
    },
  );

  const load = () => {
    setFailed(null);
    findMine(id).then(setEvent, (error: unknown) => setFailed(loadFailure(error)));
  };
  useEffect(load, [id]);
  useRetryWhenBackOnline(failed !== null, load);

  // By the clock: an edit page left open past the end offers no form that can only be refused, and
  // past the start, a start it can no longer move.
  const status = useEventStatus(event);
  const back = (
    <Link
      href={hostScreen}
      className="back-link"
      onClick={(click) => {
        if (!fromHost) return;
        click.preventDefault();
        leave();
      }}
    >
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
  if (event === null || status === 'after' || status === 'closed') {
    return (
      <div className="page events-page">
        {back}
        {event && <h1 className="page-title" dir="auto">{event.name}</h1>}
        <p className="notice">{t(event === null ? 'host.notFound' : 'events.edit.over')}</p>
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
        draft={`event:${event.id}`}
        startLocked={Date.parse(event.starts_at) <= serverNow()}
        submitLabel={t('events.edit.submit')}
        onSubmit={async (values) => {
          const changes = eventChanges(values, initial);
          // Closing the door within the hour (a.m. for p.m. on a 12-hour picker ends the party), and
          // after the end nothing can change: asked first. An end the server will refuse (past, or
          // before the start) is not asked about: its field says why.
          const endsAt = changes.ends_at ? Date.parse(changes.ends_at) : Infinity;
          const possible = endsAt > Math.max(serverNow(), Date.parse(changes.starts_at ?? event.starts_at));
          if (possible && endsAt < Date.parse(event.ends_at) && endsAt < serverNow() + HOUR) return setShortened(changes);
          await save(changes);
          leave();
        }}
      />
      {shortened && (
        <ConfirmSheet
          title={t('events.edit.endSoonTitle', { time: withHourArticle(formatTime(shortened.ends_at!, language), language) })}
          confirmLabel={t('events.edit.submit')}
          cancelLabel={t('host.cancel')}
          busy={confirmed.busy}
          error={confirmed.error}
          onConfirm={confirmed.run}
          onClose={() => setShortened(null)}
        >
          <p>{t('events.edit.endSoon')}</p>
        </ConfirmSheet>
      )}
      <button type="button" className="btn btn-ghost btn-block event-form-cancel" onClick={leave}>
        {t('host.cancel')}
      </button>
    </div>
  );
}
