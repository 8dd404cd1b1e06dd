import { type FormEvent, useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { EVENT_CODE_LENGTH, EVENT_WATCHES_PER_SOCKET } from '../../../shared/constants';
import { isEventCode, normalizeEventCode } from '../../../shared/event-code';
import type { MessageKey } from '../../../shared/i18n/en';
import type { OrganizerEvent, PublicEvent } from '../../../shared/schemas/events';
import { NotFound } from '../../lib/api';
import { api } from '../../lib/api-app';
import { errorMessage } from '../../lib/errors';
import { checkInOpensAt, type EventStatus, eventStatusAt } from '../../../shared/event-status';
import { useEventStatus } from '../../lib/event-status';
import { formatCount, formatDateTime } from '../../lib/format';
import { useLanguage, useMessages, useT } from '../../lib/i18n';
import { useServerAhead } from '../../lib/server-clock';
import { type LoadFailure, loadFailure, useRetryWhenBackOnline } from '../../lib/socket';
import { enterEvent, keptEvent, useEvents } from '../../stores/events';
import { watchCounts } from '../../stores/host';
import { LeaveEventSheet } from '../../components/EventBar';
import { TryAgain } from '../../components/Waiting';
import { EventCard, EventSummary, statusText } from './EventSummary';
import { SwitchEventSheet } from './SwitchEventSheet';
import { eventsMessages } from '../../lib/messages-events';
import { BusyButton } from '../../components/BusyButton';
import '../../events.css';

/** An event I organize: where it is in its life (by the clock), when, its code (one joined by code) and (once open) its count. */
function MyEvent({ event }: { event: OrganizerEvent }) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const status = useEventStatus(event)!;
  return (
    <Link href={`/app/events/${event.id}/host/`} className="my-event">
      <span className="my-event-name" dir="auto">
        {event.name}
      </span>
      {/* Each "·" held to the part before it: a narrow phone breaks the line after one, never before. */}
      <span className="muted">
        {[
          statusText(t, event, status, language),
          // Not open yet, its status says when it starts: the start again would only repeat it.
          ...(status === 'upcoming' ? [] : [formatDateTime(event.starts_at, language)]),
          // A QR event's code lets nobody in, typed: its host screen shows none, nor does this.
          ...(event.join_mode === 'code' ? [event.code] : []),
          // Whole: a line that breaks in it leaves the number alone at its end ("· 0", then "checked in").
          ...(status === 'open' || status === 'after' ? [t('events.count', { count: formatCount(event.attendee_count, language) }).replace(/ /g, '\u00a0')] : []),
        ].join('\u00a0· ')}
      </span>
      <span className="my-event-host">{t('events.mine.host')} →</span>
    </Link>
  );
}

const MyEventList = ({ events }: { events: OrganizerEvent[] }) => (
  <ul className="my-events">
    {events.map((event) => (
      <li key={event.id}>
        <MyEvent event={event} />
      </li>
    ))}
  </ul>
);

/**
 * Why an event's code does not let this user in now, as its public page tells (the check-in would
 * refuse it the same way); null when it does. Its organizer needs no proof of presence.
 */
function refusalOf(event: PublicEvent, organizing: boolean): MessageKey | null {
  if (event.status === 'upcoming') return 'eventPage.notOpen';
  if (event.status !== 'open') return 'eventPage.ended';
  if (event.join_mode === 'qr' && !organizing) return 'eventPage.qrOnly';
  return null;
}

