// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';

const messages = vi.hoisted(() => vi.fn());
vi.mock('../../client/lib/api-app', () => ({ api: { messages } }));

const { emptyThread, useChat } = await import('../../client/stores/chat');

const stored = (id: number) => ({ id, sender: 2, content: `m${id}`, time: '2026-11-23T10:00:00.000Z', client_id: null });
const thread = (ids: number[]) => ({ ...emptyThread(), messages: ids.map((id) => ({ ...stored(id), status: 'sent' as const })), loaded: true });

describe('the chat store’s catch-up', () => {
  afterEach(() => {
    useChat.getState().reset();
    messages.mockReset();
  });

  it('fetches after the cursors taken when the catch-up was decided, not after a message pushed since', async () => {
    useChat.setState({ threads: { 7: thread([3, 5]) } });
    // Told to catch up (`sync`): the cursors are taken then, the fetch comes within a spread.
    const from = useChat.getState().cursors();
    expect(from).toEqual({ 7: 5 });
    // Meanwhile a newer message arrives live; the ones the catch-up is for (6) are older.
    useChat.getState().receive(7, stored(8));
    messages.mockResolvedValue({ results: [stored(6), stored(8)], next: null, previous: null });
    await useChat.getState().catchUp(from);
    expect(messages).toHaveBeenCalledWith(7, { after: 5 });
    expect(useChat.getState().threads[7]!.messages.map((message) => message.id)).toEqual([3, 5, 6, 8]);
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
});
