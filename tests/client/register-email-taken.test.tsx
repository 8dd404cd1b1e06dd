// @vitest-environment jsdom
/**
 * Registering with an e-mail that already has an account: besides the field's error, a way to the
 * login page, with the e-mail carried over (in the page's history state, as "Forgot password?" does,
 * never in the address) and the password field ready.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Route, Router, Switch } from 'wouter';
import { describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { Login } from '../../client/pages/Login';
import { Register } from '../../client/pages/Register';
import { inEnglishPages } from '../helpers/english-pages';

/** The register endpoint answers with `fields` (a 400's field map); anything else (the Google button's configuration) with `{}`. */
function answerRegister(fields: Record<string, string[]>) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => (String(url).endsWith('/api/auth/register/') ? Response.json(fields, { status: 400 }) : Response.json({}))),
  );
}

inEnglishPages();

function openRegister() {
  window.history.replaceState(null, '', '/register/');
  render(
    <Router>
      <Switch>
        <Route path="/register/" component={Register} />
        <Route path="/login/" component={Login} />
      </Switch>
    </Router>,
  );
}

/** A server line as the field's error line shows it: "e-mail" with a non-breaking hyphen (AuthLayout.tsx). */
const shown = (line: string) => line.replace('e-mail', 'e\u2011mail');

async function register(email: string) {
  fireEvent.change(await screen.findByLabelText(en['auth.email']), { target: { value: email } });
  await act(async () => fireEvent.submit(document.querySelector('form')!));
}

describe('Register with an e-mail already in use', () => {
  it('offers the login page, with the e-mail typed filled in and out of the address', async () => {
    answerRegister({ username: [SERVER_MESSAGES.email_taken.en] });
    openRegister();
    await register('ana@example.com');
    await screen.findByText(shown(SERVER_MESSAGES.email_taken.en));

    await act(async () => fireEvent.click(screen.getByRole('link', { name: en['register.emailTakenLogin'] })));

    await screen.findByRole('heading', { name: en['login.title'] });
    expect(screen.getByLabelText<HTMLInputElement>(en['auth.email']).value).toBe('ana@example.com');
    expect(document.activeElement).toBe(screen.getByLabelText(en['auth.password']));
    expect(window.location.href).not.toContain('ana');
  });

  it('offers no such way for another problem with the e-mail', async () => {
    answerRegister({ username: [SERVER_MESSAGES.invalid_email.en] });
    openRegister();
    await register('ana@example');
    await screen.findByText(shown(SERVER_MESSAGES.invalid_email.en));
    expect(screen.queryByRole('link', { name: en['register.emailTakenLogin'] })).toBeNull();
  });
});
