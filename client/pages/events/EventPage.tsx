import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, Router, useLocation, useSearch } from 'wouter';
import { afterOverlays } from '../../lib/back-closes';
import { JOIN_PASS_MINUTES } from '../../../shared/constants';
import { normalizeEventCode } from '../../../shared/event-code';
import { checkInOpensAt } from '../../../shared/event-status';
import type { PublicEvent } from '../../../shared/schemas/events';
import { AuthLayout } from '../../components/AuthLayout';
import { ApiError, mayPass, NotFound as NotFoundError } from '../../lib/api';
import { api } from '../../lib/api-app';
import { errorMessage } from '../../lib/errors';
import { useEventStatus } from '../../lib/event-status';
import { formatDateTime } from '../../lib/format';
import { useLanguage, useMessages, useT } from '../../lib/i18n';
import { clearPendingJoin, getPendingJoin, setPendingJoin, waitsForProfile } from '../../lib/pending-join';
import { heardServerTime } from '../../lib/server-clock';
import { useSession } from '../../stores/session';
import { EventSummary } from './EventSummary';
import { SwitchEventSheet } from './SwitchEventSheet';
import { eventsMessages } from '../../lib/messages-events';
import { BusyButton } from '../../components/BusyButton';
import '../../events.css';

/** How often the public page's headcount is read again while it is on screen (no socket before login). */
const COUNT_REFRESH_MS = 30_000;

/**
 * The event, read for its page, with the server's time it says taken for the app's clock: a visitor
 * not signed in reads no other, and their phone's may be minutes off (the event open, or over, when
 * the server has it otherwise).
 */
async function readEvent(code: string): Promise<PublicEvent> {
  const sent = Date.now();
  const { now, ...event } = await api.event(code);
  heardServerTime(Date.parse(now), sent);
  return event;
}

/**
 * `/e/<code>`: the event's public page. With `?t=` (the QR at the door), its first act,
 * before any login, is to exchange the token for a join pass, kept through registration, login and
 * profile completion; a signed-in guest is checked in at once and taken to the event's deck. In a
 * router of its own: its navigations wait for a sheet's history entry to go (`afterOverlays`).
 */
export function EventPage({ code }: { code: string }) {
  return (
    <Router aroundNav={afterOverlays}>
      <EventPageBody code={code} />
    </Router>
  );
}

