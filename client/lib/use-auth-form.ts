import { type FormEvent, useLayoutEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { useSession } from '../stores/session';
import { formErrors, useFieldErrors } from './errors';
import { useT } from './i18n';

/** Login and register skip straight to the app when a token is stored. */
export function gatePublicAuthRoute(token: string | null): string | null {
  return token ? '/app/home/' : null;
}

/**
 * What the login and register forms share: a stored token skips them (`redirect`), a submit is busy
 * until the server answers and shows its errors per field, and a token received enters the app.
 */
export function useAuthForm() {
  const t = useT();
  const [, navigate] = useLocation();
  const token = useSession((state) => state.token);
  const signIn = useSession((state) => state.signIn);
  const [errors, setErrors] = useFieldErrors();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement | null>(null);
  // Once shown after a submit, the first field refused takes the focus: a keyboard or a screen reader
  // starts there. Not when a switch of language says them again: the focus stays on the switch. As the
  // errors are drawn, not after: a passive effect ran a moment later, and took the focus from wherever
  // it had gone meanwhile (a tap on the language switch as the errors appeared).
  const refused = useRef(false);
  useLayoutEffect(() => {
    if (!refused.current) return;
    refused.current = false;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);

  /** Signs in and opens the app; `replace`: in this page's place, for a page Back must not return to. */
  const enter = (newToken: string, { replace = false } = {}) => {
    signIn(newToken);
    navigate('/app/home/', { replace });
  };

  /** A submit handler that sends the form's values; on failure the fields show why. */
  const onSubmit = (send: (value: (name: string) => string) => Promise<void>) => async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    form.current = event.currentTarget;
    const data = new FormData(form.current);
    setBusy(true);
    setErrors({});
    try {
      await send((name) => String(data.get(name) ?? ''));
    } catch (error) {
      refused.current = true;
      setErrors(formErrors(error, t));
    } finally {
      // Done either way: a form that stays on screen (a password changed) can be sent again.
      setBusy(false);
    }
  };

  return { t, navigate, redirect: gatePublicAuthRoute(token), errors, busy, enter, onSubmit };
}
