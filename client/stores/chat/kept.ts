import type { StoreApi } from 'zustand';
import type { ConversationDetail, Message } from '../../../shared/schemas/conversations';
import { readCache, writeCache } from '../../lib/device-cache';
import { useConversations } from '../conversations';
import { ownsStorage, sessionCheck, useSession } from '../session';
import { emptyThread, lastStoredId, newestId, type Thread } from './thread';
import type { ChatState } from './types';

/** A chat as this device keeps it for an opening with no network (`lib/device-cache.ts`). */
interface KeptThread {
  detail: ConversationDetail;
  messages: Message[];
  older: string | null;
  missingEarlier?: true;
  /** The thread's `heardTo`, when a message kept was pushed ahead of one it never heard. */
  heardTo?: number;
}
/**
 * The chats kept: the most recently active ones opened on this device, each with its newest
 * messages, and no more text in all than leaves local storage (5 MB or so) room for the outbox.
 */
const KEPT_THREADS = 10;
const KEPT_MESSAGES = 200;
const KEPT_CHARACTERS = 400_000;

/**
 * The chats this device keeps for the signed-in user, by conversation. They are read from storage
 * once a session, then held as this tab last read or wrote them (the entry is up to KEPT_CHARACTERS
 * long, and a chat in use is written every few seconds), until another tab writes to storage.
 */
let keptChats: { sameSession: () => boolean; me: number; chats: Record<number, KeptThread> | null } | undefined;
export function keptThreads(): Record<number, KeptThread> | null {
  const me = useSession.getState().user?.id;
  if (me === undefined) return null;
  if (!keptChats?.sameSession() || keptChats.me !== me) {
    keptChats = { sameSession: sessionCheck(), me, chats: readCache<Record<number, KeptThread>>('chats', me) };
  }
  return keptChats.chats;
}
function writeKeptChats(me: number, chats: Record<number, KeptThread>) {
  writeCache('chats', chats, me);
  keptChats = { sameSession: sessionCheck(), me, chats };
}
window.addEventListener('storage', (event) => {
  if (event.storageArea === window.localStorage) keptChats = undefined;
});

export const keptThread = (id: number): KeptThread | null => keptThreads()?.[id] ?? null;

/** A chat the server refuses (it ended while the app was closed) is kept no longer. */
export function forgetKeptThread(id: number) {
  const me = useSession.getState().user?.id;
  const kept = keptThreads();
  if (me === undefined || !kept?.[id] || !ownsStorage()) return;
  delete kept[id];
  writeKeptChats(me, kept);
}

/**
 * A chat never kept on this device, as far as the conversation lists know it: who it is with, and
 * no messages (though there are some if the list shows a last one).
 */
export function listedThread(id: number): KeptThread | null {
  const summary = useConversations.getState().summaryOf(id);
  if (!summary) return null;
  const { name, image, other_user_id } = summary;
  const detail: ConversationDetail = { id, name, image, other_user_id, partner_last_read_id: 0 };
  const thread: KeptThread = { detail, messages: [], older: null };
  return summary.last_message === null ? thread : { ...thread, missingEarlier: true };
}

/**
 * The chats kept on the device follow the store, once it is made (`index.ts`): a moment after it
 * settles (a burst of messages is one write), and at once when the page is put away.
 */
let keptWrite: ReturnType<typeof setTimeout> | undefined;
export function keepChatsOnDevice(chat: StoreApi<ChatState>) {
  const write = () => writeKeptThreads(chat.getState());
  chat.subscribe((state, previous) => {
    // A conversation that ended goes from what is kept, though this tab never opened it.
    const changed = keptPartChanged(state.threads, previous.threads) || state.ended !== previous.ended;
    if (!changed || useSession.getState().user?.id === undefined) return;
    keptWrite ??= setTimeout(write, 500);
  });
  window.addEventListener('pagehide', () => {
    if (keptWrite !== undefined) write();
  });
}

/**
 * What is kept of a thread changed: how far the partner has read too, but not their typing, nor my own
 * read marker, which change by the second.
 */
function keptPartChanged(threads: ChatState['threads'], before: ChatState['threads']) {
  if (threads === before) return false;
  const ids = Object.keys(threads);
  if (ids.length !== Object.keys(before).length) return true;
  return ids.some((key) => {
    const thread = threads[Number(key)]!;
    const was = before[Number(key)];
    return (
      !was ||
      thread.messages !== was.messages ||
      thread.detail !== was.detail ||
      thread.partnerReadId !== was.partnerReadId ||
      thread.older !== was.older ||
      thread.loaded !== was.loaded ||
      thread.missingEarlier !== was.missingEarlier
    );
  });
}

function writeKeptThreads({ threads, ended }: ChatState) {
  clearTimeout(keptWrite);
  keptWrite = undefined;
  const me = useSession.getState().user?.id;
  if (me === undefined || !ownsStorage()) return;
  // The chats kept before this tab opened them stay kept in their turn, unless they ended here.
  const candidates = new Map<number, Thread>();
  for (const [key, entry] of Object.entries(keptThreads() ?? {})) {
    if (!ended[Number(key)]) candidates.set(Number(key), restoredThread(entry));
  }
  for (const [key, thread] of Object.entries(threads)) if (thread.loaded) candidates.set(Number(key), thread);
  const kept: Record<number, KeptThread> = {};
  let characters = KEPT_CHARACTERS;
  const newestFirst = [...candidates].sort(([, a], [, b]) => lastStoredId(b) - lastStoredId(a));
  for (const [id, thread] of newestFirst) {
    const entry = keep(thread, characters);
    if (!entry) continue;
    kept[id] = entry;
    characters -= entry.messages.reduce((sum, message) => sum + message.content.length, 0);
    if (Object.keys(kept).length === KEPT_THREADS || characters <= 0) break;
  }
  writeKeptChats(me, kept);
}

/** What is kept of a thread, its messages' text within `characters`. */
function keep(thread: Thread, characters: number): KeptThread | null {
  if (!thread.loaded || !thread.detail) return null;
  // How far the partner has read as of now, not as of the last fetch: "Read" stays under the same message offline.
  const detail = { ...thread.detail, partner_last_read_id: Math.max(thread.detail.partner_last_read_id ?? 0, thread.partnerReadId) };
  const stored: Message[] = thread.messages.filter((message) => message.id > 0).map(({ status: _, ...message }) => message);
  let kept = Math.min(stored.length, KEPT_MESSAGES);
  let text = 0;
  for (let index = stored.length - 1; index >= stored.length - kept; index -= 1) {
    text += stored[index]!.content.length;
    if (text > characters) kept = stored.length - 1 - index;
  }
  // No room left for its newest message. (A chat with none yet is kept: it can be written in.)
  if (kept === 0 && stored.length > 0) return null;
  const gap = thread.heardTo < lastStoredId(thread) ? { heardTo: thread.heardTo } : {};
  // Cut short, it no longer reaches the cursor of the page before it: "older" waits for the server's own.
  if (kept < stored.length || thread.missingEarlier) {
    return { detail, messages: stored.slice(stored.length - kept), older: null, missingEarlier: true, ...gap };
  }
  return { detail, messages: stored, older: thread.older, ...gap };
}

/** A kept chat as a thread of the store's, to be weighed against the threads opened since. */
const restoredThread = (kept: KeptThread): Thread => ({
  ...emptyThread(),
  detail: kept.detail,
  messages: kept.messages.map((message) => ({ ...message, status: 'sent' })),
  older: kept.older,
  loaded: true,
  missingEarlier: kept.missingEarlier ?? false,
  heardTo: kept.heardTo ?? newestId(kept.messages),
});
