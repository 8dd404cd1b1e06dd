// @vitest-environment jsdom
/**
 * "You like each other!" and the keyboard (a screen reader's too). It takes the keyboard's place
 * wherever it opens, over a message being written too, and gives it back as it closes. A keyboard
 * user's overlay stays while their focus is on it, 2 s being too short to hear it read out or to reach
 * its "Send a message", and closes in its own time once the focus has left; a glance's closes in
 * DECK_MATCH_OVERLAY_MS, as ever.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DECK_MATCH_OVERLAY_MS } from '../../shared/constants';
import { en } from '../../shared/i18n/en';

const { MatchOverlay } = await import('../../client/components/MatchOverlay');
const { initLanguage, useMessages } = await import('../../client/lib/i18n');
const { appMessages } = await import('../../client/lib/messages-app');
const { useDeck } = await import('../../client/stores/deck');

function App() {
  useMessages(appMessages);
  return (
    <>
      <h1>Deck</h1>
      <button type="button">Like</button>
      <textarea aria-label="Message" />
      <MatchOverlay />
    </>
  );
}

const overlay = () => screen.queryByRole('alertdialog');
const sendMessage = () => screen.getByRole('link', { name: en['deck.match.chat'] });
const likeButton = () => screen.getByRole('button', { name: 'Like' });
const wait = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
const showMatch = () => act(() => useDeck.getState().showMatch({ conversationId: 7, name: 'Ben', image: null }));

describe('the match overlay and the keyboard', () => {
  beforeEach(async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    render(
      <Suspense fallback={null}>
        <App />
      </Suspense>,
    );
    await screen.findByRole('heading', { name: 'Deck' });
    vi.useFakeTimers();
  });
  afterEach(() => {
    cleanup();
    useDeck.getState().reset();
    vi.useRealTimers();
    localStorage.clear();
  });

  it('stays while the keyboard that made the match is on it, and closes in its time once the focus leaves', async () => {
    // Like pressed from the keyboard: its focus is the keyboard's (:focus-visible).
    likeButton().focus();
    fireEvent.keyDown(likeButton(), { key: 'Enter' });
    showMatch();
    expect(document.activeElement).toBe(sendMessage());
    await wait(DECK_MATCH_OVERLAY_MS * 10);
    expect(overlay()).not.toBeNull();

    // The focus taken elsewhere (another window, a screen reader's own move): then its 2 s.
    act(() => screen.getByRole('textbox', { name: 'Message' }).focus());
    await wait(DECK_MATCH_OVERLAY_MS - 1);
    expect(overlay()).not.toBeNull();
    await wait(1);
    expect(overlay()).toBeNull();
  });

  it('stays once Tab finds the keyboard on it, though a tap made the match; Escape still closes it', async () => {
    showMatch();
    await wait(DECK_MATCH_OVERLAY_MS / 2);
    fireEvent.keyDown(sendMessage(), { key: 'Tab' });
    expect(document.activeElement).toBe(sendMessage());
    await wait(DECK_MATCH_OVERLAY_MS * 10);
    expect(overlay()).not.toBeNull();
    fireEvent.keyDown(sendMessage(), { key: 'Escape' });
    expect(overlay()).toBeNull();
  });

  it('closes in DECK_MATCH_OVERLAY_MS for a glance, the focus on it but no key pressed', async () => {
    showMatch();
    expect(document.activeElement).toBe(sendMessage());
    await wait(DECK_MATCH_OVERLAY_MS);
    expect(overlay()).toBeNull();
  });

  it('takes the focus from a message being written, on itself rather than its link, and gives it back', async () => {
    const composer = screen.getByRole('textbox', { name: 'Message' });
    composer.focus();
    fireEvent.keyDown(composer, { key: 'h' });
    showMatch();
    expect(document.activeElement).toBe(overlay());
    // A key still being typed opens no chat, and the overlay keeps its time: the writer did not stop for it.
    fireEvent.keyDown(overlay()!, { key: 'Enter' });
    await wait(DECK_MATCH_OVERLAY_MS);
    expect(overlay()).toBeNull();
    expect(document.activeElement).toBe(composer);
  });
});
