import { type FormEvent, useState } from 'react';
import { Link, Redirect, useLocation } from 'wouter';
import type { FieldErrors as FieldErrorMap } from '../../shared/schemas/common';
import { AuthFormFooter, AuthLayout, FieldErrors } from '../components/AuthLayout';
import { GoogleButton } from '../components/GoogleButtonLazy';
import { api } from '../lib/api';
import { formErrors, localizeFields } from '../lib/errors';
import { gatePublicAuthRoute } from '../lib/gating';
import { useLanguage, useT } from '../lib/i18n';
import { useSession } from '../stores/session';

export function Login() {
  const t = useT();
  const [, navigate] = useLocation();
  const token = useSession((state) => state.token);
  const signIn = useSession((state) => state.signIn);
  const [errors, setErrors] = useState<FieldErrorMap>({});
  const [busy, setBusy] = useState(false);

  const redirect = gatePublicAuthRoute(token);
  if (redirect) return <Redirect to={redirect} replace />;

  const enter = (newToken: string) => {
    signIn(newToken);
    navigate('/app/home/');
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setBusy(true);
    setErrors({});
    try {
      const result = await api.login(String(data.get('username') ?? ''), String(data.get('password') ?? ''));
      enter(result.token);
    } catch (error) {
      setErrors(await localizeFields(formErrors(error, t), useLanguage.getState().language));
      setBusy(false);
    }
  }

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
        <a href="#" className="link-muted forgot" onClick={(event) => event.preventDefault()}>
          {t('login.forgot')}
        </a>
        <AuthFormFooter errors={errors.non_field_errors} busy={busy} submitLabel={t('login.submit')} />
      </form>
      <p className="auth-switch">
        {t('login.noAccount')} <Link href="/register">{t('login.registerLink')}</Link>
      </p>
    </AuthLayout>
  );
}
