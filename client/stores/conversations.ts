import { create } from 'zustand';
import type { ConversationSummary, Message } from '../../shared/schemas/conversations';
import { logFailure } from '../lib/api';
import { api } from '../lib/api-app';
import { type LoadFailure, loadFailure } from '../lib/socket';
import { readCache, writeCache } from '../lib/device-cache';
import { useDeck } from './deck';
import { onSignOut, ownsStorage, sessionCheck, useSession } from './session';

interface ConversationsState {
  /** Matches with no message yet; null while loading. */
  empty: ConversationSummary[] | null;
  /** Conversations with messages, newest activity first; null while loading. */
  started: ConversationSummary[] | null;
  /**
   * The lists are empty because they could not be had (`offline`: no answer; `server`: the server's
   * error) and this device kept none, not because there is nobody: the page says so. Cleared (null)
   * by the next load that answers.
   */
  failed: LoadFailure | null;
  /** Each list's cursor to its next page, null when it is all here. */
  more: Record<ListName, string | null>;
  /** The list whose next page is on its way. */
  loadingMore: ListName | null;
  /**
   * Both lists' first pages from the server; a call while one is on its way shares it. A match they
   * hold that the lists before did not (at the first read, those this device last showed) was made
   * while no socket of this tab could hear its `match:new`: the newest shows its overlay now, and the
   * dot on Chats tells of it (`madeSince`).
   */
  load: () => Promise<void>;
  /**
   * The lists read again, when they hold something (or a load is on its way) read before now: pushes
   * that passed this tab by meanwhile (a socket not connected yet) are in the new read.
   */
  refresh: () => Promise<void>;
  /** A list's next page, after what it holds (one already held, moved up by a message since, is not repeated). */
  loadMore: (list: ListName) => Promise<void>;
  /**
   * A message (sent or received) moves its conversation to the top of the started list. `late`: one
   * newer was heard already (its push overtook this one's): it is counted, and the newer stays the last.
   */
  noteMessage: (conversationId: number, message: Message, fromMe: boolean, late?: boolean) => void;
  markRead: (conversationId: number) => void;
  /** As many unread as another of my phones or tabs left after reading there. */
  setUnread: (conversationId: number, count: number) => void;
  /** The conversation ended (block, unmatch, report, ban): gone from both lists. */
  remove: (conversationId: number) => void;
  /** The partner's name, while a list holds the conversation. */
  nameOf: (conversationId: number) => string | null;
  /** The conversation as a list holds it, or as this device last listed it. */
  summaryOf: (conversationId: number) => ConversationSummary | null;
  /** Who the conversation is with, while a list holds it. */
  otherUserOf: (conversationId: number) => number | null;
  /** The conversations with this person, in either list. */
  conversationsWith: (userId: number) => number[];
  /** Matches made since the matches list was last on screen (their conversations): a dot on Chats says so. */
  newMatches: number[];
  /** A match made (its conversation), not seen yet. */
  noteNewMatches: (conversationIds: number[]) => void;
  /** A chat that ended while it was open or listed on screen, for a calm notice on the list that offers to report its partner. */
  endedNotice: EndedNotice | null;
  showEndedNotice: (notice: EndedNotice) => void;
  dismissEndedNotice: () => void;
  reset: () => void;
}

type ListName = 'empty' | 'started';

export interface EndedNotice {
  conversationId: number;
  /** The partner's name; empty when this tab never knew it. */
  name: string;
  userId: number | null;
}

const both = (state: Pick<ConversationsState, 'empty' | 'started'>) => [...(state.empty ?? []), ...(state.started ?? [])];

type Lists = Pick<ConversationsState, 'empty' | 'started'>;
/** The lists with their cursors: whether each was whole. */
type PagedLists = Lists & Pick<ConversationsState, 'more'>;

/** The lists as this device last showed them to the signed-in user (`lib/device-cache.ts`). */
function keptLists(): PagedLists | null {
  const me = useSession.getState().user?.id;
  return me === undefined ? null : readCache<PagedLists>('conversations', me);
}

