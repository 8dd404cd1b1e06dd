// @vitest-environment jsdom
/**
 * The likes left that a phone shows follow the likes given on the user's other phones: the free
 * plan's window is the account's. Against the real server, over a real socket.
 */
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { FREE_DAILY_LIKES } from '../../shared/constants';
import { closeTab, connectTab, fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { usePlan } = await import('../../client/stores/plan');

let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server, me } = await startTabServer()));
afterAll(() => server?.close());
afterEach(closeTab);

const react = (to: TestUser, response: string) =>
  client(server.url).post('/api/matching/', { token: me.token, json: { response, other: to.id } });
const likesLeft = async () => (await client(server.url).get('/api/matching/allowance/', { token: me.token })).body.remaining as number;

it('counts down the likes left as another phone of the user likes, and out of them says so', async () => {
  fetchFrom(server);
  // Two likes left of the window's.
  await server.app.db.execute(sql`
    insert into likes_given (user_id, to_user_id) select ${me.id}, n from generate_series(1, ${FREE_DAILY_LIKES - 2}) n`);
  const [first, second] = [await makeCompletedUser(server), await makeCompletedUser(server)];
  await signInTab(server, me);
  await usePlan.getState().loadAllowance();
  expect(usePlan.getState().allowance).toMatchObject({ remaining: 2 });
  await connectTab(me.token);

  // The other phone passes on someone: nothing spent.
  expect((await react(first, 'skip')).status).toBe(200);
  // Then likes them, then someone else: none left, and when one comes back.
  expect((await react(first, 'like')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().allowance).toMatchObject({ remaining: 1 }), { timeout: 5000 });
  expect(await likesLeft()).toBe(1);
  expect((await react(second, 'like')).status).toBe(200);
  await vi.waitFor(() => expect(usePlan.getState().allowance).toMatchObject({ remaining: 0, resets_at: expect.any(String) }), { timeout: 5000 });
  expect(await likesLeft()).toBe(0);
});
