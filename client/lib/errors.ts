import type { FieldErrors } from '../../shared/schemas/common';
import { ApiError, NetworkError, Throttled, ValidationError } from './api';
import type { Language } from '../../shared/constants';
import type { ErrorCode } from '../../shared/error-codes';
import type { MessageKey } from '../../shared/i18n/en';
import type { Translate } from './i18n';

/**
 * The client's own words for the error codes it tells apart (shared/error-codes.ts): decided by the
 * code, never by the server's words. A code without a line here shows the server's detail.
 */
const CODE_MESSAGES: Partial<Record<ErrorCode, MessageKey>> = {
  subscription_required: 'error.subscriptionRequired',
  nothing_to_undo: 'error.nothingToUndo',
  daily_likes_exhausted: 'error.likesExhausted',
};

/** One line for a failed call: the client's words for a code it knows, else the server's own words where it gave them. */
export function errorMessage(error: unknown, t: Translate): string {
  const coded = error instanceof ApiError && error.code ? CODE_MESSAGES[error.code] : undefined;
  if (coded) return t(coded);
  if (error instanceof ValidationError) return error.fields.non_field_errors?.[0] ?? error.message;
  if (error instanceof NetworkError) return t('error.network');
  if (error instanceof Throttled) return error.message || t('error.throttled');
  if (error instanceof ApiError && error.status < 500 && error.message && !error.message.startsWith('HTTP ')) return error.message;
  return t('error.generic');
}

/** The field map of a 400, or a form-wide line for anything else. */
export function formErrors(error: unknown, t: Translate): FieldErrors {
  if (error instanceof ValidationError) return error.fields;
  return { non_field_errors: [errorMessage(error, t)] };
}

/** The server's English messages in the reader's language; the table loads only when a form fails. */
export async function localizeFields(fields: FieldErrors, language: Language): Promise<FieldErrors> {
  if (language === 'en') return fields;
  const { localizeServerMessage } = await import('../../shared/i18n/server-messages');
  return Object.fromEntries(Object.entries(fields).map(([key, messages]) => [key, messages.map((message) => localizeServerMessage(message, language))]));
}
