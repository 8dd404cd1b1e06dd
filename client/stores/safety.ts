import { useEffect, useState } from 'react';
import { create } from 'zustand';
import type { BlockedUser, EndedChat, ReportInput, ReportReason } from '../../shared/schemas/safety';
import { NotFound, type Page } from '../lib/api';
import { api } from '../lib/api-app';
import { readCache, writeCache } from '../lib/device-cache';
import { errorMessage } from '../lib/errors';
import { useT } from '../lib/i18n';
import { useRetryWhenBackOnline } from '../lib/socket';
import { useChat } from './chat';
import { useConversations } from './conversations';
import { useDeck } from './deck';
import { useLikes } from './likes';
import { usePlan } from './plan';
import { onSignOut, ownsStorage, sessionCheck } from './session';

/** How an action that ends everything with a person came out. */
export type Outcome = 'done' | 'gone';

/** A list of the safety pages, a page at a time: null until its page first loads it. */
interface PagedList<T> {
  items: T[] | null;
  next: string | null;
  loading: boolean;
}

interface Items {
  /** People I blocked, newest first. */
  blocked: BlockedUser;
  /** My chats that ended lately, newest ending first: their people can still be reported. */
  ended: EndedChat;
}
export type ListName = keyof Items;
type Lists = { [K in ListName]: PagedList<Items[K]> };

const fetchPage: { [K in ListName]: (cursor?: string) => Promise<Page<Items[K]>> } = {
  blocked: (cursor) => api.blocks(cursor),
  ended: (cursor) => api.endedChats(cursor),
};
/** What tells an entry from the others, so that a page that overlaps the one before adds nothing twice. */
const keyOf: { [K in ListName]: (item: Items[K]) => number } = { blocked: (person) => person.id, ended: (chat) => chat.id };

const emptyLists = (): Lists => ({ blocked: { items: null, next: null, loading: false }, ended: { items: null, next: null, loading: false } });

/** A report being written: its reason and details. */
export interface ReportDraft {
  reason: ReportReason | null;
  details: string;
}

interface SafetyState {
  /** People who left this user's world (block, report, unmatch, ban): an open profile of them goes too. */
  gone: Record<number, true>;
  /**
   * Reports being written, by person, until sent: the sheet that holds one may go before (the chat
   * ended under it, as the other person unmatched, or the page reloaded: they are kept on the device),
   * and the report opened again starts from it.
   */
  reportDrafts: Record<number, ReportDraft>;
  lists: Lists;
  block: (userId: number, conversationId?: number) => Promise<Outcome>;
  unmatch: (conversationId: number, userId: number) => Promise<Outcome>;
  report: (input: ReportInput) => Promise<Outcome>;
  unblock: (userId: number) => Promise<void>;
  /** Unblocked, here or on another of my phones (`person:unblocked`): no longer gone, nor listed as blocked. */
  unblocked: (userId: number) => void;
  /** The list's first page, afresh. */
  load: (list: ListName) => Promise<void>;
  /** The list's next page, if it has one and none is on its way. */
  loadMore: (list: ListName) => Promise<void>;
  reset: () => void;
}

/** People this tab is blocking, reporting or unmatching right now: their `match:removed` is no news here. */
const endingHere = new Set<number>();

/**
 * Takes a person out of everything this tab shows: their conversations (both lists, the chat), their
 * deck card, an open profile. `byMe`: the user's own action (this tab's, which tells the user itself, or
 * another phone's).
 */
