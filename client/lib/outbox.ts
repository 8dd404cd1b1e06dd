/** Kept apart from storage.ts, which the landing page loads: only the chat needs it. */
import { OUTBOX_KEY, readJson, removeKeys, writeJson } from './storage';
import { uuid } from './uuid';

/**
 * A user's chat messages written and not yet stored (`client/stores/chat/sending.ts`), kept on the device so
 * that a reload, or a phone closing the tab, does not lose them. Per user, and cleared with the rest
 * of local storage at sign-out, unless the server ended the session (`endRevokedSession`): then they
 * wait for the same user's next sign-in here, and go with the next sign-in of anyone else. Not when
 * the account was deleted: they could never go.
 */
export interface OutboxEntry {
  conversation_id: number;
  client_id: string;
  content: string;
  time: string;
  /** The tab that has it on its way (`thisTab` there); none in an outbox written before tabs were told apart. */
  tab?: string;
  /** The tab that had it before, as it closed or reloaded: reloaded, that tab takes it back (`restoreOutbox`). */
  from?: string;
}

const outboxKey = (userId: number) => `${OUTBOX_KEY}${userId}`;

/** The outboxes of every other user, kept from a session the server ended: never theirs to send, nor to read. */
export function dropOutboxesBut(userId: number) {
  removeKeys((key) => key.startsWith(OUTBOX_KEY) && key !== outboxKey(userId));
}

const isOutboxEntry = (value: unknown): value is OutboxEntry => {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    Number.isInteger(entry.conversation_id) &&
    typeof entry.client_id === 'string' &&
    typeof entry.content === 'string' &&
    typeof entry.time === 'string' &&
    (entry.tab === undefined || typeof entry.tab === 'string') &&
    (entry.from === undefined || typeof entry.from === 'string')
  );
};

export function readOutbox(userId: number): OutboxEntry[] {
  const parsed = readJson(outboxKey(userId));
  return Array.isArray(parsed) ? parsed.filter(isOutboxEntry) : [];
}

export function writeOutbox(userId: number, entries: OutboxEntry[]) {
  const write = () => writeJson(outboxKey(userId), entries.length ? entries : null);
  if (write()) return;
  // A full storage: what is kept of the server's (`lib/device-cache.ts`) gives way to what is not stored
  // yet. Private mode, or full all the same: the messages stay in this tab only.
  try {
    removeKeys((key) => key.startsWith('cache:'));
  } catch {
    return;
  }
  write();
}

/** This tab's name, in session storage: a reload keeps it (`thisTab`). */
const TAB_KEY = 'chat_tab';
/**
 * This tab, as its outbox entries name it. It holds a Web Lock of that name for as long as it is open,
 * which the browser lets go when the tab is closed (or crashes, or is discarded): another tab waiting
 * for the lock then knows it is gone, with no heartbeat to miss. The same through a reload, which lets
 * the lock go too: what another tab took up meanwhile is this one's to take back. Not for a tab
 * duplicated (loaded otherwise, with a copy of session storage): that one is another.
 */
export const thisTab = (() => {
  const id = uuid();
  try {
    const reloaded = (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.type === 'reload';
    const kept = (reloaded && window.sessionStorage.getItem(TAB_KEY)) || id;
    window.sessionStorage.setItem(TAB_KEY, kept);
    return kept;
  } catch {
    // No session storage (private mode): a new name at each loading, as a tab closed and opened.
    return id;
  }
})();
const tabLock = (tab: string) => `chat-tab:${tab}`;
/** Missing before Safari 15.4, and outside secure contexts (plain http on a LAN address). */
const locks: LockManager | undefined = navigator.locks;
void locks?.request(tabLock(thisTab), () => new Promise<never>(() => {}));

const awaited = new Set<string>();
/**
 * Calls `closed` once `tab` is closed, at once when it is already; each tab awaited once at a time.
 * False where that cannot be told (no Web Locks).
 */
export function whenTabCloses(tab: string, closed: (tab: string) => void): boolean {
  if (!locks) return false;
  if (!awaited.has(tab)) {
    awaited.add(tab);
    void locks.request(tabLock(tab), () => {
      awaited.delete(tab);
      closed(tab);
    });
  }
  return true;
}
