import { useEffect, useRef, useState } from 'react';
import type { EventStats } from '../../../shared/schemas/events';
import { Link, useLocation } from 'wouter';
import { EVENT_AFTER_PARTY_HOURS, EVENT_CHECK_IN_LEAD_MINUTES, type Language } from '../../../shared/constants';
import { ChevronLeft } from '../../components/AppIcons';
import { Loading } from '../../components/Loading';
import { Waiting } from '../../components/Waiting';
import { errorMessage } from '../../lib/errors';
import { formatDateTime } from '../../lib/format';
import { useLanguage, useMessages, useT } from '../../lib/i18n';
import { deleteHostedEvent, endHostedEvent, openHostScreen, useHost } from '../../stores/host';
import { EventCard, EventSummary } from './EventSummary';
import { eventsMessages } from '../../lib/messages-events';
import '../../events.css';

/** The timeline as a chart: the chart library loads only here, in a chunk of its own. */
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
  useEffect(() => {
    let remove: (() => void) | undefined;
    let gone = false;
    void import('../../lib/event-chart').then(({ drawEventChart }) => {
      if (gone || !box.current) return;
      remove = drawEventChart(box.current, timeline, labels, language);
      setDrawn(true);
    });
    return () => {
      gone = true;
      remove?.();
    };
  }, [timeline, labels.checkIns, labels.matches, language]);
  return (
    <div ref={box} className="event-chart" role="img" aria-label={`${labels.checkIns}, ${labels.matches}`} aria-busy={!drawn}>
      {!drawn && <p className="muted host-chart-loading">{labels.loading}</p>}
    </div>
  );
}

/** `/app/events/<id>/host/`: the screen an organizer puts up at the door. */
export function HostScreen({ id }: { id: number }) {
  useMessages(eventsMessages);
  const t = useT();
  const language = useLanguage((state) => state.language);
  const [, navigate] = useLocation();
  const event = useHost((state) => state.event);
  const qr = useHost((state) => state.qr);
  const count = useHost((state) => state.count);
  const stats = useHost((state) => state.stats);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => openHostScreen(id), [id]);

  if (event === undefined) return <Waiting offline="host.offline" />;
  if (event === null) return <p className="center-text muted">{t('profileView.notFound')}</p>;

  const act = async (work: () => Promise<void>) => {
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(errorMessage(failure, t));
    }
  };
  const live = count ?? event.attendee_count;
  const opensAt = new Date(Date.parse(event.starts_at) - EVENT_CHECK_IN_LEAD_MINUTES * 60_000).toISOString();
  const deckUntil = new Date(Date.parse(event.ends_at) + EVENT_AFTER_PARTY_HOURS * 3_600_000).toISOString();

  return (
    <div className="page host-page">
      <Link href="/app/events/" className="back-link">
        <ChevronLeft /> {t('events.title')}
      </Link>
      <h1 className="page-title">{event.name}</h1>
      <EventSummary event={{ ...event, attendee_count: live }} />

      {event.status === 'open' || event.status === 'upcoming' ? (
        <section className="host-door" aria-label={t('host.scan')}>
          <p className="host-scan">{t('host.scan')}</p>
          <div className="host-qr">
            {qr ? <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(qr.svg)}`} alt={qr.url} width={280} height={280} /> : <div className="host-qr-placeholder" aria-busy="true" />}
          </div>
          <p className="host-type muted">{t('host.typeCode')}</p>
          <p className="host-code" aria-label={event.code.split('').join(' ')}>
            {event.code}
          </p>
          {event.status === 'upcoming' && <p className="notice">{t('host.upcoming', { time: formatDateTime(opensAt, language) })}</p>}
        </section>
      ) : (
        // With the day: an end at 04:00 read on the same Saturday afternoon would seem long past.
        <p className="notice">{event.status === 'after' ? t('host.ended', { time: formatDateTime(deckUntil, language) }) : t('host.closed')}</p>
      )}

      <section className="host-live" aria-live="polite">
        <span className="host-live-number">{live}</span>
        <span className="host-live-label">
          <span className="live-dot" aria-hidden="true" /> {t('host.live')}
        </span>
      </section>

      <EventCard id="stats-title" title={t('host.stats')}>
        {stats ? (
          <>
            <dl className="host-stats">
              {(
                [
                  ['host.total', stats.checked_in_total],
                  ['host.likes', stats.likes],
                  ['host.matches', stats.matches],
                  ['host.conversations', stats.conversations_started],
                ] as const
              ).map(([label, value]) => (
                <div key={label}>
                  <dt>{t(label)}</dt>
                  <dd>{value}</dd>
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
        ) : (
          <Loading />
        )}
        <p className="muted host-privacy">{t('host.privacy')}</p>
      </EventCard>

      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="host-actions">
        {event.status === 'open' && (
          <button
            type="button"
            className="btn btn-light"
            onClick={() => {
              if (window.confirm(t('host.endConfirm'))) void act(() => endHostedEvent(id));
            }}
          >
            {t('host.end')}
          </button>
        )}
        {Date.parse(event.starts_at) > Date.now() && (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => {
              if (window.confirm(t('host.deleteConfirm'))) void act(async () => {
                await deleteHostedEvent(id);
                navigate('/app/events/');
              });
            }}
          >
            {t('host.delete')}
          </button>
        )}
      </div>
    </div>
  );
}
