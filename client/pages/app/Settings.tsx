import { type ReactNode, useEffect, useRef, useState } from 'react';
import { toast } from '../../lib/toast';
import { Link, useLocation } from 'wouter';
import { ENDED_CHAT_KEPT_DAYS } from '../../../shared/constants';
import type { CurrentUser } from '../../../shared/schemas/users';
import '../../account.css';
import { FormField, serverLines } from '../../components/AuthLayout';
import { ConfirmSheet, useSheetAction } from '../../components/Sheet';
import { Waiting } from '../../components/Waiting';
import { accountApi } from '../../lib/api-account';
import { errorLine, useFieldErrors } from '../../lib/errors';
import { changePassword } from '../../lib/password-change';
import { settingsMessages } from '../../lib/messages-settings';
import { readStorage, THEME_KEY } from '../../lib/storage';
import { useAuthForm } from '../../lib/use-auth-form';
import { askBeforeSignOut, useSession } from '../../stores/session';
import { useLanguage, useMessages, useT } from '../../lib/i18n';
import { formatDate } from '../../lib/format';
import { nextPlanDate, usePlan } from '../../stores/plan';
import { BusyButton } from '../../components/BusyButton';

/** Where the user keeps control of their account: password, sessions, their data, leaving. */
export function Settings() {
  useMessages(settingsMessages);
  const { t } = useAuthForm();
  const user = useSession((state) => state.user);
  // Known once the server answers: with no network, the page says it waits for it.
  if (!user) return <Waiting offline="settings.offline" />;

  return (
    <div className="settings">
      <h1>{t('settings.title')}</h1>
      <section className="settings-card" aria-labelledby="settings-account">
        <h2 id="settings-account">{t('settings.account')}</h2>
        <EmailRow user={user} />
      </section>
      {/* Where someone looks to change or cancel it, beside the account menu's entry. */}
      <PlanCard subscribed={user.has_subscription} />
      <Appearance />
      {user.has_password ? <ChangePassword email={user.email} /> : <SetPasswordByLink user={user} />}
      <LinkCard id="settings-blocked" title={t('blocked.title')} text={t('settings.blocked.text')} href="/app/settings/blocked/" label={t('settings.blocked.open')} />
      <LinkCard
        id="settings-ended"
        title={t('ended.title')}
        text={t('settings.ended.text', { days: ENDED_CHAT_KEPT_DAYS })}
        href="/app/settings/ended/"
        label={t('settings.ended.open')}
      />
      <Sessions />
      <ExportData />
      {user.is_moderator && <LinkCard id="settings-admin" title={t('admin.title')} href="/app/admin/" label={t('settings.admin.open')} />}
      <DeleteAccount user={user} />
    </div>
  );
}

/**
 * The plan's card: what the person has (the free plan; the plan, with its next date as its own page
 * says it), and a payment that failed (`payment_failed`: while Stripe tries again, or after the plan
 * ended unpaid).
 */
function PlanCard({ subscribed }: { subscribed: boolean }) {
  // `useT` follows the language: the date is written in the one shown.
  const t = useT();
  const plan = usePlan((state) => state.subscription);
  useEffect(() => {
    void usePlan.getState().loadSubscription();
  }, [subscribed]);
  const next = subscribed && plan && nextPlanDate(plan);
  const text = subscribed
    ? t('settings.plan.starter', { line: next ? t(next[0], { date: formatDate(next[1], useLanguage.getState().language) }) : t('subscribe.current.active') })
    : t('settings.plan.text');
  return (
    <LinkCard id="settings-plan" title={t('subscribe.current.title')} text={text} href="/app/subscribe/" label={t('settings.plan.open')}>
      {plan?.payment_failed && <p className="form-error">{t('subscribe.paymentFailed')}</p>}
    </LinkCard>
  );
}

