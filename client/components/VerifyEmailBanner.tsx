import { useRef, useState } from 'react';
import { ApiError } from '../lib/api';
import { accountApi } from '../lib/api-account';
import { errorLine, useFieldErrors } from '../lib/errors';
import { useT } from '../lib/i18n';
import { keptUser, useSession } from '../stores/session';

const DISMISSED_KEY = 'verify_banner_dismissed';

const dismissedThisVisit = () => {
  try {
    return window.sessionStorage.getItem(DISMISSED_KEY) === '1';
  } catch {
    return false;
  }
};

/** Where the address goes in the sentence, put there by the copy's own `{email}`. */
const MARK = '\u0000';

/**
 * "We sent a link to …" with the address whole: on the sentence's line when it fits there, else on a
 * line of its own. Only an address longer than the whole line is cut, in its name and not its domain
 * (`maria.garcia.lo…@gmail.com`): the domain is what shows a mistyped provider.
 */
function SentTo({ text, email }: { text: string; email: string }) {
  const [before = '', after = ''] = text.split(MARK);
  const at = email.includes('@') ? email.lastIndexOf('@') : email.length;
  return (
    <>
      {before}
      <span className="verify-banner-address">
        <span className="verify-banner-local">{email.slice(0, at)}</span>
        <span className="verify-banner-domain">
          {email.slice(at)}
          {after}
        </span>
      </span>
    </>
  );
}

/**
 * Until the e-mail is verified: a dismissible banner with Resend. Dismissed, it stays away
 * for this visit (the tab's session storage) and comes back on the next. Two lines on a phone, three
 * when the address needs a line of its own: it sits above the deck's card and the chat.
 */
export function VerifyEmailBanner() {
  const t = useT();
  // Until the server says who is signed in, the user kept on the device for the token: the banner is
  // there from the first paint, where coming with the answer it pushed every page down.
  const [kept] = useState(() => keptUser(useSession.getState().token));
  const user = useSession((state) => state.user) ?? kept;
  const [dismissed, setDismissed] = useState(dismissedThisVisit);
  const [state, setState] = useState<{ kind: 'idle' | 'busy' | 'sent' | 'failed' }>({ kind: 'idle' });
  // Why it failed, said again in the other language on a switch, as a form's errors are.
  const [failed, setFailed] = useFieldErrors();
  const close = useRef<HTMLButtonElement>(null);

  if (!user || user.email_verified || dismissed) return null;

  async function resend(button: HTMLButtonElement) {
    // Not `disabled` while busy: the button keeps the focus.
    if (state.kind === 'busy') return;
    setState({ kind: 'busy' });
    try {
      await accountApi.resendVerification();
      // Resend goes once used: the focus goes on to ×, beside it, not to <body>.
      if (document.activeElement === button) close.current?.focus();
      setState({ kind: 'sent' });
    } catch (error) {
      setState({ kind: 'failed' });
      setFailed(errorLine(error, t));
      // Verified already (the link opened on another device, its news missed by this one): the account
      // is read again, and the banner goes with it.
      if (error instanceof ApiError && error.status === 409) void useSession.getState().loadUser();
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
      {/* A status: "Sent!" in its place is said where the user is (on ×, or on the page). */}
      <p className="verify-banner-detail" role="status">
        {state.kind === 'sent' ? t('app.verifySent') : <SentTo text={t('app.verifyBanner', { email: MARK })} email={user.email} />}
      </p>
      {state.kind === 'failed' && (
        <p className="verify-banner-error" role="alert">
          {failed.non_field_errors}
        </p>
      )}
      {state.kind !== 'sent' && (
        <button type="button" className="verify-banner-resend" aria-disabled={state.kind === 'busy'} onClick={(event) => void resend(event.currentTarget)}>
          {t('app.verifyResend')}
        </button>
      )}
      <button ref={close} type="button" className="icon-btn verify-banner-close" aria-label={t('app.verifyDismiss')} title={t('app.verifyDismiss')} onClick={dismiss}>
        ×
      </button>
    </div>
  );
}
