// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { ApiError, Throttled } from '../../client/lib/api';
import { accountApi } from '../../client/lib/api-account';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { Settings } from '../../client/pages/app/Settings';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

/** Settings as the app shows it: within /app/, whose copy it shares ("Sent!", as the banner says it). */
function InApp() {
  useMessages(appMessages);
  return <Settings />;
}

async function showSettings(emailVerified: boolean, language: 'es' | 'en' = 'es') {
  window.history.replaceState(null, '', '/app/settings/');
  localStorage.setItem('language_code', language);
  useSession.setState({ user: currentUser({ email_verified: emailVerified }) });
  await initLanguage();
  render(
    <Suspense fallback={null}>
      <InApp />
    </Suspense>,
  );
  await screen.findByRole('heading', { name: { es, en }[language]['settings.account'] });
}

const resendButton = () => screen.queryByRole('button', { name: es['settings.verifyResend'] });

describe('Settings, an address not verified yet', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    useSession.setState({ user: null });
  });

  it('offers Resend beside the badge, which sends a new link the way the banner does', async () => {
    const resend = vi.spyOn(accountApi, 'resendVerification').mockResolvedValue({ detail: 'Sent.' });
    await showSettings(false);
    const button = resendButton()!;
    expect(button.closest('.settings-row')?.textContent).toContain(es['settings.notVerified']);
    button.focus();
    fireEvent.click(button);
    const sent = await screen.findByRole('status');
    expect(sent.textContent).toBe(es['app.verifySent']);
    expect(resend).toHaveBeenCalledTimes(1);
    // Sent, Resend goes as the banner's does: pressed again, it mailed another link each time and
    // spent the hour's five, to answer "Too many attempts". The focus goes on to what it said.
    expect(resendButton()).toBeNull();
    expect(document.activeElement).toBe(sent);
  });

  it('says how long to wait when resending is throttled', async () => {
    const throttled = new Throttled(429, 'Request was throttled.');
    throttled.retryAfterSeconds = 3124;
    vi.spyOn(accountApi, 'resendVerification').mockRejectedValue(throttled);
    await showSettings(false);
    fireEvent.click(resendButton()!);
    expect((await screen.findByRole('alert')).textContent).toBe('Demasiados intentos. Vuelve a intentarlo en 53 min.');
    // Nothing was sent: it stays, for when the wait is over, as the banner's does.
    expect(resendButton()).toBeTruthy();
  });

  it('says the link could not be sent when the mail server did not take it', async () => {
    const unsent = new ApiError(503, 'HTTP 503', 'mail_unavailable', 'No se ha podido enviar el correo ahora.');
    vi.spyOn(accountApi, 'resendVerification').mockRejectedValue(unsent);
    await showSettings(false);
    fireEvent.click(resendButton()!);
    expect((await screen.findByRole('alert')).textContent).toBe(es['error.mailUnavailable']);
    expect(screen.queryByText(es['app.verifySent'])).toBeNull();
    expect(resendButton()).toBeTruthy();
  });

  it('keeps the server’s "e-mail" whole at a line’s end when the mail server refuses the address (English)', async () => {
    const refused = SERVER_MESSAGES.mail_address_refused.en;
    vi.spyOn(accountApi, 'resendVerification').mockRejectedValue(new ApiError(409, 'HTTP 409', null, refused));
    await showSettings(false, 'en');
    fireEvent.click(screen.getByRole('button', { name: en['settings.verifyResend'] }));
    // On a 320 px phone it broke as "this e-" / "mail address": the app's copy writes a non-breaking hyphen.
    expect((await screen.findByRole('alert')).textContent).toBe(refused.replace('e-mail', 'e\u2011mail'));
  });

  it('offers nothing to resend once the address is verified', async () => {
    await showSettings(true);
    expect(screen.getByText(es['settings.verified'])).toBeTruthy();
    expect(resendButton()).toBeNull();
  });
});
