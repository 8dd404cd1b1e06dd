import { useEffect, useMemo, useState } from 'react';
import type { Language } from '../../shared/constants';
import type { FieldErrors } from '../../shared/schemas/common';
import type { ErrorCode } from '../../shared/error-codes';
import type { MessageKey } from '../../shared/i18n/en';
import { ApiError, NetworkError, NotFound, Throttled, ValidationError } from './api';
import { type Translate, useLanguage } from './i18n';

/**
 * The client's own words for the error codes it tells apart (shared/error-codes.ts). A feature
 * that adds a code adds its line here; a code without one shows the server's detail.
 */
const CODE_MESSAGES: Partial<Record<ErrorCode, MessageKey>> = {
  already_subscribed: 'error.alreadySubscribed',
  payments_not_configured: 'subscribe.notConfigured',
  payments_unavailable: 'error.paymentsUnavailable',
  checkout_canceled: 'checkout.canceled',
  checkout_complete: 'checkout.complete',
  subscription_required: 'error.subscriptionRequired',
  nothing_to_undo: 'error.nothingToUndo',
  daily_likes_exhausted: 'error.likesExhausted',
  profile_changed: 'profile.changedElsewhere',
  mail_unavailable: 'error.mailUnavailable',
};

/**
 * One line for a failed call, decided by kind, status and code, never by the server's words. Field
 * errors and details are shown as the server wrote them: in the language the client asked for.
 */
export function errorMessage(error: unknown, t: Translate): string {
  const coded = error instanceof ApiError && error.code ? CODE_MESSAGES[error.code] : undefined;
  if (coded) return t(coded);
  if (error instanceof ValidationError) return error.fields.non_field_errors?.[0] ?? error.message;
  if (error instanceof NetworkError) return t('error.network');
  if (error instanceof Throttled) {
    const seconds = error.retryAfterSeconds;
    if (!seconds) return t('error.throttled');
    // A wait of an hour reads as minutes, a day's (the data export's) as hours, rounded up so that
    // trying at the time said works.
    if (seconds < 60) return t('error.throttledFor', { seconds });
    return seconds <= 7200 ? t('error.throttledForMinutes', { minutes: Math.ceil(seconds / 60) }) : t('error.throttledForHours', { hours: Math.ceil(seconds / 3600) });
  }
  if (error instanceof NotFound) return t('error.notFound');
  if (error instanceof ApiError && error.status < 500 && error.detail) return error.detail;
  return t('error.generic');
}

/** Any failure as one form-wide line: for a form with no fields of its own to point at. */
export function errorLine(error: unknown, t: Translate): FieldErrors {
  return { non_field_errors: [errorMessage(error, t)] };
}

/** The field map of a 400, or a form-wide line for anything else. */
export function formErrors(error: unknown, t: Translate): FieldErrors {
  return error instanceof ValidationError ? error.fields : errorLine(error, t);
}

const NO_ERRORS: FieldErrors = Object.freeze({}) as FieldErrors;

/** What says a form's errors again in another language: fetched the first time a switch needs it. */
let translator: Promise<void> | null = null;
let translate: typeof import('./translate-errors').translateErrors | null = null;

interface Said {
  language: Language;
  errors: FieldErrors;
}

/**
 * For `useFieldErrors`' setter: what was said of `field` goes, the others' stays (the field changed
 * since, and it no longer holds).
 */
export const withoutError =
  (field: string) =>
  ({ [field]: _, ...others }: FieldErrors): FieldErrors =>
    others;

/**
 * A form's errors per field, as `useState` holds them, with the language they were said in. A switch
 * of language says them again in the new one (`translate-errors.ts`); until that is fetched, or if it
 * cannot be, none show rather than lines of the other language. A form that moves the focus to its
 * first error does it after a submit, not when its errors are said again.
 */
export function useFieldErrors() {
  const language = useLanguage((state) => state.language);
  const [said, setSaid] = useState<Said>({ language, errors: NO_ERRORS });
  const [, setTranslated] = useState(false);
  const waiting = said.language !== language && Object.keys(said.errors).length > 0 && !translate;
  useEffect(() => {
    if (!waiting) return;
    // A fetch that failed (no network, a deploy that took this build's away) is made again the next
    // time a switch needs it, not answered with the same failure for the rest of the tab's life.
    translator ??= import('./translate-errors').then(
      (module) => {
        translate = module.translateErrors;
      },
      (error: unknown) => {
        translator = null;
        throw error;
      },
    );
    translator.then(() => setTranslated(true), () => {});
  }, [waiting]);
  // Said again once the translator is here (`waiting` turns false).
  const errors = useMemo(() => inLanguage(said, language), [said, language, waiting]);
  const setErrors = (next: FieldErrors | ((current: FieldErrors) => FieldErrors)) =>
    setSaid((current) => {
      const now = useLanguage.getState().language;
      const errors = inLanguage(current, now);
      return { language: now, errors: typeof next === 'function' ? next(errors) : next };
    });
  return [errors, setErrors] as const;
}

const inLanguage = (said: Said, language: Language) =>
  said.language === language ? said.errors : translate ? translate(said.errors, said.language, language) : NO_ERRORS;
