// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DRAG_ROTATION, SWIPE_EXIT_OFFSET_PX, SWIPE_THRESHOLD_PX } from '../../shared/constants';
import { es } from '../../shared/i18n/es';
import { SwipeCard } from '../../client/components/SwipeCard';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { cardOpacityFor, decisionFor, exitOffsetFor, rotationFor } from '../../client/lib/gestures';

afterEach(cleanup);

describe('swipe thresholds and mappings', () => {
  it('needs more than 100 px either way to decide', () => {
    expect(SWIPE_THRESHOLD_PX).toBe(100);
    expect(decisionFor(100)).toBeNull();
    expect(decisionFor(-100)).toBeNull();
    expect(decisionFor(0)).toBeNull();
    expect(decisionFor(101)).toBe('like');
    expect(decisionFor(-101)).toBe('dislike');
    expect(decisionFor(400)).toBe('like');
  });

  it('rotates −30…30 degrees over −200…200 px, and no further', () => {
    expect(DRAG_ROTATION).toEqual({ offset: 200, degrees: 30 });
    expect(rotationFor(0)).toBe(0);
    expect(rotationFor(100)).toBe(15);
    expect(rotationFor(-200)).toBe(-30);
    expect(rotationFor(200)).toBe(30);
    expect(rotationFor(900)).toBe(30);
    expect(rotationFor(-900)).toBe(-30);
  });

  it('keeps the card opaque within ±100 px and fades it out by ±200 px', () => {
    expect(cardOpacityFor(0)).toBe(1);
    expect(cardOpacityFor(100)).toBe(1);
    expect(cardOpacityFor(-100)).toBe(1);
    expect(cardOpacityFor(150)).toBeCloseTo(0.5);
    expect(cardOpacityFor(-150)).toBeCloseTo(0.5);
    expect(cardOpacityFor(200)).toBe(0);
    expect(cardOpacityFor(-250)).toBe(0);
  });

  it('sends likes 200 px right and everything else 200 px left', () => {
    expect(exitOffsetFor('like')).toBe(SWIPE_EXIT_OFFSET_PX);
    expect(exitOffsetFor('dislike')).toBe(-SWIPE_EXIT_OFFSET_PX);
    expect(exitOffsetFor('skip')).toBe(-SWIPE_EXIT_OFFSET_PX);
  });
});

describe('<SwipeCard> with pointer drags', () => {
  const card = { id: 7, name: 'Marco', age: 28, bio: 'Here for the music.', image: null };

  function drag(element: HTMLElement, dx: number) {
    // use-gesture listens to pointer events; jsdom has no pointer capture, so stub it on the element.
    Object.assign(element, { setPointerCapture: vi.fn(), releasePointerCapture: vi.fn(), hasPointerCapture: () => true });
    const base = { pointerId: 1, pointerType: 'mouse', isPrimary: true };
    fireEvent.pointerDown(element, { ...base, clientX: 100, clientY: 100, buttons: 1 });
    const steps = 5;
    for (let i = 1; i <= steps; i += 1) {
      fireEvent.pointerMove(element, { ...base, clientX: 100 + (dx * i) / steps, clientY: 100, buttons: 1 });
    }
    fireEvent.pointerUp(element, { ...base, clientX: 100 + dx, clientY: 100, buttons: 0 });
  }

  it.each([
    [150, 'like'],
    [-150, 'dislike'],
  ] as const)('a %i px drag decides %s', (dx, expected) => {
    const onDecide = vi.fn();
    const onOpen = vi.fn();
    render(<SwipeCard card={card} exitOffset={null} onDecide={onDecide} onOpen={onOpen} />);
    drag(screen.getByTestId('swipe-card'), dx);
    expect(onDecide).toHaveBeenCalledExactlyOnceWith(expected);
    expect(onOpen).not.toHaveBeenCalled();
  });

  it('a drag short of the threshold decides nothing', () => {
    const onDecide = vi.fn();
    render(<SwipeCard card={card} exitOffset={null} onDecide={onDecide} onOpen={vi.fn()} />);
    drag(screen.getByTestId('swipe-card'), 90);
    drag(screen.getByTestId('swipe-card'), -90);
    expect(onDecide).not.toHaveBeenCalled();
  });

  it('stamps the card in the reader’s language (Spanish by default)', async () => {
    await initLanguage();
    function Deck() {
      useMessages(appMessages);
      return <SwipeCard card={card} exitOffset={null} onDecide={vi.fn()} onOpen={vi.fn()} />;
    }
    render(
      <Suspense fallback={null}>
        <Deck />
      </Suspense>,
    );
    expect(await screen.findByText(es['deck.stamp.like'])).toBeTruthy();
    expect(screen.getByText(es['deck.stamp.nope'])).toBeTruthy();
  });

  it.each([
    [false, 'slides out through the positions between'],
    [true, 'leaves in one step when the phone asks for less motion'],
  ])('a card sent away by a button (less motion: %s) %s', async (reduce, _how) => {
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: reduce && query === '(prefers-reduced-motion: reduce)', media: query }));
    const { rerender } = render(<SwipeCard card={card} exitOffset={null} onDecide={vi.fn()} onOpen={vi.fn()} />);
    const element = screen.getByTestId('swipe-card');
    // Every position the card is drawn at on its way out.
    const offsets: number[] = [];
    const watch = new MutationObserver(() => {
      const shift = /translate3d\((-?[\d.]+)px/.exec(element.style.transform);
      if (shift) offsets.push(Number(shift[1]));
    });
    watch.observe(element, { attributes: true, attributeFilter: ['style'] });
    try {
      rerender(<SwipeCard card={card} exitOffset={200} onDecide={vi.fn()} onOpen={vi.fn()} />);
      await vi.waitFor(() => expect(offsets.at(-1)).toBe(200), { timeout: 2000 });
    } finally {
      watch.disconnect();
      vi.unstubAllGlobals();
    }
    const between = offsets.filter((offset) => offset > 0 && offset < 200);
    if (reduce) expect(between).toEqual([]);
    else expect(between.length).toBeGreaterThan(0);
  });

  it('opens the profile with Enter (the keyboard twin of a tap)', () => {
    const onOpen = vi.fn();
    render(<SwipeCard card={card} exitOffset={null} onDecide={vi.fn()} onOpen={onOpen} />);
    fireEvent.keyDown(screen.getByTestId('swipe-card'), { key: 'Enter' });
    expect(onOpen).toHaveBeenCalledOnce();
  });
});
