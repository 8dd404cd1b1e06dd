import type { ClientAnalyticsEvent } from '../../shared/schemas/analytics';
import { ANALYTICS_MAX_AGE_MS } from '../../shared/constants';
import { api, refusedByServer } from './api';
import { getToken } from './storage';
import { uuid } from './uuid';

/**
 * Events that reached no server (no network, the server down, or the answer lost on the way back),
 * each with the session it is of, its id (sent again with the same id, the server stores it once) and
 * when it happened (it counts on that day, not on the day it reached the server).
 */
let unsent: Array<[string, ClientAnalyticsEvent, string, number]> = [];

/**
 * Records a named product event for the signed-in user: first-party, to our own server, keyed by the
 * session; no cookie, no third party. Never in the way: one the server refuses is dropped, one that
 * reached no server waits for `trackUnsent`.
 */
export function track(name: ClientAnalyticsEvent, clientId = uuid(), at = Date.now()) {
  const token = getToken();
  // How long ago, by this device's clock both times: a clock set wrong does not move the day.
  const ageMs = Math.max(0, Date.now() - at);
  if (!token || ageMs > ANALYTICS_MAX_AGE_MS) return;
  api.recordEvent(name, clientId, ageMs).catch((error: unknown) => refusedByServer(error) || unsent.push([token, name, clientId, at]));
}

/** The server is reachable again (the socket connected): what `track` could not send goes, if still this session's. */
export function trackUnsent() {
  const held = unsent;
  unsent = [];
  for (const [token, name, clientId, at] of held) if (token === getToken()) track(name, clientId, at);
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
