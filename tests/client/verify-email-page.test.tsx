// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { ApiError, NetworkError, Throttled, ValidationError } from '../../client/lib/api';
import { accountApi } from '../../client/lib/api-account';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { AccountLinks } from '../../client/pages/AccountLinks';
import { VerifyEmail } from '../../client/pages/VerifyEmail';
import { useSession } from '../../client/stores/session';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { currentUser } from '../helpers/current-user';

let tokens = 0;

/** The e-mail's link opened, with a token of its own: the page asks the server once per token. */
async function openLink() {
  window.history.replaceState(null, '', `/verify-email?token=token-${++tokens}`);
  await initLanguage();
  render(
    <Suspense fallback={null}>
      <VerifyEmail />
    </Suspense>,
  );
}

/** The e-mail's link opened with a token the server refuses (used, expired, or never good). */
async function openRefusedLink() {
  vi.spyOn(accountApi, 'verifyEmail').mockRejectedValue(new ValidationError({ token: ['This link is invalid or has expired.'] }));
  await openLink();
}

describe('the verification link, refused by the server', () => {
  beforeEach(() => useSession.setState({ token: null, user: null }));
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    useSession.setState({ token: null, user: null });
  });

  it('signed out: no error, says the link may have been used and that a verified user can just log in', async () => {
    await openRefusedLink();
    const status = await screen.findByText(es['verify.spent']);
    expect(status.getAttribute('role')).toBe('status');
    expect(status.textContent).toMatch(/puede que ya se haya usado/);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByText(es['verify.invalid'])).toBeNull();
    expect(screen.getByRole('link', { name: es['verify.toLogin'] }).getAttribute('href')).toBe('/login/');
  });

  it('signed in and still unverified: says the link is invalid and offers a new one', async () => {
    // The page reads the user again after the answer: here, still unverified.
    useSession.setState({ token: 'a-token', user: currentUser({ email_verified: false }) });
    vi.spyOn(useSession.getState(), 'loadUser').mockResolvedValue(undefined);
    await openRefusedLink();
    expect((await screen.findByRole('alert')).textContent).toBe(es['verify.invalid']);
    expect(screen.getByRole('button', { name: es['verify.resend'] })).toBeTruthy();
  });

  it('keeps the server’s "e-mail" whole at a line’s end when a new link is refused (English)', async () => {
    useSession.setState({ token: 'a-token', user: currentUser({ email_verified: false }) });
    vi.spyOn(useSession.getState(), 'loadUser').mockResolvedValue(undefined);
    const refused = SERVER_MESSAGES.mail_address_refused.en;
    vi.spyOn(accountApi, 'resendVerification').mockRejectedValue(new ApiError(409, 'HTTP 409', null, refused));
    await openRefusedLink();
    try {
      await act(() => useLanguage.getState().setLanguage('en'));
      await act(async () => fireEvent.click(await screen.findByRole('button', { name: en['verify.resend'] })));
      // On a 320–328 px phone it broke as "this e-" / "mail address": the app's copy writes a non-breaking hyphen.
      expect(await screen.findByText(refused.replace('e-mail', 'e\u2011mail'))).toBeTruthy();
    } finally {
      await act(() => useLanguage.getState().setLanguage('es'));
    }
  });
});

describe('the verification link, refused, and a new one that could not be sent', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    useSession.setState({ token: null, user: null });
  });

  it('says why again in the language switched to', async () => {
    useSession.setState({ token: 'a-token', user: currentUser({ email_verified: false }) });
    vi.spyOn(useSession.getState(), 'loadUser').mockResolvedValue(undefined);
    vi.spyOn(accountApi, 'resendVerification').mockRejectedValue(new NetworkError(0, 'Network error'));
    await openRefusedLink();
    fireEvent.click(await screen.findByRole('button', { name: es['verify.resend'] }));
    await screen.findByText(es['error.network']);
    try {
      await act(() => useLanguage.getState().setLanguage('en'));
      await screen.findByText(en['error.network']);
      expect(screen.queryByText(es['error.network'])).toBeNull();
    } finally {
      await act(() => useLanguage.getState().setLanguage('es'));
    }
  });
});

