import { create } from 'zustand';
import type { Language } from '../../shared/constants';
import type { CurrentUser } from '../../shared/schemas/users';
import { keepSignIn } from '../lib/analytics-unsent';
import { api, logFailure, setUnauthorizedHandler } from '../lib/api';
import { followAccountLanguage, followDeviceLanguage } from '../lib/i18n';
import { clearStorage, dropDrafts, dropOthersDrafts, DRAFTS_KEPT_KEY, getToken, readStorage, setToken, TOKEN_KEY } from '../lib/storage';

interface SessionState {
  token: string | null;
  /**
   * undefined: not fetched yet; null: the fetch failed, and is being tried again (`loadUser`); the
   * user this device last knew meanwhile, when it did (`fromDevice`).
   */
  user: CurrentUser | null | undefined;
  /** `user` is the one kept on the device: the server could not be asked, and is asked again. */
  fromDevice: boolean;
  /**
   * Fetches the signed-in user. A failure (no network at the door, a server restarting) leaves the
   * pages working without it and tries again, soon and then less often, until it is known.
   */
  loadUser: () => Promise<void>;
  /** The server is reachable again (the socket connected): a user not known yet is fetched now. */
  retryUser: () => void;
  signIn: (token: string) => void;
  /**
   * The server answered a new token for this same session (a password change ended every other):
   * keep the user and the tab's state, and reconnect with it.
   */
  replaceToken: (token: string) => void;
  /**
   * `alreadyRevoked`: the server ended the session itself (logout everywhere, deletion): no logout call.
   * `keepOutbox`: the messages still on their way stay on the device (`endRevokedSession`).
   * `deleted`: the account is gone: nothing of it stays on the device (`clearStorage`).
   */
  signOut: (options?: { alreadyRevoked?: boolean; keepOutbox?: boolean; deleted?: boolean }) => void;
}

/** Which session this is: bumped at every sign-in and sign-out. */
let session = 0;

/**
 * What a password change of this tab's says when the server refuses its token, before that signs the
 * tab out (`lib/password-change.ts`): true when the tab carries on, with a new token, or not knowing yet.
 */
let beforeSignOut: (() => Promise<boolean>) | null = null;
export function askBeforeSignOut(ask: typeof beforeSignOut) {
  beforeSignOut = ask;
}

/**
 * Taken when a request is sent; true while the session that sent it is still the one signed in. A
 * request sent in one session may be answered in the next (a slow network, a phone handed to a
 * friend): stores ask it after their awaits and drop an answer meant for someone else.
 */
export function sessionCheck(): () => boolean {
  const asked = session;
  return () => asked === session;
}

/**
 * For a read that may be asked again before its answer comes (the page's own, then one for a change
 * heard from another phone): take a ticket when sending, and punch it when the answer comes. It says
 * whether to keep the answer: not when a read asked after it has landed already, whose answer an
 * older one, slowed on the way, would otherwise replace with what was before the change.
 */
export function answersInOrder(): () => () => boolean {
  let asked = 0;
  let landed = 0;
  return () => {
    const ticket = ++asked;
    return () => {
      if (ticket < landed) return false;
      landed = ticket;
      return true;
    };
  };
}

const resetListeners = new Set<() => void>();
const tokenListeners = new Set<(token: string, previous: string | null) => void>();
/**
 * The realtime layer reconnects with a replaced token here, and the analytics carry what they kept
 * for the previous one (`previous`: the token it replaced, if this tab still had it).
 */
export function onTokenReplaced(listener: (token: string, previous: string | null) => void) {
  tokenListeners.add(listener);
}
/** Domain stores register their reset here, so a sign-out leaves nothing of the last user behind. */
export function onSignOut(listener: () => void) {
  resetListeners.add(listener);
}

/** After a failed load of the user, the next try waits this long, doubling at each failure up to the max. */
const USER_RETRY_MS = { first: 1000, max: 30_000 };
/** `loadUser`'s reads: at a connect, at an `account:changed`, and the app's first. */
const userReads = answersInOrder();
let userRetry: ReturnType<typeof setTimeout> | undefined;
let userRetryDelay = USER_RETRY_MS.first;
/** The language switched to while signed out in this tab, for the account signed in next (`languageSwitched`). */
let languageToSave: Language | null = null;

function cancelUserRetry() {
  clearTimeout(userRetry);
  userRetry = undefined;
  userRetryDelay = USER_RETRY_MS.first;
}

