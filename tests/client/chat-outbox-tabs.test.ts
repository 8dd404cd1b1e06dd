// @vitest-environment jsdom
/**
 * Two tabs of one session share the device's outbox: a message one of them has on its way when it is
 * closed is taken up by a tab still open, at once, in the order it was written. A tab is known closed
 * by its Web Lock, which the browser lets go with it (here a stand-in for navigator.locks). A reload lets
 * it go too: the tab reloaded, which this one is here, keeps its name through it (session storage).
 */
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { Message } from '../../shared/schemas/conversations';

/** Web Locks as the browser's, exclusive and first come, first served: a lock goes when its callback's promise settles. */
class Locks {
  private last = new Map<string, Promise<unknown>>();
  request(name: string, callback: () => unknown) {
    const turn = (this.last.get(name) ?? Promise.resolve()).then(() => callback());
    this.last.set(name, turn.catch(() => undefined));
    return turn;
  }
}
const locks = new Locks();
Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });

const socket = vi.hoisted(() => ({ connected: false, sent: [] as string[] }));
vi.mock('../../client/lib/api-app', () => ({ api: { sendMessage: () => Promise.reject(new TypeError('Failed to fetch')) } }));
vi.mock('../../client/lib/socket', () => ({
  SocketRefused: class extends Error {},
  isConnected: () => socket.connected,
  sendRead: () => {},
  async sendMessageOverSocket(payload: { content: string; client_id: string }): Promise<Message> {
    if (!socket.connected) throw new Error('offline');
    socket.sent.push(payload.content);
    return { id: socket.sent.length, sender: ME, content: payload.content, time: '2026-12-02T10:00:09.000Z', client_id: payload.client_id };
  },
}));

/** This tab's name before its reload, kept in session storage: the page it is now was loaded by a reload. */
const THIS_TAB = 'this-tab';
sessionStorage.setItem('chat_tab', THIS_TAB);
Object.defineProperty(performance, 'getEntriesByType', { value: () => [{ type: 'reload' }], configurable: true });

const { useChat } = await import('../../client/stores/chat');
const { useSession } = await import('../../client/stores/session');
const ME = 1;
const outboxKey = `chat_outbox:${ME}`;
const outbox = () => JSON.parse(localStorage.getItem(outboxKey) ?? '[]') as Array<{ content: string; tab?: string }>;
const statuses = () => useChat.getState().threads[7]?.messages.map((message) => `${message.content}:${message.status}`);
/** Which test this is: client_ids are never the same twice, as this tab remembers those it held. */
let run = 0;
/** Written by the tab named `tab` at second `at`. */
const fromTab = (tab: string, content: string, at: number) => ({
  conversation_id: 7,
  client_id: `${tab}${run}-${at}`,
  content,
  time: `2026-12-02T10:00:0${at}.000Z`,
  tab,
});
/** Written by the other tab, `A`, at second `at`. */
const fromTabA = (content: string, at: number) => fromTab('A', content, at);
/** Tab A writes the device's outbox: this tab hears of it, as a browser tells every other tab. */
function tabAWrites(entries: object[]) {
  localStorage.setItem(outboxKey, JSON.stringify(entries));
  window.dispatchEvent(new StorageEvent('storage', { key: outboxKey, storageArea: localStorage }));
}
/** Tab A (or `tab`), open: it holds its lock until it is closed. */
function openTabA(tab = 'A') {
  let close!: () => void;
  const open = new Promise<void>((resolve) => (close = resolve));
  void locks.request(`chat-tab:${tab}`, () => open);
  return { close };
}
const at = (second: number) => vi.setSystemTime(new Date(`2026-12-02T10:00:0${second}.000Z`));

