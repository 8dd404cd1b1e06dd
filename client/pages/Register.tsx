import { REGISTERED_TOAST, toast } from '../lib/toast';
import { Link, Redirect } from 'wouter';
import { AuthFormFooter, AuthLayout, FormField, openedFromEvent } from '../components/AuthLayout';
import { GoogleButton } from '../components/GoogleButtonLazy';
import { api } from '../lib/api';
import { EMAIL_TAKEN_EN, EMAIL_TAKEN_ES } from '../../shared/i18n/email-taken';
import { useAuthForm } from '../lib/use-auth-form';
import { useDraft } from '../lib/draft';

const FIELDS = [
  { name: 'first_name', label: 'register.firstName', type: 'text', autoComplete: 'given-name' },
  { name: 'last_name', label: 'register.lastName', type: 'text', autoComplete: 'family-name' },
  { name: 'username', label: 'auth.email', type: 'email', autoComplete: 'email' },
  { name: 'password', label: 'auth.password', type: 'password', autoComplete: 'new-password' },
  { name: 'password2', label: 'register.password2', type: 'password', autoComplete: 'new-password' },
] as const;
/** What a reload gives back as it was typed: all but the passwords. */
const KEPT = FIELDS.filter((field) => field.type !== 'password');

/** The log-in form's history state: the e-mail typed, and the event's page this one was opened from, for its Back. */
const toLogin = (email: FormDataEntryValue | null) => ({ ...(openedFromEvent() ? { from: 'event' } : {}), email });

export function Register() {
  const { t, navigate, redirect, errors, busy, enter, onSubmit } = useAuthForm();
  const { draft, keep } = useDraft<Record<string, string>>('register');
  if (redirect) return <Redirect to={redirect} replace />;
  // The same constant the server answers with, in either language (a switch says it again in the other).
  const emailTaken = errors.username?.some((line) => line === EMAIL_TAKEN_EN || line === EMAIL_TAKEN_ES);

  const submit = onSubmit(async (value) => {
    await api.register({
      first_name: value('first_name'),
      last_name: value('last_name'),
      username: value('username'),
      password: value('password'),
      password2: value('password2'),
    });
    keep(null);
    toast.success(t('register.success'), { position: 'bottom-right', key: REGISTERED_TOAST });
    // Opened from an event's page, the log-in form takes this done form's place: its Back, as the
    // phone's, goes back to the event (AuthFormFooter), not to the form just sent.
    navigate('/login/', { state: toLogin(value('username')), replace: openedFromEvent() });
  });

  return (
    <AuthLayout title={t('register.title')}>
      <GoogleButton label={t('register.google')} onToken={enter} />
      <form
        className="form"
        onSubmit={submit}
        onChange={(event) => {
          const data = new FormData(event.currentTarget);
          keep(Object.fromEntries(KEPT.map(({ name }) => [name, String(data.get(name))])));
        }}
      >
        {FIELDS.map((field) => (
          <FormField
            key={field.name}
            name={field.name}
            label={t(field.label)}
            type={field.type}
            autoComplete={field.autoComplete}
            defaultValue={draft?.[field.name]}
            errors={errors[field.name]}
          >
            {field.name === 'username' && emailTaken && (
              <Link
                href="/login/"
                className="field-link"
                onClick={(event) => {
                  // The e-mail goes along as "Forgot password?" takes it (Login.tsx): in the history
                  // state, never in the address. As it stands in the field, changed since or not.
                  event.preventDefault();
                  navigate('/login/', { state: toLogin(new FormData(event.currentTarget.closest('form')!).get('username')) });
                }}
              >
                {t('register.emailTakenLogin')}
              </Link>
            )}
          </FormField>
        ))}
        <AuthFormFooter errors={errors.non_field_errors} busy={busy} submitLabel={t('register.submit')} />
      </form>
      <p className="auth-switch">
        {t('register.haveAccount')} <Link href="/login">{t('register.loginLink')}</Link>
      </p>
    </AuthLayout>
  );
}