describe('the verification link, while its address is over the hour’s limit of links opened', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    useSession.setState({ token: null, user: null });
  });

  // A crowd behind one Wi-Fi address opening their links within the hour: the link is still good.
  it('says to wait and try again, not that the link is bad, and the same link then verifies', async () => {
    useSession.setState({ token: 'a-token', user: currentUser({ email_verified: false }) });
    vi.spyOn(useSession.getState(), 'loadUser').mockResolvedValue(undefined);
    const throttled = new Throttled(429, 'Request was throttled. Expected available in 540 seconds.');
    throttled.retryAfterSeconds = 540;
    const verify = vi
      .spyOn(accountApi, 'verifyEmail')
      .mockRejectedValueOnce(throttled)
      .mockResolvedValueOnce({ detail: 'Your e-mail address is verified.', email: currentUser().email });
    await openLink();

    expect((await screen.findByRole('alert')).textContent).toBe(es['error.throttledForMinutes'].replace('{minutes}', '9'));
    expect(screen.queryByText(es['verify.invalid'])).toBeNull();
    expect(screen.queryByText(es['verify.spent'])).toBeNull();
    // Not a new link: this one works once the wait is over.
    expect(screen.queryByRole('button', { name: es['verify.resend'] })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: es['verify.retry'] }));
    await screen.findByText(es['verify.done']);
    expect(verify).toHaveBeenCalledTimes(2);
  });
});

describe('the verification link, accepted', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    useSession.setState({ token: null, user: null });
  });

  async function openGoodLinkFor(email: string) {
    vi.spyOn(accountApi, 'verifyEmail').mockResolvedValue({ detail: 'Your e-mail address is verified.', email });
    vi.spyOn(useSession.getState(), 'loadUser').mockResolvedValue(undefined);
    await openLink();
  }

  it('says the address is verified to its own account', async () => {
    useSession.setState({ token: 'a-token', user: currentUser({ email_verified: false }) });
    await openGoodLinkFor(currentUser().email);
    await screen.findByText(es['verify.done']);
  });

  it('names the address when the link was another account\'s, opened where this one is signed in', async () => {
    useSession.setState({ token: 'a-token', user: currentUser({ email_verified: false }) });
    await openGoodLinkFor('lena@example.com');
    await screen.findByText(es['verify.doneOther'].replace('{email}', 'lena@example.com'));
    expect(screen.queryByText(es['verify.done'])).toBeNull();
  });

  // The link opened in a tab of its own, where another account is signed in (a shared phone): the page
  // knows the token, not yet whose it is, when the server accepts the link.
  it('says whose address it verified only once it knows who is signed in, not "yours" before', async () => {
    useSession.setState({ token: 'a-token', user: undefined });
    let answerUser = () => {};
    const loadUser = vi.spyOn(useSession.getState(), 'loadUser').mockImplementation(
      () =>
        new Promise<void>((resolve) => {
          answerUser = () => {
            useSession.setState({ user: currentUser({ email_verified: false }) });
            resolve();
          };
        }),
    );
    vi.spyOn(accountApi, 'verifyEmail').mockResolvedValue({ detail: 'Your e-mail address is verified.', email: 'lena@example.com' });
    await openLink();

    // Accepted, and the user asked for: until they answer, the page says it is still at it.
    await vi.waitFor(() => expect(loadUser).toHaveBeenCalled());
    expect(screen.queryByText(es['verify.done'])).toBeNull();
    expect(screen.getByText(es['verify.checking'])).toBeTruthy();

    await act(async () => answerUser());
    await screen.findByText(es['verify.doneOther'].replace('{email}', 'lena@example.com'));
    expect(screen.queryByText(es['verify.done'])).toBeNull();
  });
});

describe('an e-mail’s link, opened where no language was ever chosen', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    localStorage.clear();
  });

  async function open(path: string) {
    vi.spyOn(accountApi, 'verifyEmail').mockRejectedValue(new ValidationError({ token: ['This link is invalid or has expired.'] }));
    window.history.replaceState(null, '', path);
    await initLanguage();
    render(
      <Suspense fallback={null}>
        <AccountLinks />
      </Suspense>,
    );
  }

  it('opens in the language the e-mail was written in, not the default', async () => {
    // An English e-mail opened on a computer that never saw the app read as Spanish.
    localStorage.clear();
    await open(`/verify-email?token=token-${++tokens}&lang=en`);
    await screen.findByText(en['verify.spent']);
    expect(document.documentElement.lang).toBe('en');
    // The e-mail's, not a choice of the device's: an account read here later is followed still.
    expect(localStorage.getItem('language_code')).toBeNull();
  });

  it('keeps the language chosen on this device', async () => {
    localStorage.setItem('language_code', 'es');
    await open(`/verify-email?token=token-${++tokens}&lang=en`);
    await screen.findByText(es['verify.spent']);
    expect(useLanguage.getState().language).toBe('es');
  });
});
