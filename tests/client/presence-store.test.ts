// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { later } from '../helpers/later';

const listOnlinePartners = vi.hoisted(() => vi.fn());
vi.mock('../../client/lib/socket', async (original) => ({ ...(await original<object>()), listOnlinePartners }));

const { usePresence } = await import('../../client/stores/presence');
const { useSession } = await import('../../client/stores/session');

const online = () => [...usePresence.getState().online].sort((x, y) => x - y);

describe('who of my matches is online', () => {
  afterEach(() => {
    useSession.getState().signOut({ alreadyRevoked: true });
    vi.resetAllMocks();
  });

  it('keeps what `presence` said while the list was on its way: the list may have been made before it', async () => {
    useSession.getState().signIn('token');
    usePresence.getState().update(3, true);
    const answer = later<number[]>();
    listOnlinePartners.mockReturnValueOnce(answer.promise);
    const refreshed = usePresence.getState().refresh();
    // Another instance answered for its sockets before Ben connected there; his "online" comes first,
    // and Cleo's "offline".
    usePresence.getState().update(2, true);
    usePresence.getState().update(3, false);
    answer.resolve([3, 4]);
    await refreshed;
    expect(online()).toEqual([2, 4]);
    // Heard after the list, as before.
    usePresence.getState().update(4, false);
    expect(online()).toEqual([2]);
  });
});
