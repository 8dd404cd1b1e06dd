import type { FastifyBaseLogger } from 'fastify';
import type { ZodError } from 'zod';
import type { Language } from '../../shared/constants';
import type { Ack, AckError } from '../../shared/events';
import { renderServerMessage, type ServerMessageCode, serverText } from '../../shared/i18n/server-messages';
import { ApiError, toFieldErrors, ValidationError } from '../errors';

export const fail = (error: AckError): Ack => ({ ok: false, error });

/** An error ack whose words are the server catalogue's, in the socket's language. */
const failWith = (code: AckError['code'], text: ServerMessageCode, language: Language): Ack =>
  fail({ code, message: renderServerMessage(serverText(text), language) });

export const notFoundAck = (language: Language): Ack => failWith('not_found', 'not_found', language);

/** The instance is draining for a restart: the client sends again once it has reconnected elsewhere. */
export const unavailableAck = (language: Language): Ack => failWith('unavailable', 'server_restarting', language);

export const invalidPayload = (error: ZodError, language: Language): Ack =>
  fail({
    code: 'validation',
    message: renderServerMessage(serverText('invalid_payload'), language),
    fields: ApiError.renderFields(toFieldErrors(error.issues), language),
  });

/** A service error as the ack's error: the same rules and words (in the socket's language) as the REST route's envelope. */
export function errorAck(error: unknown, log: FastifyBaseLogger, language: Language): Ack {
  if (error instanceof ValidationError) {
    return fail({
      code: 'validation',
      message: renderServerMessage(serverText('invalid_payload'), language),
      fields: ApiError.renderFields(error.fields, language),
    });
  }
  if (error instanceof ApiError && error.statusCode < 500) {
    const message = String(error.render(language).detail ?? error.message);
    if (error.statusCode === 404) return fail({ code: 'not_found', message });
    if (error.statusCode === 429) return fail({ code: 'throttled', message, retry_after: Number(error.headers['Retry-After']) });
    if (error.statusCode === 401) return fail({ code: 'unauthorized', message });
    return fail({ code: 'validation', message, fields: { non_field_errors: [message] } });
  }
  log.error({ err: error }, 'socket handler failed');
  return failWith('internal', 'server_error', language);
}
