// @vitest-environment jsdom
/**
 * What the Google button says when the server refuses the sign-in: the server's own words (in the
 * reader's language), not "try again" — a suspended account, an e-mail Google has not verified, a
 * Google account linked to another, too many tries; and Google out of the server's reach (503), which
 * says to use the e-mail and password meanwhile. Google itself failing (its pop-up closed, its script)
 * or the server unreachable still says to try again.
 */
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Router } from 'wouter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { Login } from '../../client/pages/Login';
import { inEnglishPages } from '../helpers/english-pages';

/** The answer of POST /api/auth/google/login/ in the test at hand. */
let answer: () => Response = () => Response.json({ token: 'a-token' });
/** The answer of Google's user-info, which the browser reads the profile from. */
let profile: () => Response = () => Response.json({ sub: '1', email: 'ana@gmail.example', email_verified: true });
const asked: string[] = [];
type TokenClientConfig = Parameters<NonNullable<Window['google']>['accounts']['oauth2']['initTokenClient']>[0];

inEnglishPages((url) => {
  asked.push(url);
  if (url.endsWith('/api/config/')) return Response.json({ google_client_id: 'test-client.apps.googleusercontent.com' });
  if (url.includes('googleapis.com')) return profile();
  if (url.endsWith('/api/auth/google/login/')) return answer();
  return Response.json({});
});

// Google Identity Services as loaded: its pop-up hands over an access token at once.
window.google = {
  accounts: { oauth2: { initTokenClient: (config) => ({ requestAccessToken: () => config.callback({ access_token: 'ya29.test' }) }) } },
};

async function signInWithGoogle(): Promise<string> {
  render(
    <Router>
      <Login />
    </Router>,
  );
  vi.spyOn(console, 'error').mockImplementation(() => {});
  const button = await screen.findByRole('button', { name: useLanguage.getState().language === 'es' ? es['login.google'] : en['login.google'] });
  await act(async () => fireEvent.click(button));
  expect(asked.filter((url) => url.endsWith('/api/auth/google/login/'))).not.toHaveLength(0);
  return (await screen.findByRole('alert')).textContent ?? '';
}

