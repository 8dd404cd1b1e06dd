/**
 * Getting a party ready through the public API, as phones would: accounts (registered, or reused from the
 * state file of an earlier run), completed profiles, the event (created by an organizer, or given by its
 * code) and the way in (the rotating QR's token exchanged for a join pass, then the check-in).
 */
import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GENDERS } from '../shared/constants';
import type { ProfileInput } from '../shared/schemas/users';
import { detailOf, NetworkError, type Reply, type Rest } from './rest';

/** Something the operator must fix before a party can run: printed as one line, no stack. */
export class SetupError extends Error {
  override name = 'SetupError';
}

export interface Account {
  id: number;
  email: string;
  password: string;
  token: string;
  /** Known from the sign-in check of a reused account (not kept in the state file). */
  profileCompleted?: boolean;
}

export interface PartyState {
  version: 1;
  url: string;
  organizer: Account | null;
  attendees: Account[];
  /** Events this tool created, with their organizer's e-mail (a QR event needs its organizer to show the code). */
  events: Array<{ id: number; code: string; organizer: string; ends_at: string }>;
}

/** A server's address as `flag` gives it: http, or https as a deployment behind TLS is reached. */
export function serverUrl(flag: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new SetupError(`${flag} must be an http(s) address, not "${value}"`);
  }
  return url;
}

/**
 * The first check of each instance (`GET /healthz`, which does no work): a wrong address or one where
 * nothing answers is told in seconds, not after the minute a call of a party under load may take.
 */
const HEALTH_TIMEOUT_MS = 5000;

/** Each instance answers as this app's server does, or nothing else is asked of any. */
export async function checkInstances(rest: Rest, origins: Iterable<string>) {
  for (const instance of origins) {
    const probe = await rest.request(new URL(instance), 'GET', 'GET /healthz', '/healthz', { timeoutMs: HEALTH_TIMEOUT_MS }).catch((failure: Error) => {
      throw new SetupError(unreachable(instance, failure));
    });
    // Any web server may answer 200 (a site's catch-all page): this app's says {"status":"ok"}.
    if (probe.status !== 200 || (probe.body as { status?: unknown } | null)?.status !== 'ok') {
      const answer = probe.status === 200 ? `200 ${String(probe.headers['content-type'] ?? 'with no type').split(';')[0]}, not {"status":"ok"}` : probe.status;
      throw new SetupError(`${instance} does not look like this app's server (GET /healthz answered ${answer})`);
    }
  }
}

/** Why an instance could not be reached, in a word, and for a certificate of a CA Node does not know, what to do. */
function unreachable(instance: string, failure: Error) {
  const why = failure.message.replace(/^.*: /, '');
  const unknownCa = /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(why);
  return `cannot reach ${instance}: ${why}${unknownCa ? ' (a certificate Node does not trust: give its CA with NODE_EXTRA_CA_CERTS=<file.pem>)' : ''}`;
}

/** Where an earlier run's accounts are kept, per server: `./data/loadtest/<host>_<port>.json`. */
export const defaultStatePath = (base: URL) =>
  path.resolve('data', 'loadtest', `${base.hostname}_${base.port || (base.protocol === 'https:' ? '443' : '80')}.json`);

export async function loadState(file: string, url: string): Promise<PartyState> {
  try {
    const state = JSON.parse(await readFile(file, 'utf8')) as PartyState;
    if (state.version === 1) return state;
  } catch {
    // No file yet, or not ours: start afresh.
  }
  return { version: 1, url, organizer: null, attendees: [], events: [] };
}

