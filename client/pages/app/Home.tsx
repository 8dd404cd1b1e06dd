import { type MouseEvent, type ReactNode, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useShallow } from 'zustand/react/shallow';
import type { Reaction } from '../../../shared/constants';
import { DeckPlanNotice, UndoButton, UndoUpsell, useDecide } from '../../components/DeckPerks';
import { EventBar } from '../../components/EventBar';
import { CloseIcon, HeartIcon, SkipIcon } from '../../components/Icons';
import { TAP_THROUGH_MS } from '../../components/MatchOverlay';
import { SwipeCard } from '../../components/SwipeCard';
import { TryAgain } from '../../components/Waiting';
import { useEventStatus } from '../../lib/event-status';
import { SWIPE_CARD } from '../../lib/deck-card';
import { isolatedText, useT, useTiText } from '../../lib/i18n';
import { useConnection } from '../../lib/socket';
import { refreshWhenVisible } from '../../lib/when-visible';
import { useDeck } from '../../stores/deck';
import { useEvents } from '../../stores/events';
import { outOfLikes, usePlan } from '../../stores/plan';

const KEY_ACTIONS: Record<string, Reaction> = { ArrowLeft: 'dislike', ArrowRight: 'like', ArrowDown: 'skip' };

export function Home() {
  const t = useT();
  const tiText = useTiText();
  const [, navigate] = useLocation();
  const { queue, current, exiting, failed } = useDeck(
    useShallow((state) => ({ queue: state.queue, current: state.current, exiting: state.exiting, failed: state.failed })),
  );
  const load = useDeck((state) => state.load);
  const matchShown = useDeck((state) => state.match !== null);
  const decided = useDeck((state) => state.decided);
  /** The decision that brought up what is on top now (`on`: its card, or null for the deck it emptied), said first. */
  const decisionBefore = (on: number | null) => (decided?.on === on ? `${tiText(`deck.decided.${decided.action}`, { name: decided.name })} ` : '');
  const act = useDecide();
  const likesSpent = usePlan((state) => outOfLikes(state.allowance));
  const loadAllowance = usePlan((state) => state.loadAllowance);
  // With no connection an empty deck says so, not that nobody is left: it fills once the socket is back.
  const offline = useConnection((state) => state.lost);
  // At an event the deck is the room: an empty one fills by itself as people arrive (`deck:refresh`).
  const event = useEvents((state) => state.current);
  const joining = useEvents((state) => state.joining);
  const status = useEventStatus(event);
  // Past the after-party the attendance has lapsed on its own, with no news of it: the user is in town
  // again, with the general deck (its words, its way to the preferences), as the bar above says.
  const lapsed = status === 'closed';
  const atEvent = Boolean(event) && !lapsed;
  // After the end no one new can check in: the empty deck does not promise newcomers.
  const eventEnded = status !== undefined && status !== 'open';
  // Others in the room and none to see: the user has seen all of them who fit, or their preferences
  // leave nobody (the client cannot tell which, so the words hold for both); alone there, nobody else
  // has come yet.
  const emptyAtEvent = eventEnded ? 'deck.emptyAtEndedEvent' : (event?.attendee_count ?? 0) > 1 ? 'deck.emptyAtEventNoFit' : 'deck.emptyAtEvent';

  useEffect(() => {
    // Fetched on every visit: the server knows best who is at the event now, and how many likes are left.
    // Back from a look at a profile, the card that was on top stays there; only those behind it change.
    const deck = useDeck.getState();
    // What undo would bring back, on either plan, as the deck first opens in this tab: the passes before
    // (a reload) were not seen here. Later ones are heard of as they are made, and a reconnect asks again.
    if (deck.queue === null) void usePlan.getState().loadUndo();
    void (deck.current ? deck.refresh() : deck.load());
    void loadAllowance();
  }, [loadAllowance]);

  // At the lapse the server deals the general deck: read behind the card on screen (an empty deck fills).
  useEffect(() => {
    if (lapsed && useDeck.getState().queue !== null) void useDeck.getState().refresh();
  }, [lapsed]);

  const empty = queue !== null && current === null;
  useEffect(() => {
    if (!empty) return;
    // New arrivals at my event come as `deck:refresh` over the socket, with no polling; an empty deck
    // also looks again when the app comes back to the front (the socket may have slept with it).
    return refreshWhenVisible(() => void load());
  }, [empty, load]);

  // What undo needs was said over the card then on top: it goes when another comes up from a read of
  // the deck (a preferences save starts it over) or the user leaves the deck, so that it never floats
  // over someone else's card.
  const onTop = current?.id;
  useEffect(
    () => () => {
      if (usePlan.getState().notice === 'undo') usePlan.getState().dismissNotice();
    },
    [onTop],
  );

  // The card on top once it has been there TAP_THROUGH_MS (the match overlay's window for the end of the
  // tap before), till when the buttons take no tap. A double tap's second comes 300–500 ms after the
  // first (phones' double-tap timeout, desktops' double click), and the first's card leaves in
  // SWIPE_EXIT_MS (300): the second lands within ~200 ms of the next card, a fast third within ~350 ms.
  // A tap that answers the face seen comes later (seeing, choosing, moving the thumb).
  const [settledOn, setSettledOn] = useState<number>();
  useEffect(() => {
    if (onTop === undefined) return;
    const timer = setTimeout(() => setSettledOn(onTop), TAP_THROUGH_MS);
    return () => clearTimeout(timer);
  }, [onTop]);
  const settled = onTop !== undefined && settledOn === onTop;
  // Loading (null), the deck has no place for the keyboard yet: it goes to what comes, a card or the empty deck's words.
  useDeckFocusKept(queue === null ? null : onTop);
  // While a card leaves, its buttons say they are unavailable but stay focusable: a disabled button
  // would drop a keyboard user's focus to the page after each press.
  const busy = exiting !== null;
  /**
   * A button's press: none while a card leaves (a double tap's second). A tap on a card not yet seen is
   * the second of a double tap meant for the card before, and does nothing; a press from the keyboard
   * (`detail` 0) cannot be one. Drags of the card are its own, and decide at once, as do the arrow
   * keys: while a card leaves, about the one coming up under it.
   */
  const press = (action: Reaction) => (event: MouseEvent) => {
    if (!busy && (event.detail === 0 || settled)) act(action);
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = KEY_ACTIONS[event.key];
      if (!action || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      // The deck's only with the focus on its card or buttons, or on no control (the page, or the
      // heading a change of page focuses): on any other control (a field, a link of the nav) arrows
      // are its own or scroll the page, and an open menu or dialog (the match overlay too) has them.
      const target = event.target as Element;
      if ((!target.matches('body, h1') && !target.closest('.swipe-card, .deck-actions')) || document.querySelector('[role=menu], [role$=dialog]')) return;
      event.preventDefault();
      // A key held down repeats: it decided the card it went down on, not those that come up under it unseen.
      if (!event.repeat) act(action);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [act]);

  if (queue === null || joining) {
    return (
      <DeckPage className="deck" news="">
        <p className="center-text muted" role="status">
          {t('deck.loading')}
        </p>
      </DeckPage>
    );
  }
  if (!current) {
    const says = offline ? 'deck.offline' : failed ? 'deck.failed' : atEvent ? emptyAtEvent : 'deck.empty';
    const lastDecision = decisionBefore(null);
    return (
      // Its words show in the deck's news, there before the deck emptied, after the decision on the last
      // card (as with any other); the focus can rest on them.
      <DeckPage
        className="deck-empty-page"
        news={
          <>
            {lastDecision && <span className="sr-only">{lastDecision}</span>}
            <p className="center-text muted deck-empty" tabIndex={-1}>
              {t(says)}
            </p>
          </>
        }
        newsShown
      >
        {(offline || failed) && <TryAgain onRetry={() => void load()} />}
        {/* Where changing the preferences may bring someone (in town; at an event with others there, the
            second way out after waiting): the way there. */}
        {(says === 'deck.empty' || says === 'deck.emptyAtEventNoFit') && (
          <Link href="/app/profile/#preferences" className="btn btn-ghost deck-preferences">
            {t('deck.changePreferences')}
          </Link>
        )}
        {/* The last card passed on may be the one wanted back. */}
        <div className="deck-actions">
          <UndoButton onlyWhenUsable />
        </div>
        <UndoUpsell />
        <DeckPlanNotice />
      </DeckPage>
    );
  }

  // Who is on the card now, said once it is there, after the decision that brought them up: the
  // buttons keep the focus as the cards change.
  const news = exiting ? '' : `${decisionBefore(current.id)}${isolatedText(current.name)}, ${current.age}`;
  const next = queue[0];
  return (
    <DeckPage className="deck" news={news}>
      <div className="deck-stack">
        {next && exiting ? (
          // The same card as it comes up (its key): a drag begun on it goes on.
          <SwipeCard key={next.id} card={next} exitOffset={null} onDecide={act} onOpen={() => navigate(`/app/profiles/${next.id}`)} covered={matchShown} under />
        ) : (
          next && <div className="swipe-card swipe-card-next" aria-hidden="true" style={{ backgroundImage: next.image ? `url("${next.image}")` : undefined }} />
        )}
        <SwipeCard
          key={current.id}
          card={current}
          exitOffset={exiting?.id === current.id ? exiting.offset : null}
          onDecide={act}
          settled={settled}
          onOpen={() => navigate(`/app/profiles/${current.id}`)}
          covered={matchShown}
        />
        <UndoUpsell floating />
      </div>
      <DeckPlanNotice />
      <p className="deck-hint muted">
        {t('deck.hint')} <span className="deck-hint-keys">{t('deck.hintKeys')}</span>
      </p>
      {/* Enter held down on a button would press it again at each repeat, on the cards that come up unseen. */}
      <div className="deck-actions" onKeyDown={(event) => event.repeat && event.preventDefault()}>
        <UndoButton />
        <button type="button" className="round-btn round-btn-nope" aria-label={t('deck.dislike')} aria-disabled={busy} onClick={press('dislike')}>
          <CloseIcon />
        </button>
        <button type="button" className="round-btn round-btn-skip" aria-label={t('deck.skip')} aria-disabled={busy} onClick={press('skip')}>
          <SkipIcon />
        </button>
        <button
          type="button"
          className={`round-btn round-btn-like${likesSpent ? ' is-spent' : ''}`}
          aria-label={t('deck.like')}
          aria-disabled={busy}
          onClick={press('like')}
        >
          <HeartIcon />
        </button>
      </div>
    </DeckPage>
  );
}

/**
 * The keyboard's and the screen reader's place on the deck, kept as what held it goes: from the card
 * decided (or taken away, answered on another phone, blocked) to the one that comes up; from the
 * buttons of a deck that empties to its words (read out there, Tab goes on to its buttons); from the
 * empty deck to the card that fills it (someone arrived, back online), or from its undo to the
 * deck's. Not <body>, from which the next Tab, or a screen reader, starts over from the top of the page.
 */
function useDeckFocusKept(onTop: number | null | undefined) {
  const focused = useRef<Element | null>(null);
  useEffect(() => {
    // The element removed with the focus on it fires no event: the last of the deck's to take it is
    // the one (none once the focus has gone elsewhere, which a change of card leaves where it is).
    const note = ({ target }: FocusEvent) => {
      focused.current = target instanceof Element && target.closest('.deck, .deck-empty-page') ? target : null;
    };
    document.addEventListener('focusin', note);
    return () => document.removeEventListener('focusin', note);
  }, []);
  useLayoutEffect(() => {
    const gone = focused.current;
    if (!gone || gone.isConnected || document.activeElement !== document.body) return;
    const places = [SWIPE_CARD, '.deck-empty'];
    if (gone.matches('.round-btn')) places.unshift('.deck .round-btn-undo');
    places.map((place) => document.querySelector<HTMLElement>(place)).find(Boolean)?.focus();
  }, [onTop]);
}

/**
 * The deck's page as it loads, fills and empties: one page throughout, so that its live region of
 * news stays the same element. A live region put in with its words is not read out, as a deck that
 * empties would be if its words came in a new one. `newsShown`: the news is the page's own words (the
 * empty deck's, in it), not only for screen readers.
 */
function DeckPage({ className, news, newsShown = false, children }: { className: string; news: ReactNode; newsShown?: boolean; children: ReactNode }) {
  const t = useT();
  return (
    <section className={className}>
      {/* The page's heading for screen readers: the deck's card fills the screen where a title would go. */}
      <h1 className="sr-only">{t('app.nav.home')}</h1>
      <EventBar />
      <div className={newsShown ? 'deck-news' : 'deck-news sr-only'} aria-live="polite" data-testid="deck-now">
        {news}
      </div>
      {children}
    </section>
  );
}
