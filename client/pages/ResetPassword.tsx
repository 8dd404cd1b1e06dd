import { useEffect, useState } from 'react';
import { Link, useSearch } from 'wouter';
import type { PasswordResetLink } from '../../shared/schemas/account';
import '../account.css';
import { accountMessages } from '../lib/messages-account';
import { AuthFormFooter, AuthLayout, FormField } from '../components/AuthLayout';
import { Throttled, ValidationError } from '../lib/api';
import { accountApi } from '../lib/api-account';
import { errorMessage } from '../lib/errors';
import { toast } from '../lib/toast';
import { useAuthForm } from '../lib/use-auth-form';
import { useMessages } from '../lib/i18n';
import { useSession } from '../stores/session';

/**
 * What the server says of the link as the page opens: `refused` when it can no longer be used (spent,
 * expired, never issued), so that nobody types a new password twice for nothing; else the address of
 * the account it resets. Too many links opened from this address this hour (a crowd on one Wi-Fi):
 * the save would be refused as well, so the wait is said before a password is typed, and the form
 * stays for then. No answer leaves the form: its send will say.
 */
function useResetLink(token: string) {
  const [link, setLink] = useState<'refused' | PasswordResetLink | null>(null);
  const [throttled, setThrottled] = useState<Throttled | null>(null);
  useEffect(() => {
    if (!token) return;
    let live = true;
    accountApi.checkPasswordReset(token).then(
      (answer) => {
        if (live) setLink(answer);
      },
      (error: unknown) => {
        if (!live) return;
        if (error instanceof ValidationError && error.fields.token) setLink('refused');
        else if (error instanceof Throttled) setThrottled(error);
      },
    );
    return () => {
      live = false;
    };
  }, [token]);
  return { link, throttled };
}

/**
 * The address of the account signed in on this device, read from the server when the page opens in
 * a tab of its own (the e-mail's link): saving signs the device in with the link's account instead.
 */
function useSignedInEmail() {
  const signedIn = useSession((state) => Boolean(state.token));
  const loadUser = useSession((state) => state.loadUser);
  useEffect(() => {
    if (signedIn && useSession.getState().user === undefined) void loadUser();
  }, [signedIn, loadUser]);
  return useSession((state) => (state.token ? state.user?.email : undefined));
}

/** The e-mail's link: a new password, and the user is signed in with the token the server answers. */
export function ResetPassword() {
  useMessages(accountMessages);
  const { t, navigate, errors, busy, enter, onSubmit } = useAuthForm();
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const { link, throttled } = useResetLink(token);
  const refused = link === 'refused';
  const myEmail = useSignedInEmail();
  const otherAccount = link !== null && link !== 'refused' && myEmail !== undefined && myEmail !== link.email;
  // An account made with Google has no password yet: this link sets its first.
  const first = link !== null && link !== 'refused' && link.has_password === false;

  const submit = onSubmit(async (value) => {
    const answer = await accountApi.confirmPasswordReset(token, value('password'), value('password2'));
    // Said on the deck the app opens on, in this page's words (loaded with it). The link is spent: in
    // its page's place, so that Back does not open it to say it no longer works.
    toast.success(t(first ? 'reset.firstDone' : 'reset.done'));
    enter(answer.token, { replace: true });
  });

  // A link that cannot work (no token, or the server said so): say it, and offer a new one instead
  // of a form, whose heading would ask for a password the link can no longer set.
  const linkProblem = !token || refused || Boolean(errors.token);
  return (
    <AuthLayout title={t(linkProblem ? 'reset.deadTitle' : first ? 'reset.firstTitle' : 'reset.title')}>
      {/* The page's one way on: a button a thumb can take, not a link within the error's line. */}
      {linkProblem && (
        <>
          <p className="form-error" role="alert">
            {t('reset.invalid')}
          </p>
          <Link href="/forgot-password/" className="btn btn-primary btn-block">
            {t('reset.askAgain')}
          </Link>
        </>
      )}
      {/* Another account's link, opened where this one is signed in (a shared phone): said before it is replaced. */}
      {otherAccount && (
        <p className="status-warn" role="status">
          {t('reset.otherAccount', { me: myEmail, email: link.email })}
        </p>
      )}
      {/* Until the form is sent: then its own answer says. */}
      {throttled && !busy && !linkProblem && Object.keys(errors).length === 0 && (
        <p className="form-error" role="alert">
          {errorMessage(throttled, t)}
        </p>
      )}
      {!linkProblem && (
        <form className="form" onSubmit={submit}>
          {/* A first password (an account made with Google) is labelled as at registration: not a "new" one. */}
          <FormField name="password" label={t(first ? 'auth.password' : 'reset.password')} type="password" autoComplete="new-password" errors={errors.password} />
          <FormField name="password2" label={t(first ? 'register.password2' : 'reset.password2')} type="password" autoComplete="new-password" errors={errors.password2} />
          {/* Opened from an e-mail: Back leads to the login page, where the password is used, not to the landing page. */}
          <AuthFormFooter errors={errors.non_field_errors} busy={busy} submitLabel={t('reset.submit')} back={() => navigate('/login/')} />
        </form>
      )}
    </AuthLayout>
  );
}
