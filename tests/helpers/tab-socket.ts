/**
 * socket.io-client as a tab run against a real test server needs it: `io()` connects to the page's
 * origin, which jsdom's is not, so here it connects to `socketOrigin.url` (set by `startTabServer`).
 * A file mocks socket.io-client with this module itself, as a mock is the file's own:
 *
 *   vi.mock('socket.io-client', () => import('../helpers/tab-socket'));
 *
 * The client imports nothing of socket.io-client but `io`.
 */
import { vi } from 'vitest';
import type { ManagerOptions, Socket, SocketOptions } from 'socket.io-client';

const real = await vi.importActual<typeof import('socket.io-client')>('socket.io-client');

/** Where the tab's socket connects (the test server), and the last socket it made. */
export const socketOrigin = { url: '', socket: null as Socket | null };

export function io(options?: Partial<ManagerOptions & SocketOptions>) {
  return (socketOrigin.socket = real.io(socketOrigin.url, options));
}
