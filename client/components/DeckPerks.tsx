import { type MouseEvent, useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { useShallow } from 'zustand/react/shallow';
import type { Language, Reaction } from '../../shared/constants';
import { ApiError, LikesExhausted, logFailure, mayPass, Throttled } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { formatDateTime, formatTime, sameDay, withHourArticle } from '../lib/format';
import { type Translate, useLanguage, useT, useTi } from '../lib/i18n';
import { serverNow, useServerMinutes } from '../lib/server-clock';
import { toast } from '../lib/toast';
import { useDeck } from '../stores/deck';
import { stopWatching, watchAnswers } from '../stores/likes';
import { outOfLikes, usePlan } from '../stores/plan';
import { useSession } from '../stores/session';
import { CloseIcon } from './Icons';
import { UndoIcon } from './AppIcons';
import '../perks.css';

/** Below this many likes left, the deck says how many. */
const FEW_LIKES_LEFT = 10;

/**
 * The deck's decision, with the plan in it: without likes left a like is refused on the spot (false:
 * the card springs back) and the deck says when likes come back; a like the server refuses comes back
 * on top; a dislike or skip the server stored can be undone. A decision with no answer is sent again
 * once by the deck's store (once online, marked as a retry); one that still did not reach the server
 * (no answer twice, a server error, too many at once) comes back on top, to be made again; not a like
 * with no answer that `match:new` says made a match (it did reach the server), nor one another phone
 * answered meanwhile (that answer stands).
 */
export function useDecide() {
  const t = useT();
  const ti = useTi();
  const act = useDeck((state) => state.act);
  const restore = useDeck((state) => state.restore);
  return useCallback(
    (action: Reaction): boolean => {
      const plan = usePlan.getState();
      if (action === 'like' && outOfLikes(plan.allowance)) {
        plan.showNotice('likes');
        return false;
      }
      const reaction = act(action);
      // The card it sent away: the one on top, or the one under it if that one was leaving.
      const card = useDeck.getState().current;
      if (!reaction || !card) return true;
      // Answered on another phone while this decision is on its way: stored there, it does not come back.
      const elsewhere = watchAnswers();
      reaction
        .then(
          (result) => {
            // A pass of someone matched (a like on another phone made the match meanwhile) changed nothing:
            // the last decision, and what undo would take back, is as it was.
            if (result.match && action !== 'like') return;
            usePlan.getState().reacted(card, action);
          },
          (error: unknown) => {
            if (error instanceof LikesExhausted) {
              if (!elsewhere.has(card.id)) restore(card);
              usePlan.getState().likesRefused(error.resetsAt);
            } else if (mayPass(error)) {
              if (useDeck.getState().matchedWith.has(card.id)) {
                // The answer was lost, but match:new told of the match this like made: it was stored.
                usePlan.getState().reacted(card, action);
              } else if (!elsewhere.has(card.id)) {
                restore(card);
                // Too fast (the limit on reactions a minute): how long to wait, which a retry now would not pass.
                toast.error(error instanceof Throttled ? errorMessage(error, t) : ti('deck.notSent', { name: card.name }), { key: 'deck.notSent' });
              }
            }
            // Any other refusal: the person is no longer there to decide about.
          },
        )
        .finally(() => stopWatching(elsewhere));
      return true;
    },
    [act, restore, t],
  );
}

/** Brings the last card passed on back to the top (a subscriber's perk; for others, what the plan offers). */
export function UndoButton({ onlyWhenUsable = false }: { onlyWhenUsable?: boolean }) {
  const t = useT();
  const lastPass = usePlan((state) => state.lastPass);
  // Skipped last of all, they came round again at once (the deck shows the skipped once nobody else
  // is left): on screen, not on their way out, they are back already.
  const back = useDeck((state) => state.current?.id === lastPass?.id && !state.exiting);
  const subscribed = useSession((state) => state.user?.has_subscription ?? false);
  const [busy, setBusy] = useState(false);

  async function undo() {
    if (!lastPass || busy || back) return;
    if (!subscribed) {
      usePlan.getState().showNotice('undo');
      return;
    }
    setBusy(true);
    try {
      const card = await usePlan.getState().undo();
      // On an empty deck this button goes, and the deck's own undo takes the keyboard's place (Home).
      if (card) useDeck.getState().restore(card);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'subscription_required') {
        // The plan ended elsewhere (another phone, Stripe): this one learns it, and shows what undo needs.
        void useSession.getState().loadUser();
        usePlan.getState().showNotice('undo');
      } else {
        logFailure('Undo failed', error);
      }
    } finally {
      setBusy(false);
    }
  }

  if (onlyWhenUsable && !lastPass) return null;
  return (
    // Unavailable, it stays focusable (aria-disabled): a disabled button would drop the focus of the
    // keyboard user who just used it to the page.
    <button
      type="button"
      className="round-btn round-btn-undo"
      aria-label={t('deck.undo')}
      title={t('deck.undo')}
      aria-disabled={!lastPass || busy || back}
      onClick={() => void undo()}
    >
      <UndoIcon />
    </button>
  );
}

