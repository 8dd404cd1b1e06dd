// @vitest-environment jsdom
/**
 * A long chat scrolled far back: the page draws a bounded number of messages, whatever the thread
 * holds. Drawing every message ever scrolled past grew the page by some 9 DOM nodes a message, without
 * bound (20,000 messages: ~180,000 nodes). The newest are let go of going up, drawn again going down.
 */
import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import '../../client/lib/messages-app';
import { useConnection } from '../../client/lib/socket';
import { CHAT_DRAWN, Chat } from '../../client/pages/app/Chat';
import { type ChatMessage, emptyThread, useChat } from '../../client/stores/chat';
import { chatPageWorld, resized } from '../helpers/chat-page';
import { renderAt } from '../helpers/render-at';

const ME = 1;
const BEN = 2;
/**
 * Past two windows of CHAT_DRAWN, so that the oldest and the newest are never drawn together. Each step
 * of the scroll draws a whole window in jsdom (~0.2 s of a core): 1,000 took 34 s of the test's 30 on
 * a machine shared with other runs; 700 is half the steps.
 */
const HELD = 700;
const detail = { id: 7, name: 'Ben', image: null, other_user_id: BEN, partner_last_read_id: 0 };
const message = (id: number): ChatMessage => ({
  id,
  sender: id % 2 ? BEN : ME,
  content: `message ${id}`,
  time: '2026-11-28T01:00:00.000Z',
  client_id: null,
  status: 'sent',
});

/** No network for the page of older messages. */
let offline = false;
/** The server's own error for the page of older messages. */
let failing = false;
/** The page of older messages, once, held until this settles. */
let olderHeld: Promise<void> | null = null;
afterEach(() => {
  offline = false;
  failing = false;
  olderHeld = null;
  useConnection.setState({ connected: false });
});

/** The server's answers: the conversation, its first 50 messages as the page before `older`, and nothing newer. */
chatPageWorld(ME, function answer(url: string): unknown {
  const { pathname, searchParams } = new URL(url, 'http://localhost');
  if (pathname === '/api/conversations/7/') return detail;
  if (searchParams.get('cursor') === 'older' && olderHeld) {
    const release = olderHeld;
    olderHeld = null;
    return release.then(() => answer(url));
  }
  if (searchParams.get('cursor') === 'older' && offline) throw new TypeError('Failed to fetch');
  if (searchParams.get('cursor') === 'older' && failing) return new Response(JSON.stringify({ detail: 'Internal error' }), { status: 500 });
  if (searchParams.get('cursor') === 'older') return { results: Array.from({ length: 50 }, (_, index) => message(50 - index)), next: null };
  return { results: [], next: null };
});

const drawn = () => screen.getAllByTestId('message').map((item) => item.querySelector('.message-content')!.textContent);

/** The list scrolled to `at` ('top' or 'bottom') of what it draws, as a browser would report it. */
function scrollTo(list: HTMLElement, at: 'top' | 'bottom') {
  Object.defineProperty(list, 'scrollHeight', { configurable: true, value: 100_000 });
  Object.defineProperty(list, 'clientHeight', { configurable: true, value: 600 });
  resized(list);
  Object.defineProperty(list, 'scrollTop', { configurable: true, writable: true, value: at === 'top' ? 0 : 100_000 - 600 });
  fireEvent.scroll(list);
}

/**
 * A short chat: 50 messages held, 50 older on the server (all of them fit in what the page draws), the
 * reader scrolled up to the top, which asks for the older page.
 */
async function upAtTheTop() {
  const held = Array.from({ length: 50 }, (_, index) => message(index + 51));
  useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: held, older: 'older' } } });
  renderAt('/app/', <Chat id={7} />);
  const list = await screen.findByRole('list', { name: en['chat.messages'] });
  act(() => scrollTo(list, 'top'));
  return list;
}

