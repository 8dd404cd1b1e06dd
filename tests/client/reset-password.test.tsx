// @vitest-environment jsdom
/**
 * The e-mail's link to a new password, once the new one is saved: the app opens signed in, says the
 * password was changed, and takes the link's place in the history, so that Back does not open the
 * spent link to say it no longer works. fetch is faked: the link's check and the new password's answer.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enAccount } from '../../shared/i18n/en-account';
import { esAccount } from '../../shared/i18n/es-account';
import { initLanguage } from '../../client/lib/i18n';
import { useToasts } from '../../client/lib/toast';
import { ResetPassword } from '../../client/pages/ResetPassword';
import { useSession } from '../../client/stores/session';

const LINK = '/reset-password/?token=spent-once-used';

beforeEach(() => {
  useToasts.setState({ toasts: [] });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) =>
      String(url).endsWith('/api/auth/password-reset/confirm/') ? Response.json({ token: 'fresh-token' }) : new Response(null, { status: 204 }),
    ),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useSession.setState({ token: null, user: undefined });
  localStorage.clear();
});

/** The link opened from another page of the app, in `language`, and the new password saved: the history after it. */
async function saveNewPassword(language: 'en' | 'es', words: Record<keyof typeof enAccount, string>) {
  localStorage.setItem('language_code', language);
  await initLanguage();
  const location = memoryLocation({ path: '/app/settings/', record: true });
  location.navigate(LINK);
  render(
    <Router hook={location.hook} searchHook={location.searchHook}>
      <ResetPassword />
    </Router>,
  );
  for (const label of [words['reset.password'], words['reset.password2']]) {
    fireEvent.change(await screen.findByLabelText(label), { target: { value: 'Dance-Floor-2026!' } });
  }
  await act(async () => fireEvent.click(screen.getByRole('button', { name: words['reset.submit'] })));
  return location.history;
}

describe('a new password saved from the e-mail’s link', () => {
  it('opens the app signed in, says so, and leaves the spent link out of the history', async () => {
    const history = await saveNewPassword('es', esAccount);

    expect(useSession.getState().token).toBe('fresh-token');
    expect(useToasts.getState().toasts).toEqual([expect.objectContaining({ kind: 'success', message: 'Has cambiado tu contraseña. Se han cerrado tus otras sesiones.' })]);
    // Back from the deck goes where the user was before the link, not to it.
    expect(history).toEqual(['/app/settings/', '/app/home/']);
  });

  it('says so in English too', async () => {
    await saveNewPassword('en', enAccount);

    expect(useToasts.getState().toasts.map((item) => item.message)).toEqual(['Your password was changed. Your other sessions were logged out.']);
  });
});
