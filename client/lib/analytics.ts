import type { ClientAnalyticsEvent } from '../../shared/schemas/analytics';
import { api, refusedByServer } from './api';
import { getToken } from './storage';

/** Events that reached no server (no network, the server down), each with the session it is of. */
let unsent: Array<[string, ClientAnalyticsEvent]> = [];

/**
 * Records a named product event for the signed-in user: first-party, to our own server, keyed by the
 * session; no cookie, no third party. Never in the way: one the server refuses is dropped, one that
 * reached no server waits for `trackUnsent`.
 */
export function track(name: ClientAnalyticsEvent) {
  const token = getToken();
  if (token) api.recordEvent(name).catch((error: unknown) => refusedByServer(error) || unsent.push([token, name]));
}

/** The server is reachable again (the socket connected): what `track` could not send goes, if still this session's. */
export function trackUnsent() {
  const held = unsent;
  unsent = [];
  for (const [token, name] of held) if (token === getToken()) track(name);
}

const once = new Set<string>();
/**
 * `track`, at most once per page load and session for this key (the app opening, not every render of
 * it; and again for the next person signed in on this page).
 */
export function trackOnce(name: ClientAnalyticsEvent, key: string = name) {
  const sessionKey = `${getToken()} ${key}`;
  if (once.has(sessionKey)) return;
  once.add(sessionKey);
  track(name);
}

/**
 * `app_opened`, once a UTC day (the days the moderators' counts are of): the app opened, or brought
 * back to the front on a later day, as a phone does with the page it kept in memory.
 */
export function trackAppOpened() {
  trackOnce('app_opened', `app_opened:${new Date().toISOString().slice(0, 10)}`);
}
