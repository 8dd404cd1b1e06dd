import { create } from 'zustand';
import type { ConversationDetail, Message } from '../../../shared/schemas/conversations';
import { heardUpTo, pushHeard, type ThreadCursor } from '../../../shared/thread-cursor';
import { track, trackOnce } from '../../lib/analytics';
import { ApiError, mayPass, NetworkError, NotFound, Throttled } from '../../lib/api';
import { api } from '../../lib/api-app';
import { isConnected, sendMessageOverSocket, sendRead, SocketRefused } from '../../lib/socket';
import { readCache, writeCache } from '../../lib/device-cache';
import { serverNow } from '../../lib/server-clock';
import { t } from '../../lib/i18n';
import { dropOutboxesBut, type OutboxEntry, readOutbox, thisTab, whenTabCloses, writeOutbox } from '../../lib/outbox';
import { toast } from '../../lib/toast';
import { uuid } from '../../lib/uuid';
import { useConversations } from '../conversations';
import { countUnsentWith, onSignOut, ownsStorage, sessionCheck, useSession } from '../session';

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

/** A message of mine still to go out by itself: queued, or failed for a reason that may pass. */
const waitsToGo = (message: ChatMessage) => message.status === 'queued' || (message.status === 'failed' && message.retryable === true);
/** A message of mine on its way: what the outbox keeps on the device, and a sign-out would drop. */
const onItsWay = (message: ChatMessage) => message.id < 0 && (message.status === 'sending' || waitsToGo(message));
/** How many of my messages are on their way, in every thread. */
export const unsentMessages = (threads: Record<number, Thread>) =>
  Object.values(threads).reduce((count, thread) => count + thread.messages.filter(onItsWay).length, 0);

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
function keptThreads(): Record<number, KeptThread> | null {
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
  if (event.storageArea !== window.localStorage) return;
  keptChats = undefined;
  // Another tab wrote what it has on its way: this one takes it up if that tab is closed before it is sent.
  const me = useSession.getState().user?.id;
  if (me === undefined || me !== restoredFor || event.key !== `chat_outbox:${me}`) return;
  for (const { tab } of readOutbox(me)) if (tab && tab !== thisTab) whenTabCloses(tab, adopt);
});

const keptThread = (id: number): KeptThread | null => keptThreads()?.[id] ?? null;

