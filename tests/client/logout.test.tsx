// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { AccountControls } from '../../client/components/AccountControls';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { emptyThread, useChat } from '../../client/stores/chat';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

function TopBar() {
  useMessages(appMessages);
  return <AccountControls />;
}

async function showTopBar() {
  await initLanguage();
  render(
    <Suspense fallback={null}>
      <TopBar />
    </Suspense>,
  );
  return screen.findByRole('link', { name: es['app.logout'] });
}

/** The avatar menu's Logout (the menu opened first). */
async function menuLogout() {
  await showTopBar();
  fireEvent.click(screen.getByRole('button', { name: `Ana Ruiz, ${es['app.userMenu']}` }));
  return screen.getByRole('menuitem', { name: es['app.logout'] });
}

const queued = { id: -1, sender: 1, content: 'llego en 5', time: '2026-11-29T22:00:00.000Z', client_id: 'c-1', status: 'queued' as const };

describe('the top bar’s Logout', () => {
  beforeEach(() => {
    window.history.replaceState(null, '', '/app/home/');
    useSession.setState({ user: currentUser() });
  });
  afterEach(() => {
    cleanup();
    useChat.getState().reset();
    useSession.setState({ user: null });
  });

  it('asks first, beside the language switch where a tap can miss; the menu’s Logout goes at once', async () => {
    const logout = await showTopBar();
    fireEvent.click(logout);
    expect(window.location.pathname).toBe('/app/home/');
    const dialog = screen.getByRole('dialog', { name: es['app.logoutAsk.title'] });
    // Over the whole page, not inside the top bar, whose stacking level is under the bottom navigation.
    expect(dialog.closest('.sheet-backdrop')?.parentElement).toBe(document.body);
    fireEvent.click(screen.getByRole('button', { name: es['app.logoutUnsent.stay'] }));
    expect([screen.queryByRole('dialog'), window.location.pathname]).toEqual([null, '/app/home/']);

    fireEvent.click(logout);
    await act(async () => fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: es['app.logoutAsk.confirm'] })));
    expect(window.location.pathname).toBe('/logout/');

    cleanup();
    window.history.replaceState(null, '', '/app/home/');
    fireEvent.click(await menuLogout());
    expect(window.location.pathname).toBe('/logout/');
  });

  it('asks first while a message of mine is still on its way', async () => {
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, messages: [queued] } } });
    const logout = await showTopBar();
    fireEvent.click(logout);
    expect(window.location.pathname).toBe('/app/home/');
    const dialog = screen.getByRole('dialog', { name: es['app.logoutUnsent.title'] });
    expect(dialog.textContent).toContain(es['app.logoutUnsent.text']);

    // Staying keeps the message (and the session).
    fireEvent.click(screen.getByRole('button', { name: es['app.logoutUnsent.stay'] }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(window.location.pathname).toBe('/app/home/');

    fireEvent.click(logout);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: es['app.logoutUnsent.confirm'] })));
    expect(window.location.pathname).toBe('/logout/');
  });

  it('does not count a message the server refused for good', async () => {
    const refused = { id: -2, sender: 1, content: 'hola', time: '2026-11-29T22:00:00.000Z', client_id: 'c-2', status: 'failed' as const };
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, messages: [refused] } } });
    fireEvent.click(await showTopBar());
    expect(screen.getByRole('dialog', { name: es['app.logoutAsk.title'] })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: es['app.logoutUnsent.stay'] }));
    // The menu's Logout, which asks only about messages still on their way, goes at once.
    fireEvent.click(screen.getByRole('button', { name: `Ana Ruiz, ${es['app.userMenu']}` }));
    fireEvent.click(screen.getByRole('menuitem', { name: es['app.logout'] }));
    expect(window.location.pathname).toBe('/logout/');
  });

  it('lists Settings, Your plan (the subscribe page, where a plan is managed), Blocked people, then Logout', async () => {
    await menuLogout();
    const items = screen.getAllByRole('menuitem');
    expect(items.map((item) => item.textContent)).toEqual([es['app.settings'], es['subscribe.current.title'], es['blocked.title'], es['app.logout']]);
    expect(screen.getByRole('menuitem', { name: es['subscribe.current.title'] }).getAttribute('href')).toBe('/app/subscribe/');
    fireEvent.click(items[1]!);
    expect(window.location.pathname).toBe('/app/subscribe/');
  });

  it('is also the avatar menu’s last item, asking first the same way', async () => {
    const item = await menuLogout();
    expect(screen.getAllByRole('menuitem').at(-1)).toBe(item);
    fireEvent.click(item);
    expect(window.location.pathname).toBe('/logout/');
    cleanup();

    window.history.replaceState(null, '', '/app/home/');
    useChat.setState({ threads: { 7: { ...emptyThread(), loaded: true, messages: [queued] } } });
    fireEvent.click(await menuLogout());
    expect(window.location.pathname).toBe('/app/home/');
    expect(screen.getByRole('dialog', { name: es['app.logoutUnsent.title'] })).toBeTruthy();
  });
});
