// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const messages = vi.hoisted(() => vi.fn());
const conversation = vi.hoisted(() => vi.fn());
vi.mock('../../client/lib/api-app', () => ({ api: { messages, conversation } }));

const { NetworkError, NotFound, Throttled } = await import('../../client/lib/api');
const { readOutbox, writeOutbox } = await import('../../client/lib/outbox');
const { readCache, writeCache } = await import('../../client/lib/device-cache');
const { useChat } = await import('../../client/stores/chat');
const { useConversations } = await import('../../client/stores/conversations');
const { useSession } = await import('../../client/stores/session');

const ME = 1;
const stored = (id: number) => ({ id, sender: 2, content: `m${id}`, time: '2026-11-23T10:00:00.000Z', client_id: null });
const detail = (id: number) => ({ id, name: `Partner ${id}`, image: null, other_user_id: 100 + id, partner_last_read_id: 0 });
const page = (ids: number[], next: string | null = null) => ({ results: ids.map(stored), next, previous: null });
const ids = (id: number) => useChat.getState().threads[id]!.messages.map((message) => message.id);

/** Opens each conversation online with its messages, then lets the kept copy be written as a page put away does. */
async function openOnline(threads: Record<number, number[]>, next: string | null = 'older-page') {
  for (const [key, messageIds] of Object.entries(threads)) {
    conversation.mockResolvedValueOnce(detail(Number(key)));
    messages.mockResolvedValueOnce(page(messageIds, next));
    await useChat.getState().open(Number(key));
  }
  window.dispatchEvent(new Event('pagehide'));
}

/** The app opened again with no network: a fresh tab's store, the same device. */
function reopenOffline() {
  useChat.getState().reset();
  conversation.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
  messages.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
}