export async function saveState(file: string, state: PartyState) {
  await mkdir(path.dirname(file), { recursive: true });
  // Passwords and tokens of throwaway accounts: readable by the operator only.
  await writeFile(`${file}.tmp`, JSON.stringify(state), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

/**
 * The state file kept up to date while accounts are being made, so that a setup cut short (Ctrl-C, a
 * refused registration, a closed terminal) leaves the accounts already made to the next run: written
 * within a second of a change and whole each time (write-then-rename), and at once, synchronously,
 * should the process exit meanwhile.
 */
export function keepState(file: string, state: () => PartyState) {
  let timer: NodeJS.Timeout | null = null;
  let writing = Promise.resolve();
  const write = () => {
    timer = null;
    // A failure here is told by the last write, at `close`.
    writing = writing.then(() => saveState(file, state())).catch(() => {});
  };
  // Its own temporary file: an asynchronous write may be halfway through the other one.
  const atExit = () => {
    writeFileSync(`${file}.exit.tmp`, JSON.stringify(state()), { mode: 0o600 });
    renameSync(`${file}.exit.tmp`, file);
  };
  process.on('exit', atExit);
  return {
    changed() {
      timer ??= setTimeout(write, 1000);
    },
    /** Writes the state a last time, and keeps it no longer. */
    async close() {
      process.off('exit', atExit);
      if (timer) clearTimeout(timer);
      await writing;
      await saveState(file, state());
    },
  };
}

export const THROTTLE_HINT =
  'the server throttles by address, and every simulated phone comes from this one: start the server with ' +
  'RATE_LIMIT_MULTIPLIER=1000 (multiplies every per-user and per-address limit, registration and sign-in included) for a load test';

/** 429 during setup: the operator's fix, in one line. */
export function refused(route: string, reply: Reply): never {
  if (reply.status === 429) {
    throw new SetupError(`${route} was refused with 429 (${detailOf(reply)}, Retry-After ${reply.headers['retry-after'] ?? '?'} s): ${THROTTLE_HINT}`);
  }
  throw new SetupError(`${route} answered ${reply.status}: ${detailOf(reply)}`);
}

/** An 8×8 PNG: the profile's required primary photo, as small as the server accepts. */
const PHOTO =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEUlEQVQImWN4KOuBFTEMLQkA/tlRgeecKV8AAAAASUVORK5CYII=';

function birthDate(age: number) {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() - age);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

/** Everyone open to everyone at the party, so that likes can meet. */
export function profileFor(index: number): ProfileInput {
  return {
    name: `Guest ${index + 1}`,
    bio: 'Simulated by npm run loadtest.',
    gender: GENDERS[index % GENDERS.length]!,
    date_of_birth: birthDate(21 + (index % 25)),
    image: PHOTO,
    genders_to_match: [...GENDERS],
    min_matching_age: 18,
    max_matching_age: 100,
  };
}

/**
 * A setup call that may be repeated (reads, the profile save, the pass and the check-in): a busy server
 * that drops or stalls one request is asked twice more before the run gives up.
 */
async function retried<T>(call: () => Promise<Reply<T>>): Promise<Reply<T>> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof NetworkError) || attempt === 3) throw error;
    }
  }
}

const newPassword = () => `Loadtest-${randomBytes(12).toString('base64url')}`;

/** Signs an account in again, or registers a new one when the server does not know it (a fresh database). */
export async function ensureAccount(rest: Rest, base: URL, existing: Account | null, firstName: string, tag: string): Promise<Account> {
  if (existing) {
    const me = await retried(() =>
      rest.request<{ is_profile_completed: boolean }>(base, 'GET', 'GET /api/users/me/', '/api/users/me/', { token: existing.token }),
    );
    // Signed in still: what the profile step needs to know comes with it.
    if (me.status === 200) return { ...existing, profileCompleted: me.body.is_profile_completed };
    const login = await rest.request<{ token: string }>(base, 'POST', 'POST /api/auth/', '/api/auth/', {
      json: { username: existing.email, password: existing.password },
    });
    if (login.status === 200) return { ...existing, token: login.body.token };
    if (login.status === 429) refused('POST /api/auth/', login);
  }
  const email = `loadtest-${tag}-${randomBytes(6).toString('hex')}@example.com`;
  const password = newPassword();
  const registered = await rest.request<{ id: number }>(base, 'POST', 'POST /api/auth/register/', '/api/auth/register/', {
    json: { first_name: firstName, last_name: 'Loadtest', username: email, password, password2: password },
  });
  if (registered.status !== 201) refused('POST /api/auth/register/', registered);
  const login = await rest.request<{ token: string }>(base, 'POST', 'POST /api/auth/', '/api/auth/', { json: { username: email, password } });
  if (login.status !== 200) refused('POST /api/auth/', login);
  return { id: registered.body.id, email, password, token: login.body.token };
}

/** Completes the profile unless it already is (a reused account). */
export async function ensureProfile(rest: Rest, base: URL, account: Account, index: number) {
  if (account.profileCompleted) return;
  const me = await retried(() =>
    rest.request<{ is_profile_completed: boolean }>(base, 'GET', 'GET /api/users/me/', '/api/users/me/', { token: account.token }),
  );
  if (me.status !== 200) refused('GET /api/users/me/', me);
  if (me.body.is_profile_completed) return;
  const saved = await retried(() =>
    rest.request(base, 'PUT', 'PUT /api/users/me/profile/', '/api/users/me/profile/', { token: account.token, json: profileFor(index) }),
  );
  if (saved.status !== 200) refused('PUT /api/users/me/profile/', saved);
}

/**
 * The attendees' accounts, each with a completed profile: the state's reused (unless `fresh`) or new
 * ones registered, `concurrency` at a time, the state file kept up to date meanwhile; `onReady` after
 * each. The state's attendees are this run's afterwards.
 */
export async function attendeeAccounts(
  rest: Rest,
  base: URL,
  state: PartyState,
  stateFile: string,
  { attendees, fresh, concurrency, tag }: { attendees: number; fresh: boolean; concurrency: number; tag: string },
  onReady: () => void,
): Promise<Account[]> {
  const earlier = state.attendees;
  const reuse = fresh ? [] : earlier;
  const accounts: Account[] = [];
  // This run's accounts first: the next run reuses them (and those of larger earlier runs after them).
  const keeping = () => ({ ...state, attendees: [...accounts.filter(Boolean), ...earlier.filter((_, i) => !accounts[i])] });
  const kept = keepState(stateFile, keeping);
  try {
    await inPool(
      Array.from({ length: attendees }, (_, i) => i),
      concurrency,
      async (i) => {
        const { profileCompleted, ...account } = await ensureAccount(rest, base, reuse[i] ?? null, `Guest${i + 1}`, tag);
        accounts[i] = account;
        kept.changed();
        await ensureProfile(rest, base, { ...account, profileCompleted }, i);
        onReady();
      },
    );
  } finally {
    await kept.close();
  }
  state.attendees = keeping().attendees;
  return accounts;
}

