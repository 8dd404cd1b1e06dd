import { type FormEvent, useState } from 'react';
import { toast } from 'react-toastify';
import { Link, Redirect, useLocation } from 'wouter';
import type { FieldErrors as FieldErrorMap } from '../../shared/schemas/common';
import { AuthFormFooter, AuthLayout, FieldErrors } from '../components/AuthLayout';
import { GoogleButton } from '../components/GoogleButtonLazy';
import { api } from '../lib/api';
import { formErrors, localizeFields } from '../lib/errors';
import { gatePublicAuthRoute } from '../lib/gating';
import { useLanguage, useT } from '../lib/i18n';
import { useSession } from '../stores/session';

const FIELDS = [
  { name: 'first_name', label: 'register.firstName', type: 'text', autoComplete: 'given-name' },
  { name: 'last_name', label: 'register.lastName', type: 'text', autoComplete: 'family-name' },
  { name: 'username', label: 'auth.email', type: 'email', autoComplete: 'email' },
  { name: 'password', label: 'auth.password', type: 'password', autoComplete: 'new-password' },
  { name: 'password2', label: 'register.password2', type: 'password', autoComplete: 'new-password' },
] as const;

export function Register() {
  const t = useT();
  const [, navigate] = useLocation();
  const token = useSession((state) => state.token);
  const signIn = useSession((state) => state.signIn);
  const [errors, setErrors] = useState<FieldErrorMap>({});
  const [busy, setBusy] = useState(false);

  const redirect = gatePublicAuthRoute(token);
  if (redirect) return <Redirect to={redirect} replace />;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const value = (name: string) => String(data.get(name) ?? '');
    setBusy(true);
    setErrors({});
    try {
      await api.register({
        first_name: value('first_name'),
        last_name: value('last_name'),
        username: value('username'),
        password: value('password'),
        password2: value('password2'),
      });
      toast.success(t('register.success'), { position: 'bottom-right' });
      navigate('/login/');
    } catch (error) {
      setErrors(await localizeFields(formErrors(error, t), useLanguage.getState().language));
      setBusy(false);
    }
  }

  return (
    <AuthLayout title={t('register.title')}>
      <GoogleButton
        label={t('register.google')}
        onToken={(newToken) => {
          signIn(newToken);
          navigate('/app/home/');
        }}
      />
      <form className="form" onSubmit={submit}>
        {FIELDS.map((field) => (
          <label key={field.name} className="field">
            <span>{t(field.label)}</span>
            <input
              name={field.name}
              type={field.type}
              autoComplete={field.autoComplete}
              required
              aria-invalid={Boolean(errors[field.name])}
              aria-describedby={`${field.name}-error`}
            />
            <FieldErrors id={`${field.name}-error`} errors={errors[field.name]} />
          </label>
        ))}
        <AuthFormFooter errors={errors.non_field_errors} busy={busy} submitLabel={t('register.submit')} />
      </form>
      <p className="auth-switch">
        {t('register.haveAccount')} <Link href="/login">{t('register.loginLink')}</Link>
      </p>
    </AuthLayout>
  );
}
