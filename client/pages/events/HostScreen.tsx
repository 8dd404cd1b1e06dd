import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { EventQr, EventStats, OrganizerEvent } from '../../../shared/schemas/events';
import { Link, useLocation } from 'wouter';
import { EVENT_AFTER_PARTY_HOURS, type Language } from '../../../shared/constants';
import { checkInOpensAt } from '../../../shared/event-status';
import { ChevronLeft } from '../../components/AppIcons';
import { CloseIcon } from '../../components/Icons';
import { Loading } from '../../components/Loading';
import { ConfirmSheet, Sheet, useSheetAction } from '../../components/Sheet';
import { Offline, Waiting } from '../../components/Waiting';
import { useBackCloses } from '../../lib/back-closes';
import { useEventStatus } from '../../lib/event-status';
import { errorMessage } from '../../lib/errors';
import { formatCount, formatDateTime } from '../../lib/format';
import { reloadWhenServerAnswers } from '../../lib/new-build';
import { useLanguage, useMessages, useT, useTi, useTiText } from '../../lib/i18n';
import { serverNow } from '../../lib/server-clock';
import { useConnection } from '../../lib/socket';
import { toast } from '../../lib/toast';
import { enterEvent, useEvents } from '../../stores/events';
import { deleteHostedEvent, endHostedEvent, openHostScreen, useHost } from '../../stores/host';
import { useSession } from '../../stores/session';
import { EventCard, EventSummary } from './EventSummary';
import { SwitchEventSheet } from './SwitchEventSheet';
import { eventsMessages } from '../../lib/messages-events';
import { BusyButton } from '../../components/BusyButton';
import '../../events.css';

/**
 * The timeline as a chart: the chart library loads only here, in a chunk of its own. A tab of an older
 * build finds that chunk gone once a new one is out: it reloads into the new build once the server
 * answers (`reloadWhenServerAnswers`), the door's screen staying meanwhile; should it have reloaded
 * for a new build a moment ago, the error boundary says so, with Reload.
 */