/** A card of Settings that leads to a page of its own: what is there, and the way in. */
function LinkCard({ id, title, text, href, label, children }: { id: string; title: string; text?: string; href: string; label: string; children?: ReactNode }) {
  return (
    <section className="settings-card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {text && <p className="muted">{text}</p>}
      {children}
      <Link href={href} className="btn btn-ghost">
        {label}
      </Link>
    </section>
  );
}

/** The themes a device may choose: the phone's own setting (the default), light or dark. */
const THEMES = ['system', 'light', 'dark'] as const;

/**
 * Light or dark on this device, or as the phone is set: stored for index.html's script, which applies
 * it before the first paint, and told to it at once (`themechange`; other tabs hear `storage`).
 */
function Appearance() {
  const { t } = useAuthForm();
  const [theme, setTheme] = useState(() => readStorage(THEME_KEY) ?? 'system');
  function choose(option: (typeof THEMES)[number]) {
    if (option === 'system') window.localStorage.removeItem(THEME_KEY);
    else window.localStorage.setItem(THEME_KEY, option);
    window.dispatchEvent(new Event('themechange'));
    setTheme(option);
  }
  return (
    <section className="settings-card" aria-labelledby="settings-appearance">
      <h2 id="settings-appearance">{t('settings.appearance.title')}</h2>
      <div className="theme-switch" role="group" aria-labelledby="settings-appearance">
        {THEMES.map((option) => (
          <button key={option} type="button" className={option === theme ? 'is-active' : ''} aria-pressed={option === theme} onClick={() => choose(option)}>
            {t(`settings.appearance.${option}`)}
          </button>
        ))}
      </div>
    </section>
  );
}

/**
 * The address and whether it is verified; unverified, a new link sent the way the app's banner sends
 * it, so that one is still at hand once the banner is dismissed. Once sent, Resend goes, as the
 * banner's does: each press would mail another link and spend one of the hour's five.
 */
function EmailRow({ user }: { user: CurrentUser }) {
  const { t } = useAuthForm();
  const [resend, setResend] = useState<'busy' | 'sent'>();
  // Why it failed, said again in the other language on a switch, as a form's errors are.
  const [failed, setFailed] = useFieldErrors();

  async function send() {
    // Not `disabled` while busy: the button keeps the focus.
    if (resend === 'busy') return;
    setResend('busy');
    setFailed({});
    try {
      await accountApi.resendVerification();
      setResend('sent');
    } catch (error) {
      setResend(undefined);
      setFailed(errorLine(error, t));
    }
  }

  return (
    <>
      <div className="settings-row">
        <span className="settings-email">{user.email}</span>
        <span className="settings-verify">
          <span className={`badge ${user.email_verified ? 'badge-ok' : 'badge-warn'}`}>
            {t(user.email_verified ? 'settings.verified' : 'settings.notVerified')}
          </span>
          {!user.email_verified && resend !== 'sent' && (
            <button type="button" className="btn btn-small btn-ghost" aria-disabled={resend === 'busy'} onClick={() => void send()}>
              {t('settings.verifyResend')}
            </button>
          )}
        </span>
      </div>
      {!user.email_verified && <FormOutcome errors={failed.non_field_errors} done={resend === 'sent' ? t('app.verifySent') : null} takeFocus />}
    </>
  );
}

function ChangePassword({ email }: { email: string }) {
  const { t, errors, busy, onSubmit } = useAuthForm();
  const [done, setDone] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  const submit = onSubmit(async (value) => {
    setDone(false);
    // Every other session ended, this tab's old token too: it carries on with the new one.
    await changePassword({ current_password: value('current_password'), password: value('password'), password2: value('password2') }, email);
    form.current?.reset();
    setDone(true);
  });

  return (
    <section className="settings-card" aria-labelledby="settings-password">
      <h2 id="settings-password">{t('settings.password.title')}</h2>
      <form ref={form} className="form" onSubmit={submit}>
        <FormField name="current_password" label={t('settings.password.current')} type="password" autoComplete="current-password" errors={errors.current_password} />
        <FormField name="password" label={t('settings.password.new')} type="password" autoComplete="new-password" errors={errors.password} />
        <FormField name="password2" label={t('settings.password.repeat')} type="password" autoComplete="new-password" errors={errors.password2} />
        <FormOutcome errors={errors.non_field_errors} done={done ? t('settings.password.done') : null} />
        <BusyButton type="submit" className="btn btn-primary" busy={busy}>
          {t('settings.password.submit')}
        </BusyButton>
      </form>
    </section>
  );
}

