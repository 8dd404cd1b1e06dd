// @vitest-environment jsdom
/**
 * A login page left open in one tab while the guest signs in in another tab of the same browser (the
 * token in local storage): it follows into the app, as a signed-in tab follows a sign-out, reloading
 * with the session storage holds now, and without the drafts of the session it leaves.
 */
import { render, screen } from '@testing-library/react';
import { Route, Router } from 'wouter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { Login } from '../../client/pages/Login';
import { TOKEN_KEY } from '../../client/lib/storage';
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