describe('a long chat scrolled far back', () => {
  it('draws a bounded number of messages, and the newest again on the way down', async () => {
    const history = Array.from({ length: HELD }, (_, index) => message(index + 1));
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail, messages: history } } });
    renderAt('/app/', <Chat id={7} />);
    const list = await screen.findByRole('list', { name: en['chat.messages'] });

    // Opens at the newest, drawing no more than the bound.
    expect(drawn().length).toBeLessThanOrEqual(CHAT_DRAWN);
    expect(drawn().at(-1)).toBe(`message ${HELD}`);

    // All the way up: the oldest in view, still no more than the bound drawn.
    for (let step = 0; step < HELD / 10 && drawn()[0] !== 'message 1'; step += 1) act(() => scrollTo(list, 'top'));
    expect(drawn()[0]).toBe('message 1');
    expect(drawn().length).toBeLessThanOrEqual(CHAT_DRAWN);
    expect(drawn()).not.toContain(`message ${HELD}`);

    // And down again to the newest, in order, without a gap.
    for (let step = 0; step < HELD / 10 && drawn().at(-1) !== `message ${HELD}`; step += 1) act(() => scrollTo(list, 'bottom'));
    expect(drawn().at(-1)).toBe(`message ${HELD}`);
    const ids = drawn().map((text) => Number(text!.split(' ')[1]));
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, index) => ids[0]! + index));
    expect(ids.length).toBeLessThanOrEqual(CHAT_DRAWN);
    // Its steps' work is bounded (~3 s of a core); the time is for a core shared with other runs.
  }, 90_000);

  it('keeps the newest in view once back down from a page of older messages in a short chat', async () => {
    const list = await upAtTheTop();
    await screen.findByText('message 1');
    act(() => scrollTo(list, 'bottom'));
    // Ben writes: the reader, down at the newest, is taken to it.
    act(() => {
      const thread = useChat.getState().threads[7]!;
      useChat.setState({ threads: { 7: { ...thread, messages: [...thread.messages, message(101)] } } });
    });
    expect(list.scrollTop).toBe(list.scrollHeight);
    expect(screen.queryByRole('button', { name: `${en['chat.newBelow']} ↓` })).toBeNull();
  });

  it('asks again for the older messages that did not come once back online, the reader waiting at the top', async () => {
    offline = true;
    const list = await upAtTheTop();
    await vi.waitFor(() => expect(useChat.getState().threads[7]!.loadingOlder).toBe(false));
    expect(screen.queryByText('message 1')).toBeNull();
    // The network is back: the socket connects again, and the reader has not moved.
    offline = false;
    act(() => useConnection.setState({ connected: true }));
    await screen.findByText('message 1');
  });

  it('says that the older messages did not come for the server’s error, and Try again brings them', async () => {
    failing = true;
    await upAtTheTop();
    // Connected all along: no reconnect will ask again, the reader is offered to.
    const again = await screen.findByRole('button', { name: en['app.retry'] });
    expect(screen.getByText(en['error.generic'])).toBeTruthy();
    expect(screen.queryByText(en['chat.loadingOlder'])).toBeNull();
    failing = false;
    fireEvent.click(again);
    await screen.findByText('message 1');
    expect(screen.queryByRole('button', { name: en['app.retry'] })).toBeNull();
  });

  it('says the older messages come once back online when there was no network for them', async () => {
    offline = true;
    await upAtTheTop();
    await screen.findByText(en['chat.earlierOffline']);
    expect(screen.queryByText(en['chat.loadingOlder'])).toBeNull();
  });

  it('offers the partner’s message that comes while a page of older messages loads', async () => {
    let release = () => {};
    olderHeld = new Promise((resolve) => (release = resolve));
    const list = await upAtTheTop();
    await vi.waitFor(() => expect(useChat.getState().threads[7]!.loadingOlder).toBe(true));
    // Ben writes while the reader waits up at the top: not taken down, told.
    act(() => {
      const thread = useChat.getState().threads[7]!;
      useChat.setState({ threads: { 7: { ...thread, messages: [...thread.messages, message(101)] } } });
    });
    expect(screen.queryByRole('button', { name: `${en['chat.newBelow']} ↓` })).not.toBeNull();
    release();
    await screen.findByText('message 1');
  });
});
