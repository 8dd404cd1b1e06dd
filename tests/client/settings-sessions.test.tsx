// @vitest-environment jsdom
/**
 * Settings → Sessions: logging out everywhere signs this phone out too, so it asks first, and says it
 * was done on the login page that follows. A failure keeps the question open with its reason.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { es } from '../../shared/i18n/es';
import { NetworkError } from '../../client/lib/api';
import { accountApi } from '../../client/lib/api-account';
import { Router } from 'wouter';
import { afterOverlays } from '../../client/lib/back-closes';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { useToasts } from '../../client/lib/toast';
import { Settings } from '../../client/pages/app/Settings';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

/** As the app shows it: its copy loaded, and navigations waiting for a closing sheet's step back. */
function InApp() {
  useMessages(appMessages);
  return (
    <Router aroundNav={afterOverlays}>
      <Settings />
    </Router>
  );
}

async function showSettings() {
  window.history.replaceState(null, '', '/app/settings/');
  render(
    <Suspense fallback={null}>
      <InApp />
    </Suspense>,
  );
  await screen.findByRole('heading', { name: es['settings.sessions.title'] });
}
const everywhere = () => screen.getByRole('button', { name: es['settings.sessions.submit'] });

beforeEach(async () => {
  localStorage.clear();
  useToasts.setState({ toasts: [] });
  useSession.setState({ token: 'token', user: currentUser() });
  await initLanguage();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  useSession.setState({ token: null, user: null });
});

describe('Settings → Sessions', () => {
  it('asks before logging out everywhere, and Stay keeps the session', async () => {
    const logout = vi.spyOn(accountApi, 'logoutEverywhere').mockResolvedValue(null);
    await showSettings();
    fireEvent.click(everywhere());
    const dialog = screen.getByRole('dialog', { name: es['settings.sessions.confirmTitle'] });
    expect(dialog.textContent).toContain(es['settings.sessions.text']);
    fireEvent.click(within(dialog).getByRole('button', { name: es['app.logoutUnsent.stay'] }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect([logout.mock.calls.length, useSession.getState().token, window.location.pathname]).toEqual([0, 'token', '/app/settings/']);
  });

  it('logs out everywhere once confirmed, lands on the login page and says it was done', async () => {
    const logout = vi.spyOn(accountApi, 'logoutEverywhere').mockResolvedValue(null);
    await showSettings();
    fireEvent.click(everywhere());
    await act(async () => fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: es['settings.sessions.submit'] })));
    expect(logout).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(window.location.pathname).toBe('/login/'));
    expect(useSession.getState().token).toBeNull();
    expect(useToasts.getState().toasts.map((item) => [item.kind, item.message])).toEqual([['success', es['settings.sessions.done']]]);
  });

  it('keeps the question open with the reason when it could not be done', async () => {
    vi.spyOn(accountApi, 'logoutEverywhere').mockRejectedValue(new NetworkError(0, 'Failed to fetch'));
    await showSettings();
    fireEvent.click(everywhere());
    await act(async () => fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: es['settings.sessions.submit'] })));
    expect(within(screen.getByRole('dialog')).getByRole('alert').textContent).toBe(es['error.network']);
    expect(useSession.getState().token).toBe('token');
  });
});
