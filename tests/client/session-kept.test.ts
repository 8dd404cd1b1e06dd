// @vitest-environment jsdom
/**
 * The signed-in user kept on the device: the app opens as them with no network, asks the server again
 * until it answers, and never opens as someone another tab signed in as since.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CurrentUser } from '../../shared/schemas/users';

const { me, logout } = vi.hoisted(() => ({ me: vi.fn(), logout: vi.fn(async () => null) }));
vi.mock('../../client/lib/api', async (original) => {
  const actual = await original<typeof import('../../client/lib/api')>();
  return { ...actual, api: { ...actual.api, me, logout } };
});

const { NetworkError } = await import('../../client/lib/api');
const { endRevokedSession, useSession } = await import('../../client/stores/session');
// What the app chunk registers beside the session store.
await import('../../client/stores/device');

const ana = { id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: '' } as CurrentUser;
const offline = () => me.mockRejectedValue(new NetworkError(0, 'Failed to fetch'));

describe('the user kept on the device', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    useSession.getState().signIn('token-a');
  });
  afterEach(() => {
    useSession.getState().signOut({ alreadyRevoked: true });
    me.mockReset();
    vi.useRealTimers();
  });

  it('is signed out without a logout call when the server no longer knows its token', async () => {
    // A 401, or the socket refused: signed out on another device, or expired. Asking the server to end
    // it again would only be refused (a 401 in the console).
    endRevokedSession();
    expect(useSession.getState().token).toBeNull();
    expect(logout).not.toHaveBeenCalled();
    useSession.getState().signIn('token-b');
    useSession.getState().signOut();
    expect(logout).toHaveBeenCalledOnce();
  });

  it('stands in while the server cannot be reached, and gives way to the server’s answer', async () => {
    me.mockResolvedValueOnce(ana);
    await useSession.getState().loadUser();
    // The app is opened again with no network.
    useSession.setState({ user: undefined });
    offline();
    await useSession.getState().loadUser();
    expect(useSession.getState()).toMatchObject({ user: ana, fromDevice: true });

    // Asked again a second later; the server answers with what changed meanwhile.
    me.mockReset().mockResolvedValueOnce({ ...ana, first_name: 'Anna' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(useSession.getState()).toMatchObject({ user: { first_name: 'Anna' }, fromDevice: false });
  });

  it('is not the user of another token (another tab signed in as someone else)', async () => {
    me.mockResolvedValueOnce(ana);
    await useSession.getState().loadUser();
    // Another tab wrote its own token; this session is that one now, and opens with no network.
    useSession.setState({ token: 'token-b', user: undefined });
    offline();
    await useSession.getState().loadUser();
    expect(useSession.getState()).toMatchObject({ user: null, fromDevice: false });
  });

  it('follows a token replaced by a password change, and is gone after a sign-out', async () => {
    me.mockResolvedValueOnce(ana);
    await useSession.getState().loadUser();
    useSession.getState().replaceToken('token-a2');
    useSession.setState({ user: undefined });
    offline();
    await useSession.getState().loadUser();
    expect(useSession.getState().user).toEqual(ana);

    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('token-a2');
    await useSession.getState().loadUser();
    expect(useSession.getState().user).toBeNull();
  });
});
