// @vitest-environment jsdom
/**
 * A reconnect's catch-up reads "likes you" and the blocked people again where the tab holds them: an
 * unblock made on another phone while this one was offline (its push missed) shows at once, not at
 * the next load. A list never opened is not asked for. Against the real server, over a real socket.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { closeTab, connectTab, fetchFrom, offlineWhile, signInTab, startTabServer } from '../helpers/client-tab';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { useLikes } = await import('../../client/stores/likes');
const { useSafety } = await import('../../client/stores/safety');

let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server, me } = await startTabServer({ subscribed: true })));
afterAll(() => server?.close());
afterEach(closeTab);

const api = () => client(server.url);

it('reads "likes you" and the blocked again at a reconnect where they are held', async () => {
  fetchFrom(server);
  const liker = await makeCompletedUser(server);
  expect((await api().post('/api/matching/', { token: liker.token, json: { response: 'like', other: me.id } })).status).toBe(200);
  expect((await api().post(`/api/users/${liker.id}/block/`, { token: me.token })).status).toBeLessThan(300);
  await signInTab(server, me);
  await useLikes.getState().load();
  await useSafety.getState().load('blocked');
  expect(useLikes.getState().count).toBe(0);
  expect(useSafety.getState().lists.blocked.items?.map((person) => person.id)).toEqual([liker.id]);
  await connectTab(me.token);

  // Unblocked on another phone while this one was offline: its push never came here.
  await offlineWhile(async () => {
    expect((await api().delete(`/api/users/${liker.id}/block/`, { token: me.token })).status).toBe(204);
  });
  await vi.waitFor(() => expect(useLikes.getState()).toMatchObject({ count: 1, people: [{ id: liker.id }] }), { timeout: 5000 });
  await vi.waitFor(() => expect(useSafety.getState().lists.blocked.items).toEqual([]), { timeout: 5000 });
});

it('does not ask for lists never opened at a reconnect', async () => {
  const asked: string[] = [];
  fetchFrom(server);
  const forward = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    asked.push(String(input));
    return forward(input, init);
  });
  await signInTab(server, me);
  await connectTab(me.token);
  await offlineWhile(async () => {});
  // The catch-up's read of the account is out by now.
  await vi.waitFor(() => expect(asked.includes('/api/users/me/')).toBe(true), { timeout: 5000 });
  expect(asked.filter((path) => path.includes('/likes/') || path.includes('/blocks/'))).toEqual([]);
});
