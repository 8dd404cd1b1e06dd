// @vitest-environment jsdom
/**
 * A language chosen on the login page (or the landing's, the register's) before signing in is the
 * signed-in person's choice, as the app's switch is: the account takes it, so that its e-mails and its
 * other phones speak it too. A language left chosen on the device by an earlier visit is the device's,
 * maybe someone else’s: a sign-in leaves the account’s as it is. A switch while signed in, on any
 * page, is saved at once, as the app’s top bar’s is. Against the real server.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Route, Router } from 'wouter';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CurrentUser } from '../../shared/schemas/users';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
import { makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { initLanguage, useLanguage } = await import('../../client/lib/i18n');
const { Login } = await import('../../client/pages/Login');
const { Privacy } = await import('../../client/pages/Privacy');
const { useSession } = await import('../../client/stores/session');

let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server } = await startTabServer()));
afterAll(() => server?.close());
beforeEach(async () => {
  me = await makeUser(server);
  fetchFrom(server);
  window.history.replaceState(null, '', '/login/');
});
afterEach(() => {
  cleanup();
  useSession.getState().signOut({ alreadyRevoked: true });
  localStorage.clear();
  vi.unstubAllGlobals();
});

const accountLanguage = async () => (await client(server.url).get<CurrentUser>('/api/users/me/', { token: me.token })).body.language;

/** The login page open, its form sent with `me`'s address and password, and the app's first read of the user. */
async function logIn(copy: typeof en | typeof es) {
  fireEvent.change(screen.getByLabelText(copy['auth.email']), { target: { value: me.email } });
  fireEvent.change(screen.getByLabelText(copy['auth.password']), { target: { value: me.password } });
  await act(async () => fireEvent.click(screen.getByRole('button', { name: copy['login.submit'] })));
  await vi.waitFor(() => expect(useSession.getState().token).not.toBeNull());
  await useSession.getState().loadUser();
}

function openLogin() {
  render(
    <Router>
      <Route path="/login/" component={Login} />
    </Router>,
  );
}

describe('a language chosen before signing in', () => {
  it('is saved on the account at the sign-in after it, and stays shown', async () => {
    await initLanguage();
    openLogin();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^EN,/ })));
    await screen.findByRole('heading', { name: en['login.title'] });
    await logIn(en);
    await vi.waitFor(async () => expect(await accountLanguage()).toBe('en'));
    expect(useLanguage.getState().language).toBe('en');
  });

  it('is not saved when it was chosen on the device before this visit', async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    openLogin();
    await screen.findByRole('heading', { name: en['login.title'] });
    await logIn(en);
    // The app's own read of the user came back: anything it was to save has been asked for by now.
    expect(useSession.getState().user?.language).toBe('es');
    expect(await accountLanguage()).toBe('es');
    expect(useLanguage.getState().language).toBe('en');
  });

  it('is saved on the account at once when chosen signed in, on a page outside the app', async () => {
    await initLanguage();
    await signInTab(server, me);
    window.history.replaceState(null, '', '/privacy/');
    render(
      <Router>
        <Route path="/privacy/" component={Privacy} />
      </Router>,
    );
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^EN,/ })));
    await vi.waitFor(async () => expect(await accountLanguage()).toBe('en'));
  });
});
