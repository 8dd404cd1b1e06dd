// @vitest-environment jsdom
/**
 * The conversation lists as news from the socket reaches them. A read of the lists already on its way
 * (the app opening, the socket's first connect) may have been asked before the match or the message
 * the news tells of: the news reads the lists again after it, rather than sharing it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConversationSummary, Message } from '../../shared/schemas/conversations';
import { hear } from '../helpers/heard-socket';
import { later } from '../helpers/later';

const api = vi.hoisted(() => ({ emptyConversations: vi.fn(), startedConversations: vi.fn(), likesYou: vi.fn(), messages: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useConversations } = await import('../../client/stores/conversations');
const { emptyThread, useChat } = await import('../../client/stores/chat');
const { useDeck } = await import('../../client/stores/deck');
const { useLikes } = await import('../../client/stores/likes');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');
const { useToasts } = await import('../../client/lib/toast');

type Page = { results: ConversationSummary[] };
/** A match with no message yet, as the empty list holds it. */
const match = (id: number) =>
  ({ id, name: `Person ${id}`, image: null, other_user_id: 100 + id, last_message: null, last_activity: `2026-12-01T01:0${id}:00.000Z`, unread_count: 0 }) as ConversationSummary;
const message = (id: number): Message => ({ id, sender: 105, content: 'hola', time: '2026-12-01T01:09:00.000Z', client_id: null });

const ids = (list: ConversationSummary[] | null) => list?.map((item) => item.id);