/** Whether `a` comes before `b` in a list's order: newest activity first, then the higher id (the server's keyset). */
const newer = (a: ConversationSummary, b: ConversationSummary) =>
  a.last_activity > b.last_activity || (a.last_activity === b.last_activity && a.id > b.id);

/**
 * The matches in a new read of the lists (`listed`) made since the lists `held` were read: those it
 * holds that `held` did not, newest first. A match with no message is new when it is newer than one
 * `held` had, or when `held` had that whole list; else it may be an older one come up from a page not
 * read (one above it ended). A conversation with messages is new only when `held` had every
 * conversation (else it may be an older one that a message brought to the top), and when I have not
 * been in it on another phone (`entered`): one I have read or written in there is no news to me.
 */
function madeSince(held: PagedLists, listed: Lists): ConversationSummary[] {
  const known = new Set(both(held).map((item) => item.id));
  const unheld = (items: ConversationSummary[] | null) => (items ?? []).filter((item) => !known.has(item.id));
  const newestHeld = held.empty?.[0];
  const wholeEmpty = held.more.empty === null;
  const matches = unheld(listed.empty).filter((item) => wholeEmpty || (newestHeld !== undefined && newer(item, newestHeld)));
  const talking = wholeEmpty && held.more.started === null ? unheld(listed.started).filter((item) => !item.entered) : [];
  return [...matches, ...talking];
}

/** The load on its way, shared by whoever asks meanwhile (in the same session). */
let loading: Promise<void> | null = null;

