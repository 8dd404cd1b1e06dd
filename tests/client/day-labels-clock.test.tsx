// @vitest-environment jsdom
/**
 * Chats and a chat say "Today", "Yesterday" or a time by the server's clock. Until its first answer of
 * the session they have only the phone's; once it comes, minutes off at midnight, what they say changes
 * at once, not at whatever renders them next. So does midnight, come with the screen left open.
 */
import { act, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { ConversationSummary } from '../../shared/schemas/conversations';
import { formatTime } from '../../client/lib/format';
import '../../client/lib/messages-app';
import { useServerAhead } from '../../client/lib/server-clock';
import { Chat } from '../../client/pages/app/Chat';
import { Matches } from '../../client/pages/app/Matches';
import { emptyThread, useChat } from '../../client/stores/chat';
import { chatPageWorld } from '../helpers/chat-page';
import { renderAt } from '../helpers/render-at';

const MINUTE = 60_000;
const ME = 1;
const BEN = 2;
// 23:40 by the phone's clock, ten minutes before it says now (local times, as the phone shows them).
const sentAt = new Date(2026, 11, 4, 23, 40).toISOString();
const phoneNow = new Date(2026, 11, 4, 23, 50);
const detail = { id: 7, name: 'Ben', image: null, other_user_id: BEN, partner_last_read_id: 0 };
const listed: ConversationSummary = { id: 7, name: 'Ben', image: null, other_user_id: BEN, last_message: 'hola', last_activity: sentAt, unread_count: 0 };

const answer = (url: string) => {
  const path = new URL(url, 'http://localhost').pathname;
  if (path === '/api/conversations/7/') return detail;
  return { results: path === '/api/conversations/started/' ? [listed] : [], next: null, previous: null };
};
chatPageWorld(ME, answer);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(phoneNow);
});
afterEach(() => {
  vi.useRealTimers();
  useServerAhead.setState(0, true);
});

/** The server's clock heard: twenty minutes ahead of the phone's, past midnight. */
const serverHeard = () => act(() => useServerAhead.setState(20 * MINUTE, true));

it("dates a conversation on Chats again once the server's clock is heard", async () => {
  renderAt('/app/', <Matches />);
  await screen.findByText('Ben');
  const when = document.querySelector(`time[datetime="${sentAt}"]`)!;
  expect(when.textContent).toBe(formatTime(sentAt, 'en'));
  serverHeard();
  expect(when.textContent).toBe('Dec 4');
});

it("heads a chat's day again once the server's clock is heard", async () => {
  useChat.setState({
    threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [{ id: 1, sender: BEN, content: 'hola', time: sentAt, client_id: null, status: 'sent' }] } },
  });
  renderAt('/app/', <Chat id={7} />);
  const heading = await screen.findByText('Today');
  serverHeard();
  expect(heading.textContent).toBe('Yesterday');
});

/** The phone's timers as well as its clock, so that its midnight can come. */
const timersToo = () => vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: phoneNow });

it("heads a chat's day again at midnight, with the chat left open and nothing else new", async () => {
  timersToo();
  useChat.setState({
    threads: { 7: { ...emptyThread(), loaded: true, detail, messages: [{ id: 1, sender: BEN, content: 'hola', time: sentAt, client_id: null, status: 'sent' }] } },
  });
  renderAt('/app/', <Chat id={7} />);
  await act(async () => {});
  const heading = screen.getByText('Today');
  act(() => vi.advanceTimersByTime(9 * MINUTE));
  expect(heading.textContent).toBe('Today');
  act(() => vi.advanceTimersByTime(2 * MINUTE));
  expect(heading.textContent).toBe('Yesterday');
});

it('dates a conversation on Chats again at midnight, the list left open', async () => {
  timersToo();
  renderAt('/app/', <Matches />);
  await act(async () => {});
  const when = document.querySelector(`time[datetime="${sentAt}"]`)!;
  expect(when.textContent).toBe(formatTime(sentAt, 'en'));
  act(() => vi.advanceTimersByTime(11 * MINUTE));
  expect(when.textContent).toBe('Dec 4');
});
