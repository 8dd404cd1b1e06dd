// @vitest-environment jsdom
/**
 * Undo brings back the person last passed on. Skipped last of all, that person comes round again at
 * once (the deck shows those skipped once nobody else is left): with them on screen, undo has nobody
 * to bring back, and offering it ("Bring Leo back?" over Leo's card) made no sense. What undo needs,
 * put away, gives the keyboard back to undo.
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import type { DeckCard } from '../../shared/schemas/users';
import { UndoButton, UndoUpsell } from '../../client/components/DeckPerks';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { useDeck } from '../../client/stores/deck';
import { usePlan } from '../../client/stores/plan';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: 'Hi', image: null });
const undo = () => screen.getByRole('button', { name: en['deck.undo'] });

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useSession.setState({ token: 't', user: currentUser({ id: 1, has_subscription: false }) });
});
afterEach(() => {
  cleanup();
  localStorage.clear();
  usePlan.getState().reset();
  useDeck.getState().reset();
});

function deckWith(current: DeckCard) {
  act(() => {
    useDeck.setState({ current, queue: [] });
    usePlan.setState({ lastPass: card(5, 'Leo') });
  });
  renderAt(
    '/app/home/',
    <>
      <UndoUpsell floating />
      <UndoButton />
    </>,
  );
}

describe('undo with the person last passed on', () => {
  it('offers nothing while that person is the card on screen again', () => {
    deckWith(card(5, 'Leo'));
    expect(undo().getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(undo());
    expect(screen.queryByTestId('undo-upsell')).toBeNull();
  });

  it('offers them back while someone else is on screen, and while their card is still on its way out', () => {
    deckWith(card(6, 'Mia'));
    expect(undo().getAttribute('aria-disabled')).toBe('false');
    fireEvent.click(undo());
    expect(screen.getByTestId('undo-upsell').textContent).toContain('Bring Leo back?');

    act(() => useDeck.setState({ current: card(5, 'Leo'), exiting: { id: 5, offset: 0 } }));
    expect(undo().getAttribute('aria-disabled')).toBe('false');
  });
});

describe('what undo needs, put away', () => {
  it('gives the keyboard back to undo, not to the page, as its close button goes', () => {
    deckWith(card(6, 'Mia'));
    undo().focus();
    fireEvent.click(undo());
    const close = screen.getByRole('button', { name: en['deck.dismiss'] });
    close.focus();
    fireEvent.click(close);
    expect(screen.queryByTestId('undo-upsell')).toBeNull();
    expect(document.activeElement).toBe(undo());
  });
});
