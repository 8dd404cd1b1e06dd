// @vitest-environment jsdom
/**
 * The deck's arrow keys (← no, → like, ↓ skip) decide only where they are the deck's: with the focus
 * on its card or its buttons, or on nothing in particular. On any other control (a link of the nav, a
 * field) an arrow is that control's, or scrolls the page, as keyboard and magnifier users expect; and
 * an open dialog has them. As the card the focus is on leaves (decided, taken away, the deck emptied
 * or filled, a match's overlay over it), the focus goes on in the deck, not to the page's <body>.
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SWIPE_EXIT_MS } from '../../shared/constants';
import { enApp } from '../../shared/i18n/en-app';
import type { DeckCard } from '../../shared/schemas/users';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

const api = vi.hoisted(() => ({ deck: vi.fn(), likeAllowance: vi.fn(), react: vi.fn(), undo: vi.fn(), undoable: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { Home } = await import('../../client/pages/app/Home');
const { MatchOverlay } = await import('../../client/components/MatchOverlay');
const { SWIPE_CARD } = await import('../../client/lib/deck-card');
const { initLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');
const { useDeck } = await import('../../client/stores/deck');
const { usePlan } = await import('../../client/stores/plan');
const { useSession } = await import('../../client/stores/session');

const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: '', image: null });
const people = [card(2, 'Ben'), card(3, 'Cleo'), card(4, 'Dan'), card(5, 'Eva')];

/** An arrow pressed where `target` has the focus (the page's <body>: nothing in particular); whether the deck took it. */
function arrow(key: string, target: HTMLElement) {
  target.focus();
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true });
  act(() => void target.dispatchEvent(event));
  act(() => void vi.advanceTimersByTime(SWIPE_EXIT_MS));
  return event.defaultPrevented;
}
const decisions = () => api.react.mock.calls.map(([, action]) => action as string);

/** The card on top liked from the keyboard into a match: its overlay open, the card gone from under it. */
async function likeIntoMatch() {
  api.react.mockResolvedValueOnce({ match: true, conversation_id: 7 });
  const card = screen.getByTestId('swipe-card');
  card.focus();
  await act(async () => void card.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true })));
  await vi.waitFor(() => expect(screen.getByRole('alertdialog')).toBeTruthy());
  act(() => void vi.advanceTimersByTime(SWIPE_EXIT_MS));
}

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  api.deck.mockResolvedValue({ results: people, next: null });
  api.likeAllowance.mockReturnValue(new Promise(() => {}));
  api.undoable.mockReturnValue(new Promise(() => {}));
  api.react.mockResolvedValue({ match: false, conversation_id: null });
  renderAt(
    '/app/home/',
    <Suspense fallback={null}>
      <Home />
      <MatchOverlay />
      <nav>
        <a href="/app/matches">Chats</a>
      </nav>
      <input aria-label="Search" />
    </Suspense>,
  );
  await vi.waitFor(() => expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('2'));
});
afterEach(() => {
  cleanup();
  useDeck.getState().reset();
  usePlan.getState().reset();
  useSession.setState({ user: null });
  localStorage.clear();
  vi.useRealTimers();
  vi.resetAllMocks();
});

describe('the deck’s arrow keys', () => {
  it('leave a link of the nav, and a field, their arrows', () => {
    expect(arrow('ArrowRight', screen.getByRole('link', { name: 'Chats' }))).toBe(false);
    expect(arrow('ArrowLeft', screen.getByRole('textbox', { name: 'Search' }))).toBe(false);
    expect(decisions()).toEqual([]);
    expect(useDeck.getState().current?.name).toBe('Ben');
  });

  it('decide with the focus on the card, on the deck’s buttons, on its heading, or on nothing in particular', () => {
    expect(arrow('ArrowRight', screen.getByTestId('swipe-card'))).toBe(true);
    expect(arrow('ArrowDown', screen.getByRole('button', { name: enApp['deck.dislike'] }))).toBe(true);
    expect(arrow('ArrowLeft', document.body)).toBe(true);
    // Where a change of page puts the focus (AppShell): the deck's own heading.
    const heading = screen.getByRole('heading', { level: 1 });
    heading.tabIndex = -1;
    expect(arrow('ArrowRight', heading)).toBe(true);
    expect(decisions()).toEqual(['like', 'skip', 'dislike', 'like']);
  });

  it('decide once for an arrow held down: its repeats do not decide the cards that come up unseen', () => {
    const card = screen.getByTestId('swipe-card');
    expect(arrow('ArrowRight', card)).toBe(true);
    expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('3');
    // The key's auto-repeat, which starts about half a second into the hold: after the next card is up.
    const repeat = new KeyboardEvent('keydown', { key: 'ArrowRight', repeat: true, bubbles: true, cancelable: true });
    act(() => void screen.getByTestId('swipe-card').dispatchEvent(repeat));
    act(() => void vi.advanceTimersByTime(SWIPE_EXIT_MS));
    expect(decisions()).toEqual(['like']);
    expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('3');
  });

  it('decide about the card coming up for an arrow pressed again while the card before leaves', () => {
    const press = (key: string) => act(() => void document.body.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true })));
    press('ArrowRight');
    act(() => void vi.advanceTimersByTime(SWIPE_EXIT_MS / 3));
    press('ArrowLeft');
    expect(api.react.mock.calls).toEqual([
      [2, 'like'],
      [3, 'dislike'],
    ]);
    expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('3');
    act(() => void vi.advanceTimersByTime(SWIPE_EXIT_MS));
    expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('4');
    expect(api.react).toHaveBeenCalledTimes(2);
  });

  it('leave Enter held down on a button of the deck to press it once, not again on the cards that come up', () => {
    const like = screen.getByRole('button', { name: enApp['deck.like'] });
    like.focus();
    // The browser presses a focused button at each Enter's keydown, its auto-repeats too, unless prevented.
    const enter = (repeat: boolean) => new KeyboardEvent('keydown', { key: 'Enter', repeat, bubbles: true, cancelable: true });
    const first = enter(false);
    const repeat = enter(true);
    act(() => void like.dispatchEvent(first));
    act(() => void like.dispatchEvent(repeat));
    expect(first.defaultPrevented).toBe(false);
    expect(repeat.defaultPrevented).toBe(true);
  });

  it('decide nothing while a dialog is open over the deck', () => {
    const dialog = document.body.appendChild(document.createElement('div'));
    dialog.setAttribute('role', 'dialog');
    expect(arrow('ArrowRight', document.body)).toBe(false);
    dialog.remove();
    expect(decisions()).toEqual([]);
  });
});

