// @vitest-environment jsdom
/**
 * While the signed-in app's code loads after "Log in" (seconds, on a slow phone), the page is not an
 * empty one: it says it is loading, in the reader's language (the spinner is styles.css's).
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../client/App';
import { disconnectSocket } from '../../client/lib/socket';
import { initLanguage } from '../../client/lib/i18n';
import { useSession } from '../../client/stores/session';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { currentUser } from '../helpers/current-user';

afterEach(() => {
  cleanup();
  disconnectSocket();
  useSession.setState({ token: null, user: undefined });
});

describe('the wait for a page’s code', () => {
  it.each([
    ['es', es['app.loading']],
    ['en', en['app.loading']],
  ])('says it is loading (%s) until the app is there', { timeout: 30_000 }, async (language, loading) => {
    localStorage.clear();
    localStorage.setItem('language_code', language);
    await initLanguage();
    localStorage.setItem('auth_token', 'token');
    useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
    window.history.replaceState(null, '', '/app/profile/');
    const view = render(<App />);
    expect(screen.getByRole('status').textContent).toBe(loading);
    // The app, once its code is there (the first time, transformed for the test: slow): the wait's line has gone.
    await waitFor(() => expect(view.container.querySelector('.bottom-nav')).not.toBeNull(), { timeout: 20_000 });
    expect(view.container.querySelector('.page-loading')).toBeNull();
  });
});
