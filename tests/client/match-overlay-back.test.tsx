// @vitest-environment jsdom
/**
 * "You like each other!" and the back gesture: Back closes the overlay and stays on the deck; its
 * "Send a message" opens the chat in the deck's place in the history as if no overlay had shown, so
 * Back from the chat is the deck. A real router on the document's history, jsdom's `popstate`s.
 */
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { Route, Router, Switch } from 'wouter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { MatchOverlay, TAP_THROUGH_MS } from '../../client/components/MatchOverlay';
import { afterOverlays } from '../../client/lib/back-closes';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { useDeck } from '../../client/stores/deck';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

function App() {
  useMessages(appMessages);
  return (
    <Router aroundNav={afterOverlays}>
      <Switch>
        <Route path="/app/home/">
          <h1>Deck</h1>
        </Route>
        <Route path="/app/chat/7">
          <h1>Chat</h1>
        </Route>
      </Switch>
      <MatchOverlay />
    </Router>
  );
}

const overlay = () => screen.queryByRole('alertdialog');
const heading = () => screen.getByRole('heading', { level: 1 }).textContent;
const marked = () => (window.history.state as { overlay?: string } | null)?.overlay !== undefined;

/** Past the overlay's first moments, in which a tap is taken for the end of the one that made the match. */
const afterFirstMoments = () => new Promise((resolve) => setTimeout(resolve, TAP_THROUGH_MS));

async function back() {
  const before = window.history.state as unknown;
  window.history.back();
  await waitFor(() => expect(window.history.state).not.toBe(before));
}

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useSession.setState({ user: currentUser() });
  window.history.replaceState({ at: 'before' }, '', '/app/matches/');
  window.history.pushState({ at: 'deck' }, '', '/app/home/');
  render(
    <Suspense fallback={null}>
      <App />
    </Suspense>,
  );
  await screen.findByRole('heading', { name: 'Deck' });
  // Shown as a match does, without its timer: the test says when it goes.
  act(() => useDeck.setState({ match: { conversationId: 7, name: 'Ben', image: null } }));
  await waitFor(() => expect(marked()).toBe(true));
});
afterEach(async () => {
  vi.restoreAllMocks();
  cleanup();
  useDeck.getState().reset();
  await waitFor(() => expect(marked()).toBe(false));
  useSession.setState({ user: null });
  localStorage.clear();
});

describe('the match overlay and the back gesture', () => {
  it('Back closes it and stays on the deck', async () => {
    expect(overlay()).not.toBeNull();
    await back();
    expect(overlay()).toBeNull();
    expect(window.location.pathname).toBe('/app/home/');
    expect(window.history.state).toEqual({ at: 'deck' });
  });

  it('"Send a message" opens the chat; Back from it is the deck, with no overlay', async () => {
    await afterFirstMoments();
    fireEvent.click(screen.getByRole('link', { name: en['deck.match.chat'] }));
    await waitFor(() => expect(heading()).toBe('Chat'));
    expect(overlay()).toBeNull();
    await back();
    expect(heading()).toBe('Deck');
    expect(window.history.state).toEqual({ at: 'deck' });
    await back();
    expect(window.location.pathname).toBe('/app/matches/');
  });

  it('takes taps in its first moments for the end of the double tap on Like that made the match', async () => {
    // The overlay's moments on a clock the test moves: a busy machine cannot make them pass unseen.
    let now = performance.now();
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    act(() => useDeck.setState({ match: { conversationId: 7, name: 'Ben', image: null } }));
    fireEvent.click(screen.getByRole('link', { name: en['deck.match.chat'] }));
    fireEvent.click(overlay()!);
    expect(overlay()).not.toBeNull();
    expect(heading()).toBe('Deck');

    now += TAP_THROUGH_MS;
    fireEvent.click(overlay()!);
    expect(overlay()).toBeNull();
    await waitFor(() => expect(window.history.state).toEqual({ at: 'deck' }));
    expect(heading()).toBe('Deck');
  });

  it('closed by Back, the match waiting behind it shows with an entry of its own for Back to close it', async () => {
    act(() => useDeck.getState().showMatch({ conversationId: 8, name: 'Cleo', image: null }));
    expect(screen.getByRole('alertdialog').textContent).toContain('Ben');
    await back();
    await waitFor(() => expect(screen.queryByRole('alertdialog')?.textContent).toContain('Cleo'));
    await waitFor(() => expect(marked()).toBe(true));
    expect(document.activeElement).toBe(screen.getByRole('link', { name: en['deck.match.chat'] }));
    await back();
    expect(overlay()).toBeNull();
    expect(window.location.pathname).toBe('/app/home/');
    expect(window.history.state).toEqual({ at: 'deck' });
  });

  it('gone by itself (its time up), it takes its entry with it', async () => {
    act(() => useDeck.getState().hideMatch());
    await waitFor(() => expect(window.history.state).toEqual({ at: 'deck' }));
    expect(window.location.pathname).toBe('/app/home/');
  });
});
