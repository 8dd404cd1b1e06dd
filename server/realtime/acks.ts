import type { FastifyBaseLogger } from 'fastify';
import type { ZodError } from 'zod';
import type { Language } from '../../shared/constants';
import type { Ack, AckError } from '../../shared/events';
import { ApiError, toFieldErrors, ValidationError } from '../errors';

export const INVALID_PAYLOAD_MESSAGE = 'Invalid payload.';
export const UNAVAILABLE_MESSAGE = 'The server is restarting; send again after reconnecting.';

export const fail = (error: AckError): Ack => ({ ok: false, error });

export const invalidPayload = (error: ZodError, language: Language): Ack =>
  fail({ code: 'validation', message: INVALID_PAYLOAD_MESSAGE, fields: ApiError.renderFields(toFieldErrors(error.issues), language) });

/** A service error as the ack's error: the same rules and words (in the socket's language) as the REST route's envelope. */
export function errorAck(error: unknown, log: FastifyBaseLogger, language: Language): Ack {
  if (error instanceof ValidationError) {
    return fail({ code: 'validation', message: INVALID_PAYLOAD_MESSAGE, fields: ApiError.renderFields(error.fields, language) });
  }
  if (error instanceof ApiError && error.statusCode < 500) {
    const message = String(error.render(language).detail ?? error.message);
    if (error.statusCode === 404) return fail({ code: 'not_found', message });
    if (error.statusCode === 429) return fail({ code: 'throttled', message });
    if (error.statusCode === 401) return fail({ code: 'unauthorized', message });
    return fail({ code: 'validation', message, fields: { non_field_errors: [message] } });
  }
  log.error({ err: error }, 'socket handler failed');
  return fail({ code: 'internal', message: 'A server error occurred.' });
}
