// @vitest-environment jsdom
/**
 * The login page's notice of why the server ended the session (`?suspended`, `?ended`) says why the
 * user is there; once they log in again, the form's own answer takes its place. A suspended account
 * trying again was told "This account has been suspended." twice, one above the other.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Route, Router } from 'wouter';
import { describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { Login } from '../../client/pages/Login';
import { inEnglishPages } from '../helpers/english-pages';

const SUSPENDED = 'This account has been suspended.';

inEnglishPages((url) =>
  url.endsWith('/api/auth/') ? Response.json({ detail: SUSPENDED, code: 'account_suspended' }, { status: 403 }) : Response.json({}),
);

describe('the login page after a ban', () => {
  it('says the account is suspended once, not again beside the form’s answer', async () => {
    window.history.replaceState(null, '', '/login/?suspended');
    render(
      <Router>
        <Route path="/login/" component={Login} />
      </Router>,
    );
    expect(await screen.findByText(en['login.suspended'])).toBeTruthy();

    fireEvent.change(screen.getByLabelText(en['auth.email']), { target: { value: 'ana@example.com' } });
    fireEvent.change(screen.getByLabelText(en['auth.password']), { target: { value: 'party-time-2026' } });
    await act(async () => fireEvent.submit(screen.getByRole('button', { name: en['login.submit'] })));

    expect(await screen.findByRole('alert')).toHaveProperty('textContent', SUSPENDED);
    expect(screen.getAllByText(SUSPENDED)).toHaveLength(1);
  });
});
