/**
 * The host screen's api and socket, faked for a file that renders it in jsdom. Each file mocks both
 * modules itself (a mock is the file's own) with what this one gives, and says what the api answers:
 *
 *   vi.mock('../../client/lib/api-app', () => import('../helpers/host-fakes'));
 *   vi.mock(import('../../client/lib/socket'), async (original) => ({
 *     ...(await original()),
 *     ...(await import('../helpers/host-fakes')).socketHearing(5),
 *   }));
 *
 * Nothing here imports the client: the mocks load it while the client's modules load.
 */
import { vi } from 'vitest';

/** The calls the host screen makes of `api`, their answers each test's own. */
export const api = { myEvents: vi.fn(), eventQr: vi.fn(), eventStats: vi.fn() };

/**
 * What the host screen uses of the socket: connected, its watch of the event hearing `count` at once;
 * with `null`, not connected (no count heard), the screen left to the api.
 */
export function socketHearing(count: number | null) {
  return {
    isConnected: () => count !== null,
    onConnect: () => () => {},
    onReconnect: () => () => {},
    onEvent: () => () => {},
    watchEvent: async () => count,
    unwatchEvent: () => {},
  };
}
