import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { ApiError, refusedByServer } from '../lib/api';
import { errorMessage, useFieldErrors } from '../lib/errors';
import { GoogleCancelled, googleLogin, googleProfile, preloadGoogle, requestGoogleAccessToken } from '../lib/google';
import { useT } from '../lib/i18n';
import { GOOGLE_CLIENT_KEY, readStorage } from '../lib/storage';
import { useConfig } from '../stores/config';
import { serverLines } from './AuthLayout';
import { BusyButton } from './BusyButton';

/**
 * Shown only when the server has a Google client id (GET /api/config/; until it answers, as this device
 * last read it). Failures are shown to the user, not only logged.
 */
export function GoogleButton({ label, onToken }: { label: string; onToken: (token: string) => void }) {
  const t = useT();
  // Until the server answers, the one this device last read from it: the button in its place at once,
  // not pushing the form down under a finger about to tap it (seconds later on a party's network).
  const clientId = useConfig((state) => (state.config ? state.config.google_client_id : readStorage(GOOGLE_CLIENT_KEY)));
  const loadConfig = useConfig((state) => state.load);
  const [busy, setBusy] = useState(false);
  // Why the last try failed, said again in the other language on a switch, as a form's errors are.
  // `failed`: a refusal says what the server said (a suspended account, an e-mail Google has not
  // verified, too many tries), in the reader's language, and so does a 503 (Google out of the server's
  // reach: use the e-mail and password meanwhile; or the server restarting); anything else is worth a new try.
  // `conflict`: a password account with this e-mail that is not verified yet (a 409): its owner
  // resets the password, which proves the address, and Google links after that.
  const [said, setSaid] = useFieldErrors();
  // The address Google gave, for the 409's "Forgot password?": its page opens with it filled in.
  const [email, setEmail] = useState<string>();

  useEffect(() => {
    void loadConfig().then((config) => {
      if (config?.google_client_id) localStorage.setItem(GOOGLE_CLIENT_KEY, config.google_client_id);
      else if (config) localStorage.removeItem(GOOGLE_CLIENT_KEY);
    });
  }, [loadConfig]);
  // Google's script, loading while the person reads the form: a press then opens the pop-up at once.
  useEffect(() => {
    if (clientId) preloadGoogle();
  }, [clientId]);

  if (!clientId) return null;

  async function signIn(id: string) {
    setBusy(true);
    setSaid({});
    try {
      const accessToken = await requestGoogleAccessToken(id);
      const profile = await googleProfile(accessToken);
      const address = (profile as { email?: unknown } | null)?.email;
      setEmail(typeof address === 'string' ? address : undefined);
      const { token } = await googleLogin(accessToken, profile);
      onToken(token);
    } catch (error) {
      // Closed or declined at Google: back to the button, with nothing to say.
      if (error instanceof GoogleCancelled) return;
      console.error('Google sign-in failed', error);
      // The server wrote it in the reader's language (Accept-Language).
      if (error instanceof ApiError && error.status === 409) {
        setSaid({ conflict: [error.message] });
      } else {
        const why = refusedByServer(error) ? errorMessage(error, t) : error instanceof ApiError && error.status === 503 && error.detail;
        setSaid({ failed: [why || t('auth.googleFailed')] });
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="google-block">
      <BusyButton type="button" className="btn btn-google" busy={busy} onClick={() => void signIn(clientId)}>
        <svg width="18" height="18" viewBox="0 0 48 48" aria-hidden="true">
          <path fill="#FFC107" d="M43.6 20.1H42V20H24v8h11.3C33.7 32.7 29.2 36 24 36c-6.6 0-12-5.4-12-12s5.4-12 12-12c3.1 0 5.8 1.2 7.9 3.1l5.7-5.7C34 6.1 29.3 4 24 4 12.9 4 4 12.9 4 24s8.9 20 20 20 20-8.9 20-20c0-1.3-.1-2.6-.4-3.9z" />
          <path fill="#FF3D00" d="m6.3 14.7 6.6 4.8C14.7 15.1 19 12 24 12c3.1 0 5.8 1.2 7.9 3.1l5.7-5.7C34 6.1 29.3 4 24 4 16.3 4 9.7 8.3 6.3 14.7z" />
          <path fill="#4CAF50" d="M24 44c5.2 0 9.9-2 13.4-5.2l-6.2-5.2C29.2 35.1 26.7 36 24 36c-5.2 0-9.6-3.3-11.3-7.9l-6.5 5C9.5 39.6 16.2 44 24 44z" />
          <path fill="#1976D2" d="M43.6 20.1H42V20H24v8h11.3c-.8 2.2-2.2 4.2-4.1 5.6l6.2 5.2C37 39.2 44 34 44 24c0-1.3-.1-2.6-.4-3.9z" />
        </svg>
        {label}
      </BusyButton>
      {said.failed?.[0] && (
        <p className="form-error" role="alert">
          {serverLines([said.failed[0]])}
        </p>
      )}
      {said.conflict?.[0] && (
        <p className="form-error" role="alert">
          {serverLines([said.conflict[0]])} <Link href="/forgot-password/" state={{ email }}>
            {t('login.forgot')}
          </Link>
        </p>
      )}
      <p className="divider">
        <span>{t('auth.or')}</span>
      </p>
    </div>
  );
}
