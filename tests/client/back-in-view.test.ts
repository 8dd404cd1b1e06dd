// @vitest-environment jsdom
/**
 * The phone unlocked after a while: the app asks who is online over the socket, when it counts as
 * connected. Besides the dots, that is the socket's test: one that died while the phone slept does not
 * answer, and is dropped and connected again at once (`lib/socket.ts`) instead of 45 s on.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { currentUser } from '../helpers/current-user';
import { comeBack } from '../helpers/page-visibility';

const socket = vi.hoisted(() => ({ connected: true, asked: 0 }));
const api = vi.hoisted(() => ({ me: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => ({
  ...(await import('../helpers/heard-socket')).heardSocket(await original<object>()),
  isConnected: () => socket.connected,
  async listOnlinePartners() {
    socket.asked += 1;
    return [2];
  },
}));

const { usePresence } = await import('../../client/stores/presence');
const { useSession } = await import('../../client/stores/session');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance'] });
  localStorage.setItem('auth_token', 'token');
  useSession.setState({ token: 'token', user: currentUser() });
  vi.spyOn(useSession.getState(), 'loadUser').mockResolvedValue(undefined as never);
  startRealtime('token');
});
afterEach(() => {
  stopRealtime();
  useSession.setState({ token: null, user: null });
  localStorage.clear();
  vi.useRealTimers();
  vi.restoreAllMocks();
  socket.asked = 0;
  socket.connected = true;
});

it('asks who is online over the socket when the phone is unlocked after a while', async () => {
  comeBack('hidden');
  vi.advanceTimersByTime(60_000);
  comeBack();
  expect(socket.asked).toBe(1);
  await vi.waitFor(() => expect([...usePresence.getState().online]).toEqual([2]));
  // A glance a moment later asks nothing more.
  comeBack('hidden');
  vi.advanceTimersByTime(5_000);
  comeBack();
  expect(socket.asked).toBe(1);
});

it('asks nothing over a socket that is down: its next connect asks', () => {
  socket.connected = false;
  vi.advanceTimersByTime(60_000);
  comeBack();
  expect(socket.asked).toBe(0);
});
