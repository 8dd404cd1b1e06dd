// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import type { Message } from '../../shared/schemas/conversations';
import { later } from '../helpers/later';

const sendMessage = vi.hoisted(() => vi.fn());
const conversation = vi.hoisted(() => vi.fn());
/** The socket as the store sees it: up or down, what it sent, and the next send's refusal. */
const socket = vi.hoisted(() => ({
  connected: false,
  sent: [] as string[],
  refuseWith: null as string | null,
  unanswered: false,
  /** How many of the next sends the server's limit refuses, and the ack's `retry_after` (seconds). */
  throttled: 0,
  throttledFor: 3,
  /** A slow link: sends wait for this before the server takes them. */
  slow: null as Promise<void> | null,
}));
const SocketRefused = vi.hoisted(
  () =>
    class SocketRefused extends Error {
      constructor(
        readonly code: string,
        message: string,
        readonly retryAfterSeconds?: number,
      ) {
        super(message);
      }
    },
);
vi.mock('../../client/lib/api-app', () => ({ api: { sendMessage, conversation } }));
vi.mock('../../client/lib/socket', () => ({
  SocketRefused,
  isConnected: () => socket.connected,
  sendRead: () => {},
  async sendMessageOverSocket(payload: { conversation_id: number; content: string; client_id: string }): Promise<Message> {
    if (!socket.connected) throw new Error('offline');
    if (socket.slow) await socket.slow;
    const refusal = socket.refuseWith;
    socket.refuseWith = null;
    if (refusal) throw new SocketRefused(refusal, refusal);
    if (socket.throttled > 0) {
      socket.throttled -= 1;
      throw new SocketRefused('throttled', 'Request was throttled.', socket.throttledFor);
    }
    if (socket.unanswered) {
      // As lib/socket.ts does: a connection that does not answer in time is dropped.
      socket.unanswered = false;
      socket.connected = false;
      throw new Error('operation has timed out');
    }
    socket.sent.push(payload.content);
    return { id: socket.sent.length, sender: 1, content: payload.content, time: '2026-11-28T01:00:00.000Z', client_id: payload.client_id };
  },
}));

const { ApiError, NetworkError } = await import('../../client/lib/api');
let { useChat } = await import('../../client/stores/chat');
let { useSession } = await import('../../client/stores/session');
const ME = 1;
/** Signed in as ME in this tab, whose token is the one local storage holds. */
const signedIn = () => {
  localStorage.setItem('auth_token', 'token');
  useSession.setState({ token: 'token', user: { id: ME } as never });
};

const statuses = (id: number) => useChat.getState().threads[id]!.messages.map((message) => `${message.content}:${message.status}`);

