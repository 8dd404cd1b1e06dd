import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { FieldErrors } from '../shared/schemas/common';
import { isUnstorableText } from './lib/pg-errors';

/** Every error a route or service means to show a client. Rendered in one place: `registerErrorHandler`. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${statusCode}`);
  }
}

export class ValidationError extends ApiError {
  constructor(readonly fields: FieldErrors) {
    super(400, fields);
  }

  static field(field: string, message: string) {
    return new ValidationError({ [field]: [message] });
  }
}

export class NotAuthenticated extends ApiError {
  constructor(detail = 'Authentication credentials were not provided.') {
    super(401, { detail }, { 'WWW-Authenticate': 'Token' });
  }
}

export class PermissionDenied extends ApiError {
  constructor(detail = 'You do not have permission to perform this action.') {
    super(403, { detail });
  }
}

export class NotFound extends ApiError {
  constructor(detail = 'Not found.') {
    super(404, { detail });
  }
}

export class Conflict extends ApiError {
  constructor(detail: string) {
    super(409, { detail });
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(detail = 'Request body is too large.') {
    super(413, { detail });
  }
}

export class UnsupportedMediaType extends ApiError {
  constructor(detail: string) {
    super(415, { detail });
  }
}

export class Throttled extends ApiError {
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(
      429,
      { detail: `Request was throttled. Expected available in ${seconds} seconds.` },
      { 'Retry-After': String(seconds) },
    );
  }
}

/** Zod issues (as fastify-type-provider-zod reports them) to API.md's field map. */
export function toFieldErrors(
  issues: ReadonlyArray<{ path?: ReadonlyArray<PropertyKey>; message: string }>,
): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of issues) {
    const head = issue.path?.[0];
    const key = head === undefined ? 'non_field_errors' : String(head);
    (fields[key] ??= []).push(issue.message);
  }
  return fields;
}

const statusDetails: Record<number, string> = {
  400: 'Malformed request.',
  404: 'Not found.',
  405: 'Method not allowed.',
  413: 'Request body is too large.',
  415: 'Unsupported media type in request.',
};

export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).headers(error.headers).send(error.body);
    }

    if (hasZodFastifySchemaValidationErrors(error)) {
      // A bogus id in the path is "no such thing", as in DRF.
      if (error.validationContext === 'params') return reply.code(404).send({ detail: 'Not found.' });
      const issues = error.validation.map((v) => ({
        path: v.instancePath.split('/').filter(Boolean),
        message: v.message ?? 'Invalid value.',
      }));
      // A body that is not an object at all has no fields to blame.
      return reply.code(400).send(toFieldErrors(issues));
    }

    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (status === 429) return reply.code(429).send({ detail: error.message });
      const detail =
        error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
          ? `JSON parse error - ${error.message}`
          : (statusDetails[status] ?? error.message);
      return reply.code(status).send({ detail });
    }

    // A last line behind validation: text the database cannot store is a bad request.
    if (isUnstorableText(error)) return reply.code(400).send({ detail: statusDetails[400] });

    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'A server error occurred.' });
  });
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KB, a broken
 * request line, a slow client) still get API.md's envelope, not Fastify's own error shape.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const detail =
    status === 408 ? 'Request timed out.' : status === 431 ? 'Request headers are too large.' : statusDetails[400]!;
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