/** A chat the server refuses (it ended while the app was closed) is kept no longer. */
function forgetKeptThread(id: number) {
  const me = useSession.getState().user?.id;
  const kept = keptThreads();
  if (me === undefined || !kept?.[id] || !ownsStorage()) return;
  delete kept[id];
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

/**
 * A chat never kept on this device, as far as the conversation lists know it: who it is with, and
 * no messages (though there are some if the list shows a last one).
 */
function listedThread(id: number): KeptThread | null {
  const summary = useConversations.getState().summaryOf(id);
  if (!summary) return null;
  const { name, image, other_user_id } = summary;
  const detail: ConversationDetail = { id, name, image, other_user_id, partner_last_read_id: 0 };
  const thread: KeptThread = { detail, messages: [], older: null };
  return summary.last_message === null ? thread : { ...thread, missingEarlier: true };
}

let tempId = -1;

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
const awaitsRead = (thread: Thread) => {
  const partner = thread.detail?.other_user_id;
  return partner !== undefined && thread.messages.some((message) => message.id > thread.partnerReadId && message.sender !== partner);
};

const newestId = (messages: readonly Message[]) => messages.reduce((max, message) => (message.id > max ? message.id : max), 0);
const lastStoredId = (thread: Thread) => newestId(thread.messages);

/**
 * Messages the server told of added to the thread, and how far it has heard: a page (the newest, or
 * one after a cursor the thread had reached), or what this device kept, heard with none missing up to
 * `heardTo` when it says so.
 */
const heard = (thread: Thread, incoming: readonly Message[], heardTo = newestId(incoming)): Pick<Thread, 'messages' | 'heardTo' | 'ahead'> => ({
  messages: mergeMessages(thread.messages, incoming),
  ...heardUpTo(thread, heardTo),
});

/** A pushed message added to the thread; `heardTo` moves only if it follows on from there (`previousId`). */
const pushed = (thread: Thread, message: Message, previousId: number | null | undefined): Partial<Thread> => ({
  messages: mergeMessages(thread.messages, [message]),
  ...pushHeard(thread, message.id, previousId),
});

interface ChatState {
  threads: Record<number, Thread>;
  open: (id: number) => Promise<void>;
  loadOlder: (id: number) => Promise<void>;
  send: (id: number, content: string) => Promise<void>;
  retry: (id: number, clientId: string) => Promise<void>;
  /**
   * A message the server refused for good (sent again, it would be refused again), out of the chat and
   * back in the composer, before what is written there: to change, or copy, and kept as drafts are.
   */
  takeBack: (id: number, clientId: string) => void;
  /**
   * A pushed message (`message:new`), with the id of the message stored just before it in the
   * conversation; undefined when the push did not say (an older instance's, during a rolling deploy):
   * the thread's messages after its cursor are read again.
   */
  receive: (id: number, message: Message, previousId: number | null | undefined) => void;
  typing: (id: number) => void;
  partnerRead: (id: number, lastReadId: number) => void;
  /**
   * I read up to `lastReadId` (on any of my phones or tabs): this tab does not mark it again. Answers
   * how many of the partner's messages this tab holds after it, or null when it holds no such chat.
   */
  readUpTo: (id: number, lastReadId: number) => number | null;
  /**
   * The socket is back: each conversation's queued messages, and those failed for a reason that may
   * have passed, go out in the order they were written.
   */
  sendQueued: () => Promise<void>;
  /**
   * The user's messages still on their way when this device last had the app open, queued again; those
   * of another tab still open are left to it, until it closes. With `closedTab`: that tab's, as it closes.
   */
  restoreOutbox: (userId: number, closedTab?: string) => void;
  markRead: (id: number) => void;
  /** How far each loaded thread has heard (`heardTo`), as of now: where a catch-up decided now starts. */
  cursors: () => Record<number, number>;
  /**
   * Fetches each loaded thread's messages after `from` (its cursor when the catch-up was decided; a
   * thread loaded since starts after the newest message it has heard of), and the newest page of one
   * missing its earlier messages; a thread still opening, once it has opened. Resolves with the
   * conversations that are gone (404): they ended while the socket was away.
   */
  catchUp: (from?: Record<number, number>) => Promise<number[]>;
  /**
   * What is typed and not sent yet, per conversation: a look at the partner's profile or another chat
   * does not throw it away, nor does a reload (kept on the device, below). Gone with a sign-out.
   */
  drafts: Record<number, string>;
  setDraft: (id: number, text: string) => void;
  ended: Record<number, EndedThread>;
  /** Forgets the thread and remembers that it ended, so that its chat page leaves. */
  end: (id: number, ending: { byMe: boolean; userId: number | null; name: string | null }) => void;
  reset: () => void;
}

/**
 * How long a throttled send waits: the server's Retry-After (over the socket, the ack's `retry_after`),
 * else the limit's window (10 s).
 */
const THROTTLE_WAIT_S = { fallback: 10, max: 60 };
function throttledFor(error: Throttled | SocketRefused): number {
  const said = error.retryAfterSeconds;
  const seconds = said && Number.isFinite(said) ? said : THROTTLE_WAIT_S.fallback;
  return Math.min(Math.max(seconds, 1), THROTTLE_WAIT_S.max) * 1000;
}

export const useChat = create<ChatState>()((set, get) => {
  const update = (id: number, change: (thread: Thread) => Partial<Thread>) =>
    set((state) => {
      const thread = state.threads[id] ?? emptyThread();
      return { threads: { ...state.threads, [id]: { ...thread, ...change(thread) } } };
    });
  /** `update` for an answer to a request of this session only: one that lands after a sign-out is dropped. */
  const updater = (sameSession = sessionCheck()) => (id: number, change: (thread: Thread) => Partial<Thread>) => {
    if (sameSession()) update(id, change);
  };

  /** Each thread's wait for the server's limit on sends, after which its held messages go. */
  const resendTimers = new Map<number, ReturnType<typeof setTimeout>>();
  function resendAfter(id: number, ms: number) {
    clearTimeout(resendTimers.get(id));
    resendTimers.set(
      id,
      setTimeout(() => {
        resendTimers.delete(id);
        void sendWaiting(id);
      }, ms),
    );
  }

  /** Answers the status the message is left in. `queue`: sent as one of those that waited (`sendInOrder`). */
  async function deliver(id: number, pendingMessage: ChatMessage, queue = false): Promise<MessageStatus> {
    const clientId = pendingMessage.client_id ?? uuid();
    const sameSession = sessionCheck();
    const answered = updater(sameSession);
    try {
      const stored = isConnected()
        ? await sendMessageOverSocket({ conversation_id: id, content: pendingMessage.content, client_id: clientId })
        : await api.sendMessage(id, pendingMessage.content, clientId);
      answered(id, (thread) => ({ messages: mergeMessages(thread.messages, [stored]) }));
      // The sender's: not whoever signed in here while the answer was on its way.
      if (sameSession()) track('message_sent');
      return 'sent';
    } catch (error) {
      // Too many, too fast: it waits as long as the server says, then goes by itself, and those
      // waiting behind it, or written meanwhile, wait with it (a Retry, or a send that passed, would
      // jump the queue).
      if ((error instanceof SocketRefused && error.code === 'throttled') || error instanceof Throttled) {
        answered(id, (thread) => ({
          messages: thread.messages.map((item) =>
            item.id < 0 && (item.client_id === clientId || item.status === 'queued')
              ? { ...item, status: 'queued', slowDown: item.slowDown ?? (queue ? 'queue' : 'typed'), retryable: false }
              : item,
          ),
        }));
        if (sameSession()) resendAfter(id, throttledFor(error));
        return 'queued';
      }
      // It waits for the socket, not for a Retry, when it went unanswered with no socket now (a party's
      // Wi-Fi gone, or the socket dropped before its answer came, as it does when none comes in time),
      // or when the server said it is shutting down (`unavailable`: send again once reconnected, to
      // another instance).
      const refused = error instanceof SocketRefused || (error instanceof ApiError && !(error instanceof NetworkError));
      const waits = (error instanceof SocketRefused && error.code === 'unavailable') || (!refused && !isConnected());
      if (!waits) console.error('Message not sent', error);
      const status: MessageStatus = waits ? 'queued' : 'failed';
      // A refusal may pass (a limit, the server's own error); any other is for good: not a participant
      // (any more), or content the server will never take.
      const passes = error instanceof SocketRefused ? error.code === 'throttled' || error.code === 'internal' : mayPass(error);
      const forGood = refused && !passes;
      answered(id, (thread) => ({
        messages: thread.messages.map((item) =>
          item.client_id === clientId && item.id < 0 ? { ...item, status, retryable: status === 'failed' && !forGood, slowDown: undefined } : item,
        ),
      }));
      // Not found: the partner ended the chat (perhaps while this app was closed, its messages kept
      // on the device). It ends here too, and says what was not sent.
      const gone = (error instanceof SocketRefused && error.code === 'not_found') || error instanceof NotFound;
      if (gone && sameSession()) get().end(id, { byMe: false, userId: null, name: null });
      return status;
    }
  }

  /**
   * Each thread's run of sends: `sendInOrder`, or a send over HTTP (`send`). A run asked for while one
   * goes waits for it.
   */
  const runs = new Map<number, Promise<void>>();
  function inTurn(id: number, work: () => Promise<unknown>): Promise<void> {
    const run = (runs.get(id) ?? Promise.resolve()).then(work).then(() => {});
    runs.set(id, run);
    void run.finally(() => {
      if (runs.get(id) === run) runs.delete(id);
    });
    return run;
  }
  const sendWaiting = (id: number) => inTurn(id, () => sendInOrder(id));
  /**
   * Sends the thread's messages of mine waiting to go, one after the other in the order written, each
   * once a run; stops at one that has to wait again (no connection, the limit): the rest wait behind it.
   */
  async function sendInOrder(id: number) {
    const me = useSession.getState().user?.id;
    const tried = new Set<string>();
    let stored = false;
    for (;;) {
      const next = get().threads[id]?.messages.find(
        (message) => message.sender === me && message.client_id && waitsToGo(message) && !tried.has(message.client_id),
      );
      if (me === undefined || !next?.client_id) break;
      tried.add(next.client_id);
      update(id, (current) => ({ messages: current.messages.map((item) => (item === next ? { ...item, status: 'sending' } : item)) }));
      // The same client_id: a send that did reach the server before the connection went is not stored twice.
      const status = await deliver(id, next, true);
      stored ||= status === 'sent';
      if (status === 'queued') break;
    }
    if (stored) await readMarkAgain(id);
  }

  /**
   * Where the partner has read to, asked after a resend is stored. A send that reached the server as
   * the old socket closed is stored then, and its resend is answered as a repeat: the partner's read of
   * it (told to the socket gone) is not pushed again, and the catch-up's own ask came while it still
   * had no id.
   */
  async function readMarkAgain(id: number) {
    const thread = get().threads[id];
    if (!thread || !awaitsRead(thread)) return;
    const answered = updater();
    const detail = await api.conversation(id).catch(() => null);
    if (detail) answered(id, (current) => ({ partnerReadId: Math.max(current.partnerReadId, detail.partner_last_read_id) }));
  }

  /**
   * Each thread's open on its way. A catch-up decided meanwhile waits for it: what the server answered
   * may have been read before the socket could hear what came next.
   */
  const opening = new Map<number, Promise<void>>();

  /**
   * Threads read again after a push that does not follow on from what they heard (or does not say what
   * came before it): the push between may never come, its instance gone after storing the message and
   * before pushing it (until its sender resends it); or opened again with more new than a page. What
   * the read brings that the thread did not hold goes on the list too, as its push would have. Read
   * page after page, to the end. True when another such push came while the read was on its way (read
   * once more after it, from where it got to).
   */
  const rereading = new Map<number, boolean>();
  async function readAgain(id: number) {
    if (rereading.has(id)) return void rereading.set(id, true);
    rereading.set(id, false);
    const answered = updater();
    try {
      do {
        rereading.set(id, false);
        const thread = get().threads[id];
        // Not loaded (its open reads it), or cut short (the next catch-up brings its newest page first).
        if (!thread?.loaded || thread.missingEarlier) return;
        const page = await api.messages(id, { after: thread.heardTo }).catch(() => null);
        // No answer: the thread stays behind what it may have missed, for the next catch-up.
        // Gone meanwhile (ended, or the store emptied at a sign-out): nothing to add to.
        const before = get().threads[id]?.messages;
        if (!page || get().ended[id] || !before) return;
        answered(id, (current) => heard(current, page.results));
        // What no push told of: on the list (its last line, its unread badge) as a push would be.
        const me = useSession.getState().user?.id;
        const held = get().threads[id]?.messages ?? [];
        for (const message of page.results) {
          if (before.some((item) => item.id === message.id)) continue;
          useConversations.getState().noteMessage(id, message, message.sender === me, held.some((item) => item.id > message.id));
        }
        if (page.next) rereading.set(id, true);
      } while (rereading.get(id));
    } finally {
      rereading.delete(id);
    }
  }

  async function openThread(id: number) {
    const answered = updater();
    const existing = get().threads[id];
    if (existing?.loaded && !existing.fromDevice) {
      // Back in a thread this tab already holds: fetch only the messages that are new, and the chat's
      // details again (the partner may have changed their name or photo since).
      const [detail, page] = await Promise.all([
        api.conversation(id).catch(() => null),
        api.messages(id, { after: existing.heardTo }).catch(() => null),
      ]);
      if (get().ended[id]) return;
      answered(id, (thread) => ({
        ...(page && heard(thread, page.results)),
        ...(detail && { detail, partnerReadId: Math.max(thread.partnerReadId, detail.partner_last_read_id) }),
      }));
      // More than a page new (away with no socket, on a network that lets none through): the rest too.
      if (page?.next) void readAgain(id);
      return;
    }
    let detail: ConversationDetail;
    let page: Awaited<ReturnType<typeof api.messages>>;
    try {
      [detail, page] = await Promise.all([api.conversation(id), api.messages(id)]);
    } catch (error) {
      if (!mayPass(error)) {
        // Ended while the app was closed, or never ours: nothing of it stays, here or on the device.
        // (A limit reached for now is not that: the chat the device kept stands in, as with no network.)
        set((state) => {
          const { [id]: _, ...threads } = state.threads;
          const { [id]: _draft, ...drafts } = state.drafts;
          return { threads, drafts };
        });
        forgetKeptThread(id);
        throw error;
      }
      // No network, or no server answering: the chat as this device last showed it, or as the lists
      // know it, written to as usual (queued), and caught up once the socket is back.
      const kept = keptThread(id) ?? listedThread(id);
      if (!kept) throw error;
      if (get().ended[id]) return;
      answered(id, (thread) => ({
        detail: thread.detail ?? kept.detail,
        // Stored messages, as the server told of them when this device kept them; a push kept ahead
        // of one never heard is no cursor.
        ...heard(thread, kept.messages, kept.heardTo),
        older: kept.older,
        loaded: true,
        fromDevice: true,
        missingEarlier: kept.missingEarlier ?? false,
        // As far as the partner had read when it was kept (a chat kept by an older build does not say).
        partnerReadId: Math.max(thread.partnerReadId, kept.detail.partner_last_read_id ?? 0),
      }));
      // Opened all the same: counted once the network is back (`trackUnsent`).
      trackOnce('match_opened', `match_opened:${id}`);
      return;
    }
    // Ended while it loaded: nothing to keep.
    if (get().ended[id]) return;
    // Opened from the device before, it holds messages the newest page may not reach back to: those
    // between come with a catch-up, from its own last one (the page moves no cursor).
    const beyond =
      existing?.fromDevice === true &&
      page.next !== null &&
      existing.messages.some((message) => message.id > 0) &&
      !page.results.some((message) => message.id <= existing.heardTo);
    answered(id, (thread) => ({
      detail,
      ...(beyond ? { messages: mergeMessages(thread.messages, page.results) } : heard(thread, page.results)),
      older: page.next,
      loaded: true,
      fromDevice: false,
      missingEarlier: false,
      // "Read" under the last message of mine read, from the start; a `message:read` come meanwhile may be further.
      partnerReadId: Math.max(thread.partnerReadId, detail.partner_last_read_id),
    }));
    trackOnce('match_opened', `match_opened:${id}`);
  }

  return {
    threads: {},
    async open(id) {
      const read = openThread(id);
      const settled = read.catch(() => undefined);
      opening.set(id, settled);
      void settled.then(() => {
        if (opening.get(id) === settled) opening.delete(id);
      });
      return read;
    },
    async loadOlder(id) {
      const thread = get().threads[id];
      if (!thread?.older || thread.loadingOlder) return;
      update(id, () => ({ loadingOlder: true }));
      const answered = updater();
      try {
        const page = await api.messages(id, { cursor: thread.older });
        answered(id, (current) => ({ messages: mergeMessages(current.messages, page.results), older: page.next }));
      } finally {
        answered(id, () => ({ loadingOlder: false }));
      }
    },
    async send(id, content) {
      const me = useSession.getState().user?.id ?? 0;
      const waiting = get().threads[id]?.messages.filter((item) => item.id < 0 && item.status === 'queued') ?? [];
      // Behind messages held by the server's limit: it goes after them, with them, once the wait is over.
      const held = waiting.find((item) => item.slowDown)?.slowDown;
      // Behind messages waiting for the connection, or going out now one by one (or one still on its way
      // over HTTP): it joins them, so that it is not stored before them (sent over HTTP while they wait
      // for the socket, or over the socket while the one before it is still on its way).
      const behind = !held && (waiting.length > 0 || runs.has(id));
      const message: ChatMessage = {
        id: tempId--,
        sender: me,
        content,
        // By the server's clock, as the messages around it are: a phone's clock minutes off would show
        // it as written before the message it answers, or under another day.
        time: new Date(serverNow()).toISOString(),
        client_id: uuid(),
        ...(held ? { status: 'queued', slowDown: held } : { status: behind ? 'queued' : 'sending' }),
      };
      update(id, (thread) => ({ messages: [...thread.messages, message] }));
      if (behind) await sendWaiting(id);
      // Over the socket, the server takes a tab's sends in the order sent. Over HTTP each request goes
      // its own way, and a slow one would be stored after one sent behind it: that one waits its turn.
      else if (!held) await (isConnected() ? deliver(id, message) : inTurn(id, () => deliver(id, message)));
    },
    async retry(id, clientId) {
      const message = get().threads[id]?.messages.find((item) => item.client_id === clientId && item.status === 'failed');
      if (!message) return;
      update(id, (thread) => ({
        messages: thread.messages.map((item) => (item === message ? { ...item, status: 'sending' } : item)),
      }));
      // The same client_id: if the first try did reach the server, no duplicate is stored. Over HTTP in
      // the thread's turn, as a send is: not stored before a send still on its way.
      let status: MessageStatus | undefined;
      const again = async () => void (status = await deliver(id, message));
      await (isConnected() ? again() : inTurn(id, again));
      if (status === 'sent') await readMarkAgain(id);
    },
    takeBack(id, clientId) {
      const message = get().threads[id]?.messages.find((item) => item.client_id === clientId && item.status === 'failed');
      if (!message) return;
      update(id, (thread) => ({ messages: thread.messages.filter((item) => item !== message) }));
      const draft = get().drafts[id];
      get().setDraft(id, draft ? `${message.content}\n${draft}` : message.content);
    },
    async sendQueued() {
      if (useSession.getState().user?.id === undefined) return;
      await Promise.all(Object.keys(get().threads).map((key) => sendWaiting(Number(key))));
    },
    restoreOutbox(userId, closedTab) {
      for (const entry of readOutbox(userId)) {
        const { tab } = entry;
        if (closedTab ? tab !== closedTab : tab && tab !== thisTab && whenTabCloses(tab, adopt)) continue;
        update(entry.conversation_id, (thread) => {
          if (thread.messages.some((message) => message.client_id === entry.client_id)) return {};
          const message: ChatMessage = { id: tempId--, sender: userId, content: entry.content, time: entry.time, client_id: entry.client_id, status: 'queued' };
          // Before those of mine written after it that wait here: they go out in the order written.
          const next = thread.messages.findIndex((item) => item.id < 0 && item.status !== 'sending' && item.time > entry.time);
          return { messages: next < 0 ? [...thread.messages, message] : thread.messages.toSpliced(next, 0, message) };
        });
      }
      if (restoredFor !== userId) held = new Set();
      restoredFor = userId;
      if (isConnected()) void get().sendQueued();
    },
    receive(id, message, previousId) {
      const me = useSession.getState().user?.id;
      update(id, (thread) => ({
        ...pushed(thread, message, previousId),
        // A message from the partner ends their typing.
        typingAt: message.sender === me ? thread.typingAt : 0,
      }));
      if (get().threads[id]!.heardTo < message.id) void readAgain(id);
    },
    typing(id) {
      update(id, () => ({ typingAt: Date.now() }));
    },
    partnerRead(id, lastReadId) {
      update(id, (thread) => ({ partnerReadId: Math.max(thread.partnerReadId, lastReadId) }));
    },
    readUpTo(id, lastReadId) {
      const thread = get().threads[id];
      const me = useSession.getState().user?.id;
      if (!thread?.loaded || me === undefined) return null;
      // The furthest: two reads' receipts, each pushed as its read committed, can come in either order.
      const readTo = Math.max(lastReadId, thread.ownReadId);
      if (readTo > thread.ownReadId) update(id, () => ({ ownReadId: readTo }));
      return thread.messages.filter((message) => message.sender !== me && message.id > readTo).length;
    },
    markRead(id) {
      const thread = get().threads[id];
      const me = useSession.getState().user?.id;
      if (!thread || me === undefined) return;
      const lastFromPartner = thread.messages.reduce(
        (max, message) => (message.sender !== me && message.id > max ? message.id : max),
        0,
      );
      if (lastFromPartner <= thread.ownReadId) return;
      update(id, () => ({ ownReadId: lastFromPartner }));
      // With no socket, over HTTP too: the socket sends it once connected, which a network that lets no
      // socket through never is.
      sendRead({ conversation_id: id, last_read_id: lastFromPartner });
      if (!isConnected()) api.markRead(id, lastFromPartner).catch(() => {});
    },
    cursors() {
      const from: Record<number, number> = {};
      for (const [key, thread] of Object.entries(get().threads)) if (thread.loaded) from[Number(key)] = thread.heardTo;
      return from;
    },
    async catchUp(from = {}) {
      const inFlight = new Map(opening);
      const gone = new Set<number>();
      const sameSession = sessionCheck();
      const answered = updater(sameSession);
      // An answer, or null when none came; a conversation the server says is gone is answered as gone.
      const orGone = <T>(id: number, request: Promise<T>) =>
        request.catch((error: unknown) => {
          if (error instanceof NotFound) gone.add(id);
          return null;
        });

      async function messagesAfter(id: number, thread: Thread) {
        if (thread.missingEarlier) {
          // The newest page, and with it the cursor of the pages before it: its gap to what the
          // thread holds is filled below, and till then it moves no cursor (the network may go first).
          const page = await orGone(id, api.messages(id));
          if (!page) return;
          const holds = thread.messages.some((message) => message.id > 0);
          answered(id, (current) => ({
            ...(holds ? { messages: mergeMessages(current.messages, page.results) } : heard(current, page.results)),
            older: page.next,
            missingEarlier: false,
          }));
          if (!holds) return;
        }
        // Not the thread's last message now: one pushed since the catch-up was decided may have
        // come after the very messages it is for. Page after page, oldest first, to the end: a long
        // absence may have missed more than one, and a page left unread would be a gap that the next
        // push hides (the chat open on screen marks it read).
        let params: { after?: number; cursor?: string } = { after: from[id] ?? thread.heardTo };
        for (;;) {
          const page = await orGone(id, api.messages(id, params));
          if (!page) return;
          answered(id, (current) => heard(current, page.results));
          if (!page.next) return;
          params = { cursor: page.next };
        }
      }

      // A `message:read` missed meanwhile: "Read" under my last message would wait for the partner's
      // next one. Asked only while a message of mine is not known to be read.
      async function readMark(id: number, thread: Thread) {
        if (!awaitsRead(thread)) return;
        const detail = await orGone(id, api.conversation(id));
        if (detail) answered(id, (current) => ({ partnerReadId: Math.max(current.partnerReadId, detail.partner_last_read_id) }));
      }

      async function caughtUp(id: number) {
        const thread = get().threads[id];
        if (thread?.loaded) await Promise.all([messagesAfter(id, thread), readMark(id, thread)]);
      }

      // A chat still opening is caught up once it has opened, from what its own answer held.
      const held = Object.keys(get().threads).map(Number).filter((id) => !inFlight.has(id));
      await Promise.all([...held.map(caughtUp), ...[...inFlight].map(([id, opened]) => opened.then(() => caughtUp(id)))]);
      // Ended for the last user, not for whoever signed in since.
      return sameSession() ? [...gone] : [];
    },
    drafts: {},
    setDraft(id, text) {
      set((state) => {
        const { [id]: _, ...drafts } = state.drafts;
        return { drafts: text ? { ...drafts, [id]: text } : drafts };
      });
    },
    ended: {},
    end(id, { byMe, userId, name }) {
      const state = get();
      if (state.ended[id]) return;
      const { [id]: thread, ...threads } = state.threads;
      const { [id]: _, ...drafts } = state.drafts;
      // A thread the app made again for its outbox knows its partner from what the device kept of it.
      const detail = thread?.detail ?? keptThreads()?.[id]?.detail;
      const ended = { name: name ?? detail?.name ?? '', userId: userId ?? detail?.other_user_id ?? null, byMe };
      set({ threads, drafts, ended: { ...state.ended, [id]: ended } });
      // Its message toast goes with it: words from someone who then blocked or unmatched are not shown
      // after the end, nor do they lead to a chat that is gone.
      toast.dismiss(chatToastKey(id));
      // Messages of mine the server never stored go with the thread: ended by the partner, it says so.
      const unsent = thread?.messages.filter((message) => message.id < 0).length ?? 0;
      if (unsent === 0 || byMe) return;
      const text = unsent === 1 ? t('chat.notSent') : t('chat.notSentMany', { count: unsent });
      toast.error(text, { title: ended.name || undefined, key: chatToastKey(id) });
    },
    reset() {
      for (const timer of resendTimers.values()) clearTimeout(timer);
      resendTimers.clear();
      set({ threads: {}, drafts: {}, ended: {} });
    },
  };
});

onSignOut(() => useChat.getState().reset());
countUnsentWith(() => unsentMessages(useChat.getState().threads));

/**
 * The outbox on the device follows the store: every message of the signed-in user's still on its way
 * (queued, or sending when the tab may die), from the moment that user's earlier outbox was restored.
 * Other tabs of the same session write theirs to the same place: entries this tab never held are
 * theirs, and stay as they are until that tab is closed (`whenTabCloses`), when an open one takes them
 * up (`adopt`), or the next opening of the app does.
 */
let restoredFor: number | null = null;
let written = '';
/** The client_ids of every message this tab has had on its way, for `restoredFor`. */
let held = new Set<string>();
useChat.subscribe((state) => {
  const me = useSession.getState().user?.id;
  if (me === undefined || me !== restoredFor || !ownsStorage()) return;
  const entries: OutboxEntry[] = [];
  for (const [key, thread] of Object.entries(state.threads)) {
    for (const message of thread.messages) {
      if (onItsWay(message) && message.sender === me && message.client_id) {
        entries.push({ conversation_id: Number(key), client_id: message.client_id, content: message.content, time: message.time, tab: thisTab });
        held.add(message.client_id);
      }
    }
  }
  const next = JSON.stringify(entries);
  if (next === written) return;
  written = next;
  const otherTabs = readOutbox(me).filter((entry) => !held.has(entry.client_id));
  // In the order they were written, whichever tab wrote them: the next opening sends them in this order.
  writeOutbox(me, [...otherTabs, ...entries].sort((a, b) => Date.parse(a.time) - Date.parse(b.time)));
});

/**
 * A tab closed with messages of the user's on their way: this one sends them, and keeps them as its own
 * (the tabs waiting for the same one take their turn with its lock, and find none left). Had the tab
 * sent one as it closed, the server stores it once all the same: a send is idempotent by its client_id.
 */
function adopt(tab: string) {
  const me = useSession.getState().user?.id;
  if (me !== undefined && me === restoredFor && ownsStorage()) useChat.getState().restoreOutbox(me, tab);
}

/**
 * The chats kept on the device follow the store too, a moment after it settles (a burst of messages
 * is one write), and at once when the page is put away.
 */
let keptWrite: ReturnType<typeof setTimeout> | undefined;
function writeKeptThreads() {
  clearTimeout(keptWrite);
  keptWrite = undefined;
  const me = useSession.getState().user?.id;
  if (me === undefined || !ownsStorage()) return;
  const { threads, ended } = useChat.getState();
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
useChat.subscribe((state, previous) => {
  // A conversation that ended goes from what is kept, though this tab never opened it.
  const changed = keptPartChanged(state.threads, previous.threads) || state.ended !== previous.ended;
  if (!changed || useSession.getState().user?.id === undefined) return;
  keptWrite ??= setTimeout(writeKeptThreads, 500);
});

/**
 * The drafts on the device, so that a reload or a phone dropping the tab does not lose them: per user,
 * as [conversation, text], last edited last, the DRAFTS_KEPT last edited; cleared with the rest of local
 * storage at sign-in and sign-out. Written as the outbox is, by the session that owns storage only,
 * and over what other tabs of it keep: only the drafts this tab changed are written. Typing is written
 * once it pauses; a draft sent (or gone) at once, so that a reload does not bring it back.
 */
const DRAFTS_KEPT = 20;
const DRAFT_WRITE_MS = 600;
const draftsKey = (userId: number) => `chat_drafts:${userId}`;
function readDrafts(userId: number): Array<[number, string]> {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(draftsKey(userId)) ?? '[]');
    return Array.isArray(parsed)
      ? parsed.filter((entry): entry is [number, string] => Array.isArray(entry) && Number.isInteger(entry[0]) && typeof entry[1] === 'string')
      : [];
  } catch {
    return [];
  }
}
/**
 * The user whose drafts this tab restored, and the conversations whose draft it changed since it last
 * wrote (last edited last): only those are written, over what is kept.
 */
