// @vitest-environment jsdom
/**
 * The e-mail's link to a new password. Opened where another account is signed in, it says whose
 * password it sets before the device is signed in with it. Once the new one is saved: the app opens
 * signed in, says the password was changed, and takes the link's place in the history, so that Back
 * does not open the spent link to say it no longer works. fetch is faked: the link's check (Lena's
 * account), the signed-in user (Ana) and the new password's answer.
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
import { currentUser } from '../helpers/current-user';

const LINK = '/reset-password/?token=spent-once-used';
/** Whether the link's account has a password already: not one made with Google that sets its first. */
let linkHasPassword = true;

beforeEach(() => {
  useToasts.setState({ toasts: [] });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (String(url).endsWith('/api/auth/password-reset/confirm/')) return Response.json({ token: 'fresh-token' });
      if (String(url).endsWith('/api/auth/password-reset/check/')) return Response.json({ email: 'lena@example.com', has_password: linkHasPassword });
      if (String(url).endsWith('/api/users/me/')) return Response.json(currentUser());
      return new Response(null, { status: 204 });
    }),
  );
});
afterEach(() => {
  cleanup();
  linkHasPassword = true;
  vi.unstubAllGlobals();
  useSession.setState({ token: null, user: undefined });
  localStorage.clear();
});

/** The link opened from `from`, in `language`. */
async function openLink(language: 'en' | 'es', from = '/app/settings/') {
  localStorage.setItem('language_code', language);
  await initLanguage();
  const location = memoryLocation({ path: from, record: true });
  location.navigate(LINK);
  render(
    <Router hook={location.hook} searchHook={location.searchHook}>
      <ResetPassword />
    </Router>,
  );
  return location;
}

/** The link opened from another page of the app, in `language`, and the new password saved: the history after it. */
async function saveNewPassword(language: 'en' | 'es', words: Record<keyof typeof enAccount, string>) {
  const location = await openLink(language);
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

  it('asks an account made with Google for its first password, and says it has one now, not that it changed', async () => {
    linkHasPassword = false;
    await openLink('es');
    expect(await screen.findByRole('heading', { name: 'Elige una contraseña' })).toBeTruthy();
    // Its first: not a "new" one in place of one it never had.
    expect(screen.queryByLabelText(esAccount['reset.password'])).toBeNull();
    for (const label of ['Contraseña', 'Repite la contraseña']) {
      fireEvent.change(screen.getByLabelText(label), { target: { value: 'Dance-Floor-2026!' } });
    }
    await act(async () => fireEvent.click(screen.getByRole('button', { name: esAccount['reset.submit'] })));
    expect(useToasts.getState().toasts.map((item) => item.message)).toEqual(['Ya tienes contraseña: puedes iniciar sesión con ella además de con Google. Se han cerrado tus otras sesiones.']);
  });

  it('labels the first password’s fields as a first password in English too', async () => {
    linkHasPassword = false;
    await openLink('en');
    expect(await screen.findByRole('heading', { name: 'Choose a password' })).toBeTruthy();
    expect(screen.queryByLabelText(enAccount['reset.password'])).toBeNull();
    expect(screen.getByLabelText('Password')).toBeTruthy();
    expect(screen.getByLabelText('Repeat Password')).toBeTruthy();
  });
});

describe('the link of another account than the one signed in here', () => {
  const other = (words: Record<keyof typeof enAccount, string>) =>
    words['reset.otherAccount'].replace('{me}', 'ana@example.com').replace('{email}', 'lena@example.com');

  it('says who is signed in and whose account saving signs in, the user read as the page opens', async () => {
    // A tab of its own, as from the e-mail: the signed-in user is not known yet.
    useSession.setState({ token: 'ana-token', user: undefined });
    await openLink('es', '/');
    expect((await screen.findByRole('status')).textContent).toBe(other(esAccount));
    expect(other(esAccount)).toBe('Has iniciado sesión como ana@example.com. Al guardar esta contraseña, iniciarás sesión como lena@example.com en su lugar.');
  });

  it('says so in English too', async () => {
    useSession.setState({ token: 'ana-token', user: currentUser() });
    await openLink('en');
    expect((await screen.findByRole('status')).textContent).toBe(other(enAccount));
  });

  it('says nothing for the account’s own link, nor signed out', async () => {
    useSession.setState({ token: 'lena-token', user: currentUser({ email: 'lena@example.com' }) });
    await openLink('es');
    await screen.findByLabelText(esAccount['reset.password']);
    await act(async () => undefined);
    expect(screen.queryByRole('status')).toBeNull();
    cleanup();

    useSession.setState({ token: null, user: undefined });
    await openLink('es', '/');
    await act(async () => undefined);
    expect(screen.queryByRole('status')).toBeNull();
  });
});

describe('a link the server refuses as the page opens (used or expired)', () => {
  it('is headed by what is wrong, not by a new password, and leads to a new link instead of a form', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ token: ['This link is invalid or has expired.'] }, { status: 400 })),
    );
    await openLink('es', '/');

    expect((await screen.findByRole('alert')).textContent).toBe(esAccount['reset.invalid']);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Este enlace ya no funciona');
    expect(screen.getByRole('link', { name: 'Pedir un enlace nuevo' }).getAttribute('href')).toBe('/forgot-password/');
    expect(screen.queryByLabelText(esAccount['reset.password'])).toBeNull();
  });

  it('says so in English too', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ token: ['This link is invalid or has expired.'] }, { status: 400 })),
    );
    await openLink('en', '/');

    await screen.findByRole('alert');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('This link no longer works');
  });
});

describe('a link the server cannot check yet (too many links opened from this address this hour)', () => {
  /** The check, and the save that would follow, both answered 429 for the next 57 minutes. */
  const throttled = () =>
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ detail: 'Request was throttled. Expected available in 3420 seconds.' }, { status: 429, headers: { 'Retry-After': '3420' } })),
    );

  it('says how long to wait before a new password is typed, and keeps the form for then', async () => {
    throttled();
    await openLink('es', '/');

    expect((await screen.findByRole('alert')).textContent).toBe('Demasiados intentos. Vuelve a intentarlo en 57 min.');
    expect(screen.getByLabelText(esAccount['reset.password'])).toBeTruthy();
  });

  it('says so in English too', async () => {
    throttled();
    await openLink('en', '/');

    expect((await screen.findByRole('alert')).textContent).toBe('Too many attempts. Try again in 57 min.');
  });
});
