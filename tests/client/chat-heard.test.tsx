// @vitest-environment jsdom
/**
 * What a screen reader says in a chat: the list of messages is no live region (it read the whole list
 * out), but a hidden one says the partner's newest message once, with who wrote it: not one's own, and
 * not the history the chat opened on.
 */
import { act, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import '../../client/lib/messages-app';
import { Chat } from '../../client/pages/app/Chat';
import { type ChatMessage, emptyThread, useChat } from '../../client/stores/chat';
import { chatPageWorld } from '../helpers/chat-page';
import { renderAt } from '../helpers/render-at';

const ME = 1;
const BEN = 2;
const detail = { id: 7, name: 'Ben', image: null, other_user_id: BEN, partner_last_read_id: 0 };
const message = (id: number, sender: number, content: string): ChatMessage => ({ id, sender, content, time: `2026-11-28T01:0${id}:00.000Z`, client_id: null, status: 'sent' });

/** The server's answers: the conversation, and nothing newer in it than what the tab holds. */
const answer = (url: string) => (new URL(url, 'http://localhost').pathname === '/api/conversations/7/' ? detail : { results: [], next: null, previous: null });

chatPageWorld(ME, answer);
/** The chat open on `history`, loaded. */
async function openOn(history: ChatMessage[]) {
  useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: history } } });
  renderAt('/app/', <Chat id={7} />);
  await screen.findByRole('list', { name: en['chat.messages'] });
}

/** What the chat's hidden live region holds: what a screen reader says of it. */
const heard = () => document.querySelector('.sr-only[aria-live="polite"]')?.textContent;
const receive = (item: ChatMessage) => act(() => useChat.getState().receive(7, item, item.id - 1));

describe('what a screen reader hears in a chat', () => {
  it('does not make the list a live region, nor say the history the chat opens on', async () => {
    await openOn([message(1, BEN, 'hola'), message(2, ME, 'hey'), message(3, BEN, 'where are you?')]);
    expect(screen.getByRole('list', { name: en['chat.messages'] }).hasAttribute('aria-live')).toBe(false);
    expect(heard()).toBe('');
  });

  it('says the partner’s newest message once it comes, with who wrote it; not one’s own', async () => {
    await openOn([message(1, BEN, 'hola')]);
    receive(message(2, BEN, 'at the bar'));
    expect(heard()).toBe('Ben: at the bar');
    receive(message(3, BEN, 'by the DJ'));
    expect(heard()).toBe('Ben: by the DJ');
    receive(message(4, ME, 'on my way'));
    expect(heard()).toBe('');
  });

  it('says nothing of what loads as the chat opens, only what comes after', async () => {
    useChat.setState({ threads: { 7: { ...emptyThread(), detail, messages: [] } } });
    renderAt('/app/', <Chat id={7} />);
    // Held on the device, loaded now: history, however new.
    act(() => useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [message(1, BEN, 'hola'), message(2, BEN, 'hello?')] } } }));
    await screen.findByText('hello?');
    expect(heard()).toBe('');
    receive(message(3, BEN, 'here'));
    expect(heard()).toBe('Ben: here');
  });
});
