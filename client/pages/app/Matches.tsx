import { Suspense, useEffect, useState } from 'react';
import { Link } from 'wouter';
import { useShallow } from 'zustand/react/shallow';
import { SKELETON_COUNT } from '../../../shared/constants';
import { CloseIcon, HeartIcon } from '../../components/Icons';
import { ChevronRight, SearchIcon } from '../../components/AppIcons';
import { LoadMore } from '../../components/LoadMore';
import { PartnerAvatar } from '../../components/PartnerAvatar';
import { fetchSafetyDialog, SafetyDialog } from '../../components/SafetyMenu';
import { TryAgain } from '../../components/Waiting';
import { api } from '../../lib/api-app';
import { errorMessage } from '../../lib/errors';
import { formatActivity, formatCount } from '../../lib/format';
import { useServerMinutes } from '../../lib/server-clock';
import { toast } from '../../lib/toast';
import { useLanguage, useT, useTi } from '../../lib/i18n';
import { type Thread, useChat } from '../../stores/chat';
import { type EndedNotice, filterByName, useConversations } from '../../stores/conversations';
import { useLikes } from '../../stores/likes';
import '../../perks.css';

/**
 * Says that a chat open on screen, or listed here, has ended, without saying how, and offers to report
 * its partner: someone who blocks or unmatches right after what they wrote or did is still within reach
 * of a report. Not someone whose account is gone: nothing of them is left to report (the server would
 * say they are not available, after the form). What tells is the list of ended chats (Settings), which
 * holds a chat however it ended, a block, an unmatch or a ban alike, but not one whose other person
 * deleted their account: it tells no more than that list shows anyway. Until it answers, and if it
 * cannot, Report is offered.
 */
function EndedChatNotice({ notice }: { notice: EndedNotice }) {
  const t = useT();
  const ti = useTi();
  const [reporting, setReporting] = useState(false);
  const dismiss = () => useConversations.getState().dismissEndedNotice();
  const { userId, name, conversationId } = notice;
  const [gone, setGone] = useState<number | null>(null);
  useEffect(fetchSafetyDialog, []);
  useEffect(() => {
    // A list that fits on its first page says for sure that the chat is not in it.
    api.endedChats().then(
      (page) => !page.next && !page.results.some((chat) => chat.id === conversationId) && setGone(conversationId),
      () => undefined,
    );
  }, [conversationId]);
  return (
    <>
      <div className="notice ended-notice">
        <p role="status">{name ? ti('chat.ended', { name }) : t('chat.endedAnon')}</p>
        <button type="button" className="icon-btn" aria-label={t('chat.endedDismiss')} onClick={dismiss}>
          <CloseIcon />
        </button>
        {userId !== null && name && gone !== conversationId && (
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setReporting(true)}>
            {t('safety.report')}
          </button>
        )}
      </div>
      {reporting && userId !== null && (
        <Suspense fallback={null}>
          <SafetyDialog
            action="report"
            person={{ id: userId, name }}
            conversationId={notice.conversationId}
            chatEnded
            onClose={() => setReporting(false)}
            onDone={dismiss}
          />
        </Suspense>
      )}
    </>
  );
}

/** The newest of my messages in a chat that the server has not stored yet, if any. */
const unsentIn = (thread: Thread | undefined) => thread?.messages.findLast((message) => message.id < 0);

