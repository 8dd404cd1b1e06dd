import { useDrag } from '@use-gesture/react';
import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { PROFILE_MATCH_OVERLAY_MS, type Reaction } from '../../../shared/constants';
import type { PublicProfile } from '../../../shared/schemas/users';
import { Avatar, useBrokenPhotos } from '../../components/Avatar';
import { CloseIcon, HeartIcon, SkipIcon } from '../../components/Icons';
import { ChevronLeft, ChevronRight } from '../../components/AppIcons';
import { Loading } from '../../components/Loading';
import { SafetyMenu } from '../../components/SafetyMenu';
import { TryAgain } from '../../components/Waiting';
import { LikesExhausted, logFailure, mayPass, Throttled } from '../../lib/api';
import { focusHeadingAfterNav } from '../../lib/back-closes';
import { type LoadFailure, loadFailure, sendMatchSeen, useRetryWhenBackOnline } from '../../lib/socket';
import { api } from '../../lib/api-app';
import { errorMessage } from '../../lib/errors';
import { buzzForMatch } from '../../lib/haptics';
import { useT } from '../../lib/i18n';
import { photosOf } from '../../lib/profile-fields';
import { toast } from '../../lib/toast';
import { useChat } from '../../stores/chat';
import { useConversations } from '../../stores/conversations';
import { useDeck } from '../../stores/deck';
import { usePlan } from '../../stores/plan';
import { useSafety } from '../../stores/safety';
import { useSession } from '../../stores/session';

const GALLERY_SWIPE_PX = 50;

