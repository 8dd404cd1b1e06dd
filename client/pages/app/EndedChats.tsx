import { Suspense, useState } from 'react';
import { Link } from 'wouter';
import { ENDED_CHAT_KEPT_DAYS } from '../../../shared/constants';
import type { EndedChat } from '../../../shared/schemas/safety';
import { Avatar } from '../../components/Avatar';
import { ChevronLeft } from '../../components/AppIcons';
import { Loading } from '../../components/Loading';
import { LoadMore } from '../../components/LoadMore';
import { TryAgain } from '../../components/Waiting';
import { SafetyDialog } from '../../components/SafetyMenu';
import { formatDate } from '../../lib/format';
import { useLanguage, useMessages, useT, useTiText } from '../../lib/i18n';
import { safetyMessages } from '../../lib/messages-safety';
import { useSafetyList } from '../../stores/safety';

/**
 * /app/settings/ended/: my chats that ended lately, however they ended, each with Report. Someone who
 * blocks or unmatches right after what they wrote or did in person is still within reach of a report
 * while the chat's messages are kept for one.
 */
export function EndedChats() {
  useMessages(safetyMessages);
  const t = useT();
  const tiText = useTiText();
  const language = useLanguage((state) => state.language);
  const { items: chats, next, loading, error, more, retry } = useSafetyList('ended');
  const [reporting, setReporting] = useState<EndedChat | null>(null);

  const days = { days: ENDED_CHAT_KEPT_DAYS };
  return (
    <section className="page ended-page">
      <Link href="/app/settings/" className="back-link">
        <ChevronLeft /> {t('ended.back')}
      </Link>
      <h1>{t('ended.title')}</h1>
      <p className="muted">{t('ended.intro', days)}</p>
      {chats === null ? (
        error ? null : <Loading />
      ) : chats.length === 0 ? (
        <p className="muted empty-text">{t('ended.empty', days)}</p>
      ) : (
        <ul className="person-list">
          {chats.map((chat) => (
            <li key={chat.id} className="person-row">
              <Avatar name={chat.name} image={null} size={44} />
              <span className="person-text">
                <span className="person-name">
                  <bdi>{chat.name}</bdi>
                </span>
                <span className="muted person-meta">
                  {chat.reported ? t('ended.reported') : t('ended.since', { date: formatDate(chat.ended_at, language) })}
                </span>
              </span>
              {!chat.reported && (
                <button
                  type="button"
                  className="btn btn-small btn-ghost"
                  aria-label={tiText('safety.report.title', { name: chat.name })}
                  onClick={() => setReporting(chat)}
                >
                  {t('safety.report')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <LoadMore error={error} hasMore={Boolean(next)} loading={loading} label={t('ended.more')} onMore={more} />
      {retry && <TryAgain onRetry={retry} />}
      {reporting && (
        <Suspense fallback={null}>
          <SafetyDialog
            action="report"
            person={{ id: reporting.user_id, name: reporting.name }}
            conversationId={reporting.id}
            chatEnded
            onClose={() => setReporting(null)}
            onDone={() => setReporting(null)}
          />
        </Suspense>
      )}
    </section>
  );
}
