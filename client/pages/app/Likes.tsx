import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { useShallow } from 'zustand/react/shallow';
import type { DeckCard } from '../../../shared/schemas/users';
import { usePhotoOrAvatar } from '../../components/Avatar';
import { CloseIcon, HeartIcon } from '../../components/Icons';
import { UserIcon } from '../../components/AppIcons';
import { Loading } from '../../components/Loading';
import { Offline } from '../../components/Waiting';
import { errorMessage } from '../../lib/errors';
import { photoOfSize } from '../../lib/photos';
import { formatCount } from '../../lib/format';
import { useLanguage, useT, useTiText } from '../../lib/i18n';
import { useRetryWhenBackOnline } from '../../lib/socket';
import { useLikes } from '../../stores/likes';
import { useSession } from '../../stores/session';
import { BusyButton } from '../../components/BusyButton';
import '../../perks.css';

/** Placeholders shown in place of the people, without the plan: never their photos, only how many. */
const MAX_PLACEHOLDERS = 6;

function LikeCard({ card, busy, onAnswer }: { card: DeckCard; busy: boolean; onAnswer: (action: 'like' | 'dislike') => void }) {
  const tiText = useTiText();
  const photo = usePhotoOrAvatar(card.name, card.image && photoOfSize(card.image, 'card'));
  return (
    <li className="like-card" data-testid="like-card" data-card-id={card.id}>
      {/* Named by what it shows ("Cai, 30"), as whoever steers by voice would say it. */}
      <Link href={`/app/profiles/${card.id}`} state={{ from: 'likes' }} className="like-card-photo">
        <img {...photo} alt="" />
        <span className="like-card-name">
          <bdi>{card.name}</bdi>, <span className="age">{card.age}</span>
        </span>
      </Link>
      <div className="like-card-actions">
        <BusyButton type="button" className="round-btn round-btn-nope" aria-label={tiText('likes.pass', { name: card.name })} busy={busy} onClick={() => onAnswer('dislike')}>
          <CloseIcon />
        </BusyButton>
        <BusyButton type="button" className="round-btn round-btn-like" aria-label={tiText('likes.like', { name: card.name })} busy={busy} onClick={() => onAnswer('like')}>
          <HeartIcon />
        </BusyButton>
      </div>
    </li>
  );
}

/** Without the plan: how many, as blurred tiles that show nobody, and what the plan would show. */
function LockedLikes({ count }: { count: number }) {
  const t = useT();
  return (
    <>
      <div className="plan plan-featured likes-upsell">
        <h2>{t('likes.locked.title')}</h2>
        <p>{t('likes.locked.text')}</p>
        <Link href="/app/subscribe/" className="btn btn-primary btn-block">
          {t('likes.locked.cta')}
        </Link>
      </div>
      {count > 0 && (
        <ul className="like-grid like-grid-locked" aria-hidden="true">
          {Array.from({ length: Math.min(count, MAX_PLACEHOLDERS) }, (_, i) => (
            <li key={i} className={`like-card like-card-locked tone-${i % 3}`} data-testid="like-placeholder">
              <UserIcon />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/**
 * "Likes you", its own route beside the chats: people who liked me and wait for an answer.
 * A subscriber sees them and answers from here; without the plan, only how many.
 */
export function Likes() {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const { count, people, next, loadingMore, failed, load, more, answer } = useLikes(
    useShallow((state) => ({
      count: state.count,
      failed: state.failed,
      people: state.people,
      next: state.next,
      loadingMore: state.loadingMore,
      load: state.load,
      more: state.more,
      answer: state.answer,
    })),
  );
  const subscribed = useSession((state) => state.user?.has_subscription ?? false);
  const loadUser = useSession((state) => state.loadUser);
  const [answering, setAnswering] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    void load();
    // The plan may have changed elsewhere (a cancellation at Stripe): the page follows the server.
    void loadUser();
  }, [load, loadUser]);
  useRetryWhenBackOnline(failed !== null, () => void load());

  if (count === null || people === null) {
    return failed ? <Offline text={t(failed === 'offline' ? 'likes.offline' : 'error.generic')} onRetry={() => void load()} /> : <Loading />;
  }

  async function respond(card: DeckCard, action: 'like' | 'dislike') {
    const list = document.querySelector('.like-grid');
    const cards = [...(list?.children ?? [])];
    const at = cards.findIndex((item) => item.contains(document.activeElement));
    setAnswering(card.id);
    setError(null);
    if (at >= 0) {
      // The card answered by keyboard goes: the keyboard's place moves to the one that takes its place
      // (or the one before it, or the page's title), not to the page's start.
      requestAnimationFrame(() => {
        const left = [...(list?.children ?? [])];
        const next = left[at] ?? left[at - 1];
        (next?.querySelector<HTMLElement>('a') ?? document.querySelector<HTMLElement>('.likes h1'))?.focus();
      });
    }
    try {
      await answer(card, action);
    } catch (failure) {
      setError(errorMessage(failure, t));
    } finally {
      setAnswering(null);
    }
  }

  // The server gives the people only with the plan; the count decides what this page can show.
  const locked = people.length === 0 && (count > 0 || !subscribed);
  return (
    <section className="page likes">
      <h1 tabIndex={-1}>{t('likes.title')}</h1>
      <p className="muted" data-testid="likes-count">
        {count === 0 ? t('likes.empty') : count === 1 ? t('likes.countOne') : t('likes.countMany', { count: formatCount(count, language) })}
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {locked ? (
        <LockedLikes count={count} />
      ) : (
        <ul className="like-grid">
          {people.map((card) => (
            <LikeCard key={card.id} card={card} busy={answering !== null} onAnswer={(action) => void respond(card, action)} />
          ))}
        </ul>
      )}
      {!locked && next && (
        <BusyButton type="button" className="btn btn-ghost btn-block" busy={loadingMore} onClick={() => void more()}>
          {t('likes.more')}
        </BusyButton>
      )}
    </section>
  );
}