/** Google-only accounts set a first password through the reset e-mail. */
function SetPasswordByLink({ user }: { user: CurrentUser }) {
  const { t, errors, busy, onSubmit } = useAuthForm();
  const [sent, setSent] = useState(false);
  const submit = onSubmit(async () => {
    await accountApi.requestPasswordReset(user.email);
    setSent(true);
  });
  return (
    <section className="settings-card" aria-labelledby="settings-password">
      {/* There is none to change yet. */}
      <h2 id="settings-password">{t('settings.password.setTitle')}</h2>
      <p className="muted">{t('settings.password.none')}</p>
      <form className="form" onSubmit={submit}>
        {/* The button goes once sent: the note takes the focus it had. */}
        <FormOutcome errors={errors.non_field_errors} done={sent ? t('settings.password.linkSent', { email: user.email }) : null} takeFocus />
        {!sent && (
          <BusyButton type="submit" className="btn btn-ghost" busy={busy}>
            {t('settings.password.sendLink')}
          </BusyButton>
        )}
      </form>
    </section>
  );
}

/** Log out everywhere, this phone included: asked first, and said once done (the login page follows). */
function Sessions() {
  const { t, navigate } = useAuthForm();
  const signOut = useSession((state) => state.signOut);
  const [asking, setAsking] = useState(false);
  const { busy, error, run } = useSheetAction(
    async () => {
      await accountApi.logoutEverywhere();
      signOut({ alreadyRevoked: true });
      toast.success(t('settings.sessions.done'));
      navigate('/login/', { replace: true });
    },
    () => setAsking(false),
  );
  return (
    <section className="settings-card" aria-labelledby="settings-sessions">
      <h2 id="settings-sessions">{t('settings.sessions.title')}</h2>
      <p className="muted">{t('settings.sessions.text')}</p>
      <button type="button" className="btn btn-ghost" onClick={() => setAsking(true)}>
        {t('settings.sessions.submit')}
      </button>
      {asking && (
        <ConfirmSheet
          title={t('settings.sessions.confirmTitle')}
          confirmLabel={t('settings.sessions.submit')}
          cancelLabel={t('app.logoutUnsent.stay')}
          busy={busy}
          error={error}
          onConfirm={run}
          onClose={() => setAsking(false)}
        >
          <p>{t('settings.sessions.text')}</p>
        </ConfirmSheet>
      )}
    </section>
  );
}

