import type { ConversationDetail, Message } from '../../../shared/schemas/conversations';
import { heardUpTo, pushHeard, type ThreadCursor } from '../../../shared/thread-cursor';
import { sessionCheck } from '../session';

/**
 * `queued`: unanswered with no connection (no socket, and no answer over HTTP, or the socket gone before
 * its answer came: an answer that does not come in time drops the socket, `lib/socket.ts`), or put off
 * by an instance shutting down; it goes out by itself when the socket is back, under the same
 * client_id, so never twice; or held by the server's limit on sends (`slowDown`), when it goes by
 * itself once the limit allows. `failed`: the server refused it; Retry sends it, or, refused for good,
 * Edit takes it back to the composer (`takeBack`).
 */
export type MessageStatus = 'sent' | 'sending' | 'queued' | 'failed';
export interface ChatMessage extends Message {
  status: MessageStatus;
  /**
   * Failed, but not refused for good: a limit reached, a server error.
   * Kept on the device with the queue, and sent again with it at the next connect.
   */
  retryable?: boolean;
  /**
   * Queued by the server's limit on sends (too many, too fast), with every message waiting behind it:
   * they go by themselves, in order, once the wait it named is over. `typed` when the user wrote the
   * burst as it went; `queue` when it was the app sending what had waited (an offline queue), no fault
   * of the user's.
   */
  slowDown?: 'typed' | 'queue';
}

/**
 * A conversation as this tab holds it. How far it has heard (`ThreadCursor`) comes from the server's
 * pages and pushes, not from the answers to our own sends: one of them may be stored after a partner's
 * message whose push has not come (or never will, the socket gone).
 */
export interface Thread extends ThreadCursor {
  detail: ConversationDetail | null;
  /** Oldest first. Pending messages carry a negative id until the server answers. */
  messages: ChatMessage[];
  loaded: boolean;
  /** Cursor of the next older page, or null when the beginning is reached. */
  older: string | null;
  loadingOlder: boolean;
  /** When the partner last typed (ms since epoch); the indicator shows for TYPING_VISIBLE_MS. */
  typingAt: number;
  /** The partner has read our messages up to this id. */
  partnerReadId: number;
  /** What we told the server we have read. */
  ownReadId: number;
  /** Loaded from what this device kept (no network when it opened): fetched afresh at the next open. */
  fromDevice: boolean;
  /**
   * Opened with no network, it holds no message from before its oldest one, though the conversation
   * has some (it was never opened here, or kept cut short): they come with the network.
   */
  missingEarlier: boolean;
}

export const TYPING_VISIBLE_MS = 3000;

/** The key of a chat's toasts: its newest message's takes the place of the one before, as its end's does. */
export const chatToastKey = (conversationId: number) => `chat-${conversationId}`;

/** A conversation that ended while this tab held it; its chat page leaves for the list. */
export interface EndedThread {
  name: string;
  /** The other person, when known: the list's notice offers to report them. */
  userId: number | null;
  /** Ended by this tab's own block, report or unmatch: no notice, the action says what happened. */
  byMe: boolean;
}

export const emptyThread = (): Thread => ({
  detail: null,
  messages: [],
  loaded: false,
  older: null,
  loadingOlder: false,
  typingAt: 0,
  partnerReadId: 0,
  ownReadId: 0,
  fromDevice: false,
  missingEarlier: false,
  heardTo: 0,
  ahead: {},
});

/** A message of mine still to go out by itself: queued, or failed for a reason that may pass. */
export const waitsToGo = (message: ChatMessage) => message.status === 'queued' || (message.status === 'failed' && message.retryable === true);
/** A message of mine on its way: what the outbox keeps on the device, and a sign-out would drop. */
export const onItsWay = (message: ChatMessage) => message.id < 0 && (message.status === 'sending' || waitsToGo(message));
/** How many of my messages are on their way, in every thread. */
export const unsentMessages = (threads: Record<number, Thread>) =>
  Object.values(threads).reduce((count, thread) => count + thread.messages.filter(onItsWay).length, 0);

/** Adds messages once each: a server copy replaces the pending one with its client_id. */
export function mergeMessages(current: readonly ChatMessage[], incoming: readonly Message[]): ChatMessage[] {
  const result = [...current];
  for (const message of incoming) {
    const byClient = message.client_id ? result.findIndex((item) => item.client_id === message.client_id) : -1;
    if (byClient >= 0) {
      result[byClient] = { ...message, status: 'sent' };
      continue;
    }
    if (result.some((item) => item.id === message.id)) continue;
    result.push({ ...message, status: 'sent' });
  }
  // Stored messages by id; pending ones (negative ids) stay at the end in their order, the one they
  // were typed in (a closed tab's, taken up late, are put in theirs: `restoreOutbox`).
  return result.sort((a, b) => {
    if (a.id < 0 && b.id < 0) return 0;
    if (a.id < 0) return 1;
    if (b.id < 0) return -1;
    return a.id - b.id;
  });
}

/** A stored message of mine the partner is not known to have read: "Read" under it waits for a `message:read`. */
export const awaitsRead = (thread: Thread) => {
  const partner = thread.detail?.other_user_id;
  return partner !== undefined && thread.messages.some((message) => message.id > thread.partnerReadId && message.sender !== partner);
};

export const newestId = (messages: readonly Message[]) => messages.reduce((max, message) => (message.id > max ? message.id : max), 0);
export const lastStoredId = (thread: Thread) => newestId(thread.messages);

/**
 * Messages the server told of added to the thread, and how far it has heard: a page (the newest, or
 * one after a cursor the thread had reached), or what this device kept, heard with none missing up to
 * `heardTo` when it says so.
 */
export const heard = (thread: Thread, incoming: readonly Message[], heardTo = newestId(incoming)): Pick<Thread, 'messages' | 'heardTo' | 'ahead'> => ({
  messages: mergeMessages(thread.messages, incoming),
  ...heardUpTo(thread, heardTo),
});

/** A pushed message added to the thread; `heardTo` moves only if it follows on from there (`previousId`). */
export const pushed = (thread: Thread, message: Message, previousId: number | null | undefined): Partial<Thread> => ({
  messages: mergeMessages(thread.messages, [message]),
  ...pushHeard(thread, message.id, previousId),
});

/** The store's state as far as `threadUpdates` sets it (`ChatState`'s module, `types.ts`, imports this one). */
type Threads = { threads: Record<number, Thread> };
/** How a slice changes one thread, with the store's `set`: one the store does not hold yet starts empty. */
export function threadUpdates(set: (change: (state: Threads) => Threads) => void) {
  const update = (id: number, change: (thread: Thread) => Partial<Thread>) =>
    set((state) => {
      const thread = state.threads[id] ?? emptyThread();
      return { threads: { ...state.threads, [id]: { ...thread, ...change(thread) } } };
    });
  /** `update` for an answer to a request of this session only: one that lands after a sign-out is dropped. */
  const updater = (sameSession = sessionCheck()) => (id: number, change: (thread: Thread) => Partial<Thread>) => {
    if (sameSession()) update(id, change);
  };
  return { update, updater };
}
