import type { StoreApi } from 'zustand';
import { CHAT_DRAFTS_KEY, readJson, removeKeys, writeJson } from '../../lib/storage';
import { ownsStorage, useSession } from '../session';
import type { ChatSlice, ChatState, DraftsSlice } from './types';

/** The drafts (`DraftsSlice`, in `types.ts`). */
export const draftsSlice: ChatSlice<DraftsSlice> = (set) => ({
  drafts: {},
  setDraft(id, text) {
    set((state) => {
      const { [id]: _, ...drafts } = state.drafts;
      return { drafts: text ? { ...drafts, [id]: text } : drafts };
    });
  },
});

/**
 * The drafts on the device, so that a reload or a phone dropping the tab does not lose them: per user,
 * as [conversation, text], last edited last, the DRAFTS_KEPT last edited; cleared with the rest of local
 * storage at sign-in and sign-out, but for a session the server ended, whose user may sign in again
 * (as its outbox is kept). Written as the outbox is, by the session that owns storage only,
 * and over what other tabs of it keep: only the drafts this tab changed are written. Typing is written
 * once it pauses; a draft sent (or gone) at once, so that a reload does not bring it back.
 */
const DRAFTS_KEPT = 20;
const DRAFT_WRITE_MS = 600;
const draftsKey = (userId: number) => `${CHAT_DRAFTS_KEY}${userId}`;
function readDrafts(userId: number): Array<[number, string]> {
  const parsed = readJson(draftsKey(userId));
  return Array.isArray(parsed)
    ? parsed.filter((entry): entry is [number, string] => Array.isArray(entry) && Number.isInteger(entry[0]) && typeof entry[1] === 'string')
    : [];
}
/**
 * The user whose drafts this tab restored, and the conversations whose draft it changed since it last
 * wrote, or typed and has not sent (last edited last): only those are written, over what is kept.
 */
let draftsFor: number | null = null;
let touched: number[] = [];
let draftWrite: ReturnType<typeof setTimeout> | undefined;
function writeDrafts({ drafts }: ChatState) {
  clearTimeout(draftWrite);
  draftWrite = undefined;
  const me = useSession.getState().user?.id;
  if (me === undefined || me !== draftsFor || !ownsStorage()) return;
  let kept = readDrafts(me);
  for (const id of touched) {
    kept = kept.filter(([other]) => other !== id);
    if (drafts[id]) kept.push([id, drafts[id]]);
  }
  // Those still typed here stay this tab's, written again at each write: another tab that sent its
  // draft of the same chat removed them from what is kept.
  touched = touched.filter((id) => drafts[id]);
  // Private mode or a full storage: the drafts stay in this tab only.
  writeJson(draftsKey(me), kept.length ? kept.slice(-DRAFTS_KEPT) : null);
}
/**
 * Restored at a sign-in, the drafts this device keeps for the user, under those this tab holds. Those of
 * another user, kept from a session the server ended, are never theirs to read: gone.
 */
export function restoreDrafts(chat: StoreApi<ChatState>, userId: number) {
  draftsFor = userId;
  if (ownsStorage()) removeKeys((key) => key.startsWith(CHAT_DRAFTS_KEY) && key !== draftsKey(userId));
  const restored = ownsStorage() ? Object.fromEntries(readDrafts(userId)) : {};
  chat.setState((state) => ({ drafts: { ...restored, ...state.drafts } }));
  clearTimeout(draftWrite);
  draftWrite = undefined;
  touched = [];
}
/**
 * The drafts on the device follow the store's, once it is made (`index.ts`): written once typing
 * pauses, at once when one was sent or is gone, and again when the page is put away.
 */
export function keepDraftsOnDevice(chat: StoreApi<ChatState>) {
  const write = () => writeDrafts(chat.getState());
  chat.subscribe(({ drafts }, { drafts: before }) => {
    if (drafts === before) return;
    let gone = false;
    for (const key of new Set([...Object.keys(drafts), ...Object.keys(before)])) {
      const id = Number(key);
      if (drafts[id] === before[id]) continue;
      touched = [...touched.filter((other) => other !== id), id];
      gone ||= drafts[id] === undefined;
    }
    clearTimeout(draftWrite);
    draftWrite = gone ? void write() : setTimeout(write, DRAFT_WRITE_MS);
  });
  window.addEventListener('pagehide', write);
  document.addEventListener('visibilitychange', () => document.hidden && write());
}
/** Signed out: no draft is written for that user any more. */
export function stopKeepingDrafts() {
  clearTimeout(draftWrite);
  draftWrite = undefined;
  draftsFor = null;
  touched = [];
}
