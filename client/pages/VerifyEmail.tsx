import { useEffect, useState } from 'react';
import { Link, useSearch } from 'wouter';
import '../account.css';
import { accountMessages } from '../lib/messages-account';
import { AuthLayout, serverLines } from '../components/AuthLayout';
import { refusedByServer, Throttled } from '../lib/api';
import { errorLine, errorMessage, useFieldErrors } from '../lib/errors';
import { accountApi } from '../lib/api-account';
import { useMessages, useT } from '../lib/i18n';
import { useSession } from '../stores/session';

/**
 * `unreachable`: no answer (no network, a server not up): the link may still be good, to try again.
 * `throttled`: too many links opened from this address this hour (a crowd on one Wi-Fi): good, to try
 * again once the wait is over. Verified, the address it was for.
 */
type Outcome = 'checking' | { verified: string } | 'invalid' | 'unreachable' | { throttled: Throttled };

/** No verdict on the link: the same one may go again. */
const undecided = (outcome: Outcome) => outcome === 'unreachable' || (typeof outcome === 'object' && 'throttled' in outcome);

// One request per token however often the page mounts (React's strict mode mounts twice): a second
// request would find the link spent and contradict the first. One that got no answer may go again.
const verifications = new Map<string, Promise<Outcome>>();
function verifyOnce(token: string): Promise<Outcome> {
  let verification = verifications.get(token);
  if (!verification) {
    verification = token
      ? accountApi.verifyEmail(token).then(
          ({ email }) => ({ verified: email }),
          (error: unknown) => {
            if (refusedByServer(error) && !(error instanceof Throttled)) return 'invalid' as const;
            verifications.delete(token);
            return error instanceof Throttled ? { throttled: error } : ('unreachable' as const);
          },
        )
      : Promise.resolve('invalid' as const);
    verifications.set(token, verification);
  }
  return verification;
}

/** The verification e-mail's link. Works signed in or not; signed in, the app's banner goes away. */
export function VerifyEmail() {
  useMessages(accountMessages);
  const t = useT();
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const signedIn = useSession((state) => Boolean(state.token));
  const verified = useSession((state) => state.user?.email_verified === true);
  const myEmail = useSession((state) => state.user?.email);
  const loadUser = useSession((state) => state.loadUser);
  const [answer, setAnswer] = useState<Outcome>('checking');
  // Signed in, what the link's answer means depends on who is (whose address it was, verified already or
  // not): said once they are known, read after the answer, not as "yours" before.
  const outcome = signedIn && !myEmail && !undecided(answer) ? 'checking' : answer;
  const [resend, setResend] = useState<'idle' | 'sent'>('idle');
  // Why the new link could not be sent, said again in the other language on a switch, as a form's errors are.
  const [failed, setFailed] = useFieldErrors();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    void verifyOnce(token).then((result) => {
      if (!current) return;
      setAnswer(result);
      // Verified now, or perhaps before (a spent link opened again): the page and the app read the user.
      if (!undecided(result) && signedIn) void loadUser();
    });
    return () => {
      current = false;
    };
  }, [token, signedIn, loadUser, attempt]);

  return (
    <AuthLayout title={t('verify.title')}>
      {outcome === 'checking' && (
        <p className="muted" role="status" aria-busy="true">
          {t('verify.checking')}
        </p>
      )}
      {typeof outcome === 'object' && 'verified' in outcome && (
        <p className="status-ok" role="status">
          {/* Another account's link, opened where this one is signed in (a shared phone): said as such. */}
          {signedIn && myEmail && myEmail !== outcome.verified ? t('verify.doneOther', { email: outcome.verified }) : t('verify.done')}
        </p>
      )}
      {/* A spent link opened again by someone whose address is verified: nothing is wrong. */}
      {outcome === 'invalid' && verified && (
        <p className="status-ok" role="status">
          {t('verify.already')}
        </p>
      )}
      {outcome === 'invalid' && signedIn && !verified && (
        <p className="form-error" role="alert">
          {t('verify.invalid')}
        </p>
      )}
      {/* Signed out, the page cannot tell a used link from a stale one, nor whether the address is verified. */}
      {outcome === 'invalid' && !signedIn && (
        <p className="muted" role="status">
          {t('verify.spent')}
        </p>
      )}
      {outcome === 'unreachable' && (
        <p className="form-error" role="alert">
          {t('verify.unreachable')}
        </p>
      )}
      {typeof outcome === 'object' && 'throttled' in outcome && (
        <p className="form-error" role="alert">
          {errorMessage(outcome.throttled, t)}
        </p>
      )}
      {resend === 'sent' && (
        <p className="status-ok" role="status">
          {t('verify.resent')}
        </p>
      )}
      {failed.non_field_errors && (
        <p className="form-error" role="alert">
          {serverLines(failed.non_field_errors)}
        </p>
      )}
      <div className="form-actions">
        {undecided(outcome) && (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => {
              setAnswer('checking');
              setAttempt((count) => count + 1);
            }}
          >
            {t('verify.retry')}
          </button>
        )}
        {outcome === 'invalid' && signedIn && !verified && resend !== 'sent' && (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() =>
              void accountApi.resendVerification().then(
                () => {
                  setFailed({});
                  setResend('sent');
                },
                (error: unknown) => {
                  setFailed(errorLine(error, t));
                  // Verified meanwhile (on another device): the page says so once the user is read again.
                  void loadUser();
                },
              )
            }
          >
            {t('verify.resend')}
          </button>
        )}
        {outcome !== 'checking' && (
          <Link href={signedIn ? '/app/home/' : '/login/'} className={undecided(outcome) ? 'btn btn-ghost' : 'btn btn-primary'}>
            {signedIn ? t('verify.toApp') : t('verify.toLogin')}
          </Link>
        )}
      </div>
    </AuthLayout>
  );
}
