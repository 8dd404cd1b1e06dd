// @vitest-environment jsdom
/**
 * The dot on Chats for a new match goes, and the user's other phones are told it was seen, when the
 * match is seen: the matches list in view (all of them), or the new match's own chat (that one only);
 * not another chat the user happens to be in.
 */
import { act, cleanup, render } from '@testing-library/react';
import { Suspense } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { currentUser } from '../helpers/current-user';

const sendMatchSeen = vi.hoisted(() => vi.fn());
vi.mock('../../client/lib/socket', async (original) => ({ ...(await original<object>()), sendMatchSeen }));

const { AppShell } = await import('../../client/components/AppShell');
const { initLanguage, useMessages } = await import('../../client/lib/i18n');
const { appMessages } = await import('../../client/lib/messages-app');
const { useConversations } = await import('../../client/stores/conversations');
const { useSession } = await import('../../client/stores/session');

function Shell() {
  useMessages(appMessages);
  return (
    <AppShell>
      <h1>Page</h1>
    </AppShell>
  );
}

/** The app at `path`; `go` moves it on, as a link would. */
function renderApp(path: string) {
  const { hook, navigate } = memoryLocation({ path });
  render(
    <Router hook={hook}>
      <Suspense fallback={null}>
        <Shell />
      </Suspense>
    </Router>,
  );
  return { go: (to: string) => act(() => navigate(to)) };
}

beforeEach(async () => {
  localStorage.clear();
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser() });
  // The lists loaded already: nothing to ask the server.
  useConversations.setState({ empty: [], started: [], newMatches: [8, 9] });
});
afterEach(() => {
  cleanup();
  useConversations.getState().reset();
  useSession.setState({ token: null, user: undefined });
  sendMatchSeen.mockReset();
});

it('keeps the new matches unseen in another chat, and sees only the one whose chat opens', async () => {
  const { go } = renderApp('/app/chat/4/');
  await act(async () => {});
  expect(useConversations.getState().newMatches).toEqual([8, 9]);
  expect(sendMatchSeen).not.toHaveBeenCalled();

  go('/app/chat/9/');
  expect(useConversations.getState().newMatches).toEqual([8]);
  expect(sendMatchSeen).toHaveBeenCalledExactlyOnceWith([9], 'chats');
});

it('sees them all on the matches list', async () => {
  renderApp('/app/matches/');
  await vi.waitFor(() => expect(useConversations.getState().newMatches).toEqual([]));
  expect(sendMatchSeen).toHaveBeenCalledExactlyOnceWith([8, 9], 'chats');
});
