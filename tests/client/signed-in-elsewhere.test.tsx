// @vitest-environment jsdom
/**
 * A login page left open in one tab while the guest signs in in another tab of the same browser (the
 * token in local storage): it follows into the app, as a signed-in tab follows a sign-out, reloading
 * with the session storage holds now, and without the drafts of the session it leaves.
 */
import { render, screen } from '@testing-library/react';
import { Route, Router } from 'wouter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { Login } from '../../client/pages/Login';
import { TOKEN_KEY } from '../../client/lib/storage';
import { askBeforeSignOut, useSession } from '../../client/stores/session';
import { inEnglishPages } from '../helpers/english-pages';

inEnglishPages();

describe('a login page left open', () => {
  let reload: ReturnType<typeof vi.fn>;
  beforeEach(async () => {
    window.history.replaceState(null, '', '/login/');
    // jsdom does not reload: that the page would is what is checked.
    reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, pathname: '/login/', reload });
    render(
      <Router>
        <Route path="/login/" component={Login} />
      </Router>,
    );
    await screen.findByRole('heading', { name: en['login.title'] });
  });

  /** Another tab writes `token` (null: removes it), which this tab hears of. */
  function anotherTab(token: string | null) {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
    window.dispatchEvent(new StorageEvent('storage', { key: TOKEN_KEY, newValue: token, storageArea: localStorage }));
  }

  it('goes into the app when another tab signs in', () => {
    sessionStorage.setItem('draft:register', JSON.stringify({ first_name: 'Ana' }));
    anotherTab('token-b');
    expect(reload).toHaveBeenCalledOnce();
    expect(sessionStorage.getItem('draft:register')).toBeNull();
  });

  it('stays as it is for the other keys another tab writes, and for a sign-out', () => {
    localStorage.setItem('theme', 'dark');
    window.dispatchEvent(new StorageEvent('storage', { key: 'theme', newValue: 'dark', storageArea: localStorage }));
    anotherTab(null);
    expect(reload).not.toHaveBeenCalled();
  });
});

/**
 * The tab that deletes the account (or changes the password) while another tab of the same browser is
 * open: that one's socket hears of it before this tab's answer comes, and it signs out, which this tab
 * hears through storage. It waits for its own answer, which says how it went, rather than reload on the
 * login page as if signed out from elsewhere.
 */
describe('a tab whose own deletion is on its way when another tab signs out', () => {
  let reload: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    window.history.replaceState(null, '', '/app/settings/');
    reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, pathname: '/app/settings/', reload });
    useSession.getState().signIn('token-a');
  });
  afterEach(() => {
    askBeforeSignOut(null);
    useSession.getState().signOut({ alreadyRevoked: true });
    localStorage.clear();
    vi.unstubAllGlobals();
  });

  /** This tab's own request, answered when the test says: whether the tab carries on. */
  function ownRequest() {
    let answer!: (carryOn: boolean) => void;
    const promise = new Promise<boolean>((resolve) => (answer = resolve));
    askBeforeSignOut(() => promise);
    return { promise, answer };
  }

  function signedOutElsewhere() {
    localStorage.removeItem(TOKEN_KEY);
    window.dispatchEvent(new StorageEvent('storage', { key: TOKEN_KEY, newValue: null, storageArea: localStorage }));
  }

  it('waits for its answer, and stays to say the account is gone when the deletion went through', async () => {
    const deleted = ownRequest();
    signedOutElsewhere();
    expect(reload).not.toHaveBeenCalled();
    deleted.answer(true);
    // The tab's own wait was the first to hear the answer.
    await deleted.promise;
    expect(reload).not.toHaveBeenCalled();
  });

  it('follows the other tab once its own request failed', async () => {
    const deleted = ownRequest();
    signedOutElsewhere();
    deleted.answer(false);
    await vi.waitFor(() => expect(reload).toHaveBeenCalledOnce());
  });
});
