// @vitest-environment jsdom
/**
 * The likes left that the deck shows are the server's, however the answers land: a read of the likes
 * left asked before a like was counted, answered after the like's own answer, must not put that like
 * back. Against the real server; the test holds only when the client receives an answer.
 */
import { act, renderHook } from '@testing-library/react';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { FREE_DAILY_LIKES } from '../../shared/constants';
import type { DeckCard } from '../../shared/schemas/users';
import { closeTab, signInTab, startTabServer } from '../helpers/client-tab';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { later } from '../helpers/later';
import type { TestServer } from '../helpers/server';

const { useDecide } = await import('../../client/components/DeckPerks');
const { useDeck } = await import('../../client/stores/deck');
const { usePlan } = await import('../../client/stores/plan');

const realFetch = globalThis.fetch;
let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server, me } = await startTabServer()));
afterAll(() => server?.close());
afterEach(closeTab);

/** A path whose next answer, once the server has given it, waits for the test's word to reach the client. */
interface Held {
  path: string;
  answered: ReturnType<typeof later<void>>;
  release: ReturnType<typeof later<void>>;
}

/** The client's requests go to the test server; the answer of the one `held`, if any, waits. */
function serveFromTestServer(held: { next: Held | null }) {
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), server.url);
    const answer = await realFetch(url, init);
    const hold = held.next?.path === url.pathname ? held.next : null;
    if (hold) {
      held.next = null;
      hold.answered.resolve();
      await hold.release.promise;
    }
    return answer;
  });
}

const likesLeft = async (user: TestUser) =>
  (await client(server.url).get('/api/matching/allowance/', { token: user.token })).body.remaining as number;

it('keeps a like counted when a read of the likes left asked before it comes back after it', async () => {
  // Three likes left of the window's.
  await server.app.db.execute(sql`
    insert into likes_given (user_id, to_user_id) select ${me.id}, n from generate_series(1, ${FREE_DAILY_LIKES - 3}) n`);
  const other = await makeCompletedUser(server, { name: 'Noor' });
  const held: { next: Held | null } = { next: null };
  serveFromTestServer(held);
  await signInTab(server, me);
  await usePlan.getState().loadAllowance();
  expect(usePlan.getState().allowance?.remaining).toBe(3);

  // A read of the likes left (a reconnect's catch-up) is answered before the like is counted, and
  // reaches the phone only after the like's answer.
  const hold: Held = { path: '/api/matching/allowance/', answered: later(), release: later() };
  held.next = hold;
  const read = usePlan.getState().loadAllowance();
  await hold.answered.promise;
  const card: DeckCard = { id: other.id, name: 'Noor', age: 28, bio: 'Hi', image: null };
  useDeck.setState({ current: card, queue: [], exiting: null });
  const { result } = renderHook(() => useDecide());
  act(() => {
    result.current('like');
  });
  await vi.waitFor(() => expect(usePlan.getState().allowance?.remaining).toBe(2));
  hold.release.resolve();
  await read;

  await vi.waitFor(async () => expect(usePlan.getState().allowance?.remaining).toBe(await likesLeft(me)));
  expect(await likesLeft(me)).toBe(2);
});
