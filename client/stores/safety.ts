import { create } from 'zustand';
import type { BlockedUser, ReportInput } from '../../shared/schemas/safety';
import { NotFound } from '../lib/api';
import { api } from '../lib/api-app';
import { useChat } from './chat';
import { useConversations } from './conversations';
import { useDeck } from './deck';
import { onSignOut, sessionCheck } from './session';

/** How an action that ends everything with a person came out. */
export type Outcome = 'done' | 'gone';

interface SafetyState {
  /** People who left this user's world (block, report, unmatch, ban): an open profile of them goes too. */
  gone: Record<number, true>;
  /** People I blocked, newest first; null until the blocked page loads them. */
  blocked: BlockedUser[] | null;
  blockedNext: string | null;
  loadingBlocked: boolean;
  block: (userId: number, conversationId?: number) => Promise<Outcome>;
  unmatch: (conversationId: number, userId: number) => Promise<Outcome>;
  report: (input: ReportInput) => Promise<Outcome>;
  unblock: (userId: number) => Promise<void>;
  loadBlocked: () => Promise<void>;
  loadMoreBlocked: () => Promise<void>;
  reset: () => void;
}

/** People this tab is blocking, reporting or unmatching right now: their `match:removed` is no news here. */
const endingHere = new Set<number>();

/**
 * Takes a person out of everything this tab shows: their conversations (both lists, the chat), their
 * deck card, an open profile. `byMe`: this tab's own action, which tells the user itself.
 */
function removePerson(userId: number | null, conversationIds: number[], byMe: boolean) {
  const conversations = useConversations.getState();
  for (const id of conversationIds) {
    conversations.remove(id);
    useChat.getState().end(id, byMe);
  }
  if (userId === null) return;
  useDeck.getState().forget(userId);
  useSafety.setState((state) => (state.gone[userId] ? state : { gone: { ...state.gone, [userId]: true } }));
}

/** The conversations this tab knows with a person: in the lists, or an open chat. */
function conversationsWith(userId: number, known?: number): number[] {
  const ids = new Set(useConversations.getState().conversationsWith(userId));
  for (const [id, thread] of Object.entries(useChat.getState().threads)) if (thread.detail?.other_user_id === userId) ids.add(Number(id));
  if (known !== undefined) ids.add(known);
  return [...ids];
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
 * `match:removed`, or a conversation found gone after a reconnect: it leaves both lists and the chat
 * store; an open chat of it leaves with a calm notice (see Chat). Nobody learns why it ended.
 */
export function conversationEnded(conversationId: number) {
  const fromThread = useChat.getState().threads[conversationId]?.detail?.other_user_id;
  const userId = useConversations.getState().otherUserOf(conversationId) ?? fromThread ?? null;
  if (userId !== null && endingHere.has(userId)) {
    // Our own action's answer takes it from here; the lists can go now.
    useConversations.getState().remove(conversationId);
    return;
  }
  removePerson(userId, [conversationId], false);
}

export const useSafety = create<SafetyState>()((set, get) => ({
  gone: {},
  blocked: null,
  blockedNext: null,
  loadingBlocked: false,
  block: (userId, conversationId) => endWith(userId, conversationId, () => api.block(userId)),
  unmatch: (conversationId, userId) => endWith(userId, conversationId, () => api.unmatch(conversationId)),
  report: (input) => endWith(input.user_id, input.conversation_id, () => api.report(input)),
  async unblock(userId) {
    await api.unblock(userId);
    set((state) => {
      const { [userId]: _unblocked, ...gone } = state.gone;
      return { gone, blocked: state.blocked && state.blocked.filter((person) => person.id !== userId) };
    });
  },
  async loadBlocked() {
    // The people the last user blocked never reach whoever signed in since.
    const sameSession = sessionCheck();
    set({ loadingBlocked: true });
    try {
      const page = await api.blocks();
      if (sameSession()) set({ blocked: page.results, blockedNext: page.next });
    } finally {
      if (sameSession()) set({ loadingBlocked: false });
    }
  },
  async loadMoreBlocked() {
    const { blockedNext, loadingBlocked } = get();
    if (!blockedNext || loadingBlocked) return;
    const sameSession = sessionCheck();
    set({ loadingBlocked: true });
    try {
      const page = await api.blocks(blockedNext);
      if (!sameSession()) return;
      set((state) => {
        const known = new Set((state.blocked ?? []).map((person) => person.id));
        return { blocked: [...(state.blocked ?? []), ...page.results.filter((person) => !known.has(person.id))], blockedNext: page.next };
      });
    } finally {
      if (sameSession()) set({ loadingBlocked: false });
    }
  },
  reset() {
    endingHere.clear();
    set({ gone: {}, blocked: null, blockedNext: null, loadingBlocked: false });
  },
}));

onSignOut(() => useSafety.getState().reset());
