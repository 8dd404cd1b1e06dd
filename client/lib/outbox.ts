/** Kept apart from storage.ts, which the landing page loads: only the chat needs it. */
import { readStorage } from './storage';

/**
 * A user's chat messages written and not yet stored (`client/stores/chat.ts`), kept on the device so
 * that a reload, or a phone closing the tab, does not lose them. Per user, and cleared with the rest
 * of local storage at sign-in and sign-out.
 */
export interface OutboxEntry {
  conversation_id: number;
  client_id: string;
  content: string;
  time: string;
}

const outboxKey = (userId: number) => `chat_outbox:${userId}`;

const isOutboxEntry = (value: unknown): value is OutboxEntry => {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    Number.isInteger(entry.conversation_id) &&
    typeof entry.client_id === 'string' &&
    typeof entry.content === 'string' &&
    typeof entry.time === 'string'
  );
};

export function readOutbox(userId: number): OutboxEntry[] {
  try {
    const parsed: unknown = JSON.parse(readStorage(outboxKey(userId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isOutboxEntry) : [];
  } catch {
    return [];
  }
}

export function writeOutbox(userId: number, entries: OutboxEntry[]) {
  const write = () => {
    if (entries.length === 0) window.localStorage.removeItem(outboxKey(userId));
    else window.localStorage.setItem(outboxKey(userId), JSON.stringify(entries));
  };
  try {
    write();
  } catch {
    // A full storage: what is kept of the server's (`lib/device-cache.ts`) gives way to what is not stored yet.
    try {
      for (const key of Object.keys(window.localStorage)) if (key.startsWith('cache:')) window.localStorage.removeItem(key);
      write();
    } catch {
      // Private mode, or full all the same: the messages stay in this tab only.
    }
  }
}