/** Where the user is kept on the device for an opening with no network: `stores/device.ts`, the app's. */
export interface UserKeeper {
  keep: (token: string, user: CurrentUser) => void;
  /** The user kept for this token, if any. */
  kept: (token: string) => CurrentUser | null;
}
let keeper: UserKeeper | null = null;
export function keepUserWith(next: UserKeeper) {
  keeper = next;
}
const keepUser = (token: string | null, user: CurrentUser) => token && keeper?.keep(token, user);
/** The user kept on the device for this session's token, if any: known before the server says. */
export const keptUser = (token: string | null) => (token && keeper?.kept(token)) || null;

/**
 * The signed-in user's id as far as this tab knows: before the server has said who is signed in (after
 * a reload, offline), the user kept on the device with the token.
 */
export function knownUserId(): number | undefined {
  const { user, token } = useSession.getState();
  return (user ?? keptUser(token))?.id;
}

/** Not known from the server yet: fetched again until it is. */
const unconfirmed = (state: Pick<SessionState, 'user' | 'fromDevice'>) => state.user === null || state.fromDevice;

/**
 * A switch of language, on any page: the account takes it too, so that its e-mails and its phones where
 * none was chosen follow. Signed in, now; signed out (the landing, login or register page), at the
 * sign-in that follows in this tab, whoever's account that is: the choice was theirs. A language left
 * chosen on the device by an earlier visit, maybe someone else's, is not. A failure leaves the account's
 * as it was.
 */
export function languageSwitched(language: Language) {
  languageToSave = null;
  if (useSession.getState().token) saveLanguage(language);
  else languageToSave = language;
}

/** The account's language now known: the one switched to on the way in, if another, is saved (`languageSwitched`). */
function saveSwitchedLanguage(accountLanguage: Language) {
  const language = languageToSave;
  languageToSave = null;
  if (language && language !== accountLanguage) saveLanguage(language);
}

/**
 * Through the app's api, whose chunk a signed-in tab loads anyway: a call to an instance restarting is
 * sent again, as the app's calls are, and the landing page does not carry it.
 */
const saveLanguage = (language: Language) =>
  void import('../lib/api-app').then(({ api: app }) => app.saveLanguage(language)).catch(() => undefined);

export const useSession = create<SessionState>()((set, get) => ({
  token: getToken(),
  user: undefined,
  fromDevice: false,
  async loadUser() {
    if (!get().token) return;
    const sameSession = sessionCheck();
    const newest = userReads();
    try {
      const user = await api.me();
      if (!sameSession() || !newest()) return;
      cancelUserRetry();
      set({ user, fromDevice: false });
      keepUser(get().token, user);
      saveSwitchedLanguage(user.language);
      followAccountLanguage(user.language);
    } catch (error) {
      // A 401 has signed out already (the unauthorized handler): the session is another one by now.
      if (!sameSession()) return;
      logFailure('Could not load the current user', error);
      // A user known already (a refresh that failed) stays as it was.
      if (get().user && !get().fromDevice) return;
      // No network at the door: the app opens as the user this device last knew, until the server answers.
      if (get().user === undefined) {
        const kept = keptUser(get().token);
        set(kept ? { user: kept, fromDevice: true } : { user: null });
      }
      if (userRetry !== undefined) return;
      userRetry = setTimeout(() => {
        userRetry = undefined;
        if (sameSession() && unconfirmed(get())) void get().loadUser();
      }, userRetryDelay);
      userRetryDelay = Math.min(userRetryDelay * 2, USER_RETRY_MS.max);
    }
  },
  retryUser() {
    if (!unconfirmed(get())) return;
    clearTimeout(userRetry);
    userRetry = undefined;
    void get().loadUser();
  },
  signIn(token) {
    // Login clears whatever the last session left, then stores the new token. Not the messages a
    // session the server ended left unsent: they go if this is their user again (`stores/chat/sending.ts`).
    clearStorage({ keepOutbox: true });
    setToken(token);
    session += 1;
    beforeSignOut = null;
    cancelUserRetry();
    set({ token, user: undefined, fromDevice: false });
    keepSignIn(token);
  },
  replaceToken(token) {
    const previous = getToken();
    setToken(token);
    set({ token });
    const { user, fromDevice } = get();
    if (user && !fromDevice) keepUser(token, user);
    for (const listener of tokenListeners) listener(token, previous);
  },
  signOut(options = {}) {
    const hadToken = Boolean(get().token);
    // Revoke on the server while the token is still attached; the local sign-out does not wait.
    if (hadToken && !options.alreadyRevoked) api.logout().catch(() => undefined);
    clearStorage(options);
    followDeviceLanguage();
    session += 1;
    beforeSignOut = null;
    cancelUserRetry();
    languageToSave = null;
    for (const reset of resetListeners) reset();
    set({ token: null, user: undefined, fromDevice: false });
  },
}));

