// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const messages = vi.hoisted(() => vi.fn());
const conversation = vi.hoisted(() => vi.fn());
const markRead = vi.hoisted(() => vi.fn());
vi.mock('../../client/lib/api-app', () => ({ api: { messages, conversation, markRead } }));

const { NetworkError, NotFound } = await import('../../client/lib/api');
const { useChat } = await import('../../client/stores/chat');
const { useSession } = await import('../../client/stores/session');

const ME = 1;
const mine = (id: number) => ({ id, sender: ME, content: `m${id}`, time: '2026-11-23T10:00:00.000Z', client_id: null });
const detail = (partnerRead: number) => ({ id: 7, name: 'Ben', image: null, other_user_id: 2, partner_last_read_id: partnerRead });
const page = (ids: number[]) => ({ results: ids.map(mine), next: null, previous: null });
const partnerReadId = () => useChat.getState().threads[7]!.partnerReadId;

describe("the partner's read mark when a chat opens", () => {
  beforeEach(() => {
    useSession.getState().signIn('token');
    useSession.setState({ user: { id: ME } as never });
  });
  afterEach(() => {
    useChat.getState().reset();
    conversation.mockReset();
    messages.mockReset();
    markRead.mockReset();
  });

  it('starts where the server says the partner has read, so "Read" shows after a reload', async () => {
    conversation.mockResolvedValueOnce(detail(5));
    messages.mockResolvedValueOnce(page([3, 5, 6]));
    await useChat.getState().open(7);
    expect(partnerReadId()).toBe(5);
    // Live events move it on from there, never back.
    useChat.getState().partnerRead(7, 6);
    expect(partnerReadId()).toBe(6);
    useChat.getState().partnerRead(7, 4);
    expect(partnerReadId()).toBe(6);
  });

  it('is not moved back by an answer older than a live `message:read`', async () => {
    let answer!: (value: unknown) => void;
    conversation.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    messages.mockResolvedValueOnce(page([3, 5, 6]));
    const opened = useChat.getState().open(7);
    // The partner reads the newest while the chat loads.
    useChat.getState().partnerRead(7, 6);
    answer(detail(3));
    await opened;
    expect(partnerReadId()).toBe(6);
  });

  it('is as the device last knew it when the chat opens with no network', async () => {
    conversation.mockResolvedValueOnce(detail(5));
    messages.mockResolvedValueOnce(page([3, 5, 6]));
    await useChat.getState().open(7);
    window.dispatchEvent(new Event('pagehide'));
    useChat.getState().reset();
    conversation.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    messages.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await useChat.getState().open(7);
    expect(useChat.getState().threads[7]!.fromDevice).toBe(true);
    expect(partnerReadId()).toBe(5);
  });

  it('is asked again at a catch-up while a message of mine is not known to be read: the `message:read` may have been missed', async () => {
    conversation.mockResolvedValueOnce(detail(5));
    messages.mockResolvedValueOnce(page([3, 5, 6]));
    await useChat.getState().open(7);
    // The connection dropped as the partner read 6; back, the catch-up asks where they are.
    conversation.mockResolvedValueOnce(detail(6));
    messages.mockResolvedValueOnce(page([]));
    await useChat.getState().catchUp(useChat.getState().cursors());
    expect(conversation).toHaveBeenCalledTimes(2);
    expect(partnerReadId()).toBe(6);
    // Everything of mine read: the next catch-up fetches messages only.
    messages.mockResolvedValueOnce(page([]));
    await useChat.getState().catchUp(useChat.getState().cursors());
    expect(conversation).toHaveBeenCalledTimes(2);
    expect(messages).toHaveBeenCalledTimes(3);
  });

  it('ends the chat once when the catch-up finds it gone', async () => {
    conversation.mockResolvedValueOnce(detail(5));
    messages.mockResolvedValueOnce(page([3, 5, 6]));
    await useChat.getState().open(7);
    conversation.mockRejectedValueOnce(new NotFound(404, 'Not found.'));
    messages.mockRejectedValueOnce(new NotFound(404, 'Not found.'));
    expect(await useChat.getState().catchUp(useChat.getState().cursors())).toEqual([7]);
  });

  it('counts what is left unread after a read on another of my phones, and does not mark it again here', async () => {
    const theirs = (id: number) => ({ ...mine(id), sender: 2 });
    conversation.mockResolvedValueOnce(detail(0));
    messages.mockResolvedValueOnce({ results: [theirs(3), theirs(5), mine(6), theirs(7)], next: null, previous: null });
    await useChat.getState().open(7);
    expect(useChat.getState().readUpTo(7, 5)).toBe(1);
    expect(useChat.getState().threads[7]!.ownReadId).toBe(5);
    expect(useChat.getState().readUpTo(7, 7)).toBe(0);
    // A chat this tab does not hold: the caller asks the server.
    expect(useChat.getState().readUpTo(8, 7)).toBeNull();
  });

  it('keeps the furthest read when the receipts of two reads come in the other order', async () => {
    const theirs = (id: number) => ({ ...mine(id), sender: 2 });
    conversation.mockResolvedValueOnce(detail(0));
    messages.mockResolvedValueOnce({ results: [theirs(3), theirs(5), theirs(7)], next: null, previous: null });
    await useChat.getState().open(7);
    // Read to 5, then to 7, elsewhere: the two pushes, sent as each read committed, can cross.
    expect(useChat.getState().readUpTo(7, 7)).toBe(0);
    expect(useChat.getState().readUpTo(7, 5)).toBe(0);
    expect(useChat.getState().threads[7]!.ownReadId).toBe(7);
  });

  it('tells the server over HTTP what was read with no socket, which a network that lets none through never has', async () => {
    const theirs = (id: number) => ({ ...mine(id), sender: 2 });
    conversation.mockResolvedValueOnce(detail(0));
    messages.mockResolvedValueOnce({ results: [theirs(3), mine(4), theirs(5), mine(6)], next: null, previous: null });
    markRead.mockResolvedValue(null);
    await useChat.getState().open(7);
    useChat.getState().markRead(7);
    expect(markRead).toHaveBeenCalledWith(7, 5);
    // Once: read already, it is not told again.
    useChat.getState().markRead(7);
    expect(markRead).toHaveBeenCalledTimes(1);
  });
});
