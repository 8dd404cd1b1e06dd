// @vitest-environment jsdom
/**
 * `sync` (Redis came back): every phone catches up at a random moment within a couple of seconds, from
 * the chats' cursors of the moment it heard it. A sign-out meanwhile ends what that session asked: the
 * catch-up must not run for whoever signs in next, from the previous user's cursors.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { currentUser } from '../helpers/current-user';
import { hear } from '../helpers/heard-socket';

vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useChat } = await import('../../client/stores/chat');
const { usePresence } = await import('../../client/stores/presence');
const { useSession } = await import('../../client/stores/session');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');

function signIn(token: string, id: number) {
  useSession.getState().signIn(token);
  useSession.setState({ user: currentUser({ id }) });
  startRealtime(token);
}

/**
 * The catch-ups run, as far as this test tells them apart: the chats' and who is online. Spied once for
 * the file: a sign-out hands a store's functions on to its next state, spies and all.
 */
const catchUps = {
  chats: vi.spyOn(useChat.getState(), 'catchUp'),
  presence: vi.spyOn(usePresence.getState(), 'refresh'),
};

beforeEach(() => {
  vi.useFakeTimers();
  // Nothing here is about answers: whatever else a catch-up reads fails quietly.
  vi.stubGlobal('fetch', vi.fn(async () => Response.json({ detail: 'Not here' }, { status: 404 })));
  vi.spyOn(console, 'error').mockImplementation(() => {});
  catchUps.chats.mockReset().mockResolvedValue([]);
  catchUps.presence.mockReset().mockResolvedValue();
});
afterEach(() => {
  stopRealtime();
  useSession.getState().signOut({ alreadyRevoked: true });
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.mocked(console.error).mockRestore();
});

it('catches up within the spread after a sync', () => {
  signIn('token-a', 1);
  const { chats, presence } = catchUps;
  hear('sync', undefined);
  expect(chats).not.toHaveBeenCalled();
  vi.advanceTimersByTime(2_000);
  expect(chats).toHaveBeenCalledTimes(1);
  expect(presence).toHaveBeenCalledTimes(1);
});

it('drops a catch-up heard before a sign-out, when someone else signs in within the spread', () => {
  signIn('token-a', 1);
  hear('sync', undefined);
  useSession.getState().signOut({ alreadyRevoked: true });
  signIn('token-b', 2);
  const { chats, presence } = catchUps;
  vi.advanceTimersByTime(2_000);
  expect(chats).not.toHaveBeenCalled();
  expect(presence).not.toHaveBeenCalled();
});
