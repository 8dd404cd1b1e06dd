import { useState } from 'react';
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

/** The field map of a 400, or a form-wide line for anything else. */
export function formErrors(error: unknown, t: Translate): FieldErrors {
  if (error instanceof ValidationError) return error.fields;
  return { non_field_errors: [errorMessage(error, t)] };
}

const NO_ERRORS: FieldErrors = Object.freeze({}) as FieldErrors;

/**
 * A form's errors per field, as `useState` holds them, in the language they were said in: a switch
 * of language puts them away (the next submit says them again, in the new one) rather than leave
 * lines of the other language under the fields.
 */
export function useFieldErrors() {
  const language = useLanguage((state) => state.language);
  const [said, setSaid] = useState({ language, errors: NO_ERRORS });
  const setErrors = (next: FieldErrors | ((current: FieldErrors) => FieldErrors)) =>
    setSaid((current) => {
      const now = useLanguage.getState().language;
      const errors = current.language === now ? current.errors : NO_ERRORS;
      return { language: now, errors: typeof next === 'function' ? next(errors) : next };
    });
  return [said.language === language ? said.errors : NO_ERRORS, setErrors] as const;
}
