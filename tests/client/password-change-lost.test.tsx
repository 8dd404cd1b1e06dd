// @vitest-environment jsdom
/**
 * A password change whose answer never reached the tab: the change ended the tab's token, and its
 * socket, dropped with it, comes back refused. The tab stays signed in, with a session that works, and
 * says the password changed; a change that was not made is not said to be. Against the real server,
 * over a real socket.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { es } from '../../shared/i18n/es';
import { closeTab, connectTab, fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';
import { socketOrigin } from '../helpers/tab-socket';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { initLanguage } = await import('../../client/lib/i18n');
const { useConnection } = await import('../../client/lib/socket');
const { Settings } = await import('../../client/pages/app/Settings');
const { useSession } = await import('../../client/stores/session');

const PASSWORD_CHANGE = '/api/users/me/password/';

let server: TestServer;
let me: TestUser;
let assign: ReturnType<typeof vi.fn>;

beforeAll(async () => void ({ server } = await startTabServer()));
afterAll(() => server?.close());
beforeEach(async () => {
  await initLanguage();
  me = await makeCompletedUser(server);
});
afterEach(() => {
  cleanup();
  closeTab();
});

/** The tab on Settings, signed in as `me`, its requests passed through `route` (the real server's by default). */
async function openSettings(route: (path: string, forward: () => Promise<Response>) => Promise<Response> = (_, forward) => forward()) {
  fetchFrom(server);
  const toServer = globalThis.fetch;
  // The tab's own requests (to its origin); the test's, to the server's address, pass as they are.
  vi.stubGlobal('fetch', (input: string, init?: RequestInit) => (input.startsWith('/') ? route(input, () => toServer(input, init)) : toServer(input, init)));
  await signInTab(server, me);
  // jsdom does not navigate: where a sign-out would send the user is what is checked.
  assign = vi.fn();
  vi.stubGlobal('location', { ...window.location, pathname: '/app/settings/', assign });
  render(
    <Suspense fallback={null}>
      <Settings />
    </Suspense>,
  );
  fireEvent.change(await screen.findByLabelText(es['settings.password.current']), { target: { value: me.password } });
}

async function change(password: string) {
  fireEvent.change(screen.getByLabelText(es['settings.password.new']), { target: { value: password } });
  fireEvent.change(screen.getByLabelText(es['settings.password.repeat']), { target: { value: password } });
  await act(async () => fireEvent.click(screen.getByRole('button', { name: es['settings.password.submit'] })));
}

/** The tab's session now: another than the one the change ended, and one the server takes. */
async function expectRenewedSession() {
  const { token } = useSession.getState();
  expect(token).not.toBe(me.token);
  expect((await client(server.url).get('/api/users/me/', { token: token! })).status).toBe(200);
  expect((await client(server.url).get('/api/users/me/', { token: me.token })).status).toBe(401);
  expect(assign).not.toHaveBeenCalled();
}

it('stays signed in when the change is made but its answer lost, its socket refused meanwhile', async () => {
  const fresh = `${me.password}-renewed`;
  await openSettings(async (path, forward) => {
    if (path !== PASSWORD_CHANGE) return forward();
    // Made on the server, which drops the tab's socket; it comes back with the ended token, and is
    // refused while the change still waits for its answer. Which never comes.
    const refused = new Promise((resolve) => socketOrigin.socket!.once('connect_error', resolve));
    await forward();
    await refused;
    throw new TypeError('Failed to fetch');
  });
  await connectTab(me.token);
  await change(fresh);

  expect(await screen.findByText(es['settings.password.done'], {}, { timeout: 5000 })).toBeTruthy();
  await expectRenewedSession();
  // The socket is back, with the new session.
  await vi.waitFor(() => expect(useConnection.getState().connected).toBe(true), { timeout: 5000 });
});

it('stays signed in when the change is sent again after its answer was lost and no login could be made', async () => {
  const fresh = `${me.password}-renewed`;
  let offline = true;
  await openSettings(async (path, forward) => {
    if (!offline) return forward();
    // The change is made, and the network goes as its answer comes back.
    if (path === PASSWORD_CHANGE) await forward();
    throw new TypeError('Failed to fetch');
  });
  await change(fresh);
  expect(await screen.findByText(es['error.network'])).toBeTruthy();
  expect(screen.queryByText(es['settings.password.done'])).toBeNull();

  // Back online, the same change again: the ended token is refused, and the new password opens a session.
  offline = false;
  await act(async () => fireEvent.click(screen.getByRole('button', { name: es['settings.password.submit'] })));
  expect(await screen.findByText(es['settings.password.done'])).toBeTruthy();
  await expectRenewedSession();
});

it('does not say a change that never reached the server was made, nor sign out', async () => {
  await openSettings(async (path, forward) => {
    if (path === PASSWORD_CHANGE) throw new TypeError('Failed to fetch');
    return forward();
  });
  await change(`${me.password}-renewed`);

  expect(await screen.findByText(es['error.network'])).toBeTruthy();
  expect(screen.queryByText(es['settings.password.done'])).toBeNull();
  // The old password and the session it opened are still the account's.
  expect(useSession.getState().token).toBe(me.token);
  expect((await client(server.url).get('/api/users/me/', { token: me.token })).status).toBe(200);
  expect((await client(server.url).post('/api/auth/', { json: { username: me.email, password: me.password } })).status).toBe(200);
  expect(assign).not.toHaveBeenCalled();
});
