import type { StateCreator } from 'zustand';
import type { Message } from '../../../shared/schemas/conversations';
import type { EndedThread, Thread } from './thread';

/*
 * The chat store's types, as zustand's slices pattern has them: each slice's state and actions, the
 * whole store's (`ChatState`), and what makes a slice. In a module of their own, which imports none of
 * the slices (`threads.ts`, `sending.ts`, `drafts.ts`): they, `kept.ts` and the store (`index.ts`) take
 * them from here, and none of them imports the store's module, which gives it to those that need it.
 */

/**
 * The threads as the server tells of them (`threads.ts`): opened (from what the device kept, with no
 * network), paged back, pushed to and read again where a push is missing, read, caught up at a
 * reconnect; and ended.
 */
export interface ThreadsSlice {
  threads: Record<number, Thread>;
  open: (id: number) => Promise<void>;
  loadOlder: (id: number) => Promise<void>;
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
  ended: Record<number, EndedThread>;
  /** Forgets the thread and remembers that it ended, so that its chat page leaves. */
  end: (id: number, ending: { byMe: boolean; userId: number | null; name: string | null }) => void;
}

/**
 * My messages on their way (`sending.ts`): each thread's go out in the order written, over the socket
 * (over HTTP with none), wait for the connection or the server's limit, and stay in the device's
 * outbox till stored.
 */
export interface SendingSlice {
  send: (id: number, content: string) => Promise<void>;
  retry: (id: number, clientId: string) => Promise<void>;
  /**
   * A message the server refused for good (sent again, it would be refused again), out of the chat and
   * back in the composer, before what is written there: to change, or copy, and kept as drafts are.
   */
  takeBack: (id: number, clientId: string) => void;
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
}

/** The drafts (`drafts.ts`). */
export interface DraftsSlice {
  /**
   * What is typed and not sent yet, per conversation: a look at the partner's profile or another chat
   * does not throw it away, nor does a reload (kept on the device, `drafts.ts`). Gone with a sign-out.
   */
  drafts: Record<number, string>;
  setDraft: (id: number, text: string) => void;
}

/** The whole store (`index.ts`): its slices, and a sign-out's `reset`. */
export type ChatState = ThreadsSlice & SendingSlice & DraftsSlice & { reset: () => void };

/** A part of the chat's store, its state beside its actions, made over the whole store (zustand's slices). */
export type ChatSlice<Slice> = StateCreator<ChatState, [], [], Slice>;