/** `/app/events/`: where I am, joining by code, and the events I organize. */
export function Events() {
  useMessages(eventsMessages);
  const t = useT();
  const language = useLanguage((state) => state.language);
  const [, navigate] = useLocation();
  // Until the server says where I am, the event this device last knew me at (as the deck's bar): its
  // card is there from the first paint, where its coming later pushed the rest of the page down.
  const [kept] = useState(keptEvent);
  const known = useEvents((state) => state.current);
  const current = known === undefined ? (kept ?? undefined) : known;
  const [leaving, setLeaving] = useState(false);
  const [switching, setSwitching] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [mine, setMine] = useState<OrganizerEvent[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  /** My events could not be had (no answer, or the server's error): said which, and asked again when the socket connects. */
  const [mineFailed, setMineFailed] = useState<LoadFailure | null>(null);

  const loadMine = () => {
    setMineFailed(null);
    api.myEvents().then(
      (page) => {
        setMine(page.results);
        setNext(page.next);
      },
      (error: unknown) => setMineFailed(loadFailure(error)),
    );
  };
  useEffect(() => {
    void useEvents.getState().loadCurrent();
    loadMine();
  }, []);
  useRetryWhenBackOnline(mineFailed !== null, loadMine);

  /** The next page of my events (newest first), after those shown. */
  async function more() {
    if (!next || loadingMore) return;
    setLoadingMore(true);
    try {
      const page = await api.myEvents(next);
      setMine((shown) => [...(shown ?? []), ...page.results]);
      setNext(page.next);
    } catch {
      // The button stays: another tap tries again.
    } finally {
      setLoadingMore(false);
    }
  }

  /** The event the code names, once read: the one a question to switch, or a kept place, is about. */
  const [target, setTarget] = useState<PublicEvent | null>(null);

  async function join(event: FormEvent) {
    event.preventDefault();
    if (!isEventCode(code) || busy) return;
    const wanted = normalizeEventCode(code);
    // Read first, as its public page would be: a code that does not let this user in now says why at
    // once (not after a profile still to write), and a kept place is named. One event at a time:
    // joining another one leaves this one, which is asked first; where I am is waited for if the page
    // has not heard yet (and keeps no event), or a code typed meanwhile would leave it unasked.
    setBusy(true);
    setError(null);
    try {
      if (current === undefined) await useEvents.getState().loadCurrent();
      const at = current ?? useEvents.getState().current;
      if (at?.code === wanted) return void enter(at);
      const found = await api.event(wanted);
      const refusal = refusalOf(found, mine?.some((each) => each.code === wanted) ?? false);
      if (!refusal && at === null) return void enter(found);
      // A QR event's code finds its page (what it is, where, and that the door has the way in).
      if (refusal === 'eventPage.qrOnly') return navigate(`/e/${wanted}`);
      if (refusal) setError(t(refusal, { time: formatDateTime(checkInOpensAt(Date.parse(found.starts_at)), language) }));
      // Where I am had no answer: joining might leave an event unasked.
      else if (at === undefined) setError(t('error.network'));
      else {
        setTarget(found);
        setSwitching(true);
      }
    } catch (failure) {
      // A code that names no event is said as the event page says it, not as a bare "Not found".
      setError(failure instanceof NotFound ? t('eventPage.notFound') : errorMessage(failure, t));
    }
    setBusy(false);
  }

  async function enter(event: PublicEvent) {
    setSwitching(false);
    setBusy(true);
    setError(null);
    try {
      await enterEvent(event.code, event.name);
      navigate('/app/home/');
    } catch (failure) {
      setError(errorMessage(failure, t));
      setBusy(false);
    }
  }

  // What is going on now, then what is still to come, then what is over; each newest first, as the
  // pages come (a page that comes later adds to the end of each).
  // By the server's clock: a laptop's may be minutes off.
  const now = Date.now() + useServerAhead();
  const shown = (mine ?? []).map((event) => ({ event, status: eventStatusAt(Date.parse(event.starts_at), Date.parse(event.ends_at), now) }));
  const inStatus = (...statuses: EventStatus[]) => shown.filter(({ status }) => statuses.includes(status)).map(({ event }) => event);
  const coming = [...inStatus('open'), ...inStatus('upcoming')];
  const past = inStatus('after', 'closed');
  // Live while the page is open: the counts of those that people are in (going on, or in their after-party).
  const live = [...inStatus('open'), ...inStatus('after')]
    .slice(0, EVENT_WATCHES_PER_SOCKET)
    .map((event) => event.id)
    .join();
  useEffect(() => {
    if (!live) return;
    return watchCounts(live.split(',').map(Number), (id, count) =>
      setMine((list) => list && list.map((event) => (event.id === id ? { ...event, attendee_count: count } : event))),
    );
  }, [live]);

  return (
    <div className="page events-page">
      <h1 className="sr-only">{t('app.nav.events')}</h1>
      {current && (
        <EventCard id="current-title" title={t('events.current.title')} className="event-card-current">
          <EventSummary event={current} title />
          <div className="event-card-actions">
            <Link href="/app/home/" className="btn btn-primary">
              {t('events.current.deck')}
            </Link>
            <button type="button" className="btn btn-light" onClick={() => setLeaving(true)}>
              {t('events.current.leave')}
            </button>
          </div>
          {leaving && <LeaveEventSheet event={current} onClose={() => setLeaving(false)} />}
        </EventCard>
      )}

      <EventCard id="join-title" title={t('events.join.title')}>
        <form className="join-form" onSubmit={(submit) => void join(submit)}>
          {/* The label names the field only: the line under it is its description, not part of its name. */}
          <div className="field">
            <label htmlFor="join-code">{t('events.join.label')}</label>
            <input
              id="join-code"
              className="code-input"
              name="code"
              value={code}
              // No maxLength: a code pasted with a space or a dash would lose its last characters before this.
              // What was said of the code before goes as it is changed.
              onChange={(event) => {
                setCode(normalizeEventCode(event.target.value).replace(/[^A-Z0-9]/g, '').slice(0, EVENT_CODE_LENGTH));
                setError(null);
              }}
              inputMode="text"
              autoCapitalize="characters"
              autoComplete="off"
              autoCorrect="off"
              spellCheck={false}
              placeholder="K7RM2Q"
              aria-describedby="code-help code-error"
              aria-invalid={Boolean(error)}
            />
            <small id="code-help" className="help">
              {t('events.join.help')}
            </small>
          </div>
          {error && (
            <p id="code-error" className="field-error" role="alert">
              {error}
            </p>
          )}
          <BusyButton type="submit" className="btn btn-primary btn-block" busy={busy} disabled={!isEventCode(code)}>
            {t('events.join.submit')}
          </BusyButton>
        </form>
        {switching && current && target && <SwitchEventSheet current={current} target={target} busy={busy} onConfirm={() => void enter(target)} onClose={() => setSwitching(false)} />}
      </EventCard>

      <section className="event-card" aria-labelledby="mine-title">
        <div className="event-card-head">
          <h2 id="mine-title" className="section-title">
            {t('events.mine.title')}
          </h2>
          <Link href="/app/events/new/" className="btn btn-primary btn-small">
            {t('events.create')}
          </Link>
        </div>
        {mine === null ? (
          <>
            <p className="muted">{t(mineFailed === 'offline' ? 'events.mine.offline' : mineFailed ? 'error.generic' : 'app.loading')}</p>
            {mineFailed && <TryAgain onRetry={loadMine} />}
          </>
        ) : mine.length === 0 ? (
          <p className="muted">{t('events.mine.empty')}</p>
        ) : (
          <>
            {coming.length > 0 ? <MyEventList events={coming} /> : <p className="muted">{t('events.mine.noneComing')}</p>}
            {past.length > 0 && (
              <>
                <h3 className="my-events-past">{t('events.mine.past')}</h3>
                <MyEventList events={past} />
              </>
            )}
          </>
        )}
        {next && (
          <BusyButton type="button" className="btn btn-ghost btn-block" busy={loadingMore} onClick={() => void more()}>
            {t('events.mine.more')}
          </BusyButton>
        )}
      </section>
    </div>
  );
}
