import { animated, useSpring } from '@react-spring/web';
import { useDrag } from '@use-gesture/react';
import { useEffect, useRef } from 'react';
import { SWIPE_EXIT_MS } from '../../shared/constants';
import type { DeckCard } from '../../shared/schemas/users';
import { cardOpacityFor, decisionFor, likeStampOpacityFor, nopeStampOpacityFor, rotationFor, type SwipeDecision } from '../lib/gestures';
import { useT } from '../lib/i18n';
import { usePhotoOrAvatar } from './Avatar';
import { lessMotion } from '../lib/motion';

interface Props {
  card: DeckCard;
  /** Set when the card is leaving: it slides to this x offset in SWIPE_EXIT_MS. */
  exitOffset: number | null;
  /** False when the decision is refused (no likes left): the card springs back. */
  onDecide: (decision: SwipeDecision) => boolean | void;
  onOpen: () => void;
  /** On top long enough to have been seen: the deck's buttons take taps (`data-settled`, which tests wait for). */
  settled?: boolean;
  /** Something shows over the deck (a match's overlay): a drag under way as it came decides nothing. */
  covered?: boolean;
  /**
   * The next card, under the one leaving: a flick there is about it (it comes up at once), as the
   * fingers of a party go. The keyboard, screen readers and the page's `SWIPE_CARD` know only the one on top.
   */
  under?: boolean;
}


/**
 * One deck card. The drag runs on springs outside React's render (transform and opacity only), so
 * a drag costs no re-render: past ±100 px it is a decision, short of it the card springs back.
 */
export function SwipeCard({ card, exitOffset, onDecide, onOpen, settled = false, covered = false, under = false }: Props) {
  const t = useT();
  const [{ x, y }, spring] = useSpring(() => ({ x: 0, y: 0 }));
  const photo = usePhotoOrAvatar(card.name, card.image);
  // Whether the deck was covered since the drag began: a finger held on the card behind a match that
  // came meanwhile lets go of a card it cannot see, and the card springs back.
  const coveredSince = useRef(covered);
  useEffect(() => {
    if (covered) coveredSince.current = true;
  }, [covered]);

  useEffect(() => {
    // Out, or back from the way out when its decision did not count (the deck's `restore`).
    const immediate = lessMotion();
    if (exitOffset === null) void spring.start({ x: 0, y: 0, immediate, config: { tension: 500, friction: 30 } });
    else void spring.start({ x: exitOffset, immediate, config: { duration: SWIPE_EXIT_MS } });
  }, [exitOffset, spring]);

  const bind = useDrag(
    ({ active, first, movement: [mx, my], tap }) => {
      if (exitOffset !== null) return;
      if (first) coveredSince.current = covered;
      if (tap) {
        onOpen();
        return;
      }
      if (active) {
        void spring.start({ x: mx, y: my * 0.25, immediate: true });
        return;
      }
      const decision = coveredSince.current ? null : decisionFor(mx);
      if (decision && onDecide(decision) !== false) return;
      void spring.start({ x: 0, y: 0, immediate: lessMotion(), config: { tension: 500, friction: 30 } });
    },
    { filterTaps: true, pointer: { capture: true } },
  );

  return (
    // Named by what it shows, then what it does: whoever steers by voice can say the name they see. The
    // name is said once, from the heading: what it does names no one again.
    <animated.div
      {...bind()}
      className={under ? 'swipe-card swipe-card-next' : 'swipe-card'}
      data-testid={under ? undefined : 'swipe-card'}
      data-card-id={under ? undefined : card.id}
      data-settled={settled}
      aria-hidden={under || undefined}
      // Leaving, it lets the fingers through to the card coming up under it.
      style={{ x, y, rotate: x.to(rotationFor), opacity: x.to(cardOpacityFor), pointerEvents: exitOffset === null ? undefined : 'none' }}
      tabIndex={under ? -1 : 0}
      role="button"
      onKeyDown={(event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          onOpen();
        }
      }}
    >
      <img className="swipe-card-photo" {...photo} alt="" draggable={false} />
      <animated.span className="stamp stamp-like" style={{ opacity: x.to(likeStampOpacityFor) }} aria-hidden="true">
        {t('deck.stamp.like')}
      </animated.span>
      <animated.span className="stamp stamp-nope" style={{ opacity: x.to(nopeStampOpacityFor) }} aria-hidden="true">
        {t('deck.stamp.nope')}
      </animated.span>
      <div className="swipe-card-info">
        <h2>
          <bdi>{card.name}</bdi> <span className="age">{t('deck.age', { age: card.age })}</span>
        </h2>
        <p dir="auto">{card.bio}</p>
      </div>
      <span className="sr-only">{t('deck.openCard')}</span>
    </animated.div>
  );
}
