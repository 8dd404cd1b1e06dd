// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NetworkError, NotFound } from '../../client/lib/api';

const messages = vi.hoisted(() => vi.fn());
const conversation = vi.hoisted(() => vi.fn());
const sendMessage = vi.hoisted(() => vi.fn());
vi.mock('../../client/lib/api-app', () => ({ api: { messages, conversation, sendMessage } }));

const { emptyThread, useChat } = await import('../../client/stores/chat');

const stored = (id: number) => ({ id, sender: 2, content: `m${id}`, time: '2026-11-23T10:00:00.000Z', client_id: null as string | null });
const thread = (ids: number[]) => ({
  ...emptyThread(),
  messages: ids.map((id) => ({ ...stored(id), status: 'sent' as const })),
  loaded: true,
  heardTo: Math.max(0, ...ids),
});
const page = (ids: number[]) => ({ results: ids.map(stored), next: null, previous: null });
const detail = { id: 7, name: 'Bea', image: null, other_user_id: 2, partner_last_read_id: 0 };

describe('the chat store’s catch-up', () => {
  afterEach(() => {
    useChat.getState().reset();
    messages.mockReset();
    conversation.mockReset();
    sendMessage.mockReset();
  });

  it('fetches after the cursors taken when the catch-up was decided, not after a message pushed since', async () => {
    useChat.setState({ threads: { 7: thread([3, 5]) } });
    // Told to catch up (`sync`): the cursors are taken then, the fetch comes within a spread.
    const from = useChat.getState().cursors();
    expect(from).toEqual({ 7: 5 });
    // Meanwhile a newer message arrives live; the ones the catch-up is for (6) are older.
    messages.mockResolvedValue({ results: [stored(6), stored(8)], next: null, previous: null });
    useChat.getState().receive(7, stored(8), 6);
    await useChat.getState().catchUp(from);
    expect(messages).toHaveBeenCalledWith(7, { after: 5 });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6, 8]);
  });

  it('catches up after a reconnect from the last message it holds with none missing before it, not from one pushed ahead', async () => {
    useChat.setState({ threads: { 7: thread([3, 5]) } });
    // 8 is pushed; 6, stored just before it, is still on its way (batched on another instance) when
    // the socket drops (the read of it that the push asks for meets no network).
    messages.mockRejectedValueOnce(new NetworkError(0, 'Failed to fetch'));
    useChat.getState().receive(7, stored(8), 6);
    const from = useChat.getState().cursors();
    expect(from).toEqual({ 7: 5 });
    messages.mockResolvedValue(page([6, 8]));
    await useChat.getState().catchUp(from);
    expect(messages).toHaveBeenCalledWith(7, { after: 5 });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6, 8]);
    expect(useChat.getState().cursors()).toEqual({ 7: 8 });
  });

  it('moves its cursor with the pushes that follow on from what it holds, and over those heard ahead once the gap is filled', () => {
    useChat.setState({ threads: { 7: thread([3, 5]) } });
    // The read that a push ahead asks for finds nothing yet: the pushes between it and the thread come themselves.
    messages.mockResolvedValue(page([]));
    useChat.getState().receive(7, stored(6), 5);
    expect(useChat.getState().cursors()).toEqual({ 7: 6 });
    useChat.getState().receive(7, stored(9), 8);
    useChat.getState().receive(7, stored(8), 7);
    expect(useChat.getState().cursors()).toEqual({ 7: 6 });
    // Pushed twice (a page brought it too, or another instance): nothing moves back.
    useChat.getState().receive(7, stored(6), 5);
    useChat.getState().receive(7, stored(7), 6);
    expect(useChat.getState().cursors()).toEqual({ 7: 9 });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6, 7, 8, 9]);
    // The conversation's first message follows on from nothing.
    useChat.setState({ threads: { 8: { ...emptyThread(), loaded: true } } });
    useChat.getState().receive(8, stored(10), null);
    expect(useChat.getState().cursors()).toEqual({ 8: 10 });
    expect(messages).toHaveBeenCalledWith(7, { after: 6 });
  });

  it('reads a chat again after a push that does not say what came before it (an older instance’s, in a rolling deploy)', async () => {
    // Nothing in it when it was read: 10 may not be the conversation's first (9 went to a socket gone).
    useChat.setState({ threads: { 7: thread([]) } });
    messages.mockResolvedValueOnce(page([9, 10]));
    useChat.getState().receive(7, stored(10), undefined);
    expect(useChat.getState().cursors()).toEqual({ 7: 0 });
    await vi.waitFor(() => expect(useChat.getState().cursors()).toEqual({ 7: 10 }));
    expect(messages).toHaveBeenCalledWith(7, { after: 0 });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([9, 10]);

    // Two more while the first read is on its way: read once more after it, from where it got to.
    let answer!: (value: unknown) => void;
    messages.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    messages.mockResolvedValueOnce(page([13, 14]));
    useChat.getState().receive(7, stored(12), undefined);
    useChat.getState().receive(7, stored(14), undefined);
    expect(messages).toHaveBeenCalledTimes(2);
    answer(page([11, 12]));
    await vi.waitFor(() => expect(useChat.getState().cursors()).toEqual({ 7: 14 }));
    expect(messages).toHaveBeenLastCalledWith(7, { after: 12 });
    expect(messages).toHaveBeenCalledTimes(3);
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([9, 10, 11, 12, 13, 14]);
  });

  it('moves its cursor over pushes heard ahead once a page fills the gap before them', async () => {
    useChat.setState({ threads: { 7: thread([3, 5]) } });
    messages.mockRejectedValueOnce(new NetworkError(0, 'Failed to fetch'));
    useChat.getState().receive(7, stored(9), 8);
    messages.mockResolvedValue(page([6, 8]));
    await useChat.getState().catchUp(useChat.getState().cursors());
    expect(useChat.getState().cursors()).toEqual({ 7: 9 });
  });

  it('reads a chat it holds again when it is opened again: the new messages, and the partner as they are now', async () => {
    useChat.setState({ threads: { 7: { ...thread([3, 5]), detail } } });
    messages.mockResolvedValueOnce(page([6]));
    conversation.mockResolvedValueOnce({ ...detail, name: 'Beatriz', image: '/media/new-photo.webp', partner_last_read_id: 5 });
    await useChat.getState().open(7);
    expect(messages).toHaveBeenCalledWith(7, { after: 5 });
    expect(useChat.getState().threads[7]).toMatchObject({ detail: { name: 'Beatriz', image: '/media/new-photo.webp' }, partnerReadId: 5 });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6]);

    // With no answer to either, it stays as it was.
    messages.mockRejectedValueOnce(new Error('offline'));
    conversation.mockRejectedValueOnce(new Error('offline'));
    await useChat.getState().open(7);
    expect(useChat.getState().threads[7]).toMatchObject({ detail: { name: 'Beatriz' } });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6]);
  });

  it('starts a thread loaded after the cursors were taken after its own last message', async () => {
    const from = useChat.getState().cursors();
    useChat.setState({ threads: { 9: thread([4]) } });
    messages.mockResolvedValue({ results: [], next: null, previous: null });
    await useChat.getState().catchUp(from);
    expect(messages).toHaveBeenCalledWith(9, { after: 4 });
  });

  it('brings the newest page of a thread opened with no network and cut short, then what it missed after its own', async () => {
    useChat.setState({ threads: { 7: { ...thread([3, 5]), fromDevice: true, missingEarlier: true } } });
    messages.mockResolvedValueOnce({ results: [stored(9), stored(10)], next: 'before-9', previous: null });
    messages.mockResolvedValueOnce({ results: [stored(6), stored(7), stored(8), stored(9), stored(10)], next: null, previous: null });
    await useChat.getState().catchUp(useChat.getState().cursors());
    expect(messages.mock.calls).toEqual([[7], [7, { after: 5 }]]);
    expect(useChat.getState().threads[7]).toMatchObject({ older: 'before-9', missingEarlier: false });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6, 7, 8, 9, 10]);
  });

  it('catches up again from its own last message when the network goes before the newest page is reached from it', async () => {
    useChat.setState({ threads: { 7: { ...thread([3, 5]), fromDevice: true, missingEarlier: true } } });
    messages.mockResolvedValueOnce({ results: [stored(9), stored(10)], next: 'before-9', previous: null });
    messages.mockRejectedValueOnce(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().catchUp(useChat.getState().cursors());
    // 6 to 8, between its own and the newest page, never came: the next catch-up asks for them.
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 9, 10]);
    expect(useChat.getState().cursors()).toEqual({ 7: 5 });
    messages.mockResolvedValueOnce(page([6, 7, 8, 9, 10]));
    await useChat.getState().catchUp(useChat.getState().cursors());
    expect(messages).toHaveBeenLastCalledWith(7, { after: 5 });
    expect(useChat.getState().cursors()).toEqual({ 7: 10 });
  });

  it('follows the pages of a long absence to the end, oldest first', async () => {
    useChat.setState({ threads: { 7: thread([3]) } });
    messages
      .mockResolvedValueOnce({ results: [stored(4), stored(5)], next: 'page-2', previous: null })
      .mockResolvedValueOnce({ results: [stored(6)], next: null, previous: null });
    await useChat.getState().catchUp(useChat.getState().cursors());
    expect(messages.mock.calls).toEqual([
      [7, { after: 3 }],
      [7, { cursor: 'page-2' }],
    ]);
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 4, 5, 6]);
  });

  it('starts after what the server told of, not after a message of mine stored since (sent over HTTP, the socket not there)', async () => {
    conversation.mockResolvedValue(detail);
    messages.mockResolvedValueOnce(page([3, 5]));
    await useChat.getState().open(7);
    // The partner's 6 is pushed to a socket not connected yet; mine, sent over HTTP, is stored as 8.
    let mine: ReturnType<typeof stored> | undefined;
    sendMessage.mockImplementation(async (_id: number, content: string, clientId: string) => (mine = { ...stored(8), sender: 1, content, client_id: clientId }));
    await useChat.getState().send(7, 'hi');
    expect(useChat.getState().cursors()).toEqual({ 7: 5 });
    messages.mockResolvedValueOnce({ ...page([6]), results: [stored(6), mine!] });
    await useChat.getState().catchUp();
    expect(messages).toHaveBeenLastCalledWith(7, { after: 5 });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6, 8]);
  });

  /**
   * Opens chat 7 with its page held back, and decides a catch-up while it is on its way (the socket
   * connects while the chat's read is out: it may have been read before the socket could hear).
   */
  function catchUpWhileOpening() {
    conversation.mockResolvedValue(detail);
    let answer!: (value: ReturnType<typeof page>) => void;
    messages.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    const opened = useChat.getState().open(7);
    const caughtUp = useChat.getState().catchUp();
    return { answer, opened, caughtUp };
  }

  it('catches up a chat still opening once it has opened, from what its own answer held', async () => {
    const { answer, opened, caughtUp } = catchUpWhileOpening();
    expect(messages).toHaveBeenCalledTimes(1);
    messages.mockResolvedValueOnce(page([6]));
    answer(page([3, 5]));
    await opened;
    await caughtUp;
    expect(messages.mock.calls).toEqual([[7], [7, { after: 5 }]]);
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6]);
  });

  it('answers as gone a chat ended before the catch-up, found opening', async () => {
    const { answer, opened, caughtUp } = catchUpWhileOpening();
    messages.mockRejectedValueOnce(new NotFound(404, 'Not found.'));
    answer(page([3]));
    await opened;
    expect(await caughtUp).toEqual([7]);
  });
});
