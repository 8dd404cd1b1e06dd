import { Suspense, useState } from 'react';
import { toast } from '../../lib/toast';
import { Link } from 'wouter';
import type { BlockedUser } from '../../../shared/schemas/safety';
import { Avatar } from '../../components/Avatar';
import { ChevronLeft } from '../../components/AppIcons';
import { Loading } from '../../components/Loading';
import { LoadMore } from '../../components/LoadMore';
import { TryAgain } from '../../components/Waiting';
import { SafetyDialog } from '../../components/SafetyMenu';
import { ConfirmSheet, useSheetAction } from '../../components/Sheet';
import { formatDate } from '../../lib/format';
import { useLanguage, useMessages, useT, useTi, useTiText } from '../../lib/i18n';
import { useSafety, useSafetyList } from '../../stores/safety';
import { safetyMessages } from '../../lib/messages-safety';

function UnblockSheet({ person, onClose }: { person: BlockedUser; onClose: () => void }) {
  const t = useT();
  const ti = useTi();
  const { busy, error, run } = useSheetAction(async () => {
    await useSafety.getState().unblock(person.id);
    toast.success(ti('blocked.unblocked', { name: person.name }));
  }, onClose);

  return (
    <ConfirmSheet
      title={ti('blocked.unblockTitle', { name: person.name })}
      confirmLabel={t('blocked.unblock')}
      tone="primary"
      busy={busy}
      error={error}
      onConfirm={run}
      onClose={onClose}
    >
      <p>{t('blocked.unblockText')}</p>
    </ConfirmSheet>
  );
}

/**
 * /app/settings/blocked/: the people I blocked, newest first, each with Report and Unblock. Someone
 * blocked in a hurry (a fake or underage profile) can be reported afterwards, and stays blocked; one
 * with an open report says so instead of offering Report, as the ended chats do.
 */
export function Blocked() {
  useMessages(safetyMessages);
  const t = useT();
  const tiText = useTiText();
  const language = useLanguage((state) => state.language);
  const { items: blocked, next, loading, error, more, retry } = useSafetyList('blocked');
  const [confirming, setConfirming] = useState<BlockedUser | null>(null);
  const [reporting, setReporting] = useState<BlockedUser | null>(null);

  return (
    <section className="page blocked-page">
      <Link href="/app/settings/" className="back-link">
        <ChevronLeft /> {t('blocked.back')}
      </Link>
      <h1>{t('blocked.title')}</h1>
      <p className="muted">{t('blocked.intro')}</p>
      {blocked === null ? (
        error ? null : <Loading />
      ) : blocked.length === 0 ? (
        <p className="muted empty-text">{t('blocked.empty')}</p>
      ) : (
        <ul className="person-list">
          {blocked.map((person) => (
            <li key={person.id} className="person-row">
              <Avatar name={person.name} image={null} size={44} />
              <span className="person-text">
                <span className="person-name">
                  <bdi>{person.name}</bdi>
                </span>
                <span className="muted person-meta">
                  {person.reported ? t('blocked.reported') : t('blocked.since', { date: formatDate(person.blocked_at, language) })}
                </span>
              </span>
              <span className="person-actions">
                {/* Reported already: the report is with the moderators until they decide it. */}
                {!person.reported && (
                  <button type="button" className="btn btn-small btn-ghost" aria-label={tiText('safety.report.title', { name: person.name })} onClick={() => setReporting(person)}>
                    {t('safety.report')}
                  </button>
                )}
                <button type="button" className="btn btn-small btn-ghost" aria-label={tiText('blocked.unblockName', { name: person.name })} onClick={() => setConfirming(person)}>
                  {t('blocked.unblock')}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <LoadMore error={error} hasMore={Boolean(next)} loading={loading} label={t('blocked.more')} onMore={more} />
      {retry && <TryAgain onRetry={retry} />}
      {confirming && <UnblockSheet person={confirming} onClose={() => setConfirming(null)} />}
      {reporting && (
        <Suspense fallback={null}>
          <SafetyDialog
            action="report"
            person={{ id: reporting.id, name: reporting.name }}
            blocked
            onClose={() => setReporting(null)}
            onDone={() => setReporting(null)}
          />
        </Suspense>
      )}
    </section>
  );
}
