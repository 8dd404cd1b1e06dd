// @vitest-environment jsdom
/**
 * A card held in a drag when a match with someone else covers the deck: the finger lifted behind the
 * overlay lets go of a card it cannot see, and the card springs back, decided neither way. A drag
 * begun once the overlay has gone decides as ever.
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeckCard } from '../../shared/schemas/users';
import { renderAt } from '../helpers/render-at';

const api = vi.hoisted(() => ({ deck: vi.fn(), likeAllowance: vi.fn(), react: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { Home } = await import('../../client/pages/app/Home');
const { initLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');
const { useDeck } = await import('../../client/stores/deck');

const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: '', image: null });
const [ben, cleo] = [card(2, 'Ben'), card(3, 'Cleo')];

const base = { pointerId: 1, pointerType: 'touch', isPrimary: true };
/** A finger on the card, moved `dx` px and held there. */
function hold(element: HTMLElement, dx: number) {
  // use-gesture listens to pointer events; jsdom has no pointer capture, so stub it on the element.
  Object.assign(element, { setPointerCapture: vi.fn(), releasePointerCapture: vi.fn(), hasPointerCapture: () => true });
  fireEvent.pointerDown(element, { ...base, clientX: 100, clientY: 100, buttons: 1 });
  for (let i = 1; i <= 5; i += 1) fireEvent.pointerMove(element, { ...base, clientX: 100 + (dx * i) / 5, clientY: 100, buttons: 1 });
  return () => fireEvent.pointerUp(element, { ...base, clientX: 100 + dx, clientY: 100, buttons: 0 });
}
const onScreen = () => screen.getByTestId('swipe-card');

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  api.deck.mockResolvedValue({ results: [ben, cleo], next: null });
  api.likeAllowance.mockReturnValue(new Promise(() => {}));
  api.react.mockResolvedValue({ match: false, conversation_id: null });
  renderAt('/app/home/', <Suspense fallback={null}><Home /></Suspense>);
  await vi.waitFor(() => expect(onScreen().dataset.cardId).toBe(String(ben.id)));
});
afterEach(() => {
  cleanup();
  useDeck.getState().reset();
  localStorage.clear();
  vi.resetAllMocks();
});

describe('a drag under way when a match covers the deck', () => {
  it('springs back on release, with no decision; the next drag decides', () => {
    const release = hold(onScreen(), 150);
    act(() => useDeck.getState().showMatch({ conversationId: 9, name: 'Hugo', image: null }));
    release();
    expect(api.react).not.toHaveBeenCalled();
    expect(useDeck.getState()).toMatchObject({ current: ben, exiting: null });

    act(() => useDeck.getState().hideMatch());
    hold(onScreen(), 150)();
    expect(api.react).toHaveBeenCalledExactlyOnceWith(ben.id, 'like');
  });

  it('decides as ever when no overlay came', () => {
    hold(onScreen(), -150)();
    expect(api.react).toHaveBeenCalledExactlyOnceWith(ben.id, 'dislike');
  });
});
