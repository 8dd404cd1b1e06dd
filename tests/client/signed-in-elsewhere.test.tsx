// @vitest-environment jsdom
/**
 * A login page left open in one tab while the guest signs in in another tab of the same browser (the
 * token in local storage): it follows into the app, as a signed-in tab follows a sign-out, reloading
 * with the session storage holds now, and without the drafts of the session it leaves.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { useEffect } from 'react';
import { Route, Router } from 'wouter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { Login } from '../../client/pages/Login';
import { useDraft } from '../../client/lib/draft';
import { clearStorage, getToken, setToken, TOKEN_KEY } from '../../client/lib/storage';
import { askBeforeSignOut, useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
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

/**
 * A form's draft in a signed-in tab while another tab of the same browser hears first that the server
 * ended the session (signed out from another device), or changes the password: this tab follows it as
 * the other tab does, keeping the draft for the same user, given back in their next session here. A
 * sign-out made there drops it.
 */
describe('a form’s draft in a tab that follows another tab', () => {
  let reload: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    window.history.replaceState(null, '', '/app/profile/');
    reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, pathname: '/app/profile/', reload });
    useSession.getState().signIn('token-a');
    useSession.setState({ user: currentUser() });
  });
  afterEach(() => {
    cleanup();
    useSession.getState().signOut({ alreadyRevoked: true });
    localStorage.clear();
    sessionStorage.clear();
    vi.unstubAllGlobals();
  });

  /** A form that keeps `typed` as its draft, and shows the draft it opened with. */
  function Form({ typed }: { typed?: string }) {
    const { draft, keep } = useDraft<string>('profile');
    useEffect(() => void (typed && keep(typed)), []);
    return <output>{draft}</output>;
  }
  /** The form opened again (after the tab's reload) in the session `token` of the same user. */
  function reopenIn(token: string) {
    cleanup();
    useSession.setState({ token, user: currentUser() });
    render(<Form />);
    return screen.getByRole('status').textContent;
  }

  /**
   * The other tab, whose session storage is its own, does `what` to the browser's local storage: this
   * tab hears of its token's going or changing, as a browser tells every other tab.
   */
  function anotherTab(what: () => void) {
    const own = Object.getOwnPropertyDescriptor(window, 'sessionStorage');
    Object.defineProperty(window, 'sessionStorage', { value: new OtherTabsSessionStorage(), configurable: true });
    try {
      what();
    } finally {
      if (own) Object.defineProperty(window, 'sessionStorage', own);
      else delete (window as { sessionStorage?: Storage }).sessionStorage;
    }
    window.dispatchEvent(new StorageEvent('storage', { key: TOKEN_KEY, newValue: getToken(), storageArea: localStorage }));
  }
  /** The same user signs in again in the other tab. */
  const signInThere = (token: string) =>
    anotherTab(() => {
      clearStorage({ keepOutbox: true });
      setToken(token);
    });

  it('keeps it when the server ended the session, as the tab that heard of it does', () => {
    render(<Form typed="Ana María" />);
    anotherTab(() => clearStorage({ keepOutbox: true }));
    expect(reload).toHaveBeenCalledOnce();
    signInThere('token-b');
    expect(reopenIn('token-b')).toBe('Ana María');
  });

  it('keeps it through a password changed there: a new token for the same session', () => {
    render(<Form typed="Ana María" />);
    anotherTab(() => setToken('token-b'));
    expect(reload).toHaveBeenCalledOnce();
    expect(reopenIn('token-b')).toBe('Ana María');
  });

  it('drops it when the user signed out there', () => {
    render(<Form typed="Ana María" />);
    anotherTab(() => clearStorage());
    expect(reload).toHaveBeenCalledOnce();
    signInThere('token-b');
    expect(reopenIn('token-b')).toBe('');
  });
});

/** Another tab's session storage: none of this tab's drafts are in it. */
class OtherTabsSessionStorage {
  getItem = () => null;
  setItem() {}
  removeItem() {}
}
