// @vitest-environment jsdom
/**
 * The socket's way back. The network comes back: it connects at once, not when socket.io's backoff
 * next fires (up to 5 s later). A connection dead without knowing it (a phone woken, a Wi-Fi that lost
 * its way out) is dropped as soon as a request over it goes unanswered in time. A real Socket.IO server
 * on a free port, the app's own socket module as the client, and socket.io's timers frozen (fake):
 * nothing happens by socket.io's own clock unless the test moves it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

declare const jsdom: { reconfigure(options: { url: string }): void };

const { connectSocket, disconnectSocket, listOnlinePartners, SEND_ACK_TIMEOUT_MS, useConnection } = await import('../../client/lib/socket');

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

it('drops a connection that does not answer in time, so that it connects again', { timeout: 10_000 }, async () => {
  // Connected (the test above), to a server that never answers this one: as if the connection were dead.
  expect(useConnection.getState().connected).toBe(true);
  const asked = listOnlinePartners();
  const refused = expect(asked).rejects.toThrow();
  await vi.advanceTimersByTimeAsync(SEND_ACK_TIMEOUT_MS);
  await refused;
  await connectedIs(false);
  expect(useConnection.getState().lost).toBe(true);
});
