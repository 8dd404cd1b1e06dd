import { Link, Redirect } from 'wouter';
import { AuthFormFooter, AuthLayout, FieldErrors } from '../components/AuthLayout';
import { GoogleButton } from '../components/GoogleButtonLazy';
import { api } from '../lib/api';
import { useAuthForm } from '../lib/use-auth-form';

export function Login() {
  const { t, redirect, errors, busy, enter, onSubmit } = useAuthForm();
  if (redirect) return <Redirect to={redirect} replace />;

  const submit = onSubmit(async (value) => {
    enter((await api.login(value('username'), value('password'))).token);
  });

  return (
    <AuthLayout title={t('login.title')}>
      <GoogleButton label={t('login.google')} onToken={enter} />
      <form className="form" onSubmit={submit} noValidate={false}>
        <label className="field">
          <span>{t('auth.email')}</span>
          <input name="username" type="email" autoComplete="email" required aria-describedby="username-error" aria-invalid={Boolean(errors.username)} />
          <FieldErrors id="username-error" errors={errors.username} />
        </label>
        <label className="field">
          <span>{t('auth.password')}</span>
          <input name="password" type="password" autoComplete="current-password" required aria-describedby="password-error" aria-invalid={Boolean(errors.password)} />
          <FieldErrors id="password-error" errors={errors.password} />
        </label>
        <Link href="/forgot-password/" className="link-muted forgot">
          {t('login.forgot')}
        </Link>
        <AuthFormFooter errors={errors.non_field_errors} busy={busy} submitLabel={t('login.submit')} />
      </form>
      <p className="auth-switch">
        {t('login.noAccount')} <Link href="/register">{t('login.registerLink')}</Link>
      </p>
    </AuthLayout>
  );
}