function Skeletons() {
  return (
    <ul className="conversation-list" aria-busy="true">
      {Array.from({ length: SKELETON_COUNT }, (_, i) => (
        <li key={i} className="conversation skeleton" data-testid="skeleton">
          <span className="skeleton-avatar" />
          <span className="skeleton-lines">
            <span />
            <span />
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The way to "Likes you", first on the page (as the best apps put it above new matches), while anyone waits. */
function LikesYouLink() {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const count = useLikes((state) => state.count);
  const load = useLikes((state) => state.load);
  useEffect(() => {
    void load();
  }, [load]);
  if (!count) return null;
  return (
    <Link href="/app/likes/" className="likes-link" data-testid="likes-link">
      <span className="likes-link-badge" aria-hidden="true">
        <HeartIcon />
        <span>{count > 99 ? '99+' : count}</span>
      </span>
      <span className="likes-link-text">
        <strong>{t('likes.title')}</strong>
        <span className="muted">{count === 1 ? t('likes.countOne') : t('likes.countMany', { count: formatCount(count, language) })}</span>
      </span>
      <ChevronRight />
    </Link>
  );
}

export function Matches() {
  const t = useT();
  const ti = useTi();
  const language = useLanguage((state) => state.language);
  // A conversation of today says its time, an earlier one its date, by the server's day: said again once its clock is heard.
  useServerMinutes();
  const { empty, started, failed, load, more, loadingMore } = useConversations(
    useShallow((state) => ({
      empty: state.empty,
      started: state.started,
      failed: state.failed,
      load: state.load,
      more: state.more,
      loadingMore: state.loadingMore,
    })),
  );
  const [moreError, setMoreError] = useState<string | null>(null);
  /** A list's next page: a party's most popular guest can have more matches than one page holds. */
  const showMore = (list: 'empty' | 'started') => {
    setMoreError(null);
    useConversations
      .getState()
      .loadMore(list)
      .catch((error: unknown) => setMoreError(errorMessage(error, t)));
  };
  const [search, setSearch] = useState('');
  const endedNotice = useConversations((state) => state.endedNotice);
  /** What is typed and not sent in a conversation shows in its row, as messaging apps show it. */
  const drafts = useChat((state) => state.drafts);
  /** And a message of mine still on its way (no network): said in its row, so the list does not look sent. */
  const threads = useChat((state) => state.threads);

  useEffect(() => {
    void load();
  }, [load]);
  // The list shows each new message in its row: a toast of one, raised on the page before, would only
  // cover the search and the list's top for its 5 s.
  useEffect(() => toast.dismissMessages(), []);

  const matches = empty ? filterByName(empty, search) : null;
  const conversations = started ? filterByName(started, search) : null;
  const searching = search.trim().length > 0;

  return (
    <section className="page matches">
      <h1 className="sr-only">{t('app.nav.chats')}</h1>
      {endedNotice !== null && <EndedChatNotice notice={endedNotice} />}
      <label className="search">
        <SearchIcon />
        <span className="sr-only">{t('matches.search')}</span>
        <input type="search" dir="auto" value={search} placeholder={t('matches.search')} onChange={(event) => setSearch(event.target.value)} />
      </label>

      <LikesYouLink />

      <h2 className="section-title">{t('matches.matchesTitle')}</h2>
      {matches === null ? (
        <div className="match-strip" aria-busy="true">
          {Array.from({ length: SKELETON_COUNT }, (_, i) => (
            <span key={i} className="match-chip skeleton">
              <span className="skeleton-avatar" />
            </span>
          ))}
        </div>
      ) : matches.length === 0 ? (
        // A search that found someone among the conversations below found someone: nothing to say here.
        searching && conversations?.length ? null : (
          <>
            <p className="muted empty-text">
              {searching
                ? ti('matches.noResults', { query: search.trim() })
                : t(failed === 'offline' ? 'matches.offline' : failed ? 'error.generic' : 'matches.noMatches')}
            </p>
            {/* The server's error is not mended by a connection the device already has: ask again now. */}
            {failed === 'server' && !searching && <TryAgain onRetry={() => void load()} />}
          </>
        )
      ) : (
        <ul className="match-strip">
          {matches.map((match) => (
            <li key={match.id}>
              <Link href={`/app/chat/${match.id}`} className="match-chip">
                <PartnerAvatar userId={match.other_user_id} name={match.name} image={match.image} size={64} />
                <span>
                  <bdi>{match.name}</bdi>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <LoadMore error={null} hasMore={more.empty !== null} loading={loadingMore === 'empty'} label={t('matches.more')} onMore={() => showMore('empty')} />

      <h2 className="section-title">{t('matches.conversationsTitle')}</h2>
      {conversations === null ? (
        <Skeletons />
      ) : conversations.length === 0 ? (
        // After the server's error, said once above: these are not known to be none. A search said
        // above whether it found anyone: among the new matches, or no one.
        searching || failed === 'server' ? null : (
          <p className="muted empty-text">{t(failed ? 'matches.offlineChats' : 'matches.noConversations')}</p>
        )
      ) : (
        <ul className="conversation-list">
          {conversations.map((conversation) => {
            const unsent = unsentIn(threads[conversation.id]);
            return (
              <li key={conversation.id}>
                <Link href={`/app/chat/${conversation.id}`} className="conversation">
                  <PartnerAvatar userId={conversation.other_user_id} name={conversation.name} image={conversation.image} size={52} />
                  <span className="conversation-text">
                    <span className="conversation-name">
                      <bdi>{conversation.name}</bdi>
                    </span>
                    {drafts[conversation.id] ? (
                      <span className="conversation-last conversation-draft">
                        <strong>{t('matches.draft')}</strong> <span dir="auto">{drafts[conversation.id]}</span>
                      </span>
                    ) : unsent ? (
                      <span className="conversation-last conversation-draft">
                        <strong>{t('matches.unsent')}</strong> <span dir="auto">{unsent.content}</span>
                      </span>
                    ) : (
                      <span className="conversation-last">
                        {conversation.last_message_mine && `${t('matches.you')} `}
                        <span dir="auto">{conversation.last_message}</span>
                      </span>
                    )}
                  </span>
                  <span className="conversation-meta">
                    <time dateTime={conversation.last_activity}>{formatActivity(conversation.last_activity, language)}</time>
                    {Boolean(conversation.unread_count) && (
                      <span className="badge" aria-label={t('matches.unread', { count: conversation.unread_count ?? 0 })}>
                        {conversation.unread_count}
                      </span>
                    )}
                  </span>
                </Link>
              </li>
            );
          })}
        </ul>
      )}
      <LoadMore error={moreError} hasMore={more.started !== null} loading={loadingMore === 'started'} label={t('matches.more')} onMore={() => showMore('started')} />
    </section>
  );
}
