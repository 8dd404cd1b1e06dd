import type { ConversationDetail } from '../../../shared/schemas/conversations';
import { trackOnce } from '../../lib/analytics';
import { mayPass, NotFound } from '../../lib/api';
import { api } from '../../lib/api-app';
import { t } from '../../lib/i18n';
import { isConnected, sendRead } from '../../lib/socket';
import { toast } from '../../lib/toast';
import { useConversations } from '../conversations';
import { sessionCheck, useSession } from '../session';
import { forgetKeptThread, keptThread, keptThreads, listedThread } from './kept';
import { awaitsRead, chatToastKey, heard, mergeMessages, pushed, type Thread, threadUpdates } from './thread';
import type { ChatSlice, ThreadsSlice } from './types';

/** The threads as the server tells of them (`ThreadsSlice`, in `types.ts`). */
export const threadsSlice: ChatSlice<ThreadsSlice> = (set, get) => {
  const { update, updater } = threadUpdates(set);

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
  };
};