function removePerson(userId: number | null, conversationIds: number[], byMe: boolean) {
  const conversations = useConversations.getState();
  // Blocked or reported on another phone of mine: the list's offer to report them is done with here too.
  if (byMe && userId !== null && conversations.endedNotice?.userId === userId) conversations.dismissEndedNotice();
  // A chat that goes from the list says so there, as an open chat does (Chat.tsx), with Report: at
  // once on the list on screen, or the next time it is opened (its unread count went with the row).
  for (const id of conversationIds) {
    const name = conversations.nameOf(id);
    conversations.remove(id);
    useChat.getState().end(id, { byMe, userId, name });
    if (!byMe && name) conversations.showEndedNotice({ conversationId: id, name, userId });
  }
  if (userId === null) return;
  useDeck.getState().forget(userId);
  // Nor among those who like me: out of the list, and the count asked again when they were not in it.
  useLikes.getState().answered(userId, true);
  // Nor offered back by undo, which would name them (a subscriber's button, the free plan's prompt).
  if (usePlan.getState().lastPass?.id === userId) usePlan.setState({ lastPass: null });
  useSafety.setState((state) => (state.gone[userId] ? state : { gone: { ...state.gone, [userId]: true } }));
}

/** The conversations this tab knows with a person: in the lists, or an open chat. */
function conversationsWith(userId: number, known?: number): number[] {
  const ids = new Set(useConversations.getState().conversationsWith(userId));
  for (const [id, thread] of Object.entries(useChat.getState().threads)) if (thread.detail?.other_user_id === userId) ids.add(Number(id));
  if (known !== undefined) ids.add(known);
  return [...ids];
}

/** A list's rows after a report: the reported person's marked so, or gone with an account deleted meanwhile. */
function afterReport<Row extends { reported: boolean }>(rows: Row[] | null, outcome: Outcome, isTheirs: (row: Row) => boolean): Row[] | null {
  if (!rows) return rows;
  return outcome === 'gone' ? rows.filter((row) => !isTheirs(row)) : rows.map((row) => (isTheirs(row) ? { ...row, reported: true } : row));
}

/**
 * Runs one of the user's own actions against a person, then removes the person here. A 404 means the
 * person is already out of reach (they blocked first, their account is gone): the outcome for this
 * user is the same, and it is said so.
 */
async function endWith(userId: number, conversationId: number | undefined, request: () => Promise<unknown>): Promise<Outcome> {
  endingHere.add(userId);
  let outcome: Outcome = 'done';
  try {
    await request();
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
    outcome = 'gone';
  } finally {
    endingHere.delete(userId);
  }
  removePerson(userId, conversationsWith(userId, conversationId), true);
  return outcome;
}

/**
 * A block between me and someone, either way (`person:gone`; on another phone of mine too, `byMe`):
 * their card and profile go, and nothing is said. Blocked by me (or reported, or unmatched: the news
 * is the same), on this phone or another: the list of the people I blocked, where held, is read again
 * for them (it learns their name and when from the server).
 */
export function personGone(userId: number, byMe = false) {
  removePerson(userId, [], byMe);
  if (byMe && useSafety.getState().lists.blocked.items) useSafety.getState().load('blocked').catch(() => {});
}

/**
 * `match:removed`, or a conversation found gone after a reconnect: it leaves both lists and the chat
 * store; an open chat of it leaves with a calm notice (see Chat). Nobody learns why it ended. `byMe`:
 * ended by the user on another phone or tab, which said so there: here it goes quietly.
 */
export function conversationEnded(conversationId: number, byMe = false) {
  const fromThread = useChat.getState().threads[conversationId]?.detail?.other_user_id;
  const userId = useConversations.getState().otherUserOf(conversationId) ?? fromThread ?? null;
  if (userId !== null && endingHere.has(userId)) {
    // Our own action's answer takes it from here; the lists can go now.
    useConversations.getState().remove(conversationId);
    return;
  }
  removePerson(userId, [conversationId], byMe);
}

