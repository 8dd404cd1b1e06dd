// @vitest-environment jsdom
/**
 * "Likes you" follows the plan as it starts or ends elsewhere (bought on another phone, cancelled in
 * the billing portal): the user read again says so, and the list is read again, with the people the
 * plan shows or without them, instead of the list this tab read before.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { DeckCard } from '../../shared/schemas/users';
import { currentUser } from '../helpers/current-user';

const api = vi.hoisted(() => ({ likesYou: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useLikes } = await import('../../client/stores/likes');
const { useSession } = await import('../../client/stores/session');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');

const ben: DeckCard = { id: 2, name: 'Ben', age: 30, bio: '', image: null };
const names = () => useLikes.getState().people?.map((card) => card.name);

beforeEach(() => {
  localStorage.setItem('auth_token', 'token');
  useSession.setState({ token: 'token', user: currentUser() });
  startRealtime('token');
});
afterEach(() => {
  stopRealtime();
  useLikes.getState().reset();
  useSession.setState({ token: null, user: null });
  localStorage.clear();
  vi.resetAllMocks();
});

it('reads "likes you" again when the plan starts, and again when it ends', async () => {
  // Without the plan: one person, not shown.
  api.likesYou.mockResolvedValueOnce({ count: 1, results: [], next: null });
  await useLikes.getState().load();
  expect(names()).toEqual([]);

  api.likesYou.mockResolvedValueOnce({ count: 1, results: [ben], next: null });
  useSession.setState({ user: currentUser({ has_subscription: true }) });
  await vi.waitFor(() => expect(names()).toEqual(['Ben']));

  api.likesYou.mockResolvedValueOnce({ count: 1, results: [], next: null });
  useSession.setState({ user: currentUser({ has_subscription: false }) });
  await vi.waitFor(() => expect(names()).toEqual([]));
  expect(api.likesYou).toHaveBeenCalledTimes(3);
});

it('leaves "likes you" unread when this tab never opened it, and when the plan did not change', async () => {
  useSession.setState({ user: currentUser({ has_subscription: true }) });
  await Promise.resolve();
  expect(api.likesYou).not.toHaveBeenCalled();

  api.likesYou.mockResolvedValueOnce({ count: 1, results: [ben], next: null });
  await useLikes.getState().load();
  useSession.setState({ user: currentUser({ has_subscription: true, first_name: 'Ana María' }) });
  await Promise.resolve();
  expect(api.likesYou).toHaveBeenCalledTimes(1);
});
