import { Link, Redirect } from 'wouter';
import { AuthFormFooter, AuthLayout, FormField } from '../components/AuthLayout';
import { GoogleButton } from '../components/GoogleButtonLazy';
import { api } from '../lib/api';
import { useAuthForm } from '../lib/use-auth-form';
import type { SessionEnd } from '../stores/session';

export function Login() {
  const { t, navigate, redirect, errors, busy, enter, onSubmit } = useAuthForm();
  if (redirect) return <Redirect to={redirect} replace />;
  // Just registered, or back from "Forgot password?": the e-mail typed. Signed out by the server (`endRevokedSession`): say why,
  // until the form answers a new try in its place (a suspended account's was the same words twice).
  const registered = (window.history.state as { email?: string } | null)?.email;
  const query = new URLSearchParams(window.location.search);
  const ended = Object.keys(errors).length === 0 && (['suspended', 'deleted', 'ended'] as const satisfies readonly SessionEnd[]).find((why) => query.has(why));

  const submit = onSubmit(async (value) => {
    enter((await api.login(value('username'), value('password'))).token);
  });

  return (
    <AuthLayout title={t('login.title')}>
      <GoogleButton label={t('login.google')} onToken={enter} />
      {ended && (
        <p className="auth-notice" role="status">
          {t(`login.${ended}`)}
          {query.has('unsent') && ` ${t('login.unsent')}`}
        </p>
      )}
      <form className="form" onSubmit={submit} noValidate={false}>
        <FormField name="username" label={t('auth.email')} type="email" autoComplete="email" defaultValue={registered} errors={errors.username} />
        <FormField name="password" label={t('auth.password')} type="password" autoComplete="current-password" autoFocus={Boolean(registered)} errors={errors.password} />
        <Link
          href="/forgot-password/"
          className="link-muted forgot"
          onClick={(event) => {
            // The e-mail typed so far goes along in the page's history state: never in its address,
            // which logs and the browser's history keep. This page's keeps it too, for Back, beside
            // what it held already (where it was opened from: AuthFormFooter's Back).
            event.preventDefault();
            const state = { email: new FormData(event.currentTarget.closest('form')!).get('username') };
            window.history.replaceState({ ...(window.history.state as object | null), ...state }, '');
            navigate('/forgot-password/', { state });
          }}
        >
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