describe('the keyboard’s place after a decision', () => {
  it('knows the deck’s card on top by one selector, the deck’s and the match overlay’s: not the card behind it', () => {
    expect(document.querySelector('.swipe-card-next')).not.toBeNull();
    expect([...document.querySelectorAll(SWIPE_CARD)]).toEqual([screen.getByTestId('swipe-card')]);
  });

  it('moves to the next card when the card it was on leaves', () => {
    expect(arrow('ArrowRight', screen.getByTestId('swipe-card'))).toBe(true);
    expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('3');
    expect(document.activeElement).toBe(screen.getByTestId('swipe-card'));
    // The next arrow is the deck's again, from where the focus was left.
    const event = new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true, cancelable: true });
    act(() => void document.activeElement!.dispatchEvent(event));
    act(() => void vi.advanceTimersByTime(SWIPE_EXIT_MS));
    expect(document.activeElement).toBe(screen.getByTestId('swipe-card'));
    expect(decisions()).toEqual(['like', 'dislike']);
  });

  it('moves to the card that comes up when the one it was on is taken away (answered on another phone, a block)', () => {
    screen.getByTestId('swipe-card').focus();
    act(() => useDeck.getState().forget(2));
    expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('3');
    expect(document.activeElement).toBe(screen.getByTestId('swipe-card'));
  });

  it('goes to the empty deck’s words when the last card leaves from under its buttons', async () => {
    act(() => ['3', '4', '5'].forEach((id) => useDeck.getState().forget(Number(id))));
    api.deck.mockResolvedValue({ results: [], next: null });
    const like = screen.getByRole('button', { name: enApp['deck.like'] });
    like.focus();
    fireEvent.click(like);
    act(() => void vi.advanceTimersByTime(SWIPE_EXIT_MS));
    await vi.waitFor(() => expect(document.querySelector('.deck-empty')).not.toBeNull());
    expect(document.activeElement).toBe(document.querySelector('.deck-empty'));
  });

  it('comes back to the card on top as the match overlay closes, the card decided gone from under it', async () => {
    await likeIntoMatch();
    expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('3');
    act(() => void fireEvent.keyDown(document.activeElement!, { key: 'Escape' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByTestId('swipe-card'));
  });

  it('comes back to the empty deck’s words as the match overlay closes, the last card decided gone from under it', async () => {
    act(() => ['3', '4', '5'].forEach((id) => useDeck.getState().forget(Number(id))));
    api.deck.mockResolvedValue({ results: [], next: null });
    await likeIntoMatch();
    await vi.waitFor(() => expect(document.querySelector('.deck-empty')).not.toBeNull());
    act(() => void fireEvent.keyDown(document.activeElement!, { key: 'Escape' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(document.querySelector('.deck-empty'));
  });

  it('moves from the empty deck’s words to the card that fills it (someone arrived at the event, back online)', async () => {
    api.deck.mockResolvedValue({ results: [], next: null });
    await act(() => useDeck.getState().load());
    const words = document.querySelector<HTMLElement>('.deck-empty')!;
    words.focus();
    api.deck.mockResolvedValue({ results: [card(6, 'Fer')], next: null });
    await act(() => useDeck.getState().refresh());
    expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('6');
    expect(document.activeElement).toBe(screen.getByTestId('swipe-card'));
  });

  it('stays on undo as the card it brings back fills the empty deck', async () => {
    act(() => useSession.setState({ token: 't', user: currentUser({ id: 1, has_subscription: true }) }));
    api.deck.mockResolvedValue({ results: [], next: null });
    await act(() => useDeck.getState().load());
    act(() => usePlan.setState({ lastPass: people[0]! }));
    api.undo.mockResolvedValue({ card: people[0] });
    const undo = screen.getByRole('button', { name: enApp['deck.undo'] });
    undo.focus();
    await act(async () => void fireEvent.click(undo));
    await vi.waitFor(() => expect(screen.getByTestId('swipe-card').dataset.cardId).toBe('2'));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: enApp['deck.undo'] }));
  });
});