export const useSafety = create<SafetyState>()((set, get) => {
  function setList<K extends ListName>(list: K, change: (current: PagedList<Items[K]>) => Partial<PagedList<Items[K]>>) {
    set((state) => ({ lists: { ...state.lists, [list]: { ...state.lists[list], ...change(state.lists[list]) } } }));
  }

  /**
   * Fetches a page of a list and adds it; without a cursor, reads the list again from its top, as far
   * down as it held (the pages already shown stay shown). What the last user's lists held never reaches
   * whoever signed in since.
   */
  async function fetchInto<K extends ListName>(list: K, cursor: string | undefined) {
    const sameSession = sessionCheck();
    setList(list, () => ({ loading: true }));
    try {
      const held = cursor ? 0 : (get().lists[list].items?.length ?? 0);
      let page = await fetchPage[list](cursor);
      const results = [...page.results];
      while (page.next && results.length < held) {
        if (!sameSession()) return;
        page = await fetchPage[list](page.next);
        results.push(...page.results);
      }
      if (!sameSession()) return;
      const { next } = page;
      setList(list, (current) => {
        const key: (item: Items[K]) => number = keyOf[list];
        const kept = cursor ? (current.items ?? []) : [];
        const known = new Set(kept.map(key));
        const items = [...kept];
        for (const item of results) {
          if (known.has(key(item))) continue;
          known.add(key(item));
          items.push(item);
        }
        return { items, next };
      });
    } finally {
      if (sameSession()) setList(list, () => ({ loading: false }));
    }
  }

  return {
    gone: {},
    reportDrafts: readCache<Record<number, ReportDraft>>('reportDrafts') ?? {},
    lists: emptyLists(),
    block: (userId, conversationId) => endWith(userId, conversationId, () => api.block(userId)),
    unmatch: (conversationId, userId) => endWith(userId, conversationId, () => api.unmatch(conversationId)),
    async report(input) {
      const outcome = await endWith(input.user_id, input.conversation_id, () => api.report(input));
      set(({ reportDrafts: { [input.user_id]: _sent, ...others } }) => ({ reportDrafts: others }));
      // Their row among the blocked (the report keeps the block) and an ended chat of theirs say they are
      // reported now, or go with an account deleted meanwhile.
      setList('blocked', ({ items }) => ({ items: afterReport(items, outcome, (person) => person.id === input.user_id) }));
      setList('ended', ({ items }) => ({ items: afterReport(items, outcome, (chat) => chat.user_id === input.user_id) }));
      return outcome;
    },
    async unblock(userId) {
      await api.unblock(userId);
      get().unblocked(userId);
    },
    unblocked(userId) {
      set((state) => {
        const { [userId]: _unblocked, ...gone } = state.gone;
        return { gone };
      });
      setList('blocked', (blocked) => ({ items: blocked.items && blocked.items.filter((person) => person.id !== userId) }));
    },
    load: (list) => fetchInto(list, undefined),
    async loadMore(list) {
      const { next, loading } = get().lists[list];
      if (next && !loading) await fetchInto(list, next);
    },
    reset() {
      endingHere.clear();
      set({ gone: {}, reportDrafts: {}, lists: emptyLists() });
    },
  };
});

onSignOut(() => useSafety.getState().reset());
// Written by the session that owns storage only, as the chat drafts are: a tab left signed in after
// another signed in as someone else would hand that account its reports, or write over theirs. Read
// as the store is made, from the storage of the session the tab opens in (sign-ins clear it).
useSafety.subscribe(({ reportDrafts }, previous) => {
  if (reportDrafts !== previous.reportDrafts && ownsStorage()) writeCache('reportDrafts', reportDrafts);
});

/**
 * A safety page's list (Settings → Blocked people, Ended chats): its first page loaded afresh once a
 * visit, then a page more at a time; `error` says why the last load failed. A first page that could
 * not be read leaves nothing to page from: `retry` reads it again (Try again), as does the socket's
 * next connection, and is null otherwise.
 */
export function useSafetyList<K extends ListName>(list: K) {
  const t = useT();
  const shown = useSafety((state) => state.lists[list]);
  const [error, setError] = useState<string | null>(null);
  function loadList(which: 'load' | 'loadMore') {
    setError(null);
    useSafety
      .getState()
      [which](list)
      .catch((caught: unknown) => setError(errorMessage(caught, t)));
  }
  // Once a visit: a change of language does not change who is listed.
  useEffect(() => loadList('load'), []);
  const unread = shown.items === null && error !== null;
  useRetryWhenBackOnline(unread, () => loadList('load'));
  return { ...shown, error, more: () => loadList('loadMore'), retry: unread ? () => loadList('load') : null };
}
