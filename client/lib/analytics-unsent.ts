import type { ClientAnalyticsEvent } from '../../shared/schemas/analytics';
import { ANALYTICS_KEY } from './storage';
import { uuid } from './uuid';

/*
 * The part of the analytics the first page carries: the sign-in's event, kept on the device for the
 * signed-in app to send (`lib/analytics.ts`, which keeps and sends all the others). The landing page
 * carries none of the sending, nor of the reading of what is kept: ~0.4 KB (gzip) of its budget.
 */

/**
 * An event not yet answered: its id (sent again with the same id, the server stores it once), when it
 * happened (it counts on that day, not on the day it reached the server), and the session it is of
 * (a fingerprint of its token, not the token).
 */
export interface Unsent {
  id: string;
  name: ClientAnalyticsEvent;
  at: number;
  session: string;
}

/** A token's fingerprint (FNV-1a): tells sessions apart without a copy of the token. */
export function sessionOf(token: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
}

/**
 * `user_logged_in` for the session just signed in, sent by the app at its first connect. Sign-in has
 * just cleared local storage (`clearStorage`) and stored the token: the only event kept is this one.
 */
export function keepSignIn(token: string) {
  const entry: Unsent = { id: uuid(), name: 'user_logged_in', at: Date.now(), session: sessionOf(token) };
  try {
    window.localStorage.setItem(ANALYTICS_KEY, JSON.stringify([entry]));
  } catch {
    // Not counted: an event is never in the way.
  }
}