function ExportData() {
  const { t } = useAuthForm();
  const [busy, setBusy] = useState(false);
  // Said again in the other language on a switch, as a form's errors are.
  const [problem, setProblem] = useFieldErrors();

  async function download() {
    // Not `disabled` while busy: the button keeps the focus.
    if (busy) return;
    setBusy(true);
    setProblem({});
    try {
      const archive = await accountApi.exportData();
      const url = URL.createObjectURL(archive);
      const link = document.createElement('a');
      link.href = url;
      // Today's date where the user is (in UTC it is already tomorrow's on an American evening), as
      // YYYY-MM-DD: Swedish dates are written so.
      link.download = `eventmatch-export-${new Date().toLocaleDateString('sv')}.zip`;
      document.body.append(link);
      link.click();
      link.remove();
      // After the browser has taken the file.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      setProblem(errorLine(error, t));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="settings-card" aria-labelledby="settings-export">
      <h2 id="settings-export">{t('settings.export.title')}</h2>
      <p className="muted">{t('settings.export.text')}</p>
      <FormOutcome errors={problem.non_field_errors} />
      <button type="button" className="btn btn-ghost" aria-disabled={busy} onClick={() => void download()}>
        {busy ? t('settings.export.busy') : t('settings.export.submit')}
      </button>
    </section>
  );
}

/** Deletion, behind a confirm step: the password, or DELETE typed for an account without one. */
function DeleteAccount({ user }: { user: CurrentUser }) {
  const { t, errors, busy, onSubmit } = useAuthForm();
  const [, navigate] = useLocation();
  const signOut = useSession((state) => state.signOut);
  const [confirming, setConfirming] = useState(false);
  const start = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  // Back from the confirm step: the keyboard carries on from the button that opened it.
  useEffect(() => {
    if (confirming || !returnFocus.current) return;
    returnFocus.current = false;
    start.current?.focus();
  }, [confirming]);
  const cancel = () => {
    returnFocus.current = true;
    setConfirming(false);
  };

  const submit = onSubmit(async (value) => {
    const deleting = accountApi.deleteAccount(user.has_password ? { password: value('password') } : { confirm: value('confirm') });
    // This tab's sockets hear the deletion (`account:deleted`), or are refused, before its answer comes:
    // they wait for it, and this tab says so itself. Not deleted after all (or not known): they sign out.
    askBeforeSignOut(() => deleting.then(() => true, () => false));
    try {
      await deleting;
    } catch (error) {
      askBeforeSignOut(null);
      throw error;
    }
    signOut({ alreadyRevoked: true, deleted: true });
    toast.success(t('settings.delete.done'));
    navigate('/', { replace: true });
  });

  return (
    <section className="settings-card settings-danger" aria-labelledby="settings-delete">
      <h2 id="settings-delete">{t('settings.delete.title')}</h2>
      <p className="muted">{t('settings.delete.text')}</p>
      {!confirming ? (
        <button ref={start} type="button" className="btn btn-ghost" onClick={() => setConfirming(true)}>
          {t('settings.delete.start')}
        </button>
      ) : (
        <form
          className="form"
          onSubmit={submit}
          onKeyDown={(event) => {
            if (event.key !== 'Escape' || busy) return;
            event.preventDefault();
            cancel();
          }}
        >
          {/* Deletion cancels a plan at once (not at the period's end), with no refund: said before it is too late. */}
          {user.has_subscription && <p>{t('settings.delete.plan')}</p>}
          {user.has_password ? (
            <FormField id="delete-password" name="password" label={t('settings.delete.confirmPassword')} type="password" autoComplete="current-password" autoFocus errors={errors.password} />
          ) : (
            // The word is matched exactly: a phone's keyboard in capitals, and no correction of it.
            <FormField
              name="confirm"
              label={t('settings.delete.confirmWord')}
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              autoCorrect="off"
              spellCheck={false}
              autoFocus
              errors={errors.confirm}
            />
          )}
          <FormOutcome errors={errors.non_field_errors} />
          <div className="form-actions">
            <BusyButton type="submit" className="btn btn-danger" busy={busy}>
              {t('settings.delete.confirm')}
            </BusyButton>
            <button type="button" className="btn btn-ghost" onClick={cancel}>
              {t('settings.delete.cancel')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** Focuses an element once, when it shows (a stable ref: not again at each render). */
const focusOnShow = (element: HTMLElement | null) => element?.focus();

function FormOutcome({ errors, done = null, takeFocus }: { errors: string[] | undefined; done?: string | null; takeFocus?: boolean }) {
  if (errors?.length) {
    return (
      <p className="form-error" role="alert">
        {serverLines(errors)}
      </p>
    );
  }
  if (!done) return null;
  return (
    <p className="status-ok" role="status" tabIndex={-1} ref={takeFocus ? focusOnShow : undefined}>
      {done}
    </p>
  );
}