describe('the chats a device keeps for an opening with no network', () => {
  beforeEach(() => {
    useSession.getState().signIn('token');
    useSession.setState({ user: { id: ME } as never });
  });
  afterEach(() => {
    useChat.getState().reset();
    useConversations.getState().reset();
    conversation.mockReset();
    messages.mockReset();
  });

  it('opens a chat as it was last shown when the network is gone, and afresh once it is back', async () => {
    await openOnline({ 7: [3, 5] });
    reopenOffline();
    await useChat.getState().open(7);
    const thread = useChat.getState().threads[7]!;
    expect(thread.detail).toEqual(detail(7));
    expect(ids(7)).toEqual([3, 5]);
    expect(thread.older).toBe('older-page');
    expect(thread.fromDevice).toBe(true);

    // Online again: the next open asks the server for the chat itself, not only what is new.
    conversation.mockReset().mockResolvedValueOnce({ ...detail(7), name: 'Renamed' });
    messages.mockReset().mockResolvedValueOnce(page([5, 6]));
    await useChat.getState().open(7);
    expect(useChat.getState().threads[7]!.detail?.name).toBe('Renamed');
    expect(ids(7)).toEqual([3, 5, 6]);
    expect(useChat.getState().threads[7]!.fromDevice).toBe(false);
  });

  it('catches up, opened with no network, from before a message it kept that was pushed ahead of one it never heard', async () => {
    await openOnline({ 7: [3, 5] });
    // 8 is pushed; 6, stored before it, never came (the socket dropped, and the read that the push asks
    // for meets no network), and the page is put away.
    messages.mockRejectedValueOnce(new NetworkError(0, 'Failed to fetch'));
    useChat.getState().receive(7, stored(8), 6);
    window.dispatchEvent(new Event('pagehide'));
    reopenOffline();
    await useChat.getState().open(7);
    expect(ids(7)).toEqual([3, 5, 8]);
    expect(useChat.getState().cursors()).toEqual({ 7: 5 });
  });

  it('opens a kept chat afresh, the network back, without moving its cursor past the messages between it and the newest page', async () => {
    await openOnline({ 7: [3, 5] });
    reopenOffline();
    await useChat.getState().open(7);
    // Back online, opened again before the socket is: the newest page does not reach back to 5.
    conversation.mockReset().mockResolvedValueOnce(detail(7));
    messages.mockReset().mockResolvedValueOnce(page([9, 10], 'before-9'));
    await useChat.getState().open(7);
    expect(ids(7)).toEqual([3, 5, 9, 10]);
    // The socket's catch-up asks for what is between.
    expect(useChat.getState().cursors()).toEqual({ 7: 5 });
    conversation.mockResolvedValueOnce(detail(7));
    messages.mockResolvedValueOnce(page([6, 7, 8, 9, 10]));
    await useChat.getState().catchUp();
    expect(messages).toHaveBeenLastCalledWith(7, { after: 5 });
    expect(ids(7)).toEqual([3, 5, 6, 7, 8, 9, 10]);
    expect(useChat.getState().cursors()).toEqual({ 7: 10 });
  });

  it('does not stand in for a chat the server refused (and forgets it), nor for one never opened', async () => {
    await openOnline({ 7: [3] });
    useChat.getState().reset();
    conversation.mockRejectedValue(new NotFound(404, 'Not found.'));
    messages.mockRejectedValue(new NotFound(404, 'Not found.'));
    await expect(useChat.getState().open(7)).rejects.toBeInstanceOf(NotFound);
    expect(useChat.getState().threads[7]).toBeUndefined();
    // Ended while the app was closed: kept no longer, with no network either.
    reopenOffline();
    await expect(useChat.getState().open(7)).rejects.toBeInstanceOf(NetworkError);
    await expect(useChat.getState().open(8)).rejects.toBeInstanceOf(NetworkError);
  });

  it('stands in the kept chat when the server answers with a limit for now, and forgets nothing', async () => {
    await openOnline({ 7: [3, 5] });
    useChat.getState().reset();
    conversation.mockRejectedValue(new Throttled(429, 'Request was throttled.'));
    messages.mockRejectedValue(new Throttled(429, 'Request was throttled.'));
    await useChat.getState().open(7);
    expect(ids(7)).toEqual([3, 5]);
    expect(useChat.getState().threads[7]!.fromDevice).toBe(true);
    // Still kept on the device for the next opening with no network.
    reopenOffline();
    await useChat.getState().open(7);
    expect(ids(7)).toEqual([3, 5]);
  });

  it('forgets a chat restored from the device once the server refuses it, in the tab as on the device', async () => {
    await openOnline({ 7: [3] });
    reopenOffline();
    await useChat.getState().open(7);
    expect(useChat.getState().threads[7]!.fromDevice).toBe(true);
    // Back online, it ended meanwhile: the tab lets go of it, and the next write does not keep it again.
    conversation.mockReset().mockRejectedValue(new NotFound(404, 'Not found.'));
    messages.mockReset().mockRejectedValue(new NotFound(404, 'Not found.'));
    await expect(useChat.getState().open(7)).rejects.toBeInstanceOf(NotFound);
    expect(useChat.getState().threads[7]).toBeUndefined();
    await openOnline({ 8: [10] });
    reopenOffline();
    await expect(useChat.getState().open(7)).rejects.toBeInstanceOf(NetworkError);
  });

  it('keeps the ten most recently active chats, and of a long one its newest 200 messages with no cursor before them', async () => {
    // Twelve chats; chat n's newest message has id 1000 + n, so 12 is the most recent.
    const threads: Record<number, number[]> = {};
    for (let n = 1; n <= 12; n += 1) threads[n] = [1000 + n];
    threads[12] = Array.from({ length: 250 }, (_, index) => index + 1).concat(1012);
    await openOnline(threads);
    reopenOffline();

    for (const gone of [1, 2]) await expect(useChat.getState().open(gone)).rejects.toBeInstanceOf(NetworkError);
    await useChat.getState().open(3);
    expect(ids(3)).toEqual([1003]);
    await useChat.getState().open(12);
    expect(ids(12)).toHaveLength(200);
    expect(ids(12).at(-1)).toBe(1012);
    // Its first page's cursor would skip the 51 messages cut: older ones wait for the server's own,
    // and the chat says they will come.
    expect(useChat.getState().threads[12]!.older).toBeNull();
    expect(useChat.getState().threads[12]!.missingEarlier).toBe(true);
    expect(useChat.getState().threads[3]!.missingEarlier).toBe(false);
  });

  it('keeps a chat with no message yet, to be written in with no network', async () => {
    await openOnline({ 9: [] }, null);
    reopenOffline();
    await useChat.getState().open(9);
    expect(useChat.getState().threads[9]).toMatchObject({ detail: detail(9), messages: [], fromDevice: true, missingEarlier: false });
  });

  it('opens a chat never opened here as the conversation lists know it, its messages left to the network', async () => {
    const summary = (id: number, last: string | null) => ({ ...detail(id), last_message: last, last_activity: '2026-11-23T10:00:00.000Z' });
    useConversations.setState({ empty: [summary(8, null)], started: [summary(7, 'See you at the bar')] });
    reopenOffline();
    await useChat.getState().open(7);
    expect(useChat.getState().threads[7]).toMatchObject({ detail: detail(7), messages: [], fromDevice: true, missingEarlier: true });
    // A new match has no messages to miss.
    await useChat.getState().open(8);
    expect(useChat.getState().threads[8]).toMatchObject({ detail: detail(8), messages: [], missingEarlier: false });

    // Back online, the catch-up brings the newest page, and with it the way to older ones.
    messages.mockReset().mockImplementation(async (id: number) => (id === 7 ? page([40, 41], 'older-page') : page([])));
    await useChat.getState().catchUp();
    expect(messages).toHaveBeenCalledWith(7);
    expect(messages).not.toHaveBeenCalledWith(7, expect.anything());
    expect(useChat.getState().threads[7]).toMatchObject({ older: 'older-page', missingEarlier: false });
    expect(ids(7)).toEqual([40, 41]);
  });

  it('keeps the chats kept before the app opened again beside those opened since, unless they ended', async () => {
    await openOnline({ 7: [3, 5], 9: [4] });
    // The app opened again, online: one chat opened, another one ended.
    useChat.getState().reset();
    await openOnline({ 8: [10] });
    useChat.getState().end(9, { byMe: false, userId: 9, name: 'Partner 9' });
    window.dispatchEvent(new Event('pagehide'));
    reopenOffline();
    await useChat.getState().open(7);
    expect(ids(7)).toEqual([3, 5]);
    await useChat.getState().open(8);
    expect(ids(8)).toEqual([10]);
    await expect(useChat.getState().open(9)).rejects.toBeInstanceOf(NetworkError);
  });

  it('keeps no more text than leaves local storage room for the outbox, the most recent chats first', async () => {
    const long = (id: number) => ({ ...stored(id), content: 'x'.repeat(2000) });
    // Chat n: 150 messages of 2,000 characters, ids n000 to n149; chat 3 is the most recent.
    for (const n of [1, 2, 3]) {
      conversation.mockResolvedValueOnce(detail(n));
      messages.mockResolvedValueOnce({ results: Array.from({ length: 150 }, (_, index) => long(n * 1000 + index)), next: 'older-page', previous: null });
      await useChat.getState().open(n);
    }
    window.dispatchEvent(new Event('pagehide'));
    reopenOffline();

    // The newest whole (300,000 characters), the next cut to what is left (100,000), the oldest not at all.
    await useChat.getState().open(3);
    expect(ids(3)).toHaveLength(150);
    expect(useChat.getState().threads[3]!.older).toBe('older-page');
    await useChat.getState().open(2);
    expect(ids(2)).toHaveLength(50);
    expect(ids(2)[0]).toBe(2100);
    expect(ids(2).at(-1)).toBe(2149);
    expect(useChat.getState().threads[2]!.older).toBeNull();
    await expect(useChat.getState().open(1)).rejects.toBeInstanceOf(NetworkError);
  });

  it('is written again for a new message or the partner reading further, not for the partner typing', async () => {
    await openOnline({ 7: [3] });
    const writes = vi.spyOn(Storage.prototype, 'setItem');
    const chatWrites = () => writes.mock.calls.filter(([key]) => key === `cache:chats:${ME}`).length;
    useChat.getState().typing(7);
    window.dispatchEvent(new Event('pagehide'));
    expect(chatWrites()).toBe(0);

    useChat.getState().receive(7, stored(4), 3);
    window.dispatchEvent(new Event('pagehide'));
    expect(chatWrites()).toBe(1);
    useChat.getState().partnerRead(7, 4);
    window.dispatchEvent(new Event('pagehide'));
    expect(chatWrites()).toBe(2);
    writes.mockRestore();
  });

  it('keeps how far the partner has read as of the last read receipt, not the last fetch', async () => {
    const mine = (id: number) => ({ ...stored(id), sender: ME });
    conversation.mockResolvedValueOnce(detail(7));
    messages.mockResolvedValueOnce({ results: [stored(3), mine(4)], next: null, previous: null });
    await useChat.getState().open(7);
    // Read after the fetch: only the `message:read` says so.
    useChat.getState().partnerRead(7, 4);
    window.dispatchEvent(new Event('pagehide'));
    reopenOffline();
    await useChat.getState().open(7);
    expect(useChat.getState().threads[7]!.partnerReadId).toBe(4);
  });

  it('keeps what another tab of the same session kept meanwhile', async () => {
    await openOnline({ 7: [3] });
    // Another tab opened chat 8 and wrote what it keeps: this tab hears of it through the storage event.
    const kept = readCache<Record<number, unknown>>('chats', ME)!;
    writeCache('chats', { ...kept, 8: { detail: detail(8), messages: [stored(10)], older: null } }, ME);
    window.dispatchEvent(new StorageEvent('storage', { key: `cache:chats:${ME}`, storageArea: localStorage }));
    // This tab's next write keeps it beside its own.
    useChat.getState().receive(7, stored(4), 3);
    window.dispatchEvent(new Event('pagehide'));
    reopenOffline();
    await useChat.getState().open(8);
    expect(ids(8)).toEqual([10]);
    await useChat.getState().open(7);
    expect(ids(7)).toEqual([3, 4]);
  });

  it('is not written by a tab left signed in after another signed in as someone else', async () => {
    await openOnline({ 7: [3] });
    // Another tab signed in: local storage was cleared and holds its token now.
    localStorage.clear();
    localStorage.setItem('auth_token', 'someone-else');
    useChat.getState().receive(7, stored(4), 3);
    window.dispatchEvent(new Event('pagehide'));
    expect(localStorage.getItem(`cache:chats:${ME}`)).toBeNull();
  });

  it('gives way to the outbox when local storage is full', () => {
    writeCache('chats', { filler: 'x'.repeat(4_990_000) }, ME);
    const entry = { conversation_id: 7, client_id: 'c-1', content: 'y'.repeat(20_000), time: '2026-11-23T10:00:00.000Z' };
    writeOutbox(ME, [entry]);
    expect(readOutbox(ME)).toEqual([entry]);
    expect(readCache('chats', ME)).toBeNull();
  });

  it('forgets them at sign-out', async () => {
    await openOnline({ 7: [3] });
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('token');
    useSession.setState({ user: { id: ME } as never });
    reopenOffline();
    await expect(useChat.getState().open(7)).rejects.toBeInstanceOf(NetworkError);
  });
});
