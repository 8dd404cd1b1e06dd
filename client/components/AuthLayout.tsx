import type { InputHTMLAttributes, ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { HeartIcon } from './Icons';
import { LanguageSwitcher } from './LanguageSwitcher';
import { useT } from '../lib/i18n';
import { usePageTitle } from '../lib/page-title';
import { BusyButton } from './BusyButton';

/**
 * A page outside the signed-in app, headed and titled `title`. `home`: where the logo leads (the app,
 * for a page someone signed in reaches from outside it). `named`: the title is a name someone gave (an
 * event's), headed in its own direction: an Arabic or Hebrew one right to left, its punctuation in place.
 */
export function AuthLayout({ title, home = '/', named, children }: { title: string; home?: string; named?: boolean; children: ReactNode }) {
  const t = useT();
  usePageTitle(title);
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Link href={home} className="logo">
          <HeartIcon className="logo-mark" /> {t('brand.name')}
        </Link>
        <LanguageSwitcher />
      </header>
      <main className="auth-card">
        <h1 dir={named ? 'auto' : undefined}>{title}</h1>
        {children}
      </main>
    </div>
  );
}

/** Posts "back" to the embedding page; on its own the page goes home instead. */
export function BackButton({ onStandalone }: { onStandalone: () => void }) {
  const t = useT();
  return (
    <button
      type="button"
      className="btn btn-ghost"
      onClick={(event) => {
        event.preventDefault();
        if (window.parent !== window) {
          window.parent.postMessage('back', '*');
          return;
        }
        onStandalone();
      }}
    >
      {t('auth.back')}
    </button>
  );
}

/**
 * The server's lines, one after the other, as a page shows them. The server writes "e-mail" with a
 * plain hyphen (its messages' fixed words), where a narrow phone broke the line as "e-" / "mail": shown
 * with the non-breaking one the app's own copy has (shared/i18n/en.ts). The form keeps the server's words.
 */
export const serverLines = (lines: string[]) => lines.join(' ').replace(/e-mail/g, 'e\u2011mail');

/**
 * A field's error line: its control's description (`aria-describedby`), outside its label, which names
 * the control only. Not an alert: a refused form takes the focus to its first wrong field, which says
 * it (use-auth-form.ts, reveal-error.ts); an alert too would have it said twice, or all of them at once.
 */
export function FieldErrors({ id, errors }: { id: string; errors: string[] | undefined }) {
  if (!errors?.length) return null;
  return (
    <p id={id} className="field-error">
      {serverLines(errors)}
    </p>
  );
}

/**
 * A labelled input with the server's errors for it (the 400's field map), wired for screen readers;
 * `children` under its error line (a way out of that error), next after the input in the tab order.
 */
export function FormField({
  name,
  label,
  errors,
  children,
  ...input
}: { name: string; label: string; errors: string[] | undefined; children?: ReactNode } & Omit<InputHTMLAttributes<HTMLInputElement>, 'children'>) {
  // Two forms on one page may both have a `password`: an `id` keeps their fields and error lines apart.
  const id = input.id ?? name;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} required aria-describedby={`${id}-error`} aria-invalid={Boolean(errors)} {...input} />
      <FieldErrors id={`${id}-error`} errors={errors} />
      {children}
    </div>
  );
}

/** This page was opened from an event's page (its history state's marker): its Back goes back there. */
export const openedFromEvent = () => (window.history.state as { from?: string } | null)?.from === 'event';

/** The form's general error line, then submit and Back (home, unless `back` says otherwise): the foot of the auth forms. */
export function AuthFormFooter({
  errors,
  busy,
  submitLabel,
  back,
}: {
  errors: string[] | undefined;
  busy: boolean;
  submitLabel: string;
  back?: () => void;
}) {
  const [, navigate] = useLocation();
  // Opened from an event's page (its sign-up and log-in buttons), Back goes back there, as the phone's
  // own Back does: the guest at the door is not sent to the landing page.
  const fromEvent = openedFromEvent();
  return (
    <>
      {errors && (
        <p className="form-error" role="alert">
          {errors.join(' ')}
        </p>
      )}
      <div className="form-actions">
        <BusyButton type="submit" className="btn btn-primary" busy={busy}>
          {submitLabel}
        </BusyButton>
        <BackButton onStandalone={back ?? (() => (fromEvent ? window.history.back() : navigate('/')))} />
      </div>
    </>
  );
}
