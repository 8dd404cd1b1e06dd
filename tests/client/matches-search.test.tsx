// @vitest-environment jsdom
/**
 * The search on Chats says "No results" once, where nothing was found, and only when the search found
 * no one: not under one list just below the person the other list found.
 */
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { format } from '../../shared/i18n/format';
import type { ConversationSummary } from '../../shared/schemas/conversations';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { Matches } from '../../client/pages/app/Matches';
import { useConversations } from '../../client/stores/conversations';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

const person = (id: number, name: string, lastMessage: string | null): ConversationSummary => ({
  id,
  name,
  image: null,
  other_user_id: 100 + id,
  last_message: lastMessage,
  last_activity: `2026-12-04T21:0${id}:00.000Z`,
  unread_count: 0,
});

/** The server's lists: Frank, a new match; Dan, a conversation. */
const answer = (url: string) => ({
  results: url.includes('/api/conversations/empty/') ? [person(1, 'Frank', null)] : [person(2, 'Dan', 'hola')],
  next: null,
  previous: null,
});

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser({ id: 1 }) });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => new Response(JSON.stringify(answer(String(input))), { status: 200, headers: { 'Content-Type': 'application/json' } })),
  );
});
afterEach(() => {
  cleanup();
  useSession.getState().signOut();
  useConversations.getState().reset();
  vi.unstubAllGlobals();
  localStorage.clear();
});

async function search(query: string) {
  renderAt('/app/', <Matches />);
  await screen.findByText('Dan');
  fireEvent.change(screen.getByPlaceholderText(en['matches.search']), { target: { value: query } });
}

// The query is in a <bdi> of its own in the sentence: the sentence is the paragraph's whole text.
const noResults = (query: string) =>
  screen.queryAllByText((_, element) => element?.tagName === 'P' && element.textContent === format(en['matches.noResults'], { query }));

describe('the search on Chats', () => {
  it('says nothing under the conversations when it found someone among the new matches', async () => {
    await search('fra');
    expect(screen.getByText('Frank')).toBeTruthy();
    expect(noResults('fra')).toHaveLength(0);
  });

  it('says nothing under the new matches when it found someone among the conversations', async () => {
    await search('da');
    expect(screen.getByText('Dan')).toBeTruthy();
    expect(noResults('da')).toHaveLength(0);
  });

  it('says "No results" once when it found no one', async () => {
    await search('zzz');
    expect(noResults('zzz')).toHaveLength(1);
  });
});