// Someone known signed in here (a shared phone): what another typed, kept from a session the server
// ended, does not stay in the tab with them.
useSession.subscribe(({ user }, previous) => {
  if (user && user.id !== previous.user?.id) dropOthersDrafts(user.id);
});

/**
 * Whether this tab's session is the one local storage belongs to: a tab left signed in after another
 * signed in as someone else writes nothing of its user's there.
 */
export function ownsStorage(): boolean {
  const { token } = useSession.getState();
  return token !== null && token === getToken();
}

/** Why the server ended the session, as the login page tells it: revoked or expired, or the account banned or deleted. */
export type SessionEnd = 'ended' | 'suspended' | 'deleted';

/**
 * The server no longer knows our token (revoked, expired), or is revoking it (a ban): sign out here too
 * and leave the app. Unless another tab holds a session of its own in storage by now (it changed the
 * password, or signed in): that one is left alone, and this tab starts again with it. `reason`: the
 * server's word for why, when it gave one (an error's code, the socket's refusal):
 * `account_suspended` for a ban, said live or to a phone that slept through it, at its next call;
 * `account_deleted` for a deletion, said live, or to a call signed in just before it that found the
 * account gone: a phone that slept through it finds its token unknown, as after an expiry (its row went
 * with the account). `asked`: the tab's password change, or
 * its deletion (Settings), has said no already.
 */
export function endRevokedSession(reason?: string | null, asked?: boolean) {
  // A password change on its way, or unanswered, may have ended the token and hold the next: it is
  // asked first (not for a ban). Said no, on as below, unless the tab's token changed meanwhile.
  const { token } = useSession.getState();
  if (beforeSignOut && !asked && reason !== 'account_suspended') {
    void beforeSignOut().then((carryOn) => carryOn || useSession.getState().token !== token || endRevokedSession(reason, true));
    return;
  }
  if (!ownsStorage() && getToken() !== null) return window.location.reload();
  const why: SessionEnd = reason === 'account_suspended' ? 'suspended' : reason === 'account_deleted' ? 'deleted' : 'ended';
  // Ended from elsewhere or expired: the messages still on their way stay on the device, and go when
  // the same user signs in here again, as the login page says. A ban's or a deletion's go with the
  // rest: they never could.
  const unsent = why === 'ended' && countUnsent() > 0;
  // Ended by the server already (or being ended, a ban): no logout call, which it would refuse.
  useSession.getState().signOut({ alreadyRevoked: true, keepOutbox: why === 'ended', deleted: why === 'deleted' });
  if (window.location.pathname.startsWith('/app')) window.location.assign(`/login/?${why}${unsent ? '&unsent' : ''}`);
}

let countUnsent = () => 0;
/** The chat store counts the messages still on their way (it imports this module, not the other way). */
export function countUnsentWith(count: () => number) {
  countUnsent = count;
}

setUnauthorizedHandler(endRevokedSession);

// Another tab of this browser signed in, signed out, or was given a new token by a password change:
// this one follows at once, starting again with whatever session storage holds now (none: signed out),
// with the drafts of the session it leaves as that tab left its own: kept for their user but after a
// sign-out of theirs (`dropDrafts`). On every page: a login page left open goes into the app.
// Unless another tab signed out while this tab's own deletion or password change is on its way: that
// tab's socket heard of it first; this one waits for its answer, which says how it went, and follows if
// it failed.
window.addEventListener('storage', (event) => {
  if (event.storageArea !== window.localStorage || (event.key !== null && event.key !== TOKEN_KEY)) return;
  if (getToken() === useSession.getState().token) return;
  if (beforeSignOut && getToken() === null) void beforeSignOut().then((carryOn) => carryOn || followStorage());
  else followStorage();
});

function followStorage() {
  dropDrafts(getToken() !== null || readStorage(DRAFTS_KEPT_KEY) !== null);
  window.location.reload();
}

export const displayName = (user: CurrentUser) => `${user.first_name} ${user.last_name}`.trim() || user.email;