describe('an outbox another tab of the session left', () => {
  beforeEach(() => {
    run++;
    vi.useFakeTimers({ toFake: ['Date'] });
    localStorage.setItem('auth_token', 'token');
  });
  afterEach(() => {
    useSession.setState({ user: undefined });
    localStorage.clear();
    useChat.getState().reset();
    socket.connected = false;
    socket.sent = [];
    vi.useRealTimers();
  });

  it('is left to that tab while it is open, and taken up in the order written once it is closed', async () => {
    const tabA = openTabA();
    localStorage.setItem(outboxKey, JSON.stringify([fromTabA('one', 1)]));
    useSession.setState({ token: 'token', user: { id: ME } as never });
    at(2);
    await useChat.getState().send(7, 'two');
    tabAWrites([fromTabA('one', 1), ...outbox().filter((entry) => entry.content === 'two'), fromTabA('three', 3)]);
    at(4);
    await useChat.getState().send(7, 'four');
    // Tab A's stay its own while it is open: its messages are not sent twice, nor kept twice here.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(statuses()).toEqual(['two:queued', 'four:queued']);
    expect(outbox().map((entry) => entry.content)).toEqual(['one', 'two', 'three', 'four']);

    tabA.close();
    await vi.waitFor(() => expect(statuses()).toEqual(['one:queued', 'two:queued', 'three:queued', 'four:queued']));
    // Kept as this tab's now: another tab waiting for A's finds none left, and a reload here keeps them.
    expect(outbox().every((entry) => entry.tab !== 'A')).toBe(true);

    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(socket.sent).toEqual(['one', 'two', 'three', 'four']);
    expect(localStorage.getItem(outboxKey)).toBeNull();
  });

  it("holds this tab's entries as it has them, whatever another tab writes from an older copy", async () => {
    const tabA = openTabA();
    onTestFinished(() => {
      localStorage.clear();
      tabA.close();
    });
    useSession.setState({ token: 'token', user: { id: ME } as never });
    at(2);
    await useChat.getState().send(7, 'mine');
    const mine = outbox()[0]!;
    // Tab A writes from a copy that missed this tab's write (a browser passes writes on to the other
    // tabs a moment later, and two may cross): what this tab has on its way is not dropped...
    tabAWrites([fromTabA('five', 5)]);
    expect(outbox().map((entry) => entry.content)).toEqual(['mine', 'five']);

    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(outbox().map((entry) => entry.content)).toEqual(['five']);
    // ...and what it has sent is not brought back, to be sent again by the next opening.
    tabAWrites([mine, fromTabA('five', 5), fromTabA('six', 6)]);
    expect(outbox().map((entry) => entry.content)).toEqual(['five', 'six']);
    expect(statuses()).toEqual(['mine:sent']);
    expect(socket.sent).toEqual(['mine']);
  });

  it('sends what a closed tab left at once when this one is connected', async () => {
    socket.connected = true;
    useSession.setState({ token: 'token', user: { id: ME } as never });
    const tabA = openTabA();
    tabAWrites([fromTabA('from the closed tab', 1)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(socket.sent).toEqual([]);
    tabA.close();
    await vi.waitFor(() => expect(socket.sent).toEqual(['from the closed tab']));
    await vi.waitFor(() => expect(localStorage.getItem(outboxKey)).toBeNull());
  });

  it('drops what a closed tab left that this one has heard stored already', async () => {
    useSession.setState({ token: 'token', user: { id: ME } as never });
    const tabA = openTabA();
    const sent = fromTabA('stored as that tab closed', 7);
    tabAWrites([sent]);
    // The server's push of it came here, its answer never reached tab A.
    useChat.getState().receive(7, { id: 1, sender: ME, content: sent.content, time: sent.time, client_id: sent.client_id }, null);
    await new Promise((resolve) => setTimeout(resolve, 10));
    tabA.close();
    await vi.waitFor(() => expect(localStorage.getItem(outboxKey)).toBeNull());
    expect(statuses()).toEqual(['stored as that tab closed:sent']);
  });

  it('takes up at its opening what a tab closed before it left', async () => {
    localStorage.setItem(outboxKey, JSON.stringify([fromTabA('before this tab opened', 1)]));
    socket.connected = true;
    useSession.setState({ token: 'token', user: { id: ME } as never });
    await vi.waitFor(() => expect(socket.sent).toEqual(['before this tab opened']));
  });

  it('gives back what it took up from a tab that was reloaded, not closed, and takes it up once that tab is closed', async () => {
    useSession.setState({ token: 'token', user: { id: ME } as never });
    const tabA = openTabA();
    tabAWrites([fromTabA('one', 1), fromTabA('two', 2)]);
    // Tab A's page goes, to be loaded again: its lock is let go, and this tab takes up its messages.
    tabA.close();
    await vi.waitFor(() => expect(statuses()).toEqual(['one:queued', 'two:queued']));

    // Tab A reloaded holds its lock again, and takes back its messages, to send them in its own order.
    const reloaded = openTabA();
    tabAWrites([fromTabA('one', 1), fromTabA('two', 2)]);
    await vi.waitFor(() => expect(statuses()).toEqual([]));
    expect(outbox().map((entry) => `${entry.content}:${entry.tab}`)).toEqual(['one:A', 'two:A']);
    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(socket.sent).toEqual([]);

    // Closed for good this time: they are this tab's to send.
    reloaded.close();
    await vi.waitFor(() => expect(socket.sent).toEqual(['one', 'two']));
    await vi.waitFor(() => expect(localStorage.getItem(outboxKey)).toBeNull());
  });

  it('keeps its own through a reload, taken back from the tab that took them up, and sends what it writes next after them', async () => {
    const tabB = openTabA('B');
    onTestFinished(() => tabB.close());
    // Written here before the reload; tab B took them up as the page went, and has one of its own.
    const mine = [1, 2, 4].map((second, index) => ({ ...fromTab('B', `A${index + 1}`, second), from: THIS_TAB }));
    localStorage.setItem(outboxKey, JSON.stringify([mine[0], mine[1], fromTab('B', 'B1', 3), mine[2]]));
    useSession.setState({ token: 'token', user: { id: ME } as never });
    expect(statuses()).toEqual(['A1:queued', 'A2:queued', 'A3:queued']);
    at(5);
    await useChat.getState().send(7, 'A4');
    expect(statuses()).toEqual(['A1:queued', 'A2:queued', 'A3:queued', 'A4:queued']);
    expect(outbox().map((entry) => `${entry.content}:${entry.tab}`)).toEqual(['A1:this-tab', 'A2:this-tab', 'B1:B', 'A3:this-tab', 'A4:this-tab']);

    socket.connected = true;
    await useChat.getState().sendQueued();
    expect(socket.sent).toEqual(['A1', 'A2', 'A3', 'A4']);
    expect(outbox().map((entry) => entry.content)).toEqual(['B1']);
  });
});
