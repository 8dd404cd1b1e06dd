// @vitest-environment jsdom
/**
 * A button used by keyboard that is busy, or goes once used, leaves the focus where the user can go on
 * from (not on <body>), and what it did is said: the banner's Resend, Settings' Download my data, its
 * confirm sheet and its forms' submits (BusyButton).
 */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VerifyEmailBanner } from '../../client/components/VerifyEmailBanner';
import { api, ApiError, NetworkError } from '../../client/lib/api';
import { accountApi } from '../../client/lib/api-account';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { Settings } from '../../client/pages/app/Settings';
import { useSession } from '../../client/stores/session';
import { es } from '../../shared/i18n/es';
import { currentUser } from '../helpers/current-user';

/** A promise and its resolve, for an answer that comes when the test says. */
function later<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((done, fail) => {
    resolve = done;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Focused, then pressed: as a keyboard or a screen reader does. */
function use(button: HTMLElement) {
  button.focus();
  fireEvent.click(button);
}

beforeEach(async () => {
  localStorage.clear();
  sessionStorage.clear();
  await initLanguage();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  useSession.setState({ user: undefined });
});

describe('the verification banner’s Resend', () => {
  function Banner() {
    useMessages(appMessages);
    return <VerifyEmailBanner />;
  }

  it('keeps the focus while it sends, then gives it to ×, and says it was sent', async () => {
    const answer = later<{ detail: string }>();
    const resend = vi.spyOn(accountApi, 'resendVerification').mockReturnValue(answer.promise);
    useSession.setState({ user: currentUser({ email_verified: false }) });
    render(
      <Suspense fallback={null}>
        <Banner />
      </Suspense>,
    );
    const button = await screen.findByRole('button', { name: es['app.verifyResend'] });
    const status = screen.getByRole('status');
    use(button);
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute('aria-disabled')).toBe('true');
    // A second press while it sends sends nothing more.
    fireEvent.click(button);
    expect(resend).toHaveBeenCalledTimes(1);

    await act(async () => answer.resolve({ detail: 'Sent.' }));
    expect(screen.queryByRole('button', { name: es['app.verifyResend'] })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: es['app.verifyDismiss'] }));
    // Said where it shows: the line the banner had, a live region all along.
    expect(screen.getByRole('status')).toBe(status);
    expect(status.textContent).toBe(es['app.verifySent']);
  });

  it('goes once the server says the address is verified already (the news of it missed here)', async () => {
    vi.spyOn(accountApi, 'resendVerification').mockRejectedValue(new ApiError(409, 'Tu correo electrónico ya está verificado.'));
    const me = vi.spyOn(api, 'me').mockResolvedValue(currentUser({ email_verified: true }));
    useSession.setState({ token: 'token', user: currentUser({ email_verified: false }) });
    render(
      <Suspense fallback={null}>
        <Banner />
      </Suspense>,
    );
    use(await screen.findByRole('button', { name: es['app.verifyResend'] }));
    await act(async () => {});
    expect(me).toHaveBeenCalled();
    expect(screen.queryByRole('region', { name: es['app.verifyTitle'] })).toBeNull();
  });
});

describe('Settings’ Download my data', () => {
  it('keeps the focus while the archive is made', async () => {
    const archive = later<Blob>();
    const exportData = vi.spyOn(accountApi, 'exportData').mockReturnValue(archive.promise);
    useSession.setState({ user: currentUser() });
    render(
      <Suspense fallback={null}>
        <Settings />
      </Suspense>,
    );
    const button = await screen.findByRole('button', { name: es['settings.export.submit'] });
    use(button);
    expect(button.textContent).toBe(es['settings.export.busy']);
    expect(button.getAttribute('aria-disabled')).toBe('true');
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    expect(exportData).toHaveBeenCalledTimes(1);

    URL.createObjectURL = vi.fn(() => 'blob:archive');
    await act(async () => archive.resolve(new Blob(['zip'])));
    expect(button.textContent).toBe(es['settings.export.submit']);
    expect(document.activeElement).toBe(button);
  });

  it('names the archive by the date on the phone, not in UTC', async () => {
    // 8 p.m. on 6 December in Los Angeles: already the 7th in UTC.
    vi.stubEnv('TZ', 'America/Los_Angeles');
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-12-07T04:00:00Z') });
    try {
      vi.spyOn(accountApi, 'exportData').mockResolvedValue(new Blob(['zip']));
      URL.createObjectURL = vi.fn(() => 'blob:archive');
      const saved: string[] = [];
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
        saved.push(this.download);
      });
      useSession.setState({ user: currentUser() });
      render(
        <Suspense fallback={null}>
          <Settings />
        </Suspense>,
      );
      use(await screen.findByRole('button', { name: es['settings.export.submit'] }));
      await vi.waitFor(() => expect(saved).toEqual(['eventmatch-export-2026-12-06.zip']));
    } finally {
      vi.useRealTimers();
      vi.unstubAllEnvs();
    }
  });
});