describe('the conversation lists and the socket’s news', () => {
  beforeEach(async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    api.startedConversations.mockResolvedValue({ results: [] });
    api.emptyConversations.mockResolvedValueOnce({ results: [match(1)] });
    startRealtime('token');
    await useConversations.getState().load();
  });
  afterEach(() => {
    stopRealtime();
    useDeck.getState().reset();
    useLikes.getState().reset();
    useConversations.setState({ empty: null, started: null, failed: null, newMatches: [] });
    useChat.getState().reset();
    vi.resetAllMocks();
    vi.mocked(console.error).mockRestore();
  });

  /** A read of the lists on its way, asked before the news: its answer is the test's to give. */
  function readOnItsWay() {
    const early = later<Page>();
    api.emptyConversations.mockReturnValueOnce(early.promise);
    void useConversations.getState().load();
    return early;
  }

  it('lists a match whose match:new comes while a read asked before it is on its way', async () => {
    const early = readOnItsWay();
    api.emptyConversations.mockResolvedValueOnce({ results: [match(2), match(1)] });
    hear('match:new', { conversation_id: 2, user: { id: 102, name: 'Person 2', image: null } });
    early.resolve({ results: [match(1)] });
    await vi.waitFor(() => expect(ids(useConversations.getState().empty)).toEqual([2, 1]));
    expect(api.emptyConversations).toHaveBeenCalledTimes(3);
  });

  it('lists a conversation a message comes from while a read asked before it is on its way', async () => {
    const early = readOnItsWay();
    api.emptyConversations.mockResolvedValueOnce({ results: [match(5), match(1)] });
    useConversations.getState().noteMessage(5, message(50), false);
    early.resolve({ results: [match(1)] });
    await vi.waitFor(() => expect(ids(useConversations.getState().empty)).toEqual([5, 1]));
    expect(api.emptyConversations).toHaveBeenCalledTimes(3);
  });

  it('shows the newest message on the list when the push of one stored before it comes after it', () => {
    // Pushes can overtake each other (a batched send beside a REST one, another instance's): 6 comes after 8.
    hear('message:new', { conversation_id: 1, message: { ...message(8), content: 'see you at the bar' }, previous_id: 6 });
    hear('message:new', { conversation_id: 1, message: { ...message(6), content: 'hola', time: '2026-12-01T01:08:00.000Z' }, previous_id: 5 });
    expect(useConversations.getState().started).toEqual([
      { ...match(1), last_message: 'see you at the bar', last_message_mine: false, last_activity: '2026-12-01T01:09:00.000Z', unread_count: 2 },
    ]);
  });

  it('counts and tells a message pushed twice (its resend told again) once', () => {
    const pushed = { conversation_id: 1, message: message(8), previous_id: null };
    hear('message:new', pushed);
    expect(useToasts.getState().toasts).toHaveLength(1);
    useToasts.setState({ toasts: [] });
    hear('message:new', pushed);
    expect(useConversations.getState().started?.map((item) => item.unread_count)).toEqual([1]);
    expect(useToasts.getState().toasts).toEqual([]);
  });

  it('lists what a read of the chat brings that no push told of: its last line and its unread badge at once', async () => {
    // The chat is held, heard up to 5; 8 comes, stored after a 7 never pushed, and a 9 is stored whose push is lost too.
    useChat.setState({ threads: { 1: { ...emptyThread(), loaded: true, messages: [{ ...message(5), status: 'sent' }], heardTo: 5 } } });
    const nine = { ...message(9), content: 'where are you?', time: '2026-12-01T01:10:00.000Z' };
    api.messages.mockResolvedValueOnce({ results: [message(7), message(8), nine], next: null });
    hear('message:new', { conversation_id: 1, message: message(8), previous_id: 7 });
    await vi.waitFor(() => expect(useChat.getState().threads[1]!.heardTo).toBe(9));
    expect(api.messages).toHaveBeenCalledWith(1, { after: 5 });
    const [listed] = useConversations.getState().started!;
    expect(listed).toMatchObject({ id: 1, last_message: 'where are you?', last_activity: nine.time, unread_count: 3 });
    // Its push, should it come after all, counts it no more.
    hear('message:new', { conversation_id: 1, message: nine, previous_id: 8 });
    expect(useConversations.getState().started![0]!.unread_count).toBe(3);
  });

  it('drops a chat I ended on another phone quietly, and says a chat the other person ended has ended', async () => {
    api.emptyConversations.mockResolvedValueOnce({ results: [match(2), match(1)] });
    await useConversations.getState().load();
    hear('match:removed', { conversation_id: 1, by_you: true });
    expect(ids(useConversations.getState().empty)).toEqual([2]);
    expect(useConversations.getState().endedNotice).toBeNull();
    hear('match:removed', { conversation_id: 2 });
    expect(ids(useConversations.getState().empty)).toEqual([]);
    expect(useConversations.getState().endedNotice).toEqual({ conversationId: 2, name: 'Person 2', userId: 102 });
  });

  it('takes the card of someone who blocked me (or whom I blocked on another phone) off the deck at once', async () => {
    const card = (id: number) => ({ id, name: `Person ${id}`, age: 30, bio: '', image: null });
    useDeck.setState({ current: card(5) as never, queue: [card(6), card(7)] as never });
    hear('person:gone', { user_id: 5 });
    expect(useDeck.getState().current?.id).toBe(6);
    hear('person:gone', { user_id: 7 });
    expect(useDeck.getState().queue?.map((queued) => queued.id)).toEqual([]);
  });

  it('takes a card I answered on another phone off the deck, and out of "likes you"', () => {
    const card = (id: number) => ({ id, name: `Person ${id}`, age: 30, bio: '', image: null });
    useDeck.setState({ current: card(5) as never, queue: [card(6), card(7)] as never });
    useLikes.setState({ count: 2, people: [card(7), card(8)] as never });
    hear('deck:answered', { user_id: 5, response: 'dislike' });
    expect(useDeck.getState().current?.id).toBe(6);
    hear('deck:answered', { user_id: 7, response: 'like' });
    expect(useDeck.getState().queue?.map((queued) => queued.id)).toEqual([]);
    expect(useLikes.getState()).toMatchObject({ count: 1, people: [card(8)] });
    // Someone not among them changes nothing, and asks nothing.
    hear('deck:answered', { user_id: 9, response: 'dislike' });
    expect(useLikes.getState()).toMatchObject({ count: 1, people: [card(8)] });
    expect(api.likesYou).not.toHaveBeenCalled();
  });

  it('asks "likes you" again after a match with someone it could not name (no list without the plan)', async () => {
    useLikes.setState({ count: 3, people: [] });
    api.emptyConversations.mockResolvedValue({ results: [match(2), match(1)] });
    api.likesYou.mockResolvedValueOnce({ count: 2, results: [], next: null });
    hear('match:new', { conversation_id: 2, user: { id: 102, name: 'Person 2', image: null } });
    await vi.waitFor(() => expect(useLikes.getState().count).toBe(2));
    expect(api.likesYou).toHaveBeenCalledTimes(1);
  });
});
