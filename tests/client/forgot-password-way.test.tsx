// @vitest-environment jsdom
/**
 * The way from the login page to a new password and back. "Forgot password?" takes the e-mail typed
 * so far along (in the page's history state, never in its address, which logs and the browser's
 * history keep), and the big Back button of the forgot and reset pages leads back to the login page,
 * where the user came from, not to the landing page; the login page too when the page was opened
 * from an e-mail's link. In the browser's own history (jsdom's), as on a phone.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Route, Router, Switch } from 'wouter';
import { describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { enAccount } from '../../shared/i18n/en-account';
import { AccountLinks } from '../../client/pages/AccountLinks';
import { Login } from '../../client/pages/Login';
import { inEnglishPages } from '../helpers/english-pages';

// The Google button's configuration, and the reset link's check: a link that works.
inEnglishPages((url) => (url.endsWith('/api/auth/password-reset/check/') ? Response.json({ email: 'lena@example.com' }) : Response.json({})));

/** The public pages at `address`, as a tab opened there. */
function open(address: string) {
  window.history.replaceState(null, '', address);
  render(
    <Router>
      <Switch>
        <Route path="/login/" component={Login} />
        <Route path={/^\/(forgot-password|reset-password)\/$/} component={AccountLinks} />
      </Switch>
    </Router>,
  );
}

const emailField = () => screen.findByLabelText<HTMLInputElement>(en['auth.email']);
const back = async () => act(async () => fireEvent.click(await screen.findByRole('button', { name: en['auth.back'] })));
const onLoginPage = () => screen.findByRole('heading', { name: en['login.title'] });

describe('Forgot password? from the login page', () => {
  it('takes the e-mail typed there along, out of the address, for the user to change', async () => {
    open('/login/');
    fireEvent.change(await emailField(), { target: { value: 'ana@example.com' } });
    await act(async () => fireEvent.click(screen.getByRole('link', { name: en['login.forgot'] })));

    await screen.findByRole('heading', { name: enAccount['forgot.title'] });
    expect(await emailField()).toHaveProperty('value', 'ana@example.com');
    expect(window.location.href).not.toContain('ana');
    fireEvent.change(await emailField(), { target: { value: 'ana.r@example.com' } });
    expect(await emailField()).toHaveProperty('value', 'ana.r@example.com');
  });

  it('goes with an empty field when nothing was typed', async () => {
    open('/login/');
    await act(async () => fireEvent.click(await screen.findByRole('link', { name: en['login.forgot'] })));
    await screen.findByRole('heading', { name: enAccount['forgot.title'] });
    expect(await emailField()).toHaveProperty('value', '');
  });
});

describe('The forgot page, once sent', () => {
  it('hands the focus to what it says, when the form it replaces goes', async () => {
    open('/forgot-password/');
    const field = await emailField();
    fireEvent.change(field, { target: { value: 'ana@example.com' } });
    field.focus();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: enAccount['forgot.submit'] })));
    const said = await screen.findByText(enAccount['forgot.sent']);
    // Not dropped on the page's body: the keyboard and a screen reader carry on from the answer.
    expect(document.activeElement).toBe(said);
  });
});

describe('Back on the forgot and reset pages', () => {
  it('returns to the login page the forgot page was opened from, back in the history', async () => {
    open('/login/');
    await act(async () => fireEvent.click(await screen.findByRole('link', { name: en['login.forgot'] })));
    await screen.findByRole('heading', { name: enAccount['forgot.title'] });
    const entries = window.history.length;
    await back();
    await onLoginPage();
    expect(window.location.pathname).toBe('/login/');
    // Not a new page on top: the browser's own Back from the login page does not return to the forgot page.
    expect(window.history.length).toBe(entries);
  });

  it('finds the e-mail typed on the login page still there', async () => {
    open('/login/');
    fireEvent.change(await emailField(), { target: { value: 'ana@example.com' } });
    await act(async () => fireEvent.click(screen.getByRole('link', { name: en['login.forgot'] })));
    await screen.findByRole('heading', { name: enAccount['forgot.title'] });
    await back();
    await onLoginPage();
    expect(await emailField()).toHaveProperty('value', 'ana@example.com');
    expect(window.location.href).not.toContain('ana');
  });

  it.each([
    ['the forgot page', '/forgot-password/', enAccount['forgot.title']],
    ['the reset page', '/reset-password/?token=sent-by-mail', enAccount['reset.title']],
  ])('opens the login page from %s opened from an e-mail’s link', async (_page, address, title) => {
    open(address);
    await screen.findByRole('heading', { name: title });
    await back();
    await onLoginPage();
    expect(window.location.pathname).toBe('/login/');
  });
});
