import { Link, useSearch } from 'wouter';
import '../account.css';
import '../lib/messages-account';
import { AuthFormFooter, AuthLayout, FieldErrors } from '../components/AuthLayout';
import { api } from '../lib/api';
import { useAuthForm } from '../lib/use-auth-form';

/** The e-mail's link: a new password, and the user is signed in with the token the server answers. */
export function ResetPassword() {
  const { t, errors, busy, enter, onSubmit } = useAuthForm();
  const token = new URLSearchParams(useSearch()).get('token') ?? '';

  const submit = onSubmit(async (value) => {
    const answer = await api.confirmPasswordReset(token, value('password'), value('password2'));
    enter(answer.token);
  });

  // A link that cannot work (no token, or the server said so): say it, and offer a new one.
  const linkProblem = !token || errors.token;
  return (
    <AuthLayout title={t('reset.title')}>
      {linkProblem && (
        <p className="form-error" role="alert">
          {t('reset.invalid')} <Link href="/forgot-password/">{t('reset.askAgain')}</Link>
        </p>
      )}
      {token && (
        <form className="form" onSubmit={submit}>
          <label className="field">
            <span>{t('reset.password')}</span>
            <input name="password" type="password" autoComplete="new-password" required aria-describedby="password-error" aria-invalid={Boolean(errors.password)} />
            <FieldErrors id="password-error" errors={errors.password} />
          </label>
          <label className="field">
            <span>{t('reset.password2')}</span>
            <input name="password2" type="password" autoComplete="new-password" required aria-describedby="password2-error" aria-invalid={Boolean(errors.password2)} />
            <FieldErrors id="password2-error" errors={errors.password2} />
          </label>
          <AuthFormFooter errors={errors.non_field_errors} busy={busy} submitLabel={t('reset.submit')} />
        </form>
      )}
    </AuthLayout>
  );
}
