// @vitest-environment jsdom
/**
 * The chat on screen is read: a read of the conversations' lists asked before that read reached the
 * server (the one a reconnect asks for, say) may answer after it, still counting its messages unread.
 * Left so, Chats would say "1 unread" once the reader left the chat, of a message they had read.
 */
import { act, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import type { ConversationSummary } from '../../shared/schemas/conversations';
import '../../client/lib/messages-app';
import { AppShell } from '../../client/components/AppShell';
import { Chat } from '../../client/pages/app/Chat';
import { type ChatMessage, emptyThread, useChat } from '../../client/stores/chat';
import { unreadTotal, useConversations } from '../../client/stores/conversations';
import { chatPageWorld, resized } from '../helpers/chat-page';
import { renderAt } from '../helpers/render-at';

const ME = 1;
const BEN = 2;
const detail = { id: 7, name: 'Ben', image: null, other_user_id: BEN, partner_last_read_id: 0 };
const fromBen = (id: number, content: string): ChatMessage => ({ id, sender: BEN, content, time: `2026-12-04T21:0${id}:00.000Z`, client_id: null, status: 'sent' });
const fromMe = (id: number, content: string): ChatMessage => ({ ...fromBen(id, content), sender: ME });
const listed = (unread: number): ConversationSummary => ({
  id: 7,
  name: 'Ben',
  image: null,
  other_user_id: BEN,
  last_message: 'at the bar',
  last_activity: '2026-12-04T21:02:00.000Z',
  unread_count: unread,
});

/** The server's answers: the conversation, and nothing newer in it than what the tab holds. */
/** The chat's list laid out taller than its box and its reader at the top: what comes below is not seen. */
function scrolledUp(list: HTMLElement) {
  Object.defineProperties(list, { scrollHeight: { value: 2000 }, clientHeight: { value: 500 } });
  resized(list);
  act(() => {
    list.scrollTop = 0;
    list.dispatchEvent(new Event('scroll'));
  });
}
const answer = (url: string) => (new URL(url, 'http://localhost').pathname === '/api/conversations/7/' ? detail : { results: [], next: null, previous: null });

chatPageWorld(ME, answer);
/** Ben's message as a push brings it (after `previousId`): into the open chat, and onto the lists, unread. */
function benWrites(message: ChatMessage, previousId: number) {
  act(() => {
    useChat.getState().receive(7, message, previousId);
    useConversations.getState().noteMessage(7, message, false);
  });
}

describe('the unread count of the chat on screen', () => {
  it('stays at none when a read of the lists asked before the chat was read answers after it', async () => {
    useConversations.setState({ empty: [], started: [listed(1)] });
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [fromBen(1, 'hola'), fromBen(2, 'at the bar')] } } });
    renderAt('/app/', <Chat id={7} />);
    await screen.findByRole('list', { name: en['chat.messages'] });
    expect(useConversations.getState().started?.[0]?.unread_count).toBe(0);

    // The lists' late answer, counted before the read: the message on screen, read, is not unread.
    act(() => useConversations.setState({ started: [listed(1)] }));
    expect(unreadTotal(useConversations.getState())).toBe(0);
  });

  it('is left to the lists while the reader is up in the history, not at the newest', async () => {
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [fromBen(1, 'hola')] } } });
    renderAt('/app/', <Chat id={7} />);
    const list = await screen.findByRole('list', { name: en['chat.messages'] });
    scrolledUp(list);
    act(() => useConversations.setState({ empty: [], started: [listed(1)] }));
    expect(unreadTotal(useConversations.getState())).toBe(1);
  });

  it('is counted on Chats while the reader is up in the history, and no more once they go down to it', async () => {
    useConversations.setState({ empty: [], started: [listed(0)] });
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [fromBen(1, 'hola')] } } });
    const view = renderAt(
      '/app/chat/7',
      <AppShell>
        <Chat id={7} />
      </AppShell>,
    );
    const list = await screen.findByRole('list', { name: en['chat.messages'] });
    scrolledUp(list);
    // Ben writes, as a push brings it: it waits below, "New messages", unread.
    benWrites(fromBen(2, 'at the bar'), 1);
    await screen.findByRole('button', { name: new RegExp(en['chat.newBelow']) });
    const badge = () => view.container.querySelector('.bottom-nav .nav-badge')?.textContent;
    expect(badge()).toBe('1');
    expect(screen.getByText(en['matches.unread'].replace('{count}', '1'))).toBeTruthy();

    act(() => {
      list.scrollTop = 1500;
      list.dispatchEvent(new Event('scroll'));
    });
    expect(useConversations.getState().started?.[0]?.unread_count).toBe(0);
    expect(badge()).toBeUndefined();
  });

  it('no longer says "New messages" once they are read on another of my phones', async () => {
    useConversations.setState({ empty: [], started: [listed(0)] });
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [fromBen(1, 'hola')] } } });
    renderAt('/app/chat/7', <Chat id={7} />);
    const list = await screen.findByRole('list', { name: en['chat.messages'] });
    scrolledUp(list);
    benWrites(fromBen(2, 'at the bar'), 1);
    const newBelow = () => screen.queryByRole('button', { name: new RegExp(en['chat.newBelow']) });
    await screen.findByRole('button', { name: new RegExp(en['chat.newBelow']) });

    // My other phone reads it: the server's `message:read` of mine, as the socket's handler takes it.
    act(() => useConversations.getState().setUnread(7, useChat.getState().readUpTo(7, 2)!));
    expect(unreadTotal(useConversations.getState())).toBe(0);
    expect(newBelow()).toBeNull();

    // Ben writes again: that one is new, below.
    act(() => useChat.getState().receive(7, fromBen(3, 'coming?'), 2));
    expect(newBelow()).not.toBeNull();
  });

  it('reads a message of the partner that lands above the newest: the catch-up after sends queued offline', async () => {
    // Back online, my two queued messages are stored and acknowledged before the catch-up brings the
    // one Ben sent meanwhile, older than them: the newest message stays the same, and it is on screen.
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [fromBen(1, 'hola'), fromMe(3, 'hi!'), fromMe(4, 'at the bar')] } } });
    renderAt('/app/', <Chat id={7} />);
    await screen.findByRole('list', { name: en['chat.messages'] });
    expect(useChat.getState().threads[7]!.ownReadId).toBe(1);

    act(() => useChat.setState((state) => ({ threads: { 7: { ...state.threads[7]!, messages: [fromBen(1, 'hola'), fromBen(2, 'where are you?'), fromMe(3, 'hi!'), fromMe(4, 'at the bar')] } } })));
    expect(useChat.getState().threads[7]!.ownReadId).toBe(2);
  });
});