function Timeline({
  timeline,
  labels,
  language,
}: {
  timeline: EventStats['timeline'];
  labels: { checkIns: string; matches: string; loading: string };
  language: Language;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState(false);
  const [, fail] = useState();
  useEffect(() => {
    let remove: (() => void) | undefined;
    let gone = false;
    let asking: { stop: () => void } | undefined;
    import('../../lib/event-chart').then(
      ({ drawEventChart }) => {
        if (gone || !box.current) return;
        remove = drawEventChart(box.current, timeline, labels, language);
        setDrawn(true);
      },
      (error: unknown) => {
        if (gone) return;
        asking = reloadWhenServerAnswers((answered) => {
          if (answered)
            fail(() => {
              throw error;
            });
        });
      },
    );
    return () => {
      gone = true;
      asking?.stop();
      remove?.();
    };
  }, [timeline, labels.checkIns, labels.matches, language]);
  return (
    <div ref={box} className="event-chart" role="img" aria-label={`${labels.checkIns}, ${labels.matches}`} aria-busy={!drawn}>
      {!drawn && <p className="muted host-chart-loading">{labels.loading}</p>}
    </div>
  );
}

/** Beside the headcount: live while the count can come, greyed and still once the connection is lost. */
function LiveDot() {
  const offline = useConnection((state) => state.lost);
  return <span className={offline ? 'live-dot is-stale' : 'live-dot'} aria-hidden="true" />;
}

/** A link only this computer can open: localhost or a loopback address (the server's default without PUBLIC_URL). */
function pointsHere(url: string): string | null {
  const { hostname, host } = new URL(url);
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname.startsWith('127.') || hostname === '[::1]' ? host : null;
}

/**
 * The event's QR (while it rotates, the newest) and its code for a code event. Before check-in opens
 * (`opens`, its time), that time comes first and the QR is faded: still there to print or to try (an
 * early scan is told when to come back), but not read as a way in already. Past its end with no newer
 * one (no network), it is struck through and said to let nobody in.
 */
function DoorCode({ event, qr, size, opens }: { event: OrganizerEvent; qr: EventQr | null; size: number; opens?: string }) {
  const t = useT();
  const tiText = useTiText();
  const expired = useHost((state) => state.qrExpired);
  return (
    <>
      {opens || expired ? <p className="notice">{opens ? t('host.upcoming', { time: opens }) : t('host.qrExpired')}</p> : <p className="host-scan">{t('host.scan')}</p>}
      <div className={opens ? 'host-qr host-qr-early' : expired ? 'host-qr host-qr-expired' : 'host-qr'}>
        {qr ? (
          <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(qr.svg)}`} alt={tiText('host.qrAlt', { name: event.name })} width={size} height={size} />
        ) : (
          <div className="host-qr-placeholder" aria-busy="true" />
        )}
      </div>
      {/* A QR event's code only finds its page: typing it in the app does not let anyone in. */}
      {event.join_mode === 'code' && (
        <>
          <p className="host-type muted">{t('host.typeCode')}</p>
          <p className="host-code" aria-label={event.code.split('').join(' ')}>
            {event.code}
          </p>
        </>
      )}
    </>
  );
}

/**
 * The door's QR and count alone, filling a projector or a phone held up to the queue: full screen
 * where the browser allows it, and above everything else of the app either way (no toast of a chat
 * message shows over it). The screen is kept awake while it shows. Escape, leaving full screen and
 * the back gesture close it.
 */
function BigScreen({
  event,
  qr,
  live,
  closed,
  opens,
  onClose,
}: {
  event: OrganizerEvent;
  qr: EventQr | null;
  /** null: no count to show (the event is gone). */
  live: number | null;
  /** What the door says in place of its code once there is no way in (ended or deleted from another screen). */
  closed: string | null;
  opens?: string;
  onClose: () => void;
}) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const box = useRef<HTMLDivElement>(null);
  useBackCloses(true, () => {
    onClose();
    return true;
  });
  useEffect(() => {
    const element = box.current;
    let wakeLock: WakeLockSentinel | null = null;
    let released = false;
    // The browser lets the lock go whenever the tab is hidden (another app, the screen off): taken
    // again each time it is back in view, as long as the big screen shows.
    const keepAwake = () => {
      if (released || document.visibilityState !== 'visible' || (wakeLock && !wakeLock.released)) return;
      void navigator.wakeLock?.request('screen').then(
        (lock) => (released ? void lock.release() : (wakeLock = lock)),
        () => {},
      );
    };
    keepAwake();
    document.addEventListener('visibilitychange', keepAwake);
    // Leaving full screen (Escape, the browser's own gesture) closes the big screen too.
    const onChange = () => {
      if (!document.fullscreenElement) onClose();
    };
    if (element && document.fullscreenEnabled) {
      element.requestFullscreen().then(
        // Closed before the browser went full screen: out again at once.
        () => (released ? void document.exitFullscreen().catch(() => {}) : document.addEventListener('fullscreenchange', onChange)),
        () => {},
      );
    }
    const onKey = (keyboard: KeyboardEvent) => {
      if (keyboard.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      released = true;
      void wakeLock?.release();
      document.removeEventListener('visibilitychange', keepAwake);
      document.removeEventListener('fullscreenchange', onChange);
      document.removeEventListener('keydown', onKey);
      if (document.fullscreenElement) void document.exitFullscreen().catch(() => {});
    };
  }, [onClose]);

  return (
    <div ref={box} className="host-big" role="dialog" aria-modal="true" aria-label={event.name}>
      {/* The dialog's one control takes the focus: Enter or Escape closes it. */}
      <button type="button" className="icon-btn host-big-close" aria-label={t('host.presentClose')} onClick={onClose} autoFocus>
        <CloseIcon />
      </button>
      <h2 dir="auto">{event.name}</h2>
      {/* Ended or deleted from another screen while this one stood at the door: no more ways in. */}
      {closed ? <p className="host-scan">{closed}</p> : <DoorCode event={event} qr={qr} size={560} opens={opens} />}
      {live !== null && (
        <p className="host-big-count" aria-live="polite">
          <LiveDot /> {formatCount(live, language)} {t('host.live')}
        </p>
      )}
    </div>
  );
}

/**
 * The event's public page, through the phone's share sheet where there is one (the organizer's chat
 * apps), else copied: a link anyone can open, that shows the event and never who is there. Resolves
 * false when neither could be done (no clipboard for a page whose address is not secure).
 */
async function shareEventLink(event: OrganizerEvent, url: string, copied: string): Promise<boolean> {
  if (navigator.share) {
    // Closing the share sheet rejects: nothing to say.
    await navigator.share({ title: event.name, url }).catch(() => {});
    return true;
  }
  try {
    await navigator.clipboard.writeText(url);
    toast.success(copied);
    return true;
  } catch {
    return false;
  }
}

/** The link itself, selected, to copy by hand where the page could neither share nor copy it. */
function LinkSheet({ url, onClose }: { url: string; onClose: () => void }) {
  const t = useT();
  const titleId = useId();
  return (
    <Sheet labelledBy={titleId} onClose={onClose}>
      <h2 id={titleId}>{t('host.linkTitle')}</h2>
      <p>{t('host.linkText')}</p>
      <input className="event-link" readOnly value={url} aria-labelledby={titleId} data-autofocus onFocus={(focus) => focus.currentTarget.select()} />
      <button type="button" className="btn btn-ghost-muted btn-block" onClick={onClose}>
        {t('host.close')}
      </button>
    </Sheet>
  );
}

function EndSheet({ event, onClose }: { event: OrganizerEvent; onClose: () => void }) {
  const t = useT();
  const ti = useTi();
  const { busy, error, run } = useSheetAction(() => endHostedEvent(event.id), onClose);
  return (
    <ConfirmSheet
      title={ti('host.endTitle', { name: event.name })}
      confirmLabel={t('host.end')}
      cancelLabel={t('host.cancel')}
      busy={busy}
      error={error}
      onConfirm={run}
      onClose={onClose}
    >
      <p>{t('host.endText', { hours: EVENT_AFTER_PARTY_HOURS })}</p>
    </ConfirmSheet>
  );
}

function DeleteSheet({ event, onClose }: { event: OrganizerEvent; onClose: () => void }) {
  const t = useT();
  const ti = useTi();
  const [, navigate] = useLocation();
  const { busy, error, run } = useSheetAction(async () => {
    await deleteHostedEvent(event.id);
    toast.success(t('host.deleted'));
    // In its place: Back does not come back to an event that is gone.
    navigate('/app/events/', { replace: true });
  }, onClose);
  return (
    <ConfirmSheet
      title={ti('host.deleteTitle', { name: event.name })}
      confirmLabel={t('host.delete')}
      cancelLabel={t('host.cancel')}
      busy={busy}
      error={error}
      onConfirm={run}
      onClose={onClose}
    >
      <p>{t('host.deleteText')}</p>
    </ConfirmSheet>
  );
}

/**
 * The organizer into their own event's deck: the code alone lets them in (no scan of their own screen).
 * From another event, asked first, as a typed code is; once in, the way to the deck, kept through the
 * after-party (`ended`), when no one can come in any more but the deck stays open to those inside.
 */
function JoinMyself({ event, ended }: { event: OrganizerEvent; ended: boolean }) {
  const t = useT();
  const [, navigate] = useLocation();
  const current = useEvents((state) => state.current);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function join() {
    setBusy(true);
    setError(null);
    try {
      // An organizer with no dating profile yet writes it first; the check-in waits for it.
      await enterEvent(event.code, event.name);
      navigate('/app/home/');
    } catch (failure) {
      setError(errorMessage(failure, t));
      setAsking(false);
      setBusy(false);
    }
  }

  if (current?.id === event.id) {
    return (
      <Link href="/app/home/" className="btn btn-primary">
        {t('events.current.deck')}
      </Link>
    );
  }
  if (ended) return null;
  return (
    <>
      <BusyButton type="button" className="btn btn-primary" busy={busy} onClick={() => (current ? setAsking(true) : void join())}>
        {t('host.joinMyself')}
      </BusyButton>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {asking && current && <SwitchEventSheet current={current} target={event} busy={busy} onConfirm={() => void join()} onClose={() => setAsking(false)} />}
    </>
  );
}

/** `/app/events/<id>/host/`: the screen an organizer puts up at the door. */
export function HostScreen({ id }: { id: number }) {
  useMessages(eventsMessages);
  const t = useT();
  const language = useLanguage((state) => state.language);
  const event = useHost((state) => state.event);
  const deleted = useHost((state) => state.deleted);
  const qr = useHost((state) => state.qr);
  const qrHere = qr && pointsHere(qr.url);
  const count = useHost((state) => state.count);
  const stats = useHost((state) => state.stats);
  const failed = useHost((state) => state.failed);
  const statsFailed = useHost((state) => state.statsFailed);
  const unverified = useSession((state) => state.user?.email_verified === false);
  const [sheet, setSheet] = useState<'end' | 'delete' | null>(null);
  const [big, setBig] = useState(false);
  const [linkShown, setLinkShown] = useState(false);
  const presentButton = useRef<HTMLButtonElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // Closed, the big screen gives the keyboard's place back to the button that opened it; to the page's
  // heading once the event ended under it and took the door, that button with it.
  const closeBig = useCallback(() => {
    setBig(false);
    requestAnimationFrame(() => (presentButton.current ?? heading.current)?.focus());
  }, []);
  // By the clock (the server's, once a code has come): a host screen left open at the door turns to
  // the after-party at the end, and offers the delete no more from the start.
  const status = useEventStatus(event);

  // Try again opens the screen afresh.
  const [attempt, setAttempt] = useState(0);
  useEffect(() => openHostScreen(id), [id, attempt]);

  // In the width of the door's layout on a laptop (events.css), so that the page does not widen under
  // the host as the event comes.
  if (event === undefined) {
    return (
      <div className="host-waiting">
        {failed ? <Offline text={t('error.generic')} onRetry={() => setAttempt(attempt + 1)} /> : <Waiting offline="host.offline" />}
      </div>
    );
  }
  if (event === null) {
    return (
      <div className="page host-page">
        <Link href="/app/events/" className="back-link">
          <ChevronLeft /> {t('events.title')}
        </Link>
        <p className="center-text muted">{t('host.notFound')}</p>
      </div>
    );
  }

  // Past the after-party no one is checked in (their attendances lapse with no news pushed), whatever came last.
  const live = status === 'closed' ? 0 : count ?? event.attendee_count;
  // Still to come or going on: the door (its code, the big screen) and the edit are offered.
  const doorOpen = status === 'open' || status === 'upcoming';
  const eventUrl = new URL(`/e/${event.code}`, window.location.origin).href;
  /** Before check-in opens, when it does: said over the QR, here and on the big screen. */
  const opens = status === 'upcoming' ? formatDateTime(checkInOpensAt(Date.parse(event.starts_at)), language) : undefined;
  const deckUntil = new Date(Date.parse(event.ends_at) + EVENT_AFTER_PARTY_HOURS * 3_600_000).toISOString();

  return (
    <div className="page host-page">
      <Link href="/app/events/" className="back-link">
        <ChevronLeft /> {t('events.title')}
      </Link>
      <h1 ref={heading} className="page-title" dir="auto" tabIndex={-1}>
        {event.name}
      </h1>
      {/* Deleted (from another of the organizer's screens, or this one): said here, and on the big screen
          to the queue if it shows, in place of a code that lets no one in. */}
      {deleted ? (
        <p className="notice" role="status">
          {t('host.deletedNotice')}
        </p>
      ) : (
        <>
          <EventSummary event={event} count={false} />
          {/* Only while its door opens: the event's page (where, when, and for a code event the way in), and the edit. */}
          {doorOpen && (
            <div className="host-tools">
              <button
                type="button"
                className="btn btn-light btn-small"
                onClick={() => void shareEventLink(event, eventUrl, t('host.linkCopied')).then((done) => done || setLinkShown(true))}
              >
                {t('host.share')}
              </button>
              <Link href={`/app/events/${event.id}/edit/`} state={{ from: 'host' }} className="btn btn-light btn-small">
                {t('host.edit')}
              </Link>
            </div>
          )}

          {doorOpen ? (
            <section className="host-door" aria-label={t('host.scan')}>
              <DoorCode event={event} qr={qr} size={280} opens={opens} />
              {/* For the organizer only: the big screen by the door is for the guests. Under the QR: it
                  comes with the QR's answer, and above it took the QR down as it was drawn. */}
              {qrHere && <p className="notice">{t('host.qrLocal', { host: qrHere })}</p>}
              {/* Until then the server counts its guests' sign-ups per address, as the venue's one Wi-Fi address. */}
              {unverified && event.join_mode === 'qr' && <p className="notice">{t('host.verifyDoor')}</p>}
            </section>
          ) : (
            // With the day: an end at 04:00 read on the same Saturday afternoon would seem long past.
            <p className="notice">{status === 'after' ? t('host.ended', { time: formatDateTime(deckUntil, language) }) : t('host.closed')}</p>
          )}

          {/* Over, no one is inside to count: the notice says so, and the stats stay. */}
          {status !== 'closed' && (
            <section className="host-live" aria-live="polite">
              <span className="host-live-number">{formatCount(live, language)}</span>
              <span className="host-live-label">
                <LiveDot /> {t('host.live')}
              </span>
            </section>
          )}

          {/* Under the count, not in the door: a phone held up to the queue shows the QR, the code and the count at once. */}
          {status !== 'closed' && (
            <div className="host-door-actions">
              {doorOpen && (
                <button ref={presentButton} type="button" className="btn btn-light" onClick={() => setBig(true)}>
                  {t('host.present')}
                </button>
              )}
              {status !== 'upcoming' && <JoinMyself event={event} ended={status === 'after'} />}
            </div>
          )}

          {status !== 'upcoming' && (
          <EventCard id="stats-title" title={t(status === 'open' ? 'host.stats' : 'host.statsEnded')}>
            {stats ? (
              <>
                <dl className="host-stats">
                  {(
                    [
                      // The stats come up to ten seconds after the live count: everyone inside has checked in.
                      ['host.total', Math.max(stats.checked_in_total, live)],
                      ['host.likes', stats.likes],
                      ['host.matches', stats.matches],
                      ['host.conversations', stats.conversations_started],
                    ] as const
                  ).map(([label, value]) => (
                    <div key={label}>
                      <dt>{t(label)}</dt>
                      <dd>{formatCount(value, language)}</dd>
                    </div>
                  ))}
                </dl>
                <h3 className="host-timeline-title">{t('host.timeline')}</h3>
                {stats.timeline.length === 0 ? (
                  <p className="muted">{t('host.noTimeline')}</p>
                ) : (
                  <Timeline timeline={stats.timeline} language={language} labels={{ checkIns: t('host.checkIns'), matches: t('host.matches'), loading: t('host.chartLoading') }} />
                )}
              </>
            ) : statsFailed ? (
              <p className="muted">{t('host.statsFailed')}</p>
            ) : (
              <Loading />
            )}
            <p className="muted host-privacy">{t('host.privacy')}</p>
          </EventCard>
          )}

          <div className="host-actions">
            {status === 'open' && (
              <button type="button" className="btn btn-light" onClick={() => setSheet('end')}>
                {t('host.end')}
              </button>
            )}
            {Date.parse(event.starts_at) > serverNow() && (
              <button type="button" className="btn btn-ghost" onClick={() => setSheet('delete')}>
                {t('host.delete')}
              </button>
            )}
          </div>
        </>
      )}
      {sheet === 'end' && <EndSheet event={event} onClose={() => setSheet(null)} />}
      {sheet === 'delete' && <DeleteSheet event={event} onClose={() => setSheet(null)} />}
      {linkShown && <LinkSheet url={eventUrl} onClose={() => setLinkShown(false)} />}
      {/* Kept open (and full screen) as the event changes or goes: the door's screen is the queue's. */}
      {big && (
        <BigScreen
          event={event}
          qr={qr}
          live={deleted || status === 'closed' ? null : live}
          closed={deleted ? t('host.bigDeleted') : doorOpen ? null : t('host.bigEnded')}
          opens={opens}
          onClose={closeBig}
        />
      )}
    </div>
  );
}