export const useConversations = create<ConversationsState>()((set, get) => ({
  empty: null,
  started: null,
  failed: null,
  more: { empty: null, started: null },
  loadingMore: null,
  load() {
    if (loading) return loading;
    const sameSession = sessionCheck();
    const run = (async () => {
      try {
        const [empty, started] = await Promise.all([api.emptyConversations(), api.startedConversations()]);
        if (!sameSession()) return;
        const listed = { empty: empty.results, started: started.results };
        const held = get();
        // Matches the lists did not hold: their `match:new` came while no socket could hear it. At the
        // tab's first read, the lists this device last showed stand for them: matched while the app
        // was closed. A device that never showed them (a new phone) has nothing to tell apart.
        const before = held.started === null ? keptLists() : held.failed === null ? held : null;
        const made = before ? madeSince(before, listed) : [];
        set({ ...listed, failed: null, more: { empty: empty.next ?? null, started: started.next ?? null } });
        // Not what the user saw on another phone: a match's overlay there, the chats there for its dot.
        get().noteNewMatches(made.filter((item) => item.seen !== 'chats').map((item) => item.id));
        // The newest shows as its `match:new` would have; the dot on Chats tells of the others.
        const newest = made.find((item) => !item.seen);
        if (newest) useDeck.getState().heardOfMatch(newest.id, { id: newest.other_user_id, name: newest.name, image: newest.image });
      } catch (error) {
        if (!sameSession()) return;
        logFailure('Could not load conversations', error);
        // Lists loaded before stay as they were; lists never loaded are the ones this device last
        // showed (an empty one there says so as online), or empty, and say why.
        set((state) => {
          if (state.started !== null) return {};
          const kept = keptLists();
          return kept ? { ...kept, failed: null } : { empty: [], started: [], failed: loadFailure(error) };
        });
      }
    })().finally(() => {
      if (loading === run) loading = null;
    });
    loading = run;
    return run;
  },
  async refresh() {
    if (loading) await loading;
    else if (get().started === null) return;
    await get().load();
  },
  async loadMore(list) {
    const cursor = get().more[list];
    if (!cursor || get().loadingMore) return;
    const sameSession = sessionCheck();
    set({ loadingMore: list });
    try {
      const page = await (list === 'started' ? api.startedConversations(cursor) : api.emptyConversations(cursor));
      if (!sameSession()) return;
      set((state) => {
        const held = new Set(both(state).map((item) => item.id));
        return {
          [list]: [...(state[list] ?? []), ...page.results.filter((item) => !held.has(item.id))],
          more: { ...state.more, [list]: page.next ?? null },
        };
      });
    } finally {
      if (sameSession()) set({ loadingMore: null });
    }
  },
  noteMessage(conversationId, message, fromMe, late = false) {
    const { empty, started } = get();
    if (!empty || !started) return;
    const known = started.find((item) => item.id === conversationId) ?? empty.find((item) => item.id === conversationId);
    if (!known) {
      // A conversation this tab has not seen: the server's list is the truth, read after any read on
      // its way (that one may have been asked before the conversation had this message).
      void get().refresh();
      return;
    }
    // Mine leaves the partner's unread as they are: only a read clears them, as the server counts (a
    // message that waited for the network goes out from a chat not on screen).
    const unread = (known.unread_count ?? 0) + (fromMe ? 0 : 1);
    if (late && started.includes(known)) return get().setUnread(conversationId, unread);
    const updated: ConversationSummary = {
      ...known,
      last_message: message.content,
      last_message_mine: fromMe,
      last_activity: message.time,
      unread_count: unread,
    };
    set({
      empty: empty.filter((item) => item.id !== conversationId),
      started: [updated, ...started.filter((item) => item.id !== conversationId)],
    });
  },
  markRead(conversationId) {
    get().setUnread(conversationId, 0);
  },
  setUnread(conversationId, count) {
    const { started } = get();
    if (!started?.some((item) => item.id === conversationId && item.unread_count !== count)) return;
    set({ started: started.map((item) => (item.id === conversationId ? { ...item, unread_count: count } : item)) });
  },
  remove(conversationId) {
    const drop = (list: ConversationSummary[] | null) => list && list.filter((item) => item.id !== conversationId);
    // A match gone before it was seen takes its dot with it, and its overlay waiting for its turn.
    set((state) => ({ empty: drop(state.empty), started: drop(state.started), newMatches: state.newMatches.filter((id) => id !== conversationId) }));
    useDeck.getState().dropMatch(conversationId);
  },
  nameOf(conversationId) {
    return both(get()).find((item) => item.id === conversationId)?.name ?? null;
  },
  summaryOf(conversationId) {
    const listed = (lists: Lists | null) => (lists ? both(lists).find((item) => item.id === conversationId) : undefined);
    return listed(get()) ?? listed(keptLists()) ?? null;
  },
  otherUserOf(conversationId) {
    return both(get()).find((item) => item.id === conversationId)?.other_user_id ?? null;
  },
  conversationsWith(userId) {
    return both(get())
      .filter((item) => item.other_user_id === userId)
      .map((item) => item.id);
  },
  newMatches: [],
  noteNewMatches(conversationIds) {
    if (conversationIds.length === 0) return;
    set((state) => ({ newMatches: [...new Set([...state.newMatches, ...conversationIds])] }));
  },
  endedNotice: null,
  showEndedNotice(notice) {
    set({ endedNotice: notice });
  },
  dismissEndedNotice() {
    set({ endedNotice: null });
  },
  reset() {
    loading = null;
    set({ empty: null, started: null, failed: null, more: { empty: null, started: null }, loadingMore: null, newMatches: [], endedNotice: null });
  },
}));

onSignOut(() => useConversations.getState().reset());

// Kept on the device as they change, for an opening with no network: the lists as the user last saw them.
useConversations.subscribe((state, previous) => {
  const me = useSession.getState().user?.id;
  if (me === undefined || !state.empty || !state.started || !ownsStorage()) return;
  if (state.empty === previous.empty && state.started === previous.started && state.more === previous.more) return;
  writeCache('conversations', { empty: state.empty, started: state.started, more: state.more } satisfies PagedLists, me);
});

/** Unread messages across the started conversations. */
export function unreadTotal(state: Pick<ConversationsState, 'started'>): number {
  return (state.started ?? []).reduce((sum, item) => sum + (item.unread_count ?? 0), 0);
}

/** A name as the search compares it: lower case, without accents ("María" is found by "maria"). */
const searchable = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();

/** The search box filters both lists by name, as users expect it to. */
export function filterByName<T extends { name: string }>(items: T[], search: string): T[] {
  const needle = searchable(search.trim());
  if (!needle) return items;
  return items.filter((item) => searchable(item.name).includes(needle));
}
