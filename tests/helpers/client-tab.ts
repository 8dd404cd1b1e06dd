/**
 * The web client's stores as one tab of the app runs them (in jsdom), signed in against a real test
 * server. A file that connects the tab's socket points socket.io-client at the server, in its own
 * `vi.mock` (a mock is the file's own) of the shared `./tab-socket`: its `io()` connects to the page's
 * origin, which jsdom's is not. Load this module after that mock, as the stores it imports are.
 */
import { expect, vi } from 'vitest';
import type { CurrentUser } from '../../shared/schemas/users';
import { useConnection } from '../../client/lib/socket';
import { setToken } from '../../client/lib/storage';
import { startRealtime, stopRealtime } from '../../client/stores/realtime';
import { useSession } from '../../client/stores/session';
import { makeCompletedUser, type TestUser } from './factories';
import { client } from './http';
import { subscribeThroughTestCheckout } from './plan';
import { startServer, type TestServer } from './server';
import { socketOrigin } from './tab-socket';

const realFetch = globalThis.fetch;

/**
 * The file's real server, the tab's socket pointed at it (`socketOrigin`, read by the file's mock of
 * socket.io-client), and the user the tab signs in as: a subscriber with `subscribed`.
 */
export async function startTabServer(options: { subscribed?: boolean } = {}) {
  const server = await startServer();
  socketOrigin.url = server.url;
  const me = await makeCompletedUser(server);
  if (options.subscribed) await subscribeThroughTestCheckout(server, me);
  return { server, me };
}

/** The client's requests (`/api/…` on its own origin) go to `server`. */
export function fetchFrom(server: TestServer) {
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => realFetch(new URL(String(input), server.url), init));
}

/** The tab signed in as `user`, with the user as the server has them now. */
export async function signInTab(server: TestServer, user: TestUser): Promise<CurrentUser> {
  setToken(user.token);
  const current = (await client(server.url).get<CurrentUser>('/api/users/me/', { token: user.token })).body;
  useSession.setState({ token: user.token, user: current });
  return current;
}

/** The tab's socket, connected (its rooms joined: what the server pushes from now on reaches it). */
export async function connectTab(token: string) {
  startRealtime(token);
  await vi.waitFor(() => expect(useConnection.getState().connected).toBe(true), { timeout: 5000 });
}

/** The tab's connection lost, `meanwhile` done elsewhere, and the connection back. */
export async function offlineWhile(meanwhile: () => Promise<void>) {
  socketOrigin.socket!.disconnect();
  await vi.waitFor(() => expect(useConnection.getState().lost).toBe(true));
  await meanwhile();
  socketOrigin.socket!.connect();
  await vi.waitFor(() => expect(useConnection.getState().connected).toBe(true), { timeout: 5000 });
}

/** After each test: the socket closed, signed out, `fetch` and the tab's storage as they were. */
export function closeTab() {
  stopRealtime();
  useSession.getState().signOut({ alreadyRevoked: true });
  vi.unstubAllGlobals();
  localStorage.clear();
}
