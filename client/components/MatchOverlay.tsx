import { type MouseEvent, useEffect, useRef } from 'react';
import { Link } from 'wouter';
import { useBackCloses } from '../lib/back-closes';
import { SWIPE_CARD } from '../lib/deck-card';
import { useT, useTi } from '../lib/i18n';
import { useDeck } from '../stores/deck';
import { useSession } from '../stores/session';
import { Avatar } from './Avatar';
import { HeartIcon } from './Icons';

/**
 * How long after it shows a tap on it is taken for the end of the tap that made the match (a double
 * tap on Like, a thumb still on the glass): it neither closes it nor opens the chat. The deck's buttons
 * take no tap for as long after a card comes up on top (Home).
 */
export const TAP_THROUGH_MS = 400;

/** "You like each other!" for DECK_MATCH_OVERLAY_MS of the page in view, from a like here or a match:new from the socket. */
export function MatchOverlay() {
  const t = useT();
  const ti = useTi();
  const match = useDeck((state) => state.match);
  const hide = useDeck((state) => state.hideMatch);
  const hold = useDeck((state) => state.holdMatch);
  const user = useSession((state) => state.user);
  const box = useRef<HTMLDivElement>(null);
  const shown = Boolean(match);
  const shownAt = useRef(0);
  useEffect(() => {
    if (match) shownAt.current = performance.now();
  }, [match]);
  const tapThrough = (click: MouseEvent) => {
    if (performance.now() - shownAt.current >= TAP_THROUGH_MS) return false;
    click.preventDefault();
    click.stopPropagation();
    return true;
  };
  // Back closes it rather than leaving the page under it.
  useBackCloses(shown, () => {
    hide();
    return true;
  });
  // The keyboard's and the screen reader's place is on its "Send a message" while it shows (on the
  // overlay itself when it has none, or when it comes over a text being written, whose next key, an
  // Enter, would follow the link), Tab keeps it there, and it goes back where it was after; Escape
  // closes it, as the back gesture does. Brought there by the keyboard (:focus-visible, the browser's
  // mark of a key's focus, not a tap's) or found there by Tab, it stays until closed or left: its
  // DECK_MATCH_OVERLAY_MS are too short to hear it read out. Not held by the pointer: it fills the screen.
  useEffect(() => {
    if (!shown) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const writing = before?.closest('input, textarea, select');
    if (!writing && before?.matches(':focus-visible')) hold(true);
    ((writing ? null : box.current?.querySelector('a')) ?? box.current)?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') hide();
      // Its one control, or itself: nothing behind it is reachable while it shows.
      if (event.key === 'Tab' && box.current?.contains(document.activeElement)) {
        event.preventDefault();
        hold(true);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      // Gone meanwhile (the deck's card decided, on its way out as the match came): the card that
      // came up in its place, or the words of the deck it emptied, not <body>, from which the next
      // Tab starts over from the top.
      (before?.isConnected ? before : document.querySelector<HTMLElement>(`${SWIPE_CARD}, .deck-empty`))?.focus();
    };
  }, [shown, hide, hold]);
  if (!match) return null;
  const me = user ? `${user.first_name} ${user.last_name}` : '';
  return (
    <div
      ref={box}
      className="match-overlay"
      role="alertdialog"
      aria-modal="true"
      aria-live="assertive"
      aria-labelledby="match-title"
      aria-describedby="match-text"
      tabIndex={-1}
      onClick={(click) => tapThrough(click) || hide()}
      onBlur={(blur) => box.current?.contains(blur.relatedTarget) || hold(false)}
    >
      <div className="match-avatars" aria-hidden="true">
        <Avatar name={me} image={user?.image} size={96} />
        <HeartIcon className="match-heart" />
        <Avatar name={match.name} image={match.image} size={96} />
      </div>
      <h2 id="match-title">{t('deck.match.title')}</h2>
      <p id="match-text">{ti('deck.match.text', { name: match.name })}</p>
      {match.conversationId !== null && (
        <Link href={`/app/chat/${match.conversationId}`} className="btn btn-light" onClick={(click) => tapThrough(click) || hide()}>
          {t('deck.match.chat')}
        </Link>
      )}
    </div>
  );
}