describe('The Google button, refused by the server', () => {
  beforeEach(() => {
    asked.length = 0;
    profile = () => Response.json({ sub: '1', email: 'ana@gmail.example', email_verified: true });
  });

  it('says the account is suspended, not to try again', async () => {
    answer = () => Response.json({ detail: 'This account has been suspended.', code: 'account_suspended' }, { status: 403 });
    expect(await signInWithGoogle()).toBe('This account has been suspended.');
  });

  it("says the server's reason for a refused sign-in (400)", async () => {
    answer = () => Response.json({ non_field_errors: ['Your Google e-mail address is not verified.'] }, { status: 400 });
    expect(await signInWithGoogle()).toBe('Your Google e\u2011mail address is not verified.');
  });

  it('says how long to wait when throttled, in the reader’s language', async () => {
    localStorage.setItem('language_code', 'es');
    await initLanguage();
    answer = () =>
      Response.json({ detail: 'Request was throttled. Expected available in 40 seconds.' }, { status: 429, headers: { 'Retry-After': '40' } });
    expect(await signInWithGoogle()).toBe(es['error.throttledFor'].replace('{seconds}', '40'));
  });

  it('says the server’s reason again in the other language when the reader switches', async () => {
    answer = () => Response.json({ non_field_errors: ['Your Google e-mail address is not verified.'] }, { status: 400 });
    expect(await signInWithGoogle()).toBe('Your Google e\u2011mail address is not verified.');
    await act(() => useLanguage.getState().setLanguage('es'));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Tu correo de Google no está verificado.'));

    cleanup();
    answer = () =>
      Response.json(
        { detail: 'Ya existe una cuenta con este correo. Inicia sesión con tu contraseña, o restablécela, para conectar Google.' },
        { status: 409 },
      );
    await signInWithGoogle();
    await act(() => useLanguage.getState().setLanguage('en'));
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toBe(
        `An account with this e\u2011mail already exists. Log in with your password, or reset it, to connect Google. ${en['login.forgot']}`,
      ),
    );
  });

  it('opens "Forgot password?" from the 409 with the address Google gave, as the login form’s own link does', async () => {
    answer = () =>
      Response.json(
        { detail: 'An account with this e-mail already exists. Log in with your password, or reset it, to connect Google.' },
        { status: 409 },
      );
    await signInWithGoogle();
    const alert = screen.getByRole('alert');
    await act(async () => fireEvent.click(alert.querySelector('a')!));
    expect(window.location.pathname).toBe('/forgot-password/');
    expect(window.history.state).toMatchObject({ email: 'ana@gmail.example' });
  });

  it('says Google sign-in is unavailable for now and to use the e-mail and password when the server cannot reach Google (503)', async () => {
    const unavailable = 'Google sign-in is unavailable right now. Please use your e-mail and password.';
    answer = () => Response.json({ detail: unavailable }, { status: 503 });
    // "e-mail" kept whole at a line's end, as the app's copy keeps it: on a 320–342 px phone it broke as
    // "your e-" / "mail and password".
    expect(await signInWithGoogle()).toBe(unavailable.replace('e-mail', 'e\u2011mail'));
    await act(() => useLanguage.getState().setLanguage('es'));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('El inicio de sesión con Google no está disponible ahora. Usa tu correo y contraseña.'));
  });

  it('still says to try again when the server is out of reach, or a 503 of a proxy says nothing', async () => {
    answer = () => {
      throw new TypeError('Failed to fetch');
    };
    expect(await signInWithGoogle()).toBe(en['auth.googleFailed']);
    cleanup();
    answer = () => new Response('<html><body>503 Service Unavailable</body></html>', { status: 503 });
    expect(await signInWithGoogle()).toBe(en['auth.googleFailed']);
  });

  it('says to try again when Google refuses the browser its profile: our server said nothing', async () => {
    profile = () => Response.json({ error: 'invalid_token' }, { status: 401 });
    render(
      <Router>
        <Login />
      </Router>,
    );
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: en['login.google'] })));
    expect((await screen.findByRole('alert')).textContent).toBe(en['auth.googleFailed']);
    expect(asked.filter((url) => url.endsWith('/api/auth/google/login/'))).toHaveLength(0);
  });

  it('says nothing when the person closes Google’s pop-up or says no there, and the button works again', async () => {
    // Google's pop-up, open until the test ends it (in the object the button loaded once).
    const { oauth2 } = window.google!.accounts;
    const signedIn = oauth2.initTokenClient;
    let open: TokenClientConfig | null = null;
    oauth2.initTokenClient = (config) => ({ requestAccessToken: () => void (open = config) });
    try {
      render(
        <Router>
          <Login />
        </Router>,
      );
      const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
      errors.mockClear();
      const button = await screen.findByRole('button', { name: en['login.google'] });
      for (const cancel of [
        (config: TokenClientConfig) => config.error_callback?.({ type: 'popup_closed' }),
        (config: TokenClientConfig) => config.callback({ error: 'access_denied' }),
      ]) {
        open = null;
        await act(async () => fireEvent.click(button));
        await waitFor(() => expect(open).not.toBeNull());
        expect(button.getAttribute('aria-disabled')).toBe('true');
        await act(async () => cancel(open!));
        await waitFor(() => expect(button.getAttribute('aria-disabled')).toBe('false'));
        expect(screen.queryByRole('alert')).toBeNull();
      }
      expect(errors).not.toHaveBeenCalled();
      expect(asked.filter((url) => url.endsWith('/api/auth/google/login/'))).toHaveLength(0);
    } finally {
      oauth2.initTokenClient = signedIn;
    }
  });
});

describe('The Google button, before the press', () => {
  it('loads Google’s script as it shows, so that a press opens the pop-up within the press itself', async () => {
    // Google's script not loaded yet: the browser would block a pop-up opened seconds after the press.
    const loaded = window.google;
    delete window.google;
    const gis = 'script[src="https://accounts.google.com/gsi/client"]';
    let opened = 0;
    try {
      render(
        <Router>
          <Login />
        </Router>,
      );
      const button = await screen.findByRole<HTMLButtonElement>('button', { name: en['login.google'] });
      const script = await waitFor(() => document.head.querySelector<HTMLScriptElement>(gis) ?? Promise.reject(new Error('not loading')));
      // The script arrives while the person reads the form; the press then opens Google's pop-up.
      window.google = {
        accounts: {
          oauth2: {
            initTokenClient: (config) => ({
              requestAccessToken: () => {
                opened += 1;
                config.error_callback?.({ type: 'popup_closed' });
              },
            }),
          },
        },
      };
      script.dispatchEvent(new Event('load'));
      fireEvent.click(button);
      expect(opened, 'opened before the press returned').toBe(1);
      await waitFor(() => expect(button.getAttribute('aria-disabled')).toBe('false'));
      expect(screen.queryByRole('alert')).toBeNull();
    } finally {
      window.google = loaded;
      document.head.querySelectorAll(gis).forEach((script) => script.remove());
    }
  });
});