function EventPageBody({ code: rawCode }: { code: string }) {
  useMessages(eventsMessages);
  const t = useT();
  const language = useLanguage((state) => state.language);
  const code = normalizeEventCode(decodeURIComponent(rawCode));
  const search = useSearch();
  const [, navigate] = useLocation();
  const signedIn = useSession((state) => Boolean(state.token));
  // The logo leads someone signed in back into the app, which this page is outside of.
  const home = signedIn ? '/app/home/' : '/';
  const [event, setEvent] = useState<PublicEvent | null | undefined>(undefined);
  const [hasPass, setHasPass] = useState(() => Boolean(getPendingJoin()?.pass && getPendingJoin()?.code === code));
  const [notice, setNotice] = useState<string | null>(null);
  /**
   * Why this visitor has to scan at the door (the QR token or the pass refused): said instead of "scan
   * to join", and only when that is what stands between them and the event.
   */
  const [scanNotice, setScanNotice] = useState<string | null>(null);
  const [joining, setJoining] = useState(false);
  /** The event a signed-in visitor is at: this one, or another, which Join says first that it leaves. */
  const [at, setAt] = useState<PublicEvent | null>(null);
  const here = at?.code === code;
  const elsewhere = here ? null : at;
  const [switching, setSwitching] = useState(false);
  /** Bumped by "Try again": the page's loading (the QR token's exchange first) runs once for each. */
  const [attempt, setAttempt] = useState(0);
  const [retryable, setRetryable] = useState(false);
  const ranFor = useRef(-1);

  // The name, not the event read again for its count every few seconds: what the kept join carries.
  const eventName = event?.name;
  const join = useCallback(async () => {
    setJoining(true);
    setNotice(null);
    setScanNotice(null);
    try {
      if (await waitsForProfile(code, eventName)) return navigate('/app/profile/');
      const pending = getPendingJoin();
      await api.checkIn(code, pending?.code === code && pending.pass ? { pass: pending.pass } : {});
      clearPendingJoin();
      // The app reads the current event and its deck when it opens.
      navigate('/app/home/');
    } catch (error) {
      const refusal = error instanceof ApiError ? error.code : null;
      // Refused for good: nothing is kept for the app to try again each time it opens.
      if (refusal === 'qr_required' || refusal === 'ended' || refusal === 'not_open') clearPendingJoin();
      if (refusal === 'qr_required') {
        // The pass did not get them in, and will not: no Join that fails again, the door instead.
        setHasPass(false);
        setScanNotice(errorMessage(error, t));
      } else {
        setNotice(errorMessage(error, t));
      }
      // Ended or not open yet, though the page said open: the page says what it is now.
      if (refusal === 'ended' || refusal === 'not_open') readEvent(code).then(setEvent, () => undefined);
      setJoining(false);
    }
  }, [code, eventName, language, navigate, t]);

  useEffect(() => {
    if (ranFor.current === attempt) return;
    ranFor.current = attempt;
    const token = new URLSearchParams(search).get('t');
    /** No answer, or a server not up: the page offers to try again (the scan with it, while it is good). */
    const unreachable = (error: unknown) => {
      setNotice(errorMessage(error, t));
      setRetryable(true);
    };
    void (async () => {
      let passNow = false;
      if (token) {
        // First, before anything else: the token is good for a minute or two, the pass for 30 minutes.
        try {
          const sent = Date.now();
          const granted = await api.eventPass(code, token);
          heardServerTime(Date.parse(granted.expires_at) - granted.expires_in_ms, sent);
          // Kept for as long as the server says from now, by this phone's clock, which may be minutes
          // off the server's: its `expires_at` read here would drop a pass still good, or keep one gone.
          setPendingJoin({ code, pass: granted.pass, expiresAt: Date.now() + granted.expires_in_ms });
          setHasPass(true);
          passNow = true;
        } catch (error) {
          // The token stays in the address bar for "Try again": a walk back to the door is worse. So
          // when the server is busy, or the crowd behind the venue's one address used up its passes.
          if (mayPass(error)) return unreachable(error);
          if (!(error instanceof NotFoundError)) setScanNotice(errorMessage(error, t));
        }
        // The token has done its job; a reload must not try it again once it has expired.
        navigate(`/e/${code}`, { replace: true });
      }
      // Where a signed-in visitor is, asked beside the event and shown with it: someone checked in
      // here never sees, even for a moment, how to get in.
      const where = useSession.getState().token ? api.currentEvent().catch(() => null) : Promise.resolve(null);
      let found: PublicEvent;
      try {
        found = await readEvent(code);
      } catch (error) {
        if (error instanceof NotFoundError) setEvent(null);
        else unreachable(error);
        return;
      }
      const visitorAt = (await where)?.event ?? null;
      const isHere = visitorAt?.code === code;
      setAt(visitorAt);
      setEvent(found);
      // Scanned at the door while signed in: that was the whole gesture, unless it leaves another event
      // (a wrong poster, a friend's photo of one): that is asked first, as Join asks; so is the join kept
      // through a login that found them at another event (`joinPendingEvent`). A visitor not signed in
      // keeps the pass for the sign-up the page offers.
      if (isHere || !useSession.getState().token) return;
      if (visitorAt && (passNow || getPendingJoin()?.code === code)) setSwitching(true);
      else if (passNow) await join();
    })();
  }, [attempt, code, join, language, navigate, search, t]);

  const tryAgain = () => {
    setNotice(null);
    setRetryable(false);
    setAttempt((current) => current + 1);
  };
  const retryButton = retryable && (
    <div className="event-actions">
      <button type="button" className="btn btn-primary btn-block" onClick={tryAgain}>
        {t('eventPage.retry')}
      </button>
    </div>
  );

  useEffect(() => {
    if (!event) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== 'visible') return;
      readEvent(code).then(setEvent, () => undefined);
    }, COUNT_REFRESH_MS);
    return () => clearInterval(timer);
  }, [code, event]);

  /**
   * Signing up or in first: the event is remembered (with its pass, when there is one), in the place of
   * one kept from another event's page, left without joining: this is the one they set out to join now.
   */
  const remember = () => {
    if (getPendingJoin()?.code !== code) setPendingJoin({ code, name: eventName, expiresAt: Date.now() + JOIN_PASS_MINUTES * 60_000 });
  };
  // The scan's pass, kept before the event was read, is kept under its name too.
  useEffect(() => {
    const pending = getPendingJoin();
    if (eventName && pending?.code === code) setPendingJoin({ ...pending, name: eventName });
  }, [eventName]);

  // By the clock between the page's reads: Join appears the moment check-in opens.
  const status = useEventStatus(event);
  // A join is kept only for an event open to it: one not open (yet, or any more), or gone, would
  // bring the app back to this page each time it opens, or greet it with a refusal.
  useEffect(() => {
    if ((event === null || (status && status !== 'open')) && getPendingJoin()?.code === code) clearPendingJoin();
  }, [code, event, status]);

  if (event === undefined && !notice) return <div className="page-loading" aria-busy="true" />;
  if (event === null || event === undefined) {
    return (
      <AuthLayout title={t('events.title')} home={home}>
        <p className="notice" role="alert">
          {notice ?? t('eventPage.notFound')}
        </p>
        {retryButton}
        {/* A mistyped or old code: another one (typed on the events page), or the home page. */}
        {!notice && (
          <div className="event-actions">
            <Link href={signedIn ? '/app/events/' : '/'} className="btn btn-primary btn-block">
              {t(signedIn ? 'eventPage.otherCode' : 'notFound.link')}
            </Link>
          </div>
        )}
      </AuthLayout>
    );
  }

  const open = status === 'open';
  const canJoin = open && (event.join_mode === 'code' || hasPass);
  // One thing said at a time. Checked in here: only that (a stale QR link, the after-party's "ended"
  // and "scan to join" are all beside the point). Not open: only when it opens, or that it has ended
  // (scanning again would not help). Open but QR only: why a scan is needed, once. Open to them: how
  // to join, and what went wrong the last time they tried.
  return (
    <AuthLayout title={event.name} home={home} named>
      <EventSummary event={event} />
      {!here && open && notice && (
        <p className="notice" role="alert">
          {notice}
        </p>
      )}
      {retryButton}
      {!here && !open && (
        <p className="notice">
          {status === 'upcoming'
            ? t('eventPage.notOpen', { time: formatDateTime(checkInOpensAt(Date.parse(event.starts_at)), language) })
            : t('eventPage.ended')}
        </p>
      )}
      {!here &&
        open &&
        !canJoin &&
        (scanNotice ? (
          <p className="notice" role="alert">
            {scanNotice}
          </p>
        ) : (
          <p className="notice">{t('eventPage.qrOnly')}</p>
        ))}
      {/* Shared ahead of the night, or a QR event's page without its scan: the account and the profile
          can be ready before the doors open, or before the scan, which then takes one tap. */}
      {!signedIn && (status === 'upcoming' || (open && !canJoin)) && (
        <div className="event-actions">
          {status === 'upcoming' && <p className="muted">{t('eventPage.getReady')}</p>}
          <AccountLinks signup={t('eventPage.signupEarly')} />
        </div>
      )}
      {here ? (
        <div className="event-actions">
          <p className="muted">{t('eventPage.youAreIn')}</p>
          <Link href="/app/home/" className="btn btn-primary btn-block">
            {t('eventPage.toDeck')}
          </Link>
        </div>
      ) : signedIn ? (
        <div className="event-actions">
          {canJoin && (
            <BusyButton type="button" className="btn btn-primary btn-block" busy={joining} onClick={() => (elsewhere ? setSwitching(true) : void join())}>
              {joining ? t('eventPage.joining') : t('eventPage.join')}
            </BusyButton>
          )}
          {canJoin && switching && elsewhere && (
            <SwitchEventSheet
              current={elsewhere}
              target={event}
              busy={joining}
              onConfirm={() => {
                setSwitching(false);
                void join();
              }}
              onClose={() => {
                // Staying where they are: a scan or a login's kept join is not asked about again (the
                // app would bring them back here; another scan at this door will be), and they go back
                // to the deck they stay in, not to this page telling them to scan.
                const asked = getPendingJoin()?.code === code;
                setSwitching(false);
                clearPendingJoin();
                setHasPass(false);
                if (asked) navigate('/app/home/', { replace: true });
              }}
            />
          )}
          {/* Outside the app, and its navigation: the way back into it. */}
          <Link href="/app/home/" className="btn btn-ghost btn-block">
            {t('eventPage.back')}
          </Link>
        </div>
      ) : (
        canJoin && (
          <div className="event-actions">
            {hasPass && <p className="muted">{t('eventPage.passKept')}</p>}
            <AccountLinks signup={t('eventPage.signup')} onClick={remember} />
          </div>
        )
      )}
    </AuthLayout>
  );
}

/** Where the sign-up and log-in pages were opened from: their Back returns here (AuthFormFooter). */
const FROM_EVENT = { from: 'event' };

/** Sign up, or log in: `onClick` first keeps the event to join once that is done. */
function AccountLinks({ signup, onClick }: { signup: string; onClick?: () => void }) {
  const t = useT();
  return (
    <>
      <Link href="/register/" state={FROM_EVENT} className="btn btn-primary btn-block" onClick={onClick}>
        {signup}
      </Link>
      <Link href="/login/" state={FROM_EVENT} className="btn btn-ghost btn-block" onClick={onClick}>
        {t('eventPage.login')}
      </Link>
    </>
  );
}