export interface PartyEvent {
  id: number;
  code: string;
  joinMode: 'qr' | 'code';
  /** The organizer's token when this tool can show the door's QR code. */
  organizerToken: string | null;
}

/** The event given by its code, or a new QR event for the length of the party (organized by the state's organizer). */
export async function ensureEvent(
  rest: Rest,
  base: URL,
  state: PartyState,
  code: string | undefined,
  minutes: number,
): Promise<PartyEvent> {
  if (code) {
    const found = await rest.request<{ id: number; code: string; join_mode: 'qr' | 'code'; status: string }>(
      base,
      'GET',
      'GET /api/events/:code/',
      `/api/events/${encodeURIComponent(code)}/`,
    );
    if (found.status === 404) throw new SetupError(`no event with the code ${code} on ${base.origin}`);
    if (found.status !== 200) refused('GET /api/events/:code/', found);
    if (found.body.status !== 'open') throw new SetupError(`event ${found.body.code} is not open for check-in (status ${found.body.status})`);
    const ours = state.events.find((event) => event.code === found.body.code && event.organizer === state.organizer?.email);
    if (found.body.join_mode === 'qr' && !ours) {
      throw new SetupError(
        `event ${found.body.code} checks in by QR only, and this tool is not its organizer (it cannot show the code): ` +
          'give a `code` event, or leave out --event to have one created',
      );
    }
    return { id: found.body.id, code: found.body.code, joinMode: found.body.join_mode, organizerToken: ours ? state.organizer!.token : null };
  }
  const organizer = state.organizer!;
  const now = Date.now();
  const created = await rest.request<{ id: number; code: string }>(base, 'POST', 'POST /api/events/', '/api/events/', {
    token: organizer.token,
    json: {
      name: `Load test ${new Date(now).toISOString().slice(0, 16).replace('T', ' ')}`,
      venue: 'npm run loadtest',
      starts_at: new Date(now - 60_000).toISOString(),
      // Open through the party and an hour after it (an event lasts at most 48 h).
      ends_at: new Date(now + Math.min(47 * 60, minutes + 60) * 60_000).toISOString(),
      join_mode: 'qr',
    },
  });
  if (created.status !== 201) refused('POST /api/events/', created);
  state.events.push({ id: created.body.id, code: created.body.code, organizer: organizer.email, ends_at: new Date(now + (minutes + 60) * 60_000).toISOString() });
  return { id: created.body.id, code: created.body.code, joinMode: 'qr', organizerToken: organizer.token };
}

/**
 * The door: the organizer's host screen shows a QR token that turns every minute; a phone that scans it
 * exchanges the token for a join pass, then checks in with the pass. A `code` event needs neither.
 */
export function door(rest: Rest, setupBase: URL, event: PartyEvent) {
  let qr: { token: string; until: number } | null = null;
  let pending: Promise<string> | null = null;
  const token = async () => {
    if (qr && qr.until > Date.now()) return qr.token;
    pending ??= (async () => {
      try {
        const reply = await retried(() =>
          rest.request<{ token: string }>(setupBase, 'GET', 'GET /api/events/:id/qr/', `/api/events/${event.id}/qr/`, { token: event.organizerToken! }),
        );
        if (reply.status !== 200) refused('GET /api/events/:id/qr/', reply);
        // The server accepts the current and the previous minute's token: half a minute is safe.
        qr = { token: reply.body.token, until: Date.now() + 30_000 };
        return reply.body.token;
      } finally {
        // Failed too: the next check-in asks again, rather than being handed this failure for good.
        pending = null;
      }
    })();
    return pending;
  };
  return async function checkIn(base: URL, attendeeToken: string) {
    let body: { pass?: string } = {};
    if (event.joinMode === 'qr') {
      const qrToken = await token();
      const pass = await retried(() =>
        rest.request<{ pass: string }>(base, 'POST', 'POST /api/events/:code/pass/', `/api/events/${event.code}/pass/`, { json: { token: qrToken } }),
      );
      if (pass.status !== 200) refused('POST /api/events/:code/pass/', pass);
      body = { pass: pass.body.pass };
    }
    const reply = await retried(() =>
      rest.request(base, 'POST', 'POST /api/events/:code/check-in/', `/api/events/${event.code}/check-in/`, { token: attendeeToken, json: body }),
    );
    if (reply.status !== 200) refused('POST /api/events/:code/check-in/', reply);
  };
}

/** Runs `work` over `items` with at most `limit` in flight; the first failure stops the rest and is thrown. */
export async function inPool<T>(items: T[], limit: number, work: (item: T, index: number) => Promise<void>) {
  let next = 0;
  let failure: unknown = null;
  const lane = async () => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== null) throw failure;
}
