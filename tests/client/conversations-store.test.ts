// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConversationSummary } from '../../shared/schemas/conversations';

const api = vi.hoisted(() => ({ emptyConversations: vi.fn(), startedConversations: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { unreadTotal, useConversations } = await import('../../client/stores/conversations');
const { useSession } = await import('../../client/stores/session');
const { useDeck } = await import('../../client/stores/deck');
const { writeCache } = await import('../../client/lib/device-cache');
const { currentUser } = await import('../helpers/current-user');

const summary = (id: number, unread: number) =>
  ({ id, name: `Person ${id}`, image: null, other_user_id: 100 + id, last_message: 'hola', last_activity: '2026-11-28T01:00:00.000Z', unread_count: unread }) as ConversationSummary;
/** A match with no message yet, as the empty list holds it. */
const match = (id: number) => ({ ...summary(id, 0), last_message: null });

/** The match overlay on screen, if any. */
const overlay = () => useDeck.getState().match;

describe('the conversations store', () => {
  afterEach(() => {
    useSession.getState().signOut({ alreadyRevoked: true });
    vi.resetAllMocks();
  });

  it('asks the server once for loads that overlap (the app shell and the list page)', async () => {
    api.emptyConversations.mockResolvedValue({ results: [] });
    api.startedConversations.mockResolvedValue({ results: [summary(1, 2)] });
    await Promise.all([useConversations.getState().load(), useConversations.getState().load()]);
    expect(api.startedConversations).toHaveBeenCalledTimes(1);
    // Once answered, the next load asks again.
    await useConversations.getState().load();
    expect(api.startedConversations).toHaveBeenCalledTimes(2);
  });

  it('reads the lists again at a refresh, after a load on its way (it may have been read too early), and not when none was had', async () => {
    api.emptyConversations.mockResolvedValue({ results: [] });
    await useConversations.getState().refresh();
    expect(api.startedConversations).not.toHaveBeenCalled();
    let answer!: (value: { results: ConversationSummary[] }) => void;
    api.startedConversations.mockReturnValueOnce(new Promise((resolve) => (answer = resolve))).mockResolvedValueOnce({ results: [summary(1, 3)] });
    void useConversations.getState().load();
    const refreshed = useConversations.getState().refresh();
    answer({ results: [summary(1, 2)] });
    await refreshed;
    expect(api.startedConversations).toHaveBeenCalledTimes(2);
    expect(useConversations.getState().started?.[0]?.unread_count).toBe(3);
  });

  it('shows the overlay and the dot on Chats for a match a reload finds that the lists did not hold, not for the first load', async () => {
    api.startedConversations.mockResolvedValue({ results: [] });
    api.emptyConversations.mockResolvedValueOnce({ results: [match(1)] });
    await useConversations.getState().load();
    api.emptyConversations.mockResolvedValueOnce({ results: [match(1)] });
    await useConversations.getState().refresh();
    expect(useConversations.getState().newMatches).toEqual([]);
    expect(overlay()).toBeNull();
    // Matched while the socket could not hear it: the catch-up's read finds them, and shows the newest.
    api.emptyConversations.mockResolvedValueOnce({ results: [match(3), match(2), match(1)] });
    await useConversations.getState().refresh();
    expect(useConversations.getState().newMatches).toEqual([3, 2]);
    expect(overlay()).toEqual({ conversationId: 3, name: 'Person 3', image: null });
  });

  it('at the first read, tells of the matches made since this device last showed the lists: made while the app was closed', async () => {
    useSession.setState({ token: 'token', user: currentUser({ id: 7 }) });
    api.startedConversations.mockResolvedValue({ results: [] });
    // The lists, whole, as this phone last showed them: nobody yet.
    writeCache('conversations', { empty: [], started: [], more: { empty: null, started: null } }, 7);
    api.emptyConversations.mockResolvedValueOnce({ results: [match(2)] });
    await useConversations.getState().load();
    expect(useConversations.getState().newMatches).toEqual([2]);
    expect(overlay()).toEqual({ conversationId: 2, name: 'Person 2', image: null });
  });

  it('at the first read, tells nothing when this phone kept no lists, or kept them in an older shape', async () => {
    useSession.setState({ token: 'token', user: currentUser({ id: 7 }) });
    api.startedConversations.mockResolvedValue({ results: [] });
    // Kept by an earlier build (no cursors, the cache's version before): as good as none.
    localStorage.setItem('cache:conversations:7', JSON.stringify({ version: 1, value: { empty: [], started: [] } }));
    api.emptyConversations.mockResolvedValueOnce({ results: [match(9)] });
    await useConversations.getState().load();
    expect([useConversations.getState().newMatches, overlay()]).toEqual([[], null]);

    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.setState({ token: 'token', user: currentUser({ id: 8 }) });
    api.emptyConversations.mockResolvedValueOnce({ results: [match(9)] });
    await useConversations.getState().load();
    expect([useConversations.getState().newMatches, overlay()]).toEqual([[], null]);
  });

  it('tells a new match from an older one a read brings up from a page it had not read', async () => {
    const at = (id: number, minute: number, message: string | null = null) => ({ ...summary(id, 0), last_message: message, last_activity: `2026-11-28T01:${String(minute).padStart(2, '0')}:00.000Z` });
    // A page of matches with more behind it, and a page of chats with more behind it.
    api.emptyConversations.mockResolvedValueOnce({ results: [at(9, 50), at(8, 40)], next: 'older-matches' });
    api.startedConversations.mockResolvedValueOnce({ results: [at(20, 55, 'hola')], next: 'older-chats' });
    await useConversations.getState().load();
    // Match 8 ended: 7, older, comes up from the next page. Chat 5, older, came up with a message.
    api.emptyConversations.mockResolvedValueOnce({ results: [at(9, 50), at(7, 30)], next: 'older-matches' });
    api.startedConversations.mockResolvedValueOnce({ results: [at(5, 58, 'ey'), at(20, 55, 'hola')], next: 'older-chats' });
    await useConversations.getState().refresh();
    expect(overlay()).toBeNull();
    expect(useConversations.getState().newMatches).toEqual([]);
    // Match 11 is new: made in the same millisecond as 9, after it (its id).
    api.emptyConversations.mockResolvedValueOnce({ results: [at(11, 50), at(9, 50), at(7, 30)], next: 'older-matches' });
    api.startedConversations.mockResolvedValueOnce({ results: [at(5, 58, 'ey'), at(20, 55, 'hola')], next: 'older-chats' });
    await useConversations.getState().refresh();
    expect(overlay()?.conversationId).toBe(11);

    // With both lists whole, anything they did not hold is new: a match whose first message came too.
    useSession.getState().signOut({ alreadyRevoked: true });
    api.emptyConversations.mockResolvedValueOnce({ results: [at(9, 50)] });
    api.startedConversations.mockResolvedValueOnce({ results: [at(20, 55, 'hola')] });
    await useConversations.getState().load();
    api.emptyConversations.mockResolvedValueOnce({ results: [at(9, 50)] });
    api.startedConversations.mockResolvedValueOnce({ results: [at(12, 59, 'hi!'), at(20, 55, 'hola')] });
    await useConversations.getState().refresh();
    expect(overlay()?.conversationId).toBe(12);
    expect(useConversations.getState().newMatches).toEqual([12]);
  });

  it('tells nothing of a conversation the user has already been in on another phone', async () => {
    const chat = (id: number, entered: boolean) => ({ ...summary(id, 1), entered });
    api.emptyConversations.mockResolvedValue({ results: [] });
    api.startedConversations.mockResolvedValueOnce({ results: [] });
    await useConversations.getState().load();
    // Matched and talked on the other phone while this one was asleep; then a match whose partner wrote first.
    api.startedConversations.mockResolvedValueOnce({ results: [chat(14, true)] });
    await useConversations.getState().refresh();
    expect([useConversations.getState().newMatches, overlay()]).toEqual([[], null]);
    api.startedConversations.mockResolvedValueOnce({ results: [chat(15, false), chat(14, true)] });
    await useConversations.getState().refresh();
    expect(useConversations.getState().newMatches).toEqual([15]);
    expect(overlay()?.conversationId).toBe(15);
  });

  it('shows no overlay over the chat of the match it tells of: opened with no network before the match was heard of, she is in it', async () => {
    api.startedConversations.mockResolvedValue({ results: [] });
    api.emptyConversations.mockResolvedValueOnce({ results: [] });
    await useConversations.getState().load();
    window.history.replaceState(null, '', '/app/chat/2/');
    try {
      api.emptyConversations.mockResolvedValueOnce({ results: [match(2)] });
      await useConversations.getState().refresh();
      expect(overlay()).toBeNull();
      // Its `match:new`, come late, shows it no more than the read did.
      useDeck.getState().heardOfMatch(2, { id: 102, name: 'Person 2', image: null });
      expect(overlay()).toBeNull();
      expect(useConversations.getState().newMatches).toEqual([2]);
    } finally {
      window.history.replaceState(null, '', '/');
    }
  });

  it('shows a match once, whichever news of it came first', async () => {
    api.startedConversations.mockResolvedValue({ results: [] });
    api.emptyConversations.mockResolvedValueOnce({ results: [] });
    await useConversations.getState().load();
    // Its `match:new` came, and its overlay was closed, before a read of the lists brings it.
    useDeck.getState().heardOfMatch(2, { id: 102, name: 'Person 2', image: null });
    useDeck.getState().hideMatch();
    api.emptyConversations.mockResolvedValueOnce({ results: [match(2)] });
    await useConversations.getState().load();
    expect(overlay()).toBeNull();
    expect(useConversations.getState().newMatches).toEqual([2]);
  });

  it('takes a match’s dot away when the match goes before it was seen, and leaves the others’', async () => {
    api.startedConversations.mockResolvedValue({ results: [] });
    api.emptyConversations.mockResolvedValueOnce({ results: [] });
    await useConversations.getState().load();
    api.emptyConversations.mockResolvedValueOnce({ results: [match(5), match(4)] });
    await useConversations.getState().refresh();
    expect(useConversations.getState().newMatches).toEqual([5, 4]);
    useConversations.getState().remove(5);
    expect(useConversations.getState().newMatches).toEqual([4]);
    useConversations.getState().remove(4);
    expect(useConversations.getState().newMatches).toEqual([]);
  });

  it('puts no dot on the matches that a load after a failed one finds: they are not new, only newly seen', async () => {
    api.emptyConversations.mockRejectedValueOnce(new Error('offline'));
    api.startedConversations.mockResolvedValue({ results: [] });
    await useConversations.getState().load();
    expect(useConversations.getState().failed).not.toBeNull();
    api.emptyConversations.mockResolvedValueOnce({ results: [match(1)] });
    await useConversations.getState().load();
    expect(useConversations.getState().newMatches).toEqual([]);
  });

  it('drops a load begun before a sign-out: the next user never sees the last one’s conversations', async () => {
    let answer!: (value: { results: ConversationSummary[] }) => void;
    api.emptyConversations.mockResolvedValue({ results: [] });
    api.startedConversations.mockReturnValueOnce(new Promise((resolve) => (answer = resolve))).mockResolvedValueOnce({ results: [] });
    useSession.getState().signIn('ana-token');
    const previous = useConversations.getState().load();
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('ben-token');
    // The next user's own load is not folded into the one on its way.
    await useConversations.getState().load();
    answer({ results: [summary(1, 5)] });
    await previous;
    expect(useConversations.getState().started).toEqual([]);
    expect(api.startedConversations).toHaveBeenCalledTimes(2);
  });

  it('brings a list’s next page, without repeating one a message moved up meanwhile', async () => {
    api.emptyConversations.mockResolvedValueOnce({ results: [summary(9, 0)], next: 'empty-2' });
    api.startedConversations.mockResolvedValueOnce({ results: [summary(1, 0), summary(2, 0)], next: 'started-2' });
    await useConversations.getState().load();
    expect(useConversations.getState().more).toEqual({ empty: 'empty-2', started: 'started-2' });

    // A message moves conversation 3, not loaded yet, to the top: the server's first page has it now.
    api.emptyConversations.mockResolvedValueOnce({ results: [summary(9, 0)], next: 'empty-2' });
    api.startedConversations.mockResolvedValueOnce({ results: [summary(3, 1), summary(1, 0)], next: 'started-2b' });
    useConversations.getState().noteMessage(3, { id: 70, sender: 103, content: 'hola', time: '2026-11-29T01:00:00.000Z', client_id: null }, false);
    await vi.waitFor(() => expect(useConversations.getState().started!.map((item) => item.id)).toEqual([3, 1]));

    api.startedConversations.mockResolvedValueOnce({ results: [summary(2, 0), summary(3, 0), summary(4, 0)], next: null });
    await useConversations.getState().loadMore('started');
    expect(api.startedConversations).toHaveBeenLastCalledWith('started-2b');
    expect(useConversations.getState().started!.map((item) => item.id)).toEqual([3, 1, 2, 4]);
    expect(useConversations.getState().more).toEqual({ empty: 'empty-2', started: null });
    expect(useConversations.getState().loadingMore).toBeNull();
    // All here: nothing more to ask.
    await useConversations.getState().loadMore('started');
    expect(api.startedConversations).toHaveBeenCalledTimes(3);
  });

  it('counts the unread messages of every conversation', () => {
    useConversations.setState({ started: [summary(1, 2), summary(2, 3), summary(3, 0)] });
    expect(unreadTotal(useConversations.getState())).toBe(5);
    expect(unreadTotal({ started: null })).toBe(0);
  });

  it('keeps a conversation’s unread count when a message of mine comes: only a read clears it, as on the server', () => {
    useConversations.setState({ empty: [], started: [summary(1, 2)] });
    // A message of mine that waited for the network goes out while the chat is not on screen.
    useConversations.getState().noteMessage(1, { id: 9, sender: 1, content: 'sorry, no signal', time: '2026-11-29T01:00:00.000Z', client_id: null }, true);
    expect(useConversations.getState().started![0]).toMatchObject({ last_message: 'sorry, no signal', last_message_mine: true, unread_count: 2 });
    useConversations.getState().noteMessage(1, { id: 10, sender: 101, content: 'ok', time: '2026-11-29T01:01:00.000Z', client_id: null }, false);
    expect(useConversations.getState().started![0]!.unread_count).toBe(3);
  });
});

describe('the lists’ search', () => {
  const named = (name: string) => ({ name });
  it('finds a name whatever its accents and case, and keeps the lists whole when empty', async () => {
    const { filterByName } = await import('../../client/stores/conversations');
    const people = [named('María José'), named('Ñoño'), named('Zoë'), named('Marco')];
    expect(filterByName(people, 'maria').map((person) => person.name)).toEqual(['María José']);
    expect(filterByName(people, 'MARÍA').map((person) => person.name)).toEqual(['María José']);
    expect(filterByName(people, 'nono').map((person) => person.name)).toEqual(['Ñoño']);
    expect(filterByName(people, 'zoe').map((person) => person.name)).toEqual(['Zoë']);
    expect(filterByName(people, 'mar').map((person) => person.name)).toEqual(['María José', 'Marco']);
    expect(filterByName(people, '  ')).toBe(people);
  });
});
