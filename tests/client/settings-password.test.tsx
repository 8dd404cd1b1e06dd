// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { es } from '../../shared/i18n/es';
import { accountApi } from '../../client/lib/api-account';
import { initLanguage } from '../../client/lib/i18n';
import { Settings } from '../../client/pages/app/Settings';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

describe('Settings → Change password', () => {
  beforeEach(async () => {
    await initLanguage();
    useSession.setState({ user: currentUser() });
  });
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    useSession.setState({ user: null });
  });

  it('sends one change for a double tap, and says it was done', async () => {
    let answer!: (value: { token: string }) => void;
    const change = vi.spyOn(accountApi, 'changePassword').mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const replaceToken = vi.spyOn(useSession.getState(), 'replaceToken').mockImplementation(() => {});
    render(
      <Suspense fallback={null}>
        <Settings />
      </Suspense>,
    );
    fireEvent.change(await screen.findByLabelText(es['settings.password.current']), { target: { value: 'Old-Secret-2026' } });
    fireEvent.change(screen.getByLabelText(es['settings.password.new']), { target: { value: 'New-Secret-2026' } });
    fireEvent.change(screen.getByLabelText(es['settings.password.repeat']), { target: { value: 'New-Secret-2026' } });
    const button = screen.getByRole('button', { name: es['settings.password.submit'] });
    fireEvent.click(button);
    // Busy until the answer: the second tap sends nothing (the server would find the old password gone).
    fireEvent.click(button);
    expect(change).toHaveBeenCalledOnce();

    await act(async () => answer({ token: 'fresh' }));
    expect(replaceToken).toHaveBeenCalledWith('fresh');
    expect(screen.getByText(es['settings.password.done'])).toBeTruthy();
  });

  it('heads an account made with Google, which has no password to change, with setting one', async () => {
    useSession.setState({ user: currentUser({ has_password: false }) });
    render(
      <Suspense fallback={null}>
        <Settings />
      </Suspense>,
    );
    expect(await screen.findByRole('heading', { name: 'Crea una contraseña' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Cambiar la contraseña' })).toBeNull();
    expect(screen.getByRole('button', { name: es['settings.password.sendLink'] })).toBeTruthy();
  });

  it('hands the focus to the note that the link was sent, when the button it replaces goes', async () => {
    useSession.setState({ user: currentUser({ has_password: false }) });
    let answer!: () => void;
    vi.spyOn(accountApi, 'requestPasswordReset').mockReturnValue(new Promise<void>((resolve) => (answer = resolve)) as never);
    render(
      <Suspense fallback={null}>
        <Settings />
      </Suspense>,
    );
    const button = await screen.findByRole('button', { name: es['settings.password.sendLink'] });
    button.focus();
    fireEvent.click(button);
    await act(async () => answer());
    // Not dropped on the page's body: the keyboard and a screen reader carry on from the note.
    expect(document.activeElement).toBe(screen.getByText(es['settings.password.linkSent'].replace('{email}', 'ana@example.com')));
  });
});
