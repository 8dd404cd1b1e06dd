import type { StoreApi } from 'zustand';
import { track } from '../../lib/analytics';
import { ApiError, mayPass, NetworkError, NotFound, Throttled } from '../../lib/api';
import { api } from '../../lib/api-app';
import { type OutboxEntry, readOutbox, thisTab, whenTabCloses, writeOutbox } from '../../lib/outbox';
import { serverNow } from '../../lib/server-clock';
import { isConnected, sendMessageOverSocket, SocketRefused } from '../../lib/socket';
import { uuid } from '../../lib/uuid';
import { ownsStorage, sessionCheck, useSession } from '../session';
import { awaitsRead, type ChatMessage, mergeMessages, type MessageStatus, onItsWay, threadUpdates, waitsToGo } from './thread';
import type { ChatSlice, ChatState, SendingSlice } from './types';

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

/** Each thread's wait for the server's limit on sends, after which its held messages go. */
const resendTimers = new Map<number, ReturnType<typeof setTimeout>>();
/** A sign-out's: no wait of the last user's ends in a send. */
export function stopResends() {
  for (const timer of resendTimers.values()) clearTimeout(timer);
  resendTimers.clear();
}

let tempId = -1;

/** My messages on their way (`SendingSlice`, in `types.ts`). */
export const sendingSlice: ChatSlice<SendingSlice> = (set, get) => {
  const { update, updater } = threadUpdates(set);

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

  return {
    async send(id, content) {
      const me = useSession.getState().user?.id ?? 0;
      const waiting = get().threads[id]?.messages.filter((item) => item.id < 0 && item.status === 'queued') ?? [];
      // Behind messages held by the server's limit: it goes after them, with them, once the wait is over.
      const held = waiting.find((item) => item.slowDown)?.slowDown;
      // Behind messages waiting for the connection, or going out now one by one (or one still on its way
      // over HTTP): it joins them, so that it is not stored before them (sent over HTTP while they wait
      // for the socket, or over the socket while the one before it is still on its way).
      const behind = !held && (waiting.length > 0 || runs.has(id));
      // Never before one of mine still on its way here: the outbox on the device goes in the order of
      // its times, and the clock may have gone back between the two (the server's time heard, a clock set).
      const after = Math.max(0, ...(get().threads[id]?.messages ?? []).map((item) => (item.id < 0 ? Date.parse(item.time) + 1 : 0)));
      const message: ChatMessage = {
        id: tempId--,
        sender: me,
        content,
        // By the server's clock, as the messages around it are: a phone's clock minutes off would show
        // it as written before the message it answers, or under another day.
        time: new Date(Math.max(serverNow(), after)).toISOString(),
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
      if (restoredFor !== userId) held = new Set();
      for (const entry of readOutbox(userId)) {
        const { tab } = entry;
        // Those another tab took up as this one reloaded are this one's again.
        if (closedTab ? tab !== closedTab : tab && tab !== thisTab && entry.from !== thisTab && whenTabCloses(tab, adopt(get))) continue;
        if (closedTab) adoptedFrom.set(entry.client_id, closedTab);
        // This tab's from here on, to write or to drop (at once, below): one heard stored already is dropped.
        held.add(entry.client_id);
        update(entry.conversation_id, (thread) => {
          if (thread.messages.some((message) => message.client_id === entry.client_id)) return {};
          const message: ChatMessage = { id: tempId--, sender: userId, content: entry.content, time: entry.time, client_id: entry.client_id, status: 'queued' };
          // Before those of mine written after it that wait here: they go out in the order written.
          const next = thread.messages.findIndex((item) => item.id < 0 && item.status !== 'sending' && item.time > entry.time);
          return { messages: next < 0 ? [...thread.messages, message] : thread.messages.toSpliced(next, 0, message) };
        });
      }
      restoredFor = userId;
      updateOutbox(get(), true);
      if (isConnected()) void get().sendQueued();
    },
  };
};

/**
 * The outbox on the device follows the store (`keepOutboxOnDevice`): every message of the signed-in
 * user's still on its way (queued, or sending when the tab may die), from the moment that user's
 * earlier outbox was restored. Other tabs of the same session write theirs to the same place: entries
 * this tab never held are theirs, and stay as they are until that tab is closed (`whenTabCloses`),
 * when an open one takes them up (`adopt`), or the next opening of the app does.
 */
let restoredFor: number | null = null;
/** This tab's own entries, as it last wrote them (`ownEntries`). */
let written = '';
/** A tab's entries of an outbox, in one order whatever order they were written in. */
const ownEntries = (entries: OutboxEntry[]) =>
  JSON.stringify(entries.filter((entry) => entry.tab === thisTab).sort((a, b) => (a.client_id < b.client_id ? -1 : 1)));
/** The client_ids of every message this tab has had on its way or taken up (`restoreOutbox`), for `restoredFor`. */
let held = new Set<string>();
/** The tab each message this tab took up came from (`adopt`), by client_id: that tab, reloaded, takes it back. */
const adoptedFrom = new Map<string, string>();
/**
 * The store changed: the outbox on the device holds what is on its way now. `again`: written whether or
 * not this tab's own have changed since it last wrote them.
 */
function updateOutbox(state: ChatState, again = false) {
  const me = useSession.getState().user?.id;
  if (me === undefined || me !== restoredFor || !ownsStorage()) return;
  const entries: OutboxEntry[] = [];
  for (const [key, thread] of Object.entries(state.threads)) {
    for (const message of thread.messages) {
      if (onItsWay(message) && message.sender === me && message.client_id) {
        const { client_id } = message;
        entries.push({ conversation_id: Number(key), client_id, content: message.content, time: message.time, tab: thisTab, from: adoptedFrom.get(client_id) });
        held.add(client_id);
      }
    }
  }
  const next = ownEntries(entries);
  if (next === written && !again) return;
  written = next;
  const otherTabs = readOutbox(me).filter((entry) => !held.has(entry.client_id));
  // In the order they were written, whichever tab wrote them: the next opening sends them in this order.
  writeOutbox(me, [...otherTabs, ...entries].sort((a, b) => Date.parse(a.time) - Date.parse(b.time)));
}
/**
 * The outbox too is taken up afresh at the next sign-in: one the server ended leaves it for that
 * (`endRevokedSession`), and this tab must not write it away first as the user it last took it up for.
 */
export function stopKeepingOutbox() {
  restoredFor = null;
}

/**
 * A tab closed with messages of the user's on their way: this one sends them (with the store's `get`),
 * and keeps them as its own (the tabs waiting for the same one take their turn with its lock, and find
 * none left). Had the tab sent one as it closed, the server stores it once all the same: a send is
 * idempotent by its client_id.
 */
const adopt = (get: () => ChatState) => (tab: string) => {
  const me = useSession.getState().user?.id;
  if (me !== undefined && me === restoredFor && ownsStorage()) get().restoreOutbox(me, tab);
};

/** The outbox on the device follows the store, once it is made (`index.ts`), and what other tabs write to it. */
export function keepOutboxOnDevice(chat: StoreApi<ChatState>) {
  // Wrapped: a listener is given the previous state too, which is not `again`.
  chat.subscribe((state) => updateOutbox(state));
  window.addEventListener('storage', (event) => {
    if (event.storageArea !== window.localStorage) return;
    // Another tab wrote what it has on its way: this one takes it up if that tab is closed before it is sent.
    const me = useSession.getState().user?.id;
    if (me === undefined || me !== restoredFor || event.key !== `chat_outbox:${me}`) return;
    const stored = readOutbox(me);
    const takenBack = new Set<string>();
    for (const { tab, client_id } of stored) {
      if (!tab || tab === thisTab) continue;
      // Named again by the tab this one took it up from: that tab was reloaded, not closed, and sends it in its order.
      if (adoptedFrom.get(client_id) === tab) {
        adoptedFrom.delete(client_id);
        held.delete(client_id);
        takenBack.add(client_id);
      }
      whenTabCloses(tab, adopt(chat.getState));
    }
    // In one change of the store: the outbox written after it names none of them this tab's.
    if (takenBack.size > 0) {
      chat.setState(({ threads }) => ({
        threads: Object.fromEntries(
          Object.entries(threads).map(([id, thread]) => [id, { ...thread, messages: thread.messages.filter((item) => item.id >= 0 || !takenBack.has(item.client_id ?? '')) }]),
        ),
      }));
    }
    // That tab wrote from a copy older than this one's last write (a browser passes a tab's writes on to
    // the others a moment later, and two may cross): this tab's own are put back as it has them, none
    // it sent brought back, to be sent again at the next opening, and none on its way dropped.
    if (ownEntries(stored) !== written) updateOutbox(chat.getState(), true);
  });
}
