// @vitest-environment jsdom
/**
 * What was said before a switch of language does not stay on screen in the other one: the toasts up
 * go, and a form's errors are said again in the new language (any the app cannot find go).
 */
import { act, cleanup, fireEvent, renderHook, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useFieldErrors } from '../../client/lib/errors';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { toast, useToasts } from '../../client/lib/toast';
import { Register } from '../../client/pages/Register';
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
