import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { useShallow } from 'zustand/react/shallow';
import type { ModerationReport } from '../../../../shared/schemas/safety';
import { ChevronRight } from '../../../components/AppIcons';
import { LoadMore } from '../../../components/LoadMore';
import { Loading } from '../../../components/Loading';
import { TryAgain } from '../../../components/Waiting';
import { errorMessage } from '../../../lib/errors';
import { formatAge } from '../../../lib/format';
import { useLanguage, useT } from '../../../lib/i18n';
import { useServerMinutes } from '../../../lib/server-clock';
import { refreshWhenVisible } from '../../../lib/when-visible';
import { useModeration } from '../../../stores/moderation';

const STATUSES = ['open', 'resolved'] as const;

/** The queue: open reports oldest first (the longest waiting first), or the resolved ones. */
export function Queue() {
  const t = useT();
  const language = useLanguage((state) => state.language);
  // How long ago, by the server's clock: said again once it is heard.
  useServerMinutes();
  const { status, queue, next, loading } = useModeration(
    useShallow((state) => ({ status: state.status, queue: state.queue, next: state.next, loading: state.loading })),
  );
  // What failed: the list's read (asked again with Try again) or its next page (with "Show more").
  const [failure, setFailure] = useState<{ error: string; read: boolean } | null>(null);

  function show(wanted: ModerationReport['status']) {
    setFailure(null);
    useModeration
      .getState()
      .load(wanted)
      .catch((caught: unknown) => setFailure({ error: errorMessage(caught, t), read: true }));
  }

  useEffect(() => {
    // Fresh on every visit, and each time the page comes back into view: other moderators work the same queue.
    show(useModeration.getState().status);
    return refreshWhenVisible(() => show(useModeration.getState().status));
  }, []);

  // A resolved report: what was decided, and how long ago (the resolved list's order). An open one: how
  // many reports its person has, and how long it has waited.
  const said = (report: ModerationReport) =>
    report.resolution
      ? t(report.resolution === 'ban' ? 'moderation.resolution.ban' : 'moderation.resolution.dismiss')
      : report.reported.id === null
        ? t('moderation.deleted')
        : t('moderation.count', { count: report.reported.report_count });
  const when = (report: ModerationReport) => report.resolved_at ?? report.created_at;

  function more() {
    setFailure(null);
    useModeration
      .getState()
      .loadMore()
      .catch((caught: unknown) => setFailure({ error: errorMessage(caught, t), read: false }));
  }

  return (
    <section className="page moderation">
      <h1>{t('moderation.title')}</h1>
      <div className="toggle" role="group" aria-label={t('moderation.queue')}>
        {STATUSES.map((value) => (
          <button key={value} type="button" className={status === value ? 'is-active' : ''} aria-pressed={status === value} onClick={() => show(value)}>
            {t(value === 'open' ? 'moderation.open' : 'moderation.resolved')}
          </button>
        ))}
      </div>
      {queue === null ? (
        failure ? null : <Loading />
      ) : queue.length === 0 ? (
        <p className="muted empty-text">{t(status === 'open' ? 'moderation.emptyOpen' : 'moderation.emptyResolved')}</p>
      ) : (
        <ul className="report-list">
          {queue.map((report) => (
            <li key={report.id}>
              <Link href={`/app/moderation/reports/${report.id}/`} className="report-row">
                <span className="report-row-text">
                  <span className="report-reason">{t(`safety.reason.${report.reason}`)}</span>
                  <span className="report-person">{report.reported.name || t('moderation.deleted')}</span>
                  {/* A report that came after the ban (from a chat it ended): nothing is left to decide but to close it. */}
                  {report.status === 'open' && report.reported.banned && <span className="banned-tag">{t('moderation.alreadyBanned')}</span>}
                  <span className="muted report-meta">
                    {said(report)} · <time dateTime={when(report)}>{formatAge(when(report), language)}</time>
                  </span>
                </span>
                <ChevronRight />
              </Link>
            </li>
          ))}
        </ul>
      )}
      <LoadMore error={failure?.error ?? null} hasMore={Boolean(next) && !failure?.read} loading={loading} label={t('moderation.more')} onMore={more} />
      {/* The queue could not be read (again): asked for again here, not only by its toggle; a page after the list held would not do. */}
      {failure?.read && <TryAgain onRetry={() => show(status)} />}
    </section>
  );
}