export function ProfileView({ id }: { id: number }) {
  const t = useT();
  const [, navigate] = useLocation();
  const forget = useDeck((state) => state.forget);
  const sendReaction = useDeck((state) => state.react);
  const rememberMatch = useDeck((state) => state.rememberMatch);
  /**
   * `missing`: the server says it is not there (or not for us); `offline`: no answer; `server`: the
   * server's own error. Both of those are tried again once the socket is back, or with Try again.
   */
  const [profile, setProfile] = useState<PublicProfile | null | 'missing' | LoadFailure>(null);
  const [attempt, setAttempt] = useState(0);
  const [index, setIndex] = useState(0);
  const [pending, setPending] = useState<Reaction | null>(null);
  const [matched, setMatched] = useState(false);
  // Blocked, reported, unmatched or banned while on screen: the profile goes.
  const gone = useSafety((state) => Boolean(state.gone[id]));
  const me = useSession((state) => state.user?.id);
  // A newcomer may open a profile before finishing their own; a like would match them unseen.
  const profileIncomplete = useSession((state) => state.user?.is_profile_completed === false);
  // A match (opened from the chat's header): their chat, not the deck's buttons, and Back goes there.
  const chatWith = useConversations((state) => state.conversationsWith(id)[0] ?? null);
  // Opened from "Likes you": Back, and the answer given here, go back to that list, not the deck.
  const [from] = useState(() => (window.history.state as { from?: string } | null)?.from === 'likes' ? '/app/likes/' : '/app/home/');
  const backTo = chatWith === null ? from : `/app/chat/${chatWith}/`;
  // Our chat ended under their profile (they blocked, reported or unmatched): to the list, as the chat goes, whose notice offers Report.
  const endedChat = useChat((state) => {
    for (const [key, thread] of Object.entries(state.ended)) if (thread.userId === id && !thread.byMe) return Number(key);
    return null;
  });
  useEffect(() => {
    if (endedChat === null) return;
    const { name, userId } = useChat.getState().ended[endedChat]!;
    useConversations.getState().showEndedNotice({ conversationId: endedChat, name, userId });
    navigate('/app/matches/', { replace: true });
  }, [endedChat, navigate]);

  useEffect(() => {
    let live = true;
    api
      .profile(id)
      .then((result) => live && setProfile(result))
      .catch((error: unknown) => {
        if (!live) return;
        const missing = !mayPass(error);
        if (!missing) logFailure('Could not load profile', error);
        setProfile(missing ? 'missing' : loadFailure(error));
      });
    return () => {
      live = false;
    };
  }, [id, attempt]);
  const retry = () => {
    setProfile(null);
    setAttempt((count) => count + 1);
  };
  const failed = !gone && (profile === 'offline' || profile === 'server');
  useRetryWhenBackOnline(failed, retry);

  const loaded = typeof profile === 'object' ? profile : null;
  // A photo that does not load is left out: its owner removed it since, or the phone is offline.
  const { broken, broke } = useBrokenPhotos();
  const photos = loaded ? photosOf(loaded).filter((url) => !broken.includes(url)) : [];
  const count = Math.max(photos.length, 1);
  // The last photo left out, the first in its place.
  const shown = index % count;
  // Wraps around at both ends.
  const step = (delta: number) => setIndex((current) => (current + delta + count) % count);

  const bind = useDrag(
    ({ last, movement: [mx], tap }) => {
      if (!last || tap) return;
      if (mx < -GALLERY_SWIPE_PX) step(1);
      else if (mx > GALLERY_SWIPE_PX) step(-1);
    },
    { axis: 'x', filterTaps: true },
  );

  if (profile === null) return <Loading />;
  if (typeof profile === 'string' || gone) {
    return (
      <section className="page">
        <Link href={from} className="back-link">
          <ChevronLeft /> {t('profileView.back')}
        </Link>
        <p className="center-text muted" role="status">
          {t(!failed ? 'profileView.notFound' : profile === 'offline' ? 'profileView.offline' : 'error.generic')}
        </p>
        {failed && <TryAgain onRetry={retry} />}
      </section>
    );
  }

  async function react(action: Reaction) {
    if (pending || !loaded) return;
    if (action === 'like' && profileIncomplete) {
      toast.info(t('profileView.completeFirst'), { href: '/app/profile/', key: 'profileView.completeFirst' });
      return;
    }
    setPending(action);
    try {
      const result = await sendReaction(loaded.id, action);
      forget(loaded.id);
      // Once per match: a like sent again after a lost answer is answered with the match it made.
      if (action === 'like' && result.match && rememberMatch(result.conversation_id)) {
        setMatched(true);
        buzzForMatch();
        await new Promise((resolve) => setTimeout(resolve, PROFILE_MATCH_OVERLAY_MS));
        if (result.conversation_id) sendMatchSeen([result.conversation_id], 'overlay');
      }
    } catch (error) {
      if (error instanceof LikesExhausted) {
        // Out of likes: the deck says when they come back.
        usePlan.getState().likesRefused(error.resetsAt);
      } else if (mayPass(error)) {
        // It did not go through: the profile stays, to decide again. Too fast (the limit on reactions
        // a minute), it says how long to wait, as the deck does: a retry now would not pass.
        toast.error(error instanceof Throttled ? errorMessage(error, t) : t('profileView.notSent'), { key: 'profileView.notSent' });
        setPending(null);
        return;
      } else {
        logFailure('Reaction refused', error);
      }
    }
    setPending(null);
    navigate(from);
    focusHeadingAfterNav();
  }

  return (
    <section className="page profile-view">
      <div className="page-bar">
        <Link href={backTo} className="back-link">
          <ChevronLeft /> {t('profileView.back')}
        </Link>
        {profile.id !== me && <SafetyMenu person={{ id: profile.id, name: profile.name }} leaveTo={from} />}
      </div>
      <div className="gallery" {...bind()} data-testid="gallery">
        {photos.length ? (
          <img
            src={photos[shown]}
            alt={t('profileView.photo', { n: shown + 1, total: photos.length })}
            draggable={false}
            onError={() => broke(photos[shown]!)}
          />
        ) : (
          <Avatar name={profile.name} image={null} size={360} />
        )}
        {photos.length > 1 && (
          <>
            <button type="button" className="gallery-btn gallery-prev" aria-label={t('profileView.previous')} onClick={() => step(-1)}>
              <ChevronLeft />
            </button>
            <button type="button" className="gallery-btn gallery-next" aria-label={t('profileView.next')} onClick={() => step(1)}>
              <ChevronRight />
            </button>
            <div className="dots">
              {photos.map((url, i) => (
                <button
                  key={url}
                  type="button"
                  className={i === shown ? 'dot is-active' : 'dot'}
                  aria-label={t('profileView.photo', { n: i + 1, total: photos.length })}
                  aria-current={i === shown}
                  onClick={() => setIndex(i)}
                />
              ))}
            </div>
          </>
        )}
      </div>
      <div className="profile-info">
        <h1>
          <bdi>{profile.name}</bdi>, <span className="age">{profile.age}</span>
        </h1>
        <p className="genre">{t(`gender.${profile.gender}`)}</p>
        <p className="bio" dir="auto">
          {profile.bio}
        </p>
      </div>
      {/* Busy, the buttons stay focusable (aria-disabled; `react` takes one decision at a time): a disabled
          one would drop the keyboard's place to the page. */}
      {chatWith !== null && !matched ? (
        <div className="deck-actions">
          <Link href={`/app/chat/${chatWith}/`} className="btn btn-primary">
            {t('deck.match.chat')}
          </Link>
        </div>
      ) : (
        <div className="deck-actions">
          <button type="button" className="round-btn round-btn-nope" aria-label={t('profileView.reject')} aria-disabled={pending !== null} onClick={() => void react('dislike')}>
            <CloseIcon />
          </button>
          <button type="button" className="round-btn round-btn-skip" aria-label={t('profileView.skip')} aria-disabled={pending !== null} onClick={() => void react('skip')}>
            <SkipIcon />
          </button>
          <button type="button" className="round-btn round-btn-like" aria-label={t('profileView.like')} aria-disabled={pending !== null} onClick={() => void react('like')}>
            <HeartIcon />
          </button>
        </div>
      )}
      {matched && (
        // It takes the keyboard's place, as the deck's does, for its moment before the deck.
        <div ref={(overlay) => overlay?.focus()} className="match-overlay" role="alertdialog" aria-modal="true" aria-labelledby="profile-match-title" tabIndex={-1}>
          <HeartIcon className="match-heart" />
          <h2 id="profile-match-title">{t('deck.match.title')}</h2>
        </div>
      )}
    </section>
  );
}
