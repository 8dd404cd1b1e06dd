import { useState } from 'react';
import { Link } from 'wouter';
import type { PublicEvent } from '../../shared/schemas/events';
import { useEventStatus } from '../lib/event-status';
import { formatCount } from '../lib/format';
import { useLanguage, useT, useTi } from '../lib/i18n';
import { useConnection } from '../lib/socket';
import { keptEvent, useEvents } from '../stores/events';
import { CalendarIcon } from './AppIcons';
import { ConfirmSheet, useSheetAction } from './Sheet';

/**
 * Whether the event has ended for the people in it (the after-party, or later): its status, by the
 * clock (`useEventStatus`), is no longer `open`; rendered again when the end comes.
 */
export function useEventEnded(event: PublicEvent | null | undefined): boolean {
  const status = useEventStatus(event);
  return status !== undefined && status !== 'open';
}

/**
 * The confirm step before leaving an event: coming back takes the event's code again, or for a QR
 * event a scan at the door; once the event has ended, there is no coming back (check-in is closed).
 */
export function LeaveEventSheet({ event, onClose }: { event: PublicEvent; onClose: () => void }) {
  const t = useT();
  const ti = useTi();
  const ended = useEventEnded(event);
  const { busy, error, run } = useSheetAction(useEvents((state) => state.leave), onClose);

  return (
    <ConfirmSheet
      title={ti('deck.event.leaveTitle', { name: event.name })}
      confirmLabel={t('deck.event.leaveConfirm')}
      cancelLabel={t('deck.event.stay')}
      busy={busy}
      error={error}
      onConfirm={run}
      onClose={onClose}
    >
      <p>{t(ended ? 'deck.event.leaveEnded' : event.join_mode === 'qr' ? 'deck.event.leaveQr' : 'deck.event.leaveCode')}</p>
    </ConfirmSheet>
  );
}

/** The way into an event, in the bar's words. */
function JoinWords() {
  const t = useT();
  return (
    <>
      <CalendarIcon className="event-bar-icon" />
      <span className="event-bar-text">
        <strong>{t('deck.event.join')}</strong>
        <span className="muted">{t('deck.event.joinHint')}</span>
      </span>
    </>
  );
}

/**
 * Above the deck: the event I am at, its live headcount and **Leave**; when I am at none (or its
 * after-party is over), the way into one. The live dot only while the event is open; after its end, that it has ended. With the
 * connection lost the headcount is the last one heard: the dot stays, greyed and still, not live.
 */
export function EventBar() {
  const t = useT();
  const language = useLanguage((state) => state.language);
  // Until the server says where I am, the event this device last knew me at, or the way into one when
  // it knew me at none: the bar is above the deck from the first paint, where its coming later (after
  // the deck's cards) pushed the card down. While neither knows, its room, held empty.
  const [kept] = useState(keptEvent);
  const known = useEvents((state) => state.current);
  const current = known === undefined ? kept : known;
  const [leaving, setLeaving] = useState(false);
  const status = useEventStatus(current);
  const ended = status !== 'open';
  const offline = useConnection((state) => state.lost);

  // Once known there is always a bar. Its room is the way in's (a new account is at no event, but for
  // a join it came with): its words, unseen, take the lines they will take in this language at this
  // width. An event's bar is as tall as its Leave button, a few pixels off the way in's.
  if (current === undefined) {
    return (
      <div className="event-bar event-bar-held" aria-hidden="true">
        <JoinWords />
      </div>
    );
  }
  // Past the after-party I am at no event: the attendance has lapsed on its own, with no news of it.
  if (current === null || status === 'closed') {
    return (
      <Link href="/app/events/" className="event-bar event-bar-join">
        <JoinWords />
      </Link>
    );
  }
  return (
    <div className="event-bar" role="region" aria-label={current.name}>
      {ended ? <CalendarIcon className="event-bar-icon" /> : <span className={offline ? 'live-dot is-stale' : 'live-dot'} aria-hidden="true" />}
      <span className="event-bar-text">
        {/* Its own direction, cut at its own end: an Arabic name clipped at its start read as another. */}
        <strong className="event-bar-name" dir="auto">
          {current.name}
        </strong>
        <span className="muted" aria-live="polite">
          {t(ended ? 'deck.event.ended' : 'deck.event.here', { count: formatCount(current.attendee_count, language) })}
        </span>
      </span>
      <button type="button" className="btn btn-light btn-small" onClick={() => setLeaving(true)}>
        {t('deck.event.leave')}
      </button>
      {leaving && <LeaveEventSheet event={current} onClose={() => setLeaving(false)} />}
    </div>
  );
}
