import { useState } from 'react';
import { accountApi } from '../lib/api-account';
import { errorMessage } from '../lib/errors';
import { useT } from '../lib/i18n';
import { useSession } from '../stores/session';

const DISMISSED_KEY = 'verify_banner_dismissed';

const dismissedThisVisit = () => {
  try {
    return window.sessionStorage.getItem(DISMISSED_KEY) === '1';
  } catch {
    return false;
  }
};

/**
 * Until the e-mail is verified: a dismissible banner with Resend. Dismissed, it stays away
 * for this visit (the tab's session storage) and comes back on the next. Two lines on any phone (the
 * address given the banner's whole width, cut short only if it must): it sits above the deck's card
 * and the chat.
 */
export function VerifyEmailBanner() {
  const t = useT();
  const user = useSession((state) => state.user);
  const [dismissed, setDismissed] = useState(dismissedThisVisit);
  const [state, setState] = useState<{ kind: 'idle' | 'busy' | 'sent' } | { kind: 'failed'; message: string }>({ kind: 'idle' });

  if (!user || user.email_verified || dismissed) return null;

  async function resend() {
    setState({ kind: 'busy' });
    try {
      await accountApi.resendVerification();
      setState({ kind: 'sent' });
    } catch (error) {
      setState({ kind: 'failed', message: errorMessage(error, t) });
    }
  }

  function dismiss() {
    try {
      window.sessionStorage.setItem(DISMISSED_KEY, '1');
    } catch {
      // Private mode without storage: dismissed until the page reloads.
    }
    setDismissed(true);
  }

  return (
    <div className="verify-banner" role="region" aria-label={t('app.verifyTitle')}>
      <strong className="verify-banner-title">{t('app.verifyTitle')}</strong>
      <p className="verify-banner-detail">{state.kind === 'sent' ? t('app.verifySent') : t('app.verifyBanner', { email: user.email })}</p>
      {state.kind === 'failed' && <p className="verify-banner-error">{state.message}</p>}
      {state.kind !== 'sent' && (
        <button type="button" className="verify-banner-resend" disabled={state.kind === 'busy'} onClick={() => void resend()}>
          {t('app.verifyResend')}
        </button>
      )}
      <button type="button" className="icon-btn verify-banner-close" aria-label={t('app.verifyDismiss')} title={t('app.verifyDismiss')} onClick={dismiss}>
        ×
      </button>
    </div>
  );
}