let draftsFor: number | null = null;
let touched: number[] = [];
let draftWrite: ReturnType<typeof setTimeout> | undefined;
function writeDrafts() {
  clearTimeout(draftWrite);
  draftWrite = undefined;
  const me = useSession.getState().user?.id;
  if (me === undefined || me !== draftsFor || !ownsStorage()) return;
  const { drafts } = useChat.getState();
  let kept = readDrafts(me);
  for (const id of touched) {
    kept = kept.filter(([other]) => other !== id);
    if (drafts[id]) kept.push([id, drafts[id]]);
  }
  touched = [];
  try {
    if (kept.length) window.localStorage.setItem(draftsKey(me), JSON.stringify(kept.slice(-DRAFTS_KEPT)));
    else window.localStorage.removeItem(draftsKey(me));
  } catch {
    // Private mode or a full storage: the drafts stay in this tab only.
  }
}
function restoreDrafts(userId: number) {
  draftsFor = userId;
  const restored = ownsStorage() ? Object.fromEntries(readDrafts(userId)) : {};
  useChat.setState((state) => ({ drafts: { ...restored, ...state.drafts } }));
  clearTimeout(draftWrite);
  draftWrite = undefined;
  touched = [];
}
useChat.subscribe(({ drafts }, { drafts: before }) => {
  if (drafts === before) return;
  let gone = false;
  for (const key of new Set([...Object.keys(drafts), ...Object.keys(before)])) {
    const id = Number(key);
    if (drafts[id] === before[id]) continue;
    touched = [...touched.filter((other) => other !== id), id];
    gone ||= drafts[id] === undefined;
  }
  clearTimeout(draftWrite);
  draftWrite = gone ? void writeDrafts() : setTimeout(writeDrafts, DRAFT_WRITE_MS);
});
onSignOut(() => {
  clearTimeout(draftWrite);
  draftWrite = undefined;
  draftsFor = null;
  touched = [];
  // The outbox too is taken up afresh at the next sign-in: one the server ended leaves it for that
  // (`endRevokedSession`), and this tab must not write it away first as the user it last took it up for.
  restoredFor = null;
});

window.addEventListener('pagehide', () => {
  if (keptWrite !== undefined) writeKeptThreads();
  if (draftWrite !== undefined) writeDrafts();
});
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden' && draftWrite !== undefined) writeDrafts();
});
useSession.subscribe((state, previous) => {
  const id = state.user?.id;
  if (id === undefined || id === previous.user?.id) return;
  // Another user's, left by a session the server ended: never sent as this one.
  if (ownsStorage()) dropOutboxesBut(id);
  restoreDrafts(id);
  useChat.getState().restoreOutbox(id);
});
