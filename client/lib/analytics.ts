import type { ClientAnalyticsEvent } from '../../shared/schemas/analytics';
import { ANALYTICS_MAX_AGE_MS, ANALYTICS_MAX_KEPT } from '../../shared/constants';
import { onTokenReplaced } from '../stores/session';
import { sessionOf, type Unsent } from './analytics-unsent';
import { api, mayPass } from './api';
import { ANALYTICS_KEY, getToken, readJson, writeJson } from './storage';
import { uuid } from './uuid';

/*
 * The signed-in app's analytics: the events it records, kept on the device and sent, and the sign-in's
 * that the first page kept for it (`analytics-unsent.ts`), sent at its first connect.
 */

/**
 * Events not answered yet (no network, the server down, the answer lost on the way back), kept in local
 * storage from the moment they happen, so that a reload or a closed tab does not lose them: the newest
 * `ANALYTICS_MAX_KEPT`, for `ANALYTICS_MAX_AGE_MS`. Cleared with the rest of local storage at sign-in and
 * sign-out; each also names its session, so that none goes with another account's token. In memory
 * only when storage cannot be written (private mode, full).
 */
let inMemory: Unsent[] = [];
/** Ids this page has on their way: the next connect does not send them twice from here. */
const inFlight = new Set<string>();

const isUnsent = (value: unknown): value is Unsent => {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry.id === 'string' && typeof entry.name === 'string' && Number.isFinite(entry.at) && typeof entry.session === 'string';
};

function readUnsent(): Unsent[] {
  const stored = readJson(ANALYTICS_KEY);
  const oldest = Date.now() - ANALYTICS_MAX_AGE_MS;
  const byId = new Map<string, Unsent>();
  for (const entry of [...(Array.isArray(stored) ? stored.filter(isUnsent) : []), ...inMemory]) if (entry.at >= oldest) byId.set(entry.id, entry);
  return [...byId.values()].slice(-ANALYTICS_MAX_KEPT);
}

function writeUnsent(entries: Unsent[]) {
  inMemory = writeJson(ANALYTICS_KEY, entries.length ? entries : null) ? [] : entries;
}

function send(entry: Unsent) {
  inFlight.add(entry.id);
  // How long ago, by this device's clock both times: a clock set wrong does not move the day.
  api
    .recordEvent(entry.name, entry.id, Math.max(0, Date.now() - entry.at))
    .then(
      () => true,
      // A refusal is final; a limit reached (429) passes: kept for the next connect.
      (error: unknown) => !mayPass(error),
    )
    .then((done) => {
      inFlight.delete(entry.id);
      if (done) writeUnsent(readUnsent().filter((each) => each.id !== entry.id));
    });
}

/**
 * Records a named product event for the signed-in user: first-party, to our own server, keyed by the
 * session; no cookie, no third party. Never in the way: one the server refuses is dropped, one that
 * reached no server (or was throttled) waits on the device for `trackUnsent`.
 */
export function track(name: ClientAnalyticsEvent) {
  const token = getToken();
  if (!token) return;
  const entry: Unsent = { id: uuid(), name, at: Date.now(), session: sessionOf(token) };
  writeUnsent([...readUnsent(), entry]);
  send(entry);
}

/**
 * The server is reachable again (the socket connected): what is kept goes, this session's (another's
 * is dropped: it could only go as this one), and not what this page has on its way already.
 */
export function trackUnsent() {
  const token = getToken();
  const all = readUnsent();
  const mine = token ? all.filter((entry) => entry.session === sessionOf(token)) : [];
  if (mine.length !== all.length) writeUnsent(mine);
  for (const entry of mine) if (!inFlight.has(entry.id)) send(entry);
}

/** The session's token replaced by another of the same account (a new password): what it kept is the new one's. */
onTokenReplaced((to, from) => {
  if (!from) return;
  const [old, next] = [sessionOf(from), sessionOf(to)];
  writeUnsent(readUnsent().map((entry) => (entry.session === old ? { ...entry, session: next } : entry)));
});

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
