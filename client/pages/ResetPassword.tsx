import { useEffect, useState } from 'react';
import { Link, useSearch } from 'wouter';
import '../account.css';
import { accountMessages } from '../lib/messages-account';
import { AuthFormFooter, AuthLayout, FormField } from '../components/AuthLayout';
import { ValidationError } from '../lib/api';
import { accountApi } from '../lib/api-account';
import { toast } from '../lib/toast';
import { useAuthForm } from '../lib/use-auth-form';
import { useMessages } from '../lib/i18n';

/**
 * Whether the server says the link can no longer be used (spent, expired, never issued), asked as the
 * page opens so that nobody types a new password twice for nothing. No answer leaves the form: its
 * send will say.
 */
function useLinkRefused(token: string) {
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    if (!token) return;
    let live = true;
    accountApi.checkPasswordReset(token).catch((error: unknown) => {
      if (live && error instanceof ValidationError && error.fields.token) setRefused(true);
    });
    return () => {
      live = false;
    };
  }, [token]);
  return refused;
}

/** The e-mail's link: a new password, and the user is signed in with the token the server answers. */
export function ResetPassword() {
  useMessages(accountMessages);
  const { t, errors, busy, enter, onSubmit } = useAuthForm();
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const refused = useLinkRefused(token);

  const submit = onSubmit(async (value) => {
    const answer = await accountApi.confirmPasswordReset(token, value('password'), value('password2'));
    // Said on the deck the app opens on, in this page's words (loaded with it). The link is spent: in
    // its page's place, so that Back does not open it to say it no longer works.
    toast.success(t('reset.done'));
    enter(answer.token, { replace: true });
  });

  // A link that cannot work (no token, or the server said so): say it, and offer a new one.
  const linkProblem = !token || refused || errors.token;
  return (
    <AuthLayout title={t('reset.title')}>
      {linkProblem && (
        <p className="form-error" role="alert">
          {t('reset.invalid')} <Link href="/forgot-password/">{t('reset.askAgain')}</Link>
        </p>
      )}
      {token && !refused && (
        <form className="form" onSubmit={submit}>
          <FormField name="password" label={t('reset.password')} type="password" autoComplete="new-password" errors={errors.password} />
          <FormField name="password2" label={t('reset.password2')} type="password" autoComplete="new-password" errors={errors.password2} />
          <AuthFormFooter errors={errors.non_field_errors} busy={busy} submitLabel={t('reset.submit')} />
        </form>
      )}
    </AuthLayout>
  );
}
