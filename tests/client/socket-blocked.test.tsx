// @vitest-environment jsdom
/**
 * A venue's Wi-Fi that lets no WebSocket through: the app's socket fails to connect, again and again,
 * while the server answers over HTTP. From the third failure in a row that `/healthz` answers, the
 * connection store says so (`blocked`, which the app shell's banner shows), until the socket connects.
 * A real Socket.IO server on a free port whose upgrades the test refuses, as such a network does, and
 * the app's own socket module as the client; socket.io's timers are fake, moved on by the test.
 */
import { render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket as NetSocket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Server } from 'socket.io';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

declare const jsdom: { reconfigure(options: { url: string }): void };

const { connectSocket, disconnectSocket, useConnection } = await import('../../client/lib/socket');
const { AppShell } = await import('../../client/components/AppShell');
const { initLanguage, useMessages } = await import('../../client/lib/i18n');
const { appMessages } = await import('../../client/lib/messages-app');
const { useSession } = await import('../../client/stores/session');
const { en } = await import('../../shared/i18n/en');
const { currentUser } = await import('../helpers/current-user');

function Shell() {
  useMessages(appMessages);
  return <AppShell>{null}</AppShell>;
}

let healthy = false;
let blocking = true;
let upgrades = 0;
const http = createServer((request, response) => {
  if (request.url !== '/healthz') return response.writeHead(404).end();
  response.writeHead(healthy ? 200 : 503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
});
const io = new Server(http, { path: '/socket.io/' });
// The network in between: while it blocks, every WebSocket upgrade is cut before the server sees it.
const serverUpgrade = http.listeners('upgrade') as Array<(request: IncomingMessage, socket: NetSocket, head: Buffer) => void>;
http.removeAllListeners('upgrade');
http.on('upgrade', (request: IncomingMessage, socket: NetSocket, head: Buffer) => {
  upgrades += 1;
  if (blocking) return socket.destroy();
  for (const listener of serverUpgrade) listener.call(http, request, socket, head);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  jsdom.reconfigure({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/app/home/` });
  // The page's fetch, to its own origin, as a browser's (Node's needs a whole URL).
  const fetch = globalThis.fetch;
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => fetch(new URL(url, window.location.href), init));
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
});
afterAll(async () => {
  disconnectSocket();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  await io.close();
});

/** socket.io's next try, on its frozen clock, until `upgrades` tries have failed. */
async function failUntil(tries: number) {
  while (upgrades < tries) {
    await vi.advanceTimersByTimeAsync(1000);
    await sleep(20);
  }
  // Its connect_error, and the check of the server that may follow it.
  await vi.waitFor(() => expect(useConnection.getState().lost).toBe(true));
  await sleep(200);
}

it('names a network that blocks the socket while the server answers, until the socket connects', { timeout: 20_000 }, async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  render(
    <Router hook={memoryLocation({ path: '/app/home/' }).hook}>
      <Shell />
    </Router>,
  );
  connectSocket('token');
  const banner = () => screen.queryByRole('status')?.textContent;

  // The server down too (no network at all, a restart): that is no blocked socket.
  await failUntil(4);
  expect(useConnection.getState().blocked).toBe(false);
  expect(banner()).toBe(en['app.offline']);

  // The server answers; the socket is still cut: blocked, from the next failure.
  healthy = true;
  await failUntil(5);
  await vi.waitFor(() => expect(useConnection.getState().blocked).toBe(true));
  expect(banner()).toBe(en['app.socketBlocked']);

  // Mobile data: the socket connects, and the banner goes.
  blocking = false;
  await vi.advanceTimersByTimeAsync(6000);
  await vi.waitFor(() => expect(useConnection.getState().connected).toBe(true));
  expect(useConnection.getState().blocked).toBe(false);
  await vi.waitFor(() => expect(banner()).toBeUndefined());
});

it('is not named before the third failure in a row', { timeout: 20_000 }, async () => {
  disconnectSocket();
  blocking = true;
  upgrades = 0;
  connectSocket('token');
  await failUntil(2);
  expect(useConnection.getState().blocked).toBe(false);
  await failUntil(3);
  await vi.waitFor(() => expect(useConnection.getState().blocked).toBe(true));
});
