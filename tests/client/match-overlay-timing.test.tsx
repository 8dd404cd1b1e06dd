// @vitest-environment jsdom
/**
 * How long "You like each other!" shows, as `match:new` brings it: DECK_MATCH_OVERLAY_MS counted from
 * when the page is in view, so that a match heard with the phone away is still there to see on coming
 * back, with its dot on Chats as well.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DECK_MATCH_OVERLAY_MS } from '../../shared/constants';
import type { ServerToClientEvents } from '../../shared/events';
import { hear as hearOnSocket } from '../helpers/heard-socket';
import { comeBack } from '../helpers/page-visibility';

const api = vi.hoisted(() => ({ emptyConversations: vi.fn(), startedConversations: vi.fn(), likesYou: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { MatchOverlay } = await import('../../client/components/MatchOverlay');
const { initLanguage, useMessages } = await import('../../client/lib/i18n');
const { appMessages } = await import('../../client/lib/messages-app');
const { useConversations } = await import('../../client/stores/conversations');
const { useDeck } = await import('../../client/stores/deck');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');

function App() {
  useMessages(appMessages);
  return (
    <>
      <h1>Deck</h1>
      <MatchOverlay />
    </>
  );
}

/** A server event, heard as React hears it. */
function hear<E extends keyof ServerToClientEvents>(event: E, payload: Parameters<ServerToClientEvents[E]>[0]) {
  act(() => hearOnSocket(event, payload));
}

const matchWith = (conversationId: number, name: string) => ({ conversation_id: conversationId, user: { id: 100 + conversationId, name, image: null } });
/** Who the overlay on screen is a match with, if one shows. */
const shownWith = () => screen.queryByRole('alertdialog')?.querySelector('#match-text')?.textContent ?? null;
const wait = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

describe('the match overlay’s time on screen', () => {
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
    vi.spyOn(console, 'error').mockImplementation(() => {});
    api.emptyConversations.mockResolvedValue({ results: [] });
    api.startedConversations.mockResolvedValue({ results: [] });
    startRealtime('token');
  });
  afterEach(() => {
    stopRealtime();
    cleanup();
    comeBack();
    useDeck.getState().reset();
    useConversations.getState().reset();
    vi.useRealTimers();
    vi.resetAllMocks();
    vi.mocked(console.error).mockRestore();
    localStorage.clear();
  });

  it('counts its time from when the page comes into view, not from a match heard with the phone away', async () => {
    comeBack('hidden');
    hear('match:new', matchWith(7, 'Pablo'));
    await wait(60_000);
    expect(shownWith()).toContain('Pablo');
    expect(useConversations.getState().newMatches).toEqual([7]);

    comeBack();
    await wait(DECK_MATCH_OVERLAY_MS - 1);
    expect(shownWith()).toContain('Pablo');
    await wait(1);
    expect(shownWith()).toBeNull();
    // Seen now: its dot on Chats stays until the chats are looked at, and it does not show again.
    expect(useConversations.getState().newMatches).toEqual([7]);
    hear('match:new', matchWith(7, 'Pablo'));
    expect(shownWith()).toBeNull();
  });

  it('counts again from the start when the page goes out of view before its time is up', async () => {
    hear('match:new', matchWith(7, 'Pablo'));
    await wait(DECK_MATCH_OVERLAY_MS - 500);
    comeBack('hidden');
    await wait(10_000);
    comeBack();
    await wait(DECK_MATCH_OVERLAY_MS - 1);
    expect(shownWith()).toContain('Pablo');
    await wait(1);
    expect(shownWith()).toBeNull();
  });
});
