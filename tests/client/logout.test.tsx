// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { LogoutButton } from '../../client/components/LogoutButton';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { emptyThread, useChat } from '../../client/stores/chat';

function TopBar() {
  useMessages(appMessages);
  return <LogoutButton />;
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

describe('the top bar’s Logout', () => {
  beforeEach(() => window.history.replaceState(null, '', '/app/home/'));
  afterEach(() => {
    cleanup();
    useChat.getState().reset();
  });

  it('signs out at once when nothing is waiting to be sent', async () => {
    fireEvent.click(await showTopBar());
    expect(window.location.pathname).toBe('/logout/');
  });

  it('asks first while a message of mine is still on its way', async () => {
    const queued = { id: -1, sender: 1, content: 'llego en 5', time: '2026-11-29T22:00:00.000Z', client_id: 'c-1', status: 'queued' as const };
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
    expect(window.location.pathname).toBe('/logout/');
  });
});