describe('the chat store’s sends that cannot go now', () => {
  beforeEach(signedIn);
  afterEach(() => {
    useSession.setState({ user: undefined });
    localStorage.clear();
    useChat.getState().reset();
    sendMessage.mockReset();
    conversation.mockReset();
    socket.connected = false;
    socket.sent = [];
    socket.refuseWith = null;
    socket.unanswered = false;
    socket.throttled = 0;
    socket.throttledFor = 3;
    socket.slow = null;
    vi.useRealTimers();
  });

  it('queues what is written with no socket and no answer over HTTP, and sends it in order once connected', async () => {
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'first');
    await useChat.getState().send(7, 'second');
    expect(statuses(7)).toEqual(['first:queued', 'second:queued']);

    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(socket.sent).toEqual(['first', 'second']);
    expect(statuses(7)).toEqual(['first:sent', 'second:sent']);
  });

  it('times a message not sent yet by the server’s clock, as its neighbours stored there are', async () => {
    const { useServerAhead } = await import('../../client/lib/server-clock');
    // The phone's clock twenty minutes behind the server's.
    vi.useFakeTimers({ now: Date.parse('2026-11-28T23:50:00.000Z'), toFake: ['Date'] });
    useServerAhead.setState(20 * 60_000, true);
    try {
      sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
      await useChat.getState().send(7, 'queued');
      expect(useChat.getState().threads[7]!.messages[0]!.time).toBe('2026-11-29T00:10:00.000Z');
    } finally {
      useServerAhead.setState(0, true);
    }
  });

  it('sends what is written as the network comes back after the messages queued before it, though the socket is not back yet', async () => {
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'first');
    await useChat.getState().send(7, 'second');

    // The network is back, the socket not yet: HTTP answers.
    const storedOverHttp: string[] = [];
    sendMessage.mockReset().mockImplementation(async (_id: number, content: string, clientId: string): Promise<Message> => {
      storedOverHttp.push(content);
      return { id: storedOverHttp.length, sender: ME, content, time: '2026-11-28T01:00:00.000Z', client_id: clientId };
    });
    await useChat.getState().send(7, 'third');
    expect(storedOverHttp).toEqual(['first', 'second', 'third']);
    expect(statuses(7)).toEqual(['first:sent', 'second:sent', 'third:sent']);
  });

  it('sends what is written while the queue goes out on a slow link after it, not between its messages', async () => {
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'first');
    await useChat.getState().send(7, 'second');

    let answer!: () => void;
    socket.slow = new Promise((resolve) => (answer = resolve));
    socket.connected = true;
    const flushing = useChat.getState().sendQueued();
    const third = useChat.getState().send(7, 'third');
    const thirdMeanwhile = statuses(7).at(-1);
    answer();
    await Promise.all([flushing, third]);
    expect(thirdMeanwhile).toBe('third:queued');
    expect(socket.sent).toEqual(['first', 'second', 'third']);
    expect(statuses(7)).toEqual(['first:sent', 'second:sent', 'third:sent']);
  });

  /**
   * No socket (a venue's Wi-Fi lets none through): sends go over HTTP, the one of `slowContent` crawls
   * until `arrive()`, the others would not. `stored`: the contents in the order the server took them.
   */
  function slowOverHttp(slowContent: string) {
    const stored: string[] = [];
    const slow = later<void>();
    sendMessage.mockImplementation(async (_id: number, content: string, clientId: string): Promise<Message> => {
      if (content === slowContent) await slow.promise;
      stored.push(content);
      return { id: stored.length, sender: ME, content, time: '2026-11-28T01:00:00.000Z', client_id: clientId };
    });
    // Once every send asked for meanwhile has had its chance to go.
    const arrive = async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      slow.resolve();
    };
    return { stored, arrive };
  }

  it('stores what is written over HTTP in the order written, though the request before it is slow', async () => {
    const { stored, arrive } = slowOverHttp('first');
    const first = useChat.getState().send(7, 'first');
    const second = useChat.getState().send(7, 'second');
    await arrive();
    await Promise.all([first, second]);
    expect(stored).toEqual(['first', 'second']);
    expect(statuses(7)).toEqual(['first:sent', 'second:sent']);
  });

  it('retries a failed message over HTTP after a send still on its way, not before it', async () => {
    sendMessage.mockRejectedValueOnce(new ApiError(503, 'Service unavailable.'));
    await useChat.getState().send(7, 'failed');
    expect(statuses(7)).toEqual(['failed:failed']);
    const { stored, arrive } = slowOverHttp('slow');
    const slowSend = useChat.getState().send(7, 'slow');
    const clientId = useChat.getState().threads[7]!.messages[0]!.client_id!;
    const retried = useChat.getState().retry(7, clientId);
    await arrive();
    await Promise.all([slowSend, retried]);
    expect(stored).toEqual(['slow', 'failed']);
  });

  it('sends each queued message once when two connects come close together', async () => {
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'first');
    await useChat.getState().send(7, 'second');

    socket.connected = true;
    await Promise.all([useChat.getState().sendQueued(), useChat.getState().sendQueued()]);
    expect(socket.sent).toEqual(['first', 'second']);
  });

  it('marks a send the server refused over HTTP as failed for good, and does not send it by itself', async () => {
    sendMessage.mockRejectedValue(new ApiError(400, 'Ensure this field has no more than 2000 characters.'));
    await useChat.getState().send(7, 'refused');
    expect(statuses(7)).toEqual(['refused:failed']);
    expect(localStorage.getItem(`chat_outbox:${ME}`)).toBeNull();

    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(socket.sent).toEqual([]);
    expect(statuses(7)).toEqual(['refused:failed']);
  });

  it('keeps a send that failed for a reason that may pass on the device, and sends it again at the next connect', async () => {
    // The server's own error, over the socket and over HTTP.
    socket.connected = true;
    socket.refuseWith = 'internal';
    await useChat.getState().send(7, 'too fast');
    socket.connected = false;
    sendMessage.mockRejectedValue(new ApiError(503, 'Service unavailable.'));
    await useChat.getState().send(7, 'server error');
    expect(statuses(7)).toEqual(['too fast:failed', 'server error:failed']);
    const outbox = JSON.parse(localStorage.getItem(`chat_outbox:${ME}`) ?? '[]') as Array<{ content: string }>;
    expect(outbox.map((entry) => entry.content)).toEqual(['too fast', 'server error']);

    // Retry is there for the impatient; the next connect sends them anyway, under their client_ids.
    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(socket.sent).toEqual(['too fast', 'server error']);
    expect(statuses(7)).toEqual(['too fast:sent', 'server error:sent']);
    expect(localStorage.getItem(`chat_outbox:${ME}`)).toBeNull();
  });

  it('waits for the next connection, with no Retry, when the server did not answer in time (the socket drops)', async () => {
    // The party's Wi-Fi lost its way out: the socket still counted as connected when this was sent.
    socket.connected = true;
    socket.unanswered = true;
    await useChat.getState().send(7, 'no answer');
    expect(statuses(7)).toEqual(['no answer:queued']);

    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(socket.sent).toEqual(['no answer']);
    expect(statuses(7)).toEqual(['no answer:sent']);
  });

  it('puts off a send that an instance shutting down answers `unavailable`, until the next connect', async () => {
    socket.connected = true;
    socket.refuseWith = 'unavailable';
    await useChat.getState().send(7, 'during a deploy');
    expect(statuses(7)).toEqual(['during a deploy:queued']);

    await useChat.getState().sendQueued();
    expect(socket.sent).toEqual(['during a deploy']);
    expect(statuses(7)).toEqual(['during a deploy:sent']);
  });

  it('keeps the queue on the device: the app opened again sends it, once the user is known', async () => {
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'before the tab closed');
    expect(JSON.parse(localStorage.getItem(`chat_outbox:${ME}`) ?? '[]')).toMatchObject([{ conversation_id: 7, content: 'before the tab closed' }]);

    // The app opened again: new stores, the same device.
    vi.resetModules();
    ({ useChat } = await import('../../client/stores/chat'));
    ({ useSession } = await import('../../client/stores/session'));
    expect(useChat.getState().threads).toEqual({});
    socket.connected = true;
    signedIn();
    await vi.waitFor(() => expect(socket.sent).toEqual(['before the tab closed']));
    await vi.waitFor(() => expect(statuses(7)).toEqual(['before the tab closed:sent']));
    expect(localStorage.getItem(`chat_outbox:${ME}`)).toBeNull();
  });

  it('leaves the messages another tab of the session has on their way in the device’s outbox', async () => {
    const otherTab = { conversation_id: 8, client_id: 'other-tab', content: 'from the other tab', time: '2026-11-28T01:00:00.000Z' };
    const outbox = () => JSON.parse(localStorage.getItem(`chat_outbox:${ME}`) ?? '[]') as Array<{ client_id: string }>;
    useChat.getState().restoreOutbox(ME);
    // Written meanwhile by another tab, offline too.
    localStorage.setItem(`chat_outbox:${ME}`, JSON.stringify([otherTab]));
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'from this tab');
    expect(outbox().map((entry) => entry.client_id)).toEqual(['other-tab', expect.any(String)]);

    // This tab's message goes; the other tab's stays for that tab (or the next opening) to send.
    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(statuses(7)).toEqual(['from this tab:sent']);
    expect(outbox()).toEqual([otherTab]);
  });

  it('sends the queue kept on the device in the order written, though the clock went back between two of its messages', async () => {
    const { useServerAhead } = await import('../../client/lib/server-clock');
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    vi.useFakeTimers({ now: Date.parse('2026-12-02T10:03:00.000Z'), toFake: ['Date'] });
    await useChat.getState().send(7, 'first');
    // The server's time heard meanwhile: this phone's clock runs three minutes ahead.
    useServerAhead.setState(-3 * 60_000, true);
    try {
      await useChat.getState().send(7, 'second');
      expect(statuses(7)).toEqual(['first:queued', 'second:queued']);

      // The app opened again: new stores, the same device.
      vi.resetModules();
      ({ useChat } = await import('../../client/stores/chat'));
      ({ useSession } = await import('../../client/stores/session'));
      socket.connected = true;
      signedIn();
      await vi.waitFor(() => expect(socket.sent).toHaveLength(2));
      expect(socket.sent).toEqual(['first', 'second']);
      expect(statuses(7)).toEqual(['first:sent', 'second:sent']);
    } finally {
      useServerAhead.setState(0, true);
    }
  });

  it('never takes up another user’s outbox, and drops it', async () => {
    // Left by a session of theirs the server ended (`endRevokedSession`), for their next sign-in here.
    localStorage.setItem('chat_outbox:2', JSON.stringify([{ conversation_id: 7, client_id: 'x', content: 'not mine', time: '2026-11-28T01:00:00.000Z' }]));
    useSession.setState({ user: undefined });
    signedIn();
    expect(useChat.getState().threads[7]).toBeUndefined();
    expect(localStorage.getItem('chat_outbox:2')).toBeNull();
  });

  it('marks a send the server refused over the socket as failed', async () => {
    socket.connected = true;
    socket.refuseWith = 'validation';
    await useChat.getState().send(7, 'refused');
    expect(statuses(7)).toEqual(['refused:failed']);
    // For good: sent again, it would be refused again (Chat offers to edit it, not to retry).
    expect(useChat.getState().threads[7]!.messages[0]!.retryable).toBe(false);
  });

  it('ends a chat whose send is not found, the partner having ended it, and says what was not sent', async () => {
    // Ben's chat open, two messages written with no connection, kept on the device; then the app closed.
    const { emptyThread } = await import('../../client/stores/chat');
    const detail = { id: 7, name: 'Ben', image: null, other_user_id: 2, partner_last_read_id: 0 };
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail } } });
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'first');
    await useChat.getState().send(7, 'second');
    await vi.waitFor(() => expect(localStorage.getItem(`cache:chats:${ME}`)).toContain('Ben'));

    // Opened again after Ben ended it: the first send is not found, and nothing more is sent.
    vi.resetModules();
    ({ useChat } = await import('../../client/stores/chat'));
    ({ useSession } = await import('../../client/stores/session'));
    const { initLanguage } = await import('../../client/lib/i18n');
    await import('../../client/lib/messages-app');
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    socket.connected = true;
    socket.refuseWith = 'not_found';
    signedIn();
    await vi.waitFor(() => expect(useChat.getState().ended[7]).toEqual({ name: 'Ben', userId: 2, byMe: false }));
    expect(socket.sent).toEqual([]);
    expect(useChat.getState().threads[7]).toBeUndefined();
    expect(localStorage.getItem(`chat_outbox:${ME}`)).toBeNull();
    const { useToasts } = await import('../../client/lib/toast');
    expect(useToasts.getState().toasts.map((item) => `${item.title}: ${item.message}`)).toEqual([
      `Ben: ${en['chat.notSentMany'].replace('{count}', '2')}`,
    ]);
  });

  it('keeps the outbox in the order its messages were written, whichever tab wrote them', async () => {
    const otherTab = (at: string) => ({ conversation_id: 7, client_id: `other-${at}`, content: `at ${at}`, time: `2026-12-02T10:00:0${at}.000Z` });
    useChat.getState().restoreOutbox(ME);
    localStorage.setItem(`chat_outbox:${ME}`, JSON.stringify([otherTab('1'), otherTab('3')]));
    vi.useFakeTimers({ now: new Date('2026-12-02T10:00:02.000Z'), toFake: ['Date'] });
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'at 2');
    const outbox = JSON.parse(localStorage.getItem(`chat_outbox:${ME}`) ?? '[]') as Array<{ content: string }>;
    expect(outbox.map((entry) => entry.content)).toEqual(['at 1', 'at 2', 'at 3']);
  });

  it('resends a message the limit refused by itself once the wait the server named is over, in order with those written after it', async () => {
    vi.useFakeTimers();
    socket.connected = true;
    socket.throttled = 1;
    await useChat.getState().send(7, 'one');
    expect(statuses(7)).toEqual(['one:queued']);
    expect(useChat.getState().threads[7]!.messages[0]!.slowDown).toBe('typed');
    // Written while the first waits: it waits behind it, though the server would take it.
    await useChat.getState().send(7, 'two');
    expect(statuses(7)).toEqual(['one:queued', 'two:queued']);
    expect(socket.sent).toEqual([]);
    // Kept on the device meanwhile, as anything on its way.
    expect(JSON.parse(localStorage.getItem(`chat_outbox:${ME}`) ?? '[]')).toHaveLength(2);

    await vi.advanceTimersByTimeAsync(2999);
    expect(socket.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(socket.sent).toEqual(['one', 'two']);
    expect(statuses(7)).toEqual(['one:sent', 'two:sent']);
  });

  it('holds the whole offline queue when the limit refuses its resend, as the app’s doing, not the user’s', async () => {
    vi.useFakeTimers();
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    for (const content of ['one', 'two', 'three']) await useChat.getState().send(7, content);
    socket.connected = true;
    socket.throttled = 1;
    await useChat.getState().sendQueued();
    // Every message still waiting waits for the limit, not only the one refused.
    expect(useChat.getState().threads[7]!.messages.map((message) => `${message.content}:${message.status}:${message.slowDown}`)).toEqual([
      'one:queued:queue',
      'two:queued:queue',
      'three:queued:queue',
    ]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(socket.sent).toEqual(['one', 'two', 'three']);
  });

  it('waits again, still in order, when the resend is refused by the limit too', async () => {
    vi.useFakeTimers();
    socket.connected = true;
    socket.throttled = 2;
    socket.throttledFor = 2;
    await useChat.getState().send(7, 'one');
    await useChat.getState().send(7, 'two');
    await vi.advanceTimersByTimeAsync(2000);
    expect(socket.sent).toEqual([]);
    expect(statuses(7)).toEqual(['one:queued', 'two:queued']);
    await vi.advanceTimersByTimeAsync(2000);
    expect(socket.sent).toEqual(['one', 'two']);
  });

  it('waits the Retry-After of a send refused by the limit over HTTP', async () => {
    vi.useFakeTimers();
    // The api module the store has now (a test above opened the app again, with fresh modules).
    const { Throttled } = await import('../../client/lib/api');
    const throttled = new Throttled(429, 'Request was throttled.');
    throttled.retryAfterSeconds = 5;
    sendMessage.mockRejectedValueOnce(throttled);
    await useChat.getState().send(7, 'over http');
    expect(statuses(7)).toEqual(['over http:queued']);

    socket.connected = true;
    await vi.advanceTimersByTimeAsync(4999);
    expect(socket.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(socket.sent).toEqual(['over http']);
  });

  it('asks again how far the partner has read once a message sent during a reconnect is stored', async () => {
    // Ben's chat open; "Read" under a message of mine waits for the partner's read mark.
    const { emptyThread } = await import('../../client/stores/chat');
    const detail = { id: 7, name: 'Ben', image: null, other_user_id: 2, partner_last_read_id: 0 };
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, detail } } });
    // Its first try reached the server as the old socket closed (stored there, and read by Ben, his
    // read pushed to the socket gone); the tab saw no answer.
    socket.connected = true;
    socket.unanswered = true;
    await useChat.getState().send(7, 'as the socket went');
    expect(statuses(7)).toEqual(['as the socket went:queued']);
    conversation.mockResolvedValue({ ...detail, partner_last_read_id: 1 });

    // The new socket: the resend is a repeat (no push), and the catch-up's read check saw no stored message of mine.
    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(statuses(7)).toEqual(['as the socket went:sent']);
    expect(conversation).toHaveBeenCalledWith(7);
    expect(useChat.getState().threads[7]!.partnerReadId).toBe(1);
  });

  it('says how many messages of mine never went out when the partner ends the chat, and nothing when I end it', async () => {
    // The modules the store uses now (the queue's test above made them afresh).
    const { initLanguage } = await import('../../client/lib/i18n');
    const { useToasts } = await import('../../client/lib/toast');
    await import('../../client/lib/messages-app');
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    useToasts.setState({ toasts: [] });
    const said = () => useToasts.getState().toasts.map((item) => `${item.title}: ${item.message}`);
    // Written with no connection; the partner blocks meanwhile.
    sendMessage.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().send(7, 'first');
    await useChat.getState().send(7, 'second');
    await useChat.getState().send(8, 'only');
    socket.connected = true;
    await useChat.getState().send(9, 'stored');

    useChat.getState().end(7, { byMe: false, userId: 2, name: 'Ben' });
    expect(said()).toEqual([`Ben: ${en['chat.notSentMany'].replace('{count}', '2')}`]);
    expect(localStorage.getItem(`chat_outbox:${ME}`)).toContain('only');
    expect(localStorage.getItem(`chat_outbox:${ME}`)).not.toContain('first');
    useChat.getState().end(9, { byMe: false, userId: 3, name: 'Cleo' });
    useChat.getState().end(8, { byMe: true, userId: 4, name: 'Dan' });
    expect(said()).toHaveLength(1);
  });
});