/**
 * When the likes come back: a time today, or tomorrow (the window is a day long, so mostly that),
 * said as such; "08:01" alone read as this morning, already gone. Today by the server's clock, as the
 * moment is: a phone minutes behind it at midnight would say "tomorrow" of a time that is today's.
 */
function likesBack(limit: number, at: string, language: Language, t: Translate): string {
  const now = new Date(serverNow());
  const tomorrow = new Date(now);
  tomorrow.setDate(tomorrow.getDate() + 1);
  const time = withHourArticle(formatTime(at, language), language);
  if (sameDay(at, tomorrow.toISOString())) return t('deck.likesOutTomorrow', { limit, time });
  return t('deck.likesOut', { limit, time: sameDay(at, now.toISOString()) ? time : formatDateTime(at, language, now) });
}

/**
 * What undo needs, when it was just tapped on the free plan: the plan, to get that person back. Over
 * the top of the card on the deck (`floating`), so that the card keeps its size and its words show;
 * beside the undo button on an empty deck.
 */
export function UndoUpsell({ floating = false }: { floating?: boolean }) {
  const t = useT();
  const ti = useTi();
  const { notice, lastPass, dismiss } = usePlan(useShallow((state) => ({ notice: state.notice, lastPass: state.lastPass, dismiss: state.dismissNotice })));
  const box = useRef<HTMLDivElement>(null);
  const shown = notice === 'undo' && lastPass !== null;
  // On an empty deck it comes under the undo button tapped: on a small phone, under the bottom bar,
  // where the tap would seem to have done nothing. Brought into view (its scroll margin clears the bar).
  useEffect(() => {
    if (shown && !floating) box.current?.scrollIntoView?.({ block: 'nearest' });
  }, [shown, floating]);
  // The keyboard's place goes back to the undo that asked, not to <body> as this button goes.
  const putAway = (click: MouseEvent<HTMLButtonElement>) => {
    if (click.currentTarget === document.activeElement) document.querySelector<HTMLElement>('.round-btn-undo')?.focus();
    dismiss();
  };
  if (!shown) return null;
  return (
    <div ref={box} className={`plan-notice${floating ? ' plan-notice-floating' : ''}`} role="status" data-testid="undo-upsell">
      <p>{ti('deck.undoUpsell', { name: lastPass.name })}</p>
      <Link href="/app/subscribe/" className="btn btn-small btn-primary">
        {t('deck.seePlans')}
      </Link>
      <button type="button" className="icon-btn plan-notice-close" aria-label={t('deck.dismiss')} onClick={putAway}>
        <CloseIcon />
      </button>
    </div>
  );
}

/** When likes come back (free plan, none left), or how few are left. */
export function DeckPlanNotice() {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const allowance = usePlan((state) => state.allowance);
  const undoAsked = usePlan((state) => state.notice === 'undo' && state.lastPass !== null);
  // Today or tomorrow by the server's day: said again once its clock is heard.
  useServerMinutes();

  if (outOfLikes(allowance) && allowance?.resets_at) {
    // One plan notice at a time: undo's, just asked for, until it is put away (on a small phone the
    // two left little of the card).
    if (undoAsked) return null;
    return (
      <div className="plan-notice" role="status" data-testid="likes-out">
        <p>
          <strong>{likesBack(allowance.limit ?? 0, allowance.resets_at, language, t)}</strong>{' '}
          {t('deck.likesOutText')}
        </p>
        <Link href="/app/subscribe/" className="btn btn-small btn-primary">
          {t('deck.likesUpsell')}
        </Link>
      </div>
    );
  }
  if (allowance && !allowance.unlimited && allowance.remaining !== null && allowance.remaining <= FEW_LIKES_LEFT) {
    return <p className="deck-likes-left muted">{allowance.remaining === 1 ? t('deck.likesLeftOne') : t('deck.likesLeft', { count: allowance.remaining })}</p>;
  }
  return null;
}
