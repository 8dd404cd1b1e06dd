// @vitest-environment jsdom
/**
 * "Likes you" after an unblock: someone who had liked me and whom I blocked is back in it once I unblock
 * them (I never answered their like), on the phone that unblocked and on my others; read again, the
 * list keeps the pages already brought in. Against the real server, over a real socket.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { LIKES_YOU_PAGE_SIZE } from '../../shared/constants';
import { closeTab, connectTab, fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
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

it('lists again whoever liked me once I unblock them, here and on another of my phones', async () => {
  fetchFrom(server);
  const [here, there] = [await makeCompletedUser(server), await makeCompletedUser(server)];
  for (const liker of [here, there]) {
    expect((await api().post('/api/matching/', { token: liker.token, json: { response: 'like', other: me.id } })).status).toBe(200);
    expect((await api().post(`/api/users/${liker.id}/block/`, { token: me.token })).status).toBeLessThan(300);
  }
  await signInTab(server, me);
  await useLikes.getState().load();
  expect(useLikes.getState().count).toBe(0);
  await connectTab(me.token);

  // Unblocked on this phone (the blocked people's page).
  await useSafety.getState().unblock(here.id);
  await vi.waitFor(() => expect(useLikes.getState()).toMatchObject({ count: 1, people: [{ id: here.id }] }), { timeout: 5000 });

  // And on another one.
  expect((await api().delete(`/api/users/${there.id}/block/`, { token: me.token })).status).toBe(204);
  await vi.waitFor(() => expect(useLikes.getState().count).toBe(2), { timeout: 5000 });
  expect(useLikes.getState().people?.map((person) => person.id).sort()).toEqual([here.id, there.id].sort());
});

it('keeps the pages of "likes you" already brought in when it is read again', async () => {
  fetchFrom(server);
  const likers = await Promise.all(Array.from({ length: LIKES_YOU_PAGE_SIZE + 1 }, () => makeCompletedUser(server)));
  const unblocked = await makeCompletedUser(server);
  for (const liker of [...likers, unblocked]) {
    expect((await api().post('/api/matching/', { token: liker.token, json: { response: 'like', other: me.id } })).status).toBe(200);
  }
  expect((await api().post(`/api/users/${unblocked.id}/block/`, { token: me.token })).status).toBeLessThan(300);
  await signInTab(server, me);
  await useLikes.getState().load();
  await useLikes.getState().more();
  // Those of the first test are in it too.
  const before = useLikes.getState().people!.length;
  expect(before).toBeGreaterThan(LIKES_YOU_PAGE_SIZE);
  expect(useLikes.getState().next).toBeNull();
  await connectTab(me.token);

  expect((await api().delete(`/api/users/${unblocked.id}/block/`, { token: me.token })).status).toBe(204);
  await vi.waitFor(() => expect(useLikes.getState().people?.[0]?.id).toBe(unblocked.id), { timeout: 5000 });
  expect(useLikes.getState()).toMatchObject({ count: before + 1, people: { length: before + 1 }, next: null });
});
