// @vitest-environment jsdom
/**
 * The network comes back: the socket connects at once, not when socket.io's backoff next fires (up to
 * 5 s later). A real Socket.IO server on a free port, the app's own socket module as the client, and
 * socket.io's timers frozen (fake), so that the only way back is the `online` the device reports.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

declare const jsdom: { reconfigure(options: { url: string }): void };

const { connectSocket, disconnectSocket, useConnection } = await import('../../client/lib/socket');

const http = createServer();
const io = new Server(http, { path: '/socket.io/' });

beforeAll(async () => {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  // The app connects to the page's own origin.
  jsdom.reconfigure({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/app/home/` });
});
afterAll(async () => {
  disconnectSocket();
  vi.useRealTimers();
  await io.close();
});

/** Resolves when the socket's state is `connected`, told by the store (no timer: they are frozen). */
const connectedIs = (connected: boolean) =>
  new Promise<void>((resolve) => {
    if (useConnection.getState().connected === connected) return resolve();
    const stop = useConnection.subscribe((state) => {
      if (state.connected !== connected) return;
      stop();
      resolve();
    });
  });

it('connects at once when the device says the network is back, without waiting out the backoff', { timeout: 10_000 }, async () => {
  // Before the socket exists: its reconnection timers are fake, and never fire.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const connections: string[] = [];
  io.on('connection', (socket) => connections.push(socket.id));
  connectSocket('token');
  await connectedIs(true);

  // The network goes: the connection drops under the socket, and socket.io schedules its retry.
  for (const socket of await io.fetchSockets()) io.sockets.sockets.get(socket.id)?.conn.close();
  await connectedIs(false);
  expect(useConnection.getState().lost).toBe(true);

  window.dispatchEvent(new Event('online'));
  await connectedIs(true);
  expect(connections).toHaveLength(2);
  expect(useConnection.getState().lost).toBe(false);
});
