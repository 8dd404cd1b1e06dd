import type { FastifyBaseLogger } from 'fastify';
import type { ZodError } from 'zod';
import type { Ack, AckError } from '../../shared/events';
import { ApiError, toFieldErrors, ValidationError } from '../errors';

export const INVALID_PAYLOAD_MESSAGE = 'Invalid payload.';
export const UNAVAILABLE_MESSAGE = 'The server is restarting; send again after reconnecting.';

export const fail = (error: AckError): Ack => ({ ok: false, error });

export const invalidPayload = (error: ZodError): Ack =>
  fail({ code: 'validation', message: INVALID_PAYLOAD_MESSAGE, fields: toFieldErrors(error.issues) });

/** A service error as the ack's error: the same rules and words as the REST route's envelope. */
export function errorAck(error: unknown, log: FastifyBaseLogger): Ack {
  if (error instanceof ValidationError) {
    return fail({ code: 'validation', message: INVALID_PAYLOAD_MESSAGE, fields: error.fields });
  }
  if (error instanceof ApiError && error.statusCode === 404) return fail({ code: 'not_found', message: error.message });
  if (error instanceof ApiError && error.statusCode === 429) return fail({ code: 'throttled', message: error.message });
  if (error instanceof ApiError && error.statusCode === 401) {
    return fail({ code: 'unauthorized', message: error.message });
  }
  if (error instanceof ApiError && error.statusCode < 500) {
    return fail({ code: 'validation', message: error.message, fields: { non_field_errors: [error.message] } });
  }
  log.error({ err: error }, 'socket handler failed');
  return fail({ code: 'internal', message: 'A server error occurred.' });
}
