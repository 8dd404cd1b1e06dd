/** Kept apart from storage.ts, which the landing page loads: only the event pages and the app need it. */
import type { ReactNode } from 'react';
import { JOIN_PASS_MINUTES } from '../../shared/constants';
import { useSession } from '../stores/session';
import { ApiError } from './api';
import { errorMessage } from './errors';
import { t, ti } from './i18n';
import { PENDING_JOIN_KEY, readJson, writeJson } from './storage';

/**
 * An event the visitor set out to join: the code, and the pass the QR link was exchanged for. Kept on
 * the device (local storage, which login and logout leave it in, not an account's deletion), so that
 * it survives registration, login and profile completion, in another tab too: the e-mail's
 * confirmation link opens one. Dropped once used or expired.
 */
export interface PendingJoin {
  code: string;
  /** The event's name, once its page has read it: the profile page says where the place is kept. */
  name?: string;
  pass?: string;
  /** Epoch ms; without a pass, the intent alone is kept this long too. */
  expiresAt: number;
}

export function getPendingJoin(): PendingJoin | null {
  const stored = readJson(PENDING_JOIN_KEY) as PendingJoin | null;
  if (!stored || typeof stored.code !== 'string' || typeof stored.expiresAt !== 'number') return null;
  if (stored.expiresAt <= Date.now()) {
    clearPendingJoin();
    return null;
  }
  return stored;
}

// Private mode with storage off: the guest scans again after signing up.
export const setPendingJoin = (join: PendingJoin) => writeJson(PENDING_JOIN_KEY, join);

export const clearPendingJoin = () => writeJson(PENDING_JOIN_KEY, null);

/**
 * Whether the signed-in user has a profile still to complete: then the event waits for it, kept here
 * (AppRoot checks in once the profile is saved). Until then nobody would see them in a deck, and the
 * organizer's headcount would count someone who is not really there yet.
 */
export async function waitsForProfile(code: string, name?: string): Promise<boolean> {
  if (useSession.getState().user === undefined) await useSession.getState().loadUser();
  if (useSession.getState().user?.is_profile_completed !== false) return false;
  if (getPendingJoin()?.code !== code) setPendingJoin({ code, name, expiresAt: Date.now() + JOIN_PASS_MINUTES * 60_000 });
  return true;
}

/**
 * What the app says when the kept join is refused: an event that ended while they signed up is named
 * (they may have scanned it a while ago); anything else as any failure is said.
 */
export function pendingJoinRefusal(error: unknown, name: string | undefined): ReactNode {
  return error instanceof ApiError && error.code === 'ended' && name ? ti('deck.event.joinEnded', { name }) : errorMessage(error, t);
}
