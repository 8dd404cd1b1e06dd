// @vitest-environment jsdom
/**
 * The app shell's banner while the server cannot be reached: "Reconnecting…" while the device has a
 * network (the app is trying), "No connection" while it has none at all (a phone in a basement, Wi-Fi
 * and data gone), as the pages say; it follows the device's network as it comes and goes.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeAll, expect, it } from 'vitest';

const { useConnection } = await import('../../client/lib/socket');
const { AppShell } = await import('../../client/components/AppShell');
const { initLanguage, useLanguage, useMessages } = await import('../../client/lib/i18n');
const { appMessages } = await import('../../client/lib/messages-app');
const { useSession } = await import('../../client/stores/session');
const { currentUser } = await import('../helpers/current-user');

let online = true;
Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });

function Shell() {
  useMessages(appMessages);
  return <AppShell>{null}</AppShell>;
}

beforeAll(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
});
afterEach(() => {
  cleanup();
  online = true;
  useConnection.setState({ lost: false });
});

const banner = () => screen.queryByRole('status')?.textContent;
const network = (up: boolean) =>
  act(() => {
    online = up;
    window.dispatchEvent(new Event(up ? 'online' : 'offline'));
  });

it.each([
  ['en', 'Reconnecting…', 'No connection'],
  ['es', 'Reconectando…', 'Sin conexión'],
] as const)('says "no connection" while the device has no network, "reconnecting" while it has one (%s)', async (language, reconnecting, none) => {
  await act(() => useLanguage.getState().setLanguage(language));
  render(
    <Router hook={memoryLocation({ path: '/app/home/' }).hook}>
      <Shell />
    </Router>,
  );
  expect(banner()).toBeUndefined();
  network(false);
  act(() => useConnection.setState({ lost: true }));
  expect(banner()).toBe(none);
  // The network back, the socket not yet: the app is reconnecting.
  network(true);
  expect(banner()).toBe(reconnecting);
  act(() => useConnection.setState({ lost: false }));
  expect(banner()).toBeUndefined();
});
