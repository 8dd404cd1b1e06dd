// @vitest-environment jsdom
/**
 * A session a ban ended, as the phone learns of it: live (`account:suspended`), or, asleep through the
 * ban, at its next call or the socket's reconnect. Either way the login page says the account is
 * suspended, not that the session was closed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** The socket.io client's socket, as far as `lib/socket` uses it: the test plays its `connect_error`. */
const fakeSocket = vi.hoisted(() => {
  const listeners = new Map<string, Array<(arg: unknown) => void>>();
  return {
    active: false,
    connected: false,
    on(event: string, listener: (arg: unknown) => void) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return this;
    },
    off() {
      return this;
    },
    connect() {
      return this;
    },
    disconnect() {
      listeners.clear();
      return this;
    },
    emit(event: string, arg: unknown) {
      for (const listener of listeners.get(event) ?? []) listener(arg);
    },
  };
});
vi.mock('socket.io-client', () => ({ io: () => fakeSocket }));

const { api } = await import('../../client/lib/api');
const { api: appApi } = await import('../../client/lib/api-app');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');
const { askBeforeSignOut, useSession } = await import('../../client/stores/session');

const SUSPENDED = { detail: 'Esta cuenta ha sido suspendida.', code: 'account_suspended' };

describe('a session the server ended', () => {
  let assign: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    window.history.replaceState(null, '', '/app/home/');
    // jsdom does not navigate: where the app sends the user is what is checked.
    assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, pathname: '/app/home/', assign });
    useSession.getState().signIn('token-a');
  });
  afterEach(() => {
    stopRealtime();
    useSession.getState().signOut({ alreadyRevoked: true });
    window.localStorage.clear();
    vi.unstubAllGlobals();
  });

  const answer = (status: number, body: unknown) => vi.stubGlobal('fetch', vi.fn(async () => Response.json(body, { status })));

  it('says the account is suspended when a call finds its token ended by a ban', async () => {
    answer(403, SUSPENDED);
    await expect(api.me()).rejects.toMatchObject({ status: 403, code: 'account_suspended' });
    expect(useSession.getState().token).toBeNull();
    expect(assign).toHaveBeenCalledWith('/login/?suspended');
  });

  it('says the session was closed when a call finds its token unknown', async () => {
    answer(401, { detail: 'Token inválido.' });
    await expect(api.me()).rejects.toMatchObject({ status: 401 });
    expect(assign).toHaveBeenCalledWith('/login/?ended');
  });

  it('says the session was closed when a photo upload finds its token unknown, as any other call does', async () => {
    /** The upload's request (it goes by XMLHttpRequest, for its progress), answered 401. */
    class RefusedUpload {
      status = 401;
      responseText = JSON.stringify({ detail: 'Token inválido.' });
      upload = { onprogress: null };
      onload: (() => void) | null = null;
      open() {}
      setRequestHeader() {}
      getResponseHeader() {
        return null;
      }
      send() {
        queueMicrotask(() => this.onload?.());
      }
    }
    vi.stubGlobal('XMLHttpRequest', RefusedUpload);
    await expect(appApi.upload(new File(['x'], 'me.jpg', { type: 'image/jpeg' }))).rejects.toMatchObject({ status: 401 });
    expect(useSession.getState().token).toBeNull();
    expect(assign).toHaveBeenCalledWith('/login/?ended');
  });

  it('stays signed in when a call that crossed a password change is refused the token it replaced', async () => {
    let refuse!: () => void;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (path: string) =>
        path === '/api/users/me/' ? new Promise<Response>((resolve) => (refuse = () => resolve(Response.json({ detail: 'Token inválido.' }, { status: 401 })))) : Response.json({}),
      ),
    );
    // Sent with the old token; the change ends it, and its answer (the new token) lands first.
    const crossed = api.me();
    useSession.getState().replaceToken('token-b');
    refuse();
    await expect(crossed).rejects.toMatchObject({ status: 401 });
    expect(useSession.getState().token).toBe('token-b');
    expect(assign).not.toHaveBeenCalled();
  });

  it('says the account is suspended when told live, as the ban happens', () => {
    answer(200, {});
    startRealtime('token-a');
    fakeSocket.emit('account:suspended', undefined);
    expect(useSession.getState().token).toBeNull();
    expect(assign).toHaveBeenCalledWith('/login/?suspended');
  });

  /** What a session leaves on the device: its unsent messages, an event it set out to join, the device's own choices. */
  const leaveOnDevice = () => {
    window.localStorage.setItem('chat_outbox:7', JSON.stringify([{ conversation_id: 1, client_id: 'c1', content: 'hola', time: '2026-12-06T20:00:00Z' }]));
    window.localStorage.setItem('pending_event_join', JSON.stringify({ code: 'ABCD', expiresAt: Date.now() + 60_000 }));
    window.localStorage.setItem('language_code', 'en');
  };
  /** The keys left, but for an empty cache a store's reset writes: it holds nothing of anyone. */
  const storedKeys = () =>
    Object.keys(window.localStorage)
      .filter((key) => !window.localStorage.getItem(key)!.endsWith('"value":{}}'))
      .sort();

  it('says the account was deleted when a call finds it gone as it writes, and keeps nothing of it on the device', async () => {
    leaveOnDevice();
    answer(401, { detail: 'Esta cuenta ha sido eliminada.', code: 'account_deleted' });
    await expect(api.me()).rejects.toMatchObject({ status: 401, code: 'account_deleted' });
    expect(useSession.getState().token).toBeNull();
    expect(assign).toHaveBeenCalledWith('/login/?deleted');
    expect(storedKeys()).toEqual(['language_code']);
  });

  it('says the account was deleted when told live, and keeps nothing of it on the device', () => {
    answer(200, {});
    leaveOnDevice();
    startRealtime('token-a');
    fakeSocket.emit('account:deleted', undefined);
    expect(useSession.getState().token).toBeNull();
    expect(assign).toHaveBeenCalledWith('/login/?deleted');
    // Not offered to whoever signs in here next: the account is gone, and its messages could never go.
    expect(storedKeys()).toEqual(['language_code']);
  });

  it('leaves the deletion to the tab that asked for it', async () => {
    answer(200, {});
    // Settings' deletion, answered: that tab says so itself, and opens the landing page.
    const ask = vi.fn(async () => true);
    askBeforeSignOut(ask);
    startRealtime('token-a');
    fakeSocket.emit('account:deleted', undefined);
    await Promise.resolve();
    expect(ask).toHaveBeenCalled();
    expect(useSession.getState().token).toBe('token-a');
    expect(assign).not.toHaveBeenCalled();
  });

  it('keeps the unsent messages, and the event on the way into, of a session closed from elsewhere', () => {
    answer(200, {});
    leaveOnDevice();
    startRealtime('token-a');
    fakeSocket.emit('connect_error', new Error('unauthorized'));
    expect(assign).toHaveBeenCalledWith('/login/?ended');
    // And the word to the other tabs that the drafts are kept too, for the same user's next sign-in.
    expect(storedKeys()).toEqual(['chat_outbox:7', 'drafts_kept', 'language_code', 'pending_event_join']);
  });

  it('says the account is suspended when the socket is refused for a ban, and closed for an unknown token', () => {
    answer(200, {});
    startRealtime('token-a');
    fakeSocket.emit('connect_error', new Error('account_suspended'));
    expect(useSession.getState().token).toBeNull();
    expect(assign).toHaveBeenCalledWith('/login/?suspended');

    useSession.getState().signIn('token-b');
    stopRealtime();
    startRealtime('token-b');
    fakeSocket.emit('connect_error', new Error('unauthorized'));
    expect(assign).toHaveBeenLastCalledWith('/login/?ended');
  });
});
