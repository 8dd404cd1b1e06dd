/** Kept apart from storage.ts, which the landing page loads: only the event pages and the app need it. */
/**
 * An event the visitor set out to join: the code, and the pass the QR link was exchanged for. Kept for
 * the tab in sessionStorage, which login and logout leave alone, so that it survives registration,
 * login and profile completion; dropped once used or expired.
 */
export interface PendingJoin {
  code: string;
  pass?: string;
  /** Epoch ms; without a pass, the intent alone is kept this long too. */
  expiresAt: number;
}
const PENDING_JOIN_KEY = 'pending_event_join';

export function getPendingJoin(): PendingJoin | null {
  try {
    const stored = JSON.parse(window.sessionStorage.getItem(PENDING_JOIN_KEY) ?? 'null') as PendingJoin | null;
    if (!stored || typeof stored.code !== 'string' || typeof stored.expiresAt !== 'number') return null;
    if (stored.expiresAt <= Date.now()) {
      clearPendingJoin();
      return null;
    }
    return stored;
  } catch {
    return null;
  }
}

export function setPendingJoin(join: PendingJoin) {
  try {
    window.sessionStorage.setItem(PENDING_JOIN_KEY, JSON.stringify(join));
  } catch {
    // Private mode with storage off: the guest scans again after signing up.
  }
}

export function clearPendingJoin() {
  try {
    window.sessionStorage.removeItem(PENDING_JOIN_KEY);
  } catch {
    // nothing stored
  }
}
