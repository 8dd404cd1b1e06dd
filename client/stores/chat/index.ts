import { create } from 'zustand';
import { countUnsentWith, onSignOut, ownsStorage, useSession } from '../session';
// In this order the bundler lays the store's modules out side by side: ~0.1 KB (gzip) less than others.
import { keepChatsOnDevice } from './kept';
import { threadsSlice } from './threads';
import { keepOutboxOnDevice, sendingSlice, stopKeepingOutbox, stopResends } from './sending';
import { draftsSlice, keepDraftsOnDevice, restoreDrafts, stopKeepingDrafts } from './drafts';
import { dropOutboxesBut } from '../../lib/outbox';
import { unsentMessages } from './thread';
import type { ChatState } from './types';

export {
  type ChatMessage,
  chatToastKey,
  emptyThread,
  type EndedThread,
  mergeMessages,
  type MessageStatus,
  type Thread,
  TYPING_VISIBLE_MS,
  unsentMessages,
} from './thread';
export type { ChatState } from './types';

/**
 * The chats of the signed-in user, a slice of the store per concern, each beside what it keeps on the
 * device: the threads as the server tells of them, opened, pushed to, read, caught up and ended
 * (`threads.ts`); the messages on their way, and the outbox (`sending.ts`); the drafts (`drafts.ts`).
 * What they share, a thread and its messages, is in `thread.ts`; the chats kept for an opening with no
 * network, in `kept.ts`; the slices' types and the store's (`ChatState`), in `types.ts`. None of those
 * modules imports this one: what needs the store once it is made, what the device keeps following it,
 * is given it here.
 */
export const useChat = create<ChatState>()((set, get, store) => ({
  ...threadsSlice(set, get, store),
  ...sendingSlice(set, get, store),
  ...draftsSlice(set, get, store),
  reset() {
    stopResends();
    set({ threads: {}, drafts: {}, ended: {} });
  },
}));

onSignOut(() => useChat.getState().reset());
countUnsentWith(() => unsentMessages(useChat.getState().threads));

// What the device keeps follows the store.
keepOutboxOnDevice(useChat);
keepChatsOnDevice(useChat);
keepDraftsOnDevice(useChat);
// After the reset: the store is emptied while its writers still follow the signed-out user.
onSignOut(() => {
  stopKeepingDrafts();
  stopKeepingOutbox();
});
useSession.subscribe((state, previous) => {
  const id = state.user?.id;
  if (id === undefined || id === previous.user?.id) return;
  // Another user's, left by a session the server ended: never sent as this one.
  if (ownsStorage()) dropOutboxesBut(id);
  restoreDrafts(useChat, id);
  useChat.getState().restoreOutbox(id);
});
