// @vitest-environment jsdom
/**
 * A chat message's toast, raised on the deck, goes once the page that shows the message itself is
 * open: the chats list (every such toast) and that chat (its own). Left up, it covered the list's
 * search and top rows, or the chat's header, for its 5 s, announcing the message shown right below it.
 * Other toasts stay.
 */
import { act, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import '../../client/lib/messages-app';
import { toast, useToasts } from '../../client/lib/toast';
import { Chat } from '../../client/pages/app/Chat';
import { Matches } from '../../client/pages/app/Matches';
import { chatToastKey, emptyThread, useChat } from '../../client/stores/chat';
import { chatPageWorld } from '../helpers/chat-page';
import { renderAt } from '../helpers/render-at';

const detail = { id: 7, name: 'Ben', image: null, other_user_id: 2, partner_last_read_id: 0 };
const summary = { id: 7, name: 'Ben', image: null, other_user_id: 2, last_message: 'at the bar', last_activity: '2026-12-04T21:00:00.000Z', unread_count: 1 };
/** The server's answers: the conversation; Ben's among the conversations, no new match, no message to load. */
const answer = (url: string) => {
  const path = new URL(url, 'http://localhost').pathname;
  if (path === '/api/conversations/7/') return detail;
  return { results: path.includes('/empty/') || path.includes('/messages') ? [] : [summary], next: null, previous: null };
};

chatPageWorld(1, answer);
afterEach(() => act(() => toast.dismiss()));

const shown = () => useToasts.getState().toasts.map((item) => [item.kind, item.message]);
function raise() {
  act(() => {
    toast.message('at the bar', { title: 'Ben', href: '/app/chat/7', key: chatToastKey(7) });
    toast.message('hi!', { title: 'Dan', href: '/app/chat/8', key: chatToastKey(8) });
    toast.success('Saved.');
  });
}

describe("a chat message's toast, on the page that shows the message", () => {
  it('goes on the chats list, every one of them; other toasts stay', async () => {
    raise();
    renderAt('/app/', <Matches />);
    await screen.findByText('Ben');
    expect(shown()).toEqual([['success', 'Saved.']]);
  });

  it('goes in that chat, its own only', async () => {
    raise();
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [] } } });
    renderAt('/app/', <Chat id={7} />);
    await screen.findByRole('list', { name: en['chat.messages'] });
    expect(shown()).toEqual([
      ['success', 'Saved.'],
      ['message', 'hi!'],
    ]);
  });
});
