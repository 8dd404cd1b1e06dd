// @vitest-environment jsdom
/**
 * What was said before a switch of language does not stay on screen in the other one: the toasts up
 * go, and a form's errors are said again in the new language (any the app cannot find go).
 */
import { act, cleanup, fireEvent, render, renderHook, screen, waitFor, within } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VerifyEmailBanner } from '../../client/components/VerifyEmailBanner';
import { NetworkError } from '../../client/lib/api';
import { accountApi } from '../../client/lib/api-account';
import { useFieldErrors } from '../../client/lib/errors';
import { initLanguage, useLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { toast, useToasts } from '../../client/lib/toast';
import { Register } from '../../client/pages/Register';
import { Settings } from '../../client/pages/app/Settings';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { renderAt } from '../helpers/render-at';

beforeEach(async () => {
  localStorage.clear();
  await initLanguage();
  toast.dismiss();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('a switch of language', () => {
  it('puts away the toasts that are up, and leaves them when the language stays', async () => {
    toast.error('Revisa los campos');
    await act(() => useLanguage.getState().setLanguage('es'));
    expect(useToasts.getState().toasts.map((item) => item.message)).toEqual(['Revisa los campos']);

    await act(() => useLanguage.getState().setLanguage('en'));
    expect(useToasts.getState().toasts).toEqual([]);
    toast.error('Check the fields');
    expect(useToasts.getState().toasts.map((item) => item.message)).toEqual(['Check the fields']);
  });

  it('says a form’s errors again in the new language, the server’s and the app’s, with their values; a line it cannot find goes', async () => {
    const { result } = renderHook(() => useFieldErrors());
    act(() =>
      result.current[1]({
        password: [format(SERVER_MESSAGES.password_short.es, { min: 8 }), SERVER_MESSAGES.password_common.es],
        username: [SERVER_MESSAGES.email_taken.es],
        non_field_errors: [es['error.network']],
        bio: ['Words of the server that are not in its catalogue.'],
      }),
    );

    await act(() => useLanguage.getState().setLanguage('en'));
    const english = {
      password: [format(SERVER_MESSAGES.password_short.en, { min: 8 }), SERVER_MESSAGES.password_common.en],
      username: [SERVER_MESSAGES.email_taken.en],
      non_field_errors: [en['error.network']],
    };
    await waitFor(() => expect(result.current[0]).toEqual(english));
    // A field's change takes its own away, from what shows.
    act(() => result.current[1](({ username: _, ...others }) => others));
    expect(result.current[0]).toEqual({ password: english.password, non_field_errors: english.non_field_errors });

    await act(() => useLanguage.getState().setLanguage('es'));
    expect(result.current[0]).toEqual({
      password: [format(SERVER_MESSAGES.password_short.es, { min: 8 }), SERVER_MESSAGES.password_common.es],
      non_field_errors: [es['error.network']],
    });
    // Errors said after the switch show as they are.
    act(() => result.current[1]({ name: [SERVER_MESSAGES.blank.es] }));
    expect(result.current[0]).toEqual({ name: [SERVER_MESSAGES.blank.es] });
  });

  it('keeps the register form’s errors through a switch, in the new language, and the focus on the switch', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ username: [SERVER_MESSAGES.email_taken.es], password2: [SERVER_MESSAGES.passwords_differ.es] }, { status: 400 })),
    );
    renderAt('/register/', <Register />);
    fireEvent.submit(document.querySelector('form')!);
    await screen.findByText(SERVER_MESSAGES.email_taken.es);
    const english = screen.getByRole('button', { name: 'EN, English' });
    english.focus();
    fireEvent.click(english);
    // Shown with a non-breaking hyphen in "e-mail" (AuthLayout.tsx's FieldErrors).
    await screen.findByText(SERVER_MESSAGES.email_taken.en.replace('e-mail', 'e\u2011mail'));
    expect(screen.getByText(SERVER_MESSAGES.passwords_differ.en)).toBeTruthy();
    expect(screen.queryByText(SERVER_MESSAGES.email_taken.es)).toBeNull();
    expect(document.activeElement).toBe(english);
  });
});

describe('a switch of language, on the account’s screens', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    useSession.setState({ user: undefined });
  });

  function AccountScreens() {
    useMessages(appMessages);
    return (
      <>
        <VerifyEmailBanner />
        <Settings />
      </>
    );
  }

  it('says why a new link or the data could not be had again in the new language', async () => {
    const offline = new NetworkError(0, 'Network error');
    vi.spyOn(accountApi, 'resendVerification').mockRejectedValue(offline);
    vi.spyOn(accountApi, 'exportData').mockRejectedValue(offline);
    useSession.setState({ user: currentUser({ email_verified: false }) });
    render(
      <Suspense fallback={null}>
        <AccountScreens />
      </Suspense>,
    );
    const account = (await screen.findByRole('region', { name: es['settings.account'] })) as HTMLElement;
    const data = screen.getByRole('region', { name: es['settings.export.title'] });
    const banner = screen.getByRole('region', { name: es['app.verifyTitle'] });
    fireEvent.click(within(account).getByRole('button', { name: es['settings.verifyResend'] }));
    fireEvent.click(within(data).getByRole('button', { name: es['settings.export.submit'] }));
    fireEvent.click(within(banner).getByRole('button', { name: es['app.verifyResend'] }));
    for (const place of [account, data, banner]) expect((await within(place).findByRole('alert')).textContent).toBe(es['error.network']);

    await act(() => useLanguage.getState().setLanguage('en'));
    for (const name of [en['settings.account'], en['settings.export.title'], en['app.verifyTitle']]) {
      const place = await screen.findByRole('region', { name });
      await waitFor(() => expect(within(place).getByRole('alert').textContent).toBe(en['error.network']));
    }
    await act(() => useLanguage.getState().setLanguage('es'));
  });
});