describe('Settings’ Log out everywhere, asked in a sheet', () => {
  it('keeps the focus on its confirm while it sends, and in the sheet when it fails, where Escape still closes it', async () => {
    const answer = later<null>();
    const logout = vi.spyOn(accountApi, 'logoutEverywhere').mockReturnValue(answer.promise);
    useSession.setState({ user: currentUser() });
    render(
      <Suspense fallback={null}>
        <Settings />
      </Suspense>,
    );
    fireEvent.click(await screen.findByRole('button', { name: es['settings.sessions.submit'] }));
    const sheet = screen.getByRole('dialog');
    const confirm = within(sheet).getByRole('button', { name: es['settings.sessions.submit'] });
    use(confirm);
    // Drawn busy, not `disabled`: a browser moves the focus of a disabled button to <body>, out of the sheet.
    expect(confirm.getAttribute('aria-disabled')).toBe('true');
    expect((confirm as HTMLButtonElement).disabled).toBe(false);
    expect(document.activeElement).toBe(confirm);
    fireEvent.click(confirm);
    expect(logout).toHaveBeenCalledTimes(1);

    await act(async () => answer.reject(new NetworkError(0, 'Failed to fetch')));
    expect(within(sheet).getByRole('alert').textContent).toBe(es['error.network']);
    expect(confirm.getAttribute('aria-disabled')).toBe('false');
    expect(document.activeElement).toBe(confirm);
    fireEvent.keyDown(confirm, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('Settings’ forms, sent by their submit button', () => {
  function renderSettings() {
    useSession.setState({ user: currentUser() });
    render(
      <Suspense fallback={null}>
        <Settings />
      </Suspense>,
    );
  }

  /** Busy, the button keeps the focus and a second press sends nothing; failed, it is usable again, focused still. */
  async function sendsOnceAndKeepsTheFocus(button: HTMLElement, sent: { mock: { calls: unknown[] } }, fail: () => void) {
    use(button);
    // Drawn busy, not `disabled`: a browser moves the focus of a disabled button to <body>.
    expect(button.getAttribute('aria-disabled')).toBe('true');
    expect((button as HTMLButtonElement).disabled).toBe(false);
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    expect(sent.mock.calls).toHaveLength(1);

    await act(async () => fail());
    expect(screen.getByRole('alert').textContent).toBe(es['error.network']);
    expect(button.getAttribute('aria-disabled')).toBe('false');
    expect(document.activeElement).toBe(button);
  }

  it('keeps the focus on Change password when a network error marks no field', async () => {
    const answer = later<never>();
    const change = vi.spyOn(accountApi, 'changePassword').mockReturnValue(answer.promise);
    renderSettings();
    const button = await screen.findByRole('button', { name: es['settings.password.submit'] });
    for (const [label, value] of [
      ['settings.password.current', 'old-password'],
      ['settings.password.new', 'new-password-1'],
      ['settings.password.repeat', 'new-password-1'],
    ] as const) {
      fireEvent.change(screen.getByLabelText(es[label]), { target: { value } });
    }
    await sendsOnceAndKeepsTheFocus(button, change, () => answer.reject(new NetworkError(0, 'Failed to fetch')));
  });

  it('keeps the focus on Delete account’s confirm when it fails, where Escape still cancels the step', async () => {
    const answer = later<null>();
    const remove = vi.spyOn(accountApi, 'deleteAccount').mockReturnValue(answer.promise);
    renderSettings();
    fireEvent.click(await screen.findByRole('button', { name: es['settings.delete.start'] }));
    fireEvent.change(screen.getByLabelText(es['settings.delete.confirmPassword']), { target: { value: 'secret-password' } });
    const button = screen.getByRole('button', { name: es['settings.delete.confirm'] });
    await sendsOnceAndKeepsTheFocus(button, remove, () => answer.reject(new NetworkError(0, 'Failed to fetch')));
    fireEvent.keyDown(button, { key: 'Escape' });
    expect(screen.queryByRole('button', { name: es['settings.delete.confirm'] })).toBeNull();
  });
});
