// @vitest-environment jsdom
/**
 * A double tap on a deck button, as at a loud party: the first tap sends the card away, and its exit
 * is over before the second comes, which lands on the next card, not yet seen. That tap decides
 * nothing; a tap once the card has been seen decides as ever. A press from the keyboard cannot be a
 * stray second tap, and a drag of the card is not a button's: both decide at once.
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SWIPE_EXIT_MS } from '../../shared/constants';
import { enApp } from '../../shared/i18n/en-app';
import type { DeckCard } from '../../shared/schemas/users';
import { renderAt } from '../helpers/render-at';

const api = vi.hoisted(() => ({ deck: vi.fn(), likeAllowance: vi.fn(), react: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { Home } = await import('../../client/pages/app/Home');
const { TAP_THROUGH_MS } = await import('../../client/components/MatchOverlay');
const { initLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');
const { useDeck } = await import('../../client/stores/deck');

const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: '', image: null });
const [ben, cleo, dan] = [card(2, 'Ben'), card(3, 'Cleo'), card(4, 'Dan')];

const onScreen = () => screen.getByTestId('swipe-card');
const button = (label: 'deck.like' | 'deck.dislike') => screen.getByRole('button', { name: enApp[label] });
/** A finger's tap on the button (a click's `detail` counts the taps; the keyboard's is 0). */
const tap = (label: 'deck.like' | 'deck.dislike') => act(() => void fireEvent.click(button(label), { detail: 1 }));
const wait = (ms: number) => act(() => void vi.advanceTimersByTime(ms));

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  api.deck.mockResolvedValue({ results: [ben, cleo, dan], next: null });
  api.likeAllowance.mockReturnValue(new Promise(() => {}));
  api.react.mockResolvedValue({ match: false, conversation_id: null });
  renderAt('/app/home/', <Suspense fallback={null}><Home /></Suspense>);
  await vi.waitFor(() => expect(onScreen().dataset.cardId).toBe(String(ben.id)));
  // Ben has been seen: a tap on Like sends him away, and Cleo comes up once he has left.
  wait(1000);
  tap('deck.like');
  expect(api.react).toHaveBeenCalledExactlyOnceWith(ben.id, 'like');
  wait(SWIPE_EXIT_MS);
  expect(onScreen().dataset.cardId).toBe(String(cleo.id));
});
afterEach(() => {
  cleanup();
  useDeck.getState().reset();
  localStorage.clear();
  vi.useRealTimers();
  vi.resetAllMocks();
});

describe('a tap on a deck button just after the card came up', () => {
  it('decides nothing (the second of a double tap); a tap once the card has been seen decides', () => {
    // 330 ms after the first tap.
    wait(30);
    tap('deck.like');
    tap('deck.dislike');
    expect(api.react).toHaveBeenCalledTimes(1);
    expect(useDeck.getState()).toMatchObject({ current: cleo, exiting: null });
    // What the browser tests wait for before they tap.
    expect(onScreen().dataset.settled).toBe('false');

    wait(TAP_THROUGH_MS);
    expect(onScreen().dataset.settled).toBe('true');
    tap('deck.dislike');
    expect(api.react).toHaveBeenLastCalledWith(cleo.id, 'dislike');
  });

  it('leaves the keyboard and drags alone: they decide at once', () => {
    act(() => void fireEvent.click(button('deck.like'), { detail: 0 }));
    expect(api.react).toHaveBeenLastCalledWith(cleo.id, 'like');
    wait(SWIPE_EXIT_MS);

    const dragged = onScreen();
    expect(dragged.dataset.cardId).toBe(String(dan.id));
    // use-gesture listens to pointer events; jsdom has no pointer capture, so stub it on the element.
    Object.assign(dragged, { setPointerCapture: vi.fn(), releasePointerCapture: vi.fn(), hasPointerCapture: () => true });
    const finger = { pointerId: 1, pointerType: 'touch', isPrimary: true, clientY: 100 };
    fireEvent.pointerDown(dragged, { ...finger, clientX: 100, buttons: 1 });
    for (const x of [60, 20, -20, -50]) fireEvent.pointerMove(dragged, { ...finger, clientX: x, buttons: 1 });
    act(() => void fireEvent.pointerUp(dragged, { ...finger, clientX: -50, buttons: 0 }));
    expect(api.react).toHaveBeenLastCalledWith(dan.id, 'dislike');
  });
});
