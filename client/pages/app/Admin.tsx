import { lazy, Suspense, useEffect, useState } from 'react';
import type { AnalyticsDay, AnalyticsSummary } from '../../../shared/schemas/analytics';
import '../../account.css';
import type { ActivitySeries } from '../../components/ActivityChart';
import { Loading } from '../../components/Loading';
import { http, NotFound as NotFoundError } from '../../lib/api';
import { errorMessage } from '../../lib/errors';
import { t as translate, useMessages } from '../../lib/i18n';
import { settingsMessages } from '../../lib/messages-settings';
import { useAuthForm } from '../../lib/use-auth-form';
import { useSession } from '../../stores/session';
import { NotFound } from '../NotFound';

/** The moderators' counts, a row a UTC day: here, not in `api-account.ts`, which every attendee's app loads. */
const analyticsSummary = (days: number) => http.get<AnalyticsSummary>(`/api/analytics/summary/${http.query({ days })}`);

// The chart library arrives only when a moderator opens this page.
const ActivityChart = lazy(() => import('../../components/ActivityChart').then((module) => ({ default: module.ActivityChart })));

const DAYS = 30;

/** Moderators' daily activity (first-party analytics); anyone else finds nothing here. */
export function Admin() {
  useMessages(settingsMessages);
  const { t } = useAuthForm();
  const user = useSession((state) => state.user);
  const [days, setDays] = useState<AnalyticsDay[] | null>(null);
  const [problem, setProblem] = useState<'hidden' | string | null>(null);

  useEffect(() => {
    if (!user?.is_moderator) return;
    let current = true;
    analyticsSummary(DAYS).then(
      (summary) => current && setDays(summary.days),
      (error: unknown) => current && setProblem(error instanceof NotFoundError ? 'hidden' : errorMessage(error, translate)),
    );
    return () => {
      current = false;
    };
  }, [user?.is_moderator]);

  if (user === undefined) return <Loading />;
  if (!user?.is_moderator || problem === 'hidden') return <NotFound inApp />;

  const series: ActivitySeries[] = [
    { key: 'signups', label: t('admin.signups'), color: '#be123c' },
    { key: 'logins', label: t('admin.logins'), color: '#2563eb' },
    { key: 'active_users', label: t('admin.activeUsers'), color: '#15803d' },
    { key: 'matches', label: t('admin.matches'), color: '#f97316' },
    { key: 'messages', label: t('admin.messages'), color: '#7c3aed' },
  ];

  return (
    <div className="settings admin-page">
      <h1>{t('admin.title')}</h1>
      <p className="muted">{t('admin.subtitle', { days: DAYS })}</p>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {!days && !problem && <Loading />}
      {days && (
        <>
          <section className="settings-card">
            <Suspense fallback={<Loading />}>
              <ActivityChart days={days} series={series} label={t('admin.chart')} />
            </Suspense>
          </section>
          {/* It scrolls sideways on a phone: focusable, so that the keys can scroll it too. */}
          <section className="settings-card admin-table-wrap" tabIndex={0} aria-labelledby="admin-table-caption">
            <table className="admin-table">
              <caption id="admin-table-caption" className="sr-only">
                {t('admin.table')}
              </caption>
              <thead>
                <tr>
                  <th scope="col">{t('admin.date')}</th>
                  {series.map((each) => (
                    <th key={each.key} scope="col">
                      {each.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {[...days].reverse().map((day) => (
                  <tr key={day.date}>
                    <th scope="row">{day.date}</th>
                    {series.map((each) => (
                      <td key={each.key}>{day[each.key]}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </div>
  );
}
