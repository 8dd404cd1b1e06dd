// @vitest-environment jsdom
/**
 * A guest at the door opens the event's page, taps "Sign up to join" (or "I already have an account"),
 * and changes their mind: the form's Back goes back to the event's page, as the phone's own Back does,
 * not to the landing page. In the browser's own history (jsdom's), as on a phone.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Route, Router, Switch } from 'wouter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { Login } from '../../client/pages/Login';
import { Register } from '../../client/pages/Register';
import { inEnglishPages } from '../helpers/english-pages';

inEnglishPages();

/** The form at `address`, opened from the event's page (its button's history state) or not. */
function openFrom(address: string, fromEvent: boolean) {
  window.history.replaceState(null, '', '/e/K7RM2Q');
  window.history.pushState(fromEvent ? { from: 'event' } : null, '', address);
  render(
    <Router>
      <Switch>
        <Route path="/register/" component={Register} />
        <Route path="/login/" component={Login} />
        <Route path="/e/:code">
          <h1>The event</h1>
        </Route>
        <Route path="/">
          <h1>The landing page</h1>
        </Route>
      </Switch>
    </Router>,
  );
}

const back = async () => act(async () => fireEvent.click(await screen.findByRole('button', { name: en['auth.back'] })));

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Back on the forms opened from an event’s page', () => {
  it.each(['/register/', '/login/'])('goes back to the event from %s', async (address) => {
    openFrom(address, true);
    await back();
    await screen.findByRole('heading', { name: 'The event' });
    expect(window.location.pathname).toBe('/e/K7RM2Q');
  });

  it('still goes back to the event from the log-in form after a look at "Forgot password?"', async () => {
    openFrom('/login/', true);
    fireEvent.change(await screen.findByLabelText(en['auth.email']), { target: { value: 'ana@example.com' } });
    await act(async () => fireEvent.click(screen.getByRole('link', { name: en['login.forgot'] })));
    expect(window.location.pathname).toBe('/forgot-password/');
    await act(async () => {
      const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
      window.history.back();
      await popped;
    });
    await back();
    await screen.findByRole('heading', { name: 'The event' });
  });

  it('goes back to the event from the log-in form that registering opens', async () => {
    // The register endpoint takes the account; anything else (the Google button's configuration) answers `{}`.
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) =>
        String(url).endsWith('/api/auth/register/')
          ? Response.json({ id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: 'Ruiz' }, { status: 201 })
          : Response.json({}),
      ),
    );
    openFrom('/register/', true);
    fireEvent.change(await screen.findByLabelText(en['auth.email']), { target: { value: 'ana@example.com' } });
    await act(async () => fireEvent.submit(document.querySelector('form')!));
    await screen.findByRole('heading', { name: en['login.title'] });
    expect(screen.getByLabelText<HTMLInputElement>(en['auth.email']).value).toBe('ana@example.com');
    await back();
    await screen.findByRole('heading', { name: 'The event' });
    expect(window.location.pathname).toBe('/e/K7RM2Q');
  });

  it('goes to the landing page from a form opened otherwise', async () => {
    openFrom('/register/', false);
    await back();
    await screen.findByRole('heading', { name: 'The landing page' });
  });
});
