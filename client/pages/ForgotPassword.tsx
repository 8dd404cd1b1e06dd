import { useState } from 'react';
import { Link } from 'wouter';
import '../account.css';
import { accountMessages } from '../lib/messages-account';
import { AuthFormFooter, AuthLayout, FormField } from '../components/AuthLayout';
import { accountApi } from '../lib/api-account';
import { useAuthForm } from '../lib/use-auth-form';
import { useMessages } from '../lib/i18n';

/** Focuses an element once, when it shows (a stable ref: not again at each render). */
const focusOnShow = (element: HTMLElement | null) => element?.focus();

/**
 * "Forgot password?": the same answer whether or not an account has this e-mail. Opened from the login
 * page, with the e-mail typed there (its history state), and Back returns to it; opened any other way
 * (an e-mail's link, an address typed), Back opens the login page.
 */
export function ForgotPassword() {
  useMessages(accountMessages);
  const { t, navigate, errors, busy, onSubmit } = useAuthForm();
  const [sent, setSent] = useState(false);
  const fromLogin = window.history.state as { email: string } | null;

  const submit = onSubmit(async (value) => {
    await accountApi.requestPasswordReset(value('email'));
    setSent(true);
  });

  return (
    <AuthLayout title={t('forgot.title')}>
      {sent ? (
        // The form goes: what it says takes the focus the form had.
        <p className="status-ok" role="status" tabIndex={-1} ref={focusOnShow}>
          {t('forgot.sent')}
        </p>
      ) : (
        <form className="form" onSubmit={submit}>
          <p className="muted">{t('forgot.intro')}</p>
          <FormField name="email" label={t('auth.email')} type="email" autoComplete="email" defaultValue={fromLogin?.email} errors={errors.email} />
          <AuthFormFooter
            errors={errors.non_field_errors}
            busy={busy}
            submitLabel={t('forgot.submit')}
            back={() => (fromLogin ? window.history.back() : navigate('/login/'))}
          />
        </form>
      )}
      <p className="auth-switch">
        <Link href="/login/">{t('forgot.backToLogin')}</Link>
      </p>
    </AuthLayout>
  );
}
