import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorCode } from '../shared/error-codes';
import type { Language } from '../shared/constants';
import {
  languageOf,
  renderServerMessage,
  type ServerMessage,
  type ServerMessageCode,
  serverText,
} from '../shared/i18n/server-messages';
import { textOfIssue } from '../shared/schemas/zod';
import { isConnectionLost, isTransientConflict, isUnstorableText } from './lib/pg-errors';

/** The 400 body before it is put into words: every bad field, each with its messages. */
export type FieldMessages = Record<string, ServerMessage[]>;

/**
 * Every error a route or service means to show a client. Rendered in one place: `registerErrorHandler`.
 *
 * The body is the error envelope: a field map for a 400 (`ValidationError`), `{detail}` otherwise.
 * Messages are coded (`serverText('not_found')`, shared/i18n/server-messages.ts) and written in the
 * request's language when the answer goes out. A condition a client must tell apart from others of
 * the same status also carries a machine `code` beside the detail
 * (`new Conflict(serverText('already_subscribed'), 'already_subscribed')`); the codes are listed in
 * `shared/error-codes.ts`, and the client decides by status and code, never by the words.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    /** `{detail, code?}` (with any other facts the client needs, such as `resets_at`), or a 400's field map. */
    readonly body: { detail?: ServerMessage; code?: ErrorCode; [fact: string]: unknown } | FieldMessages,
    readonly headers: Record<string, string> = {},
  ) {
    const detail = (body as { detail?: ServerMessage }).detail;
    super(detail === undefined ? `HTTP ${statusCode}` : renderServerMessage(detail, 'en'));
  }

  get code(): ErrorCode | undefined {
    return (this.body as { code?: ErrorCode }).code;
  }

  /**
   * A 5xx that is a service outside failing as it sometimes does (the mail server down), not a bug:
   * the one line the log says of it, in place of the error and its stack of our code and the library's.
   */
  get logLine(): { msg: string; facts: Record<string, unknown> } | undefined {
    return undefined;
  }

  /** The body in a language: what the client receives. */
  render(language: Language): Record<string, unknown> {
    const rendered: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this.body)) {
      if (Array.isArray(value)) rendered[key] = value.map((item: ServerMessage) => renderServerMessage(item, language));
      else if (key === 'detail') rendered[key] = renderServerMessage(value as ServerMessage, language);
      else rendered[key] = value;
    }
    return rendered;
  }

  /** One field's messages in a language (socket acks carry them as REST's 400 does). */
  static renderFields(fields: FieldMessages, language: Language): Record<string, string[]> {
    return Object.fromEntries(Object.entries(fields).map(([key, messages]) => [key, messages.map((m) => renderServerMessage(m, language))]));
  }
}

/** `{detail}`, with the machine code when there is one. */
const detailBody = (detail: ServerMessage, code?: ErrorCode) => (code ? { detail, code } : { detail });

/**
 * The most fields a 400 names. No form has half as many; a body of thousands of keys each refused (a
 * NUL in every one) is answered with the first of them, not with an answer as large as the body.
 */
export const MAX_FIELD_ERRORS = 50;

export class ValidationError extends ApiError {
  readonly fields: FieldMessages;

  constructor(fields: FieldMessages) {
    const named = Object.keys(fields).length > MAX_FIELD_ERRORS ? Object.fromEntries(Object.entries(fields).slice(0, MAX_FIELD_ERRORS)) : fields;
    super(400, named);
    this.fields = named;
  }

  static field(field: string, message: ServerMessage) {
    return new ValidationError({ [field]: [message] });
  }
}

export class NotAuthenticated extends ApiError {
  constructor(detail: ServerMessage = serverText('not_authenticated'), code?: ErrorCode) {
    super(401, detailBody(detail, code), { 'WWW-Authenticate': 'Token' });
  }
}

/**
 * A request signed in just before its account was deleted (another device), which finds the account
 * gone as it writes: the session ended with the account. Said so (`account_deleted`), so that the
 * phone keeps nothing of it, as when told live (`account:deleted`): this request may beat that news.
 * Safe to say: the request's token was one of the account's sessions a moment ago; the next request
 * with it finds the token unknown, as any other ended or forged one.
 */
export class SessionEnded extends NotAuthenticated {
  constructor() {
    super(serverText('account_deleted'), 'account_deleted');
  }
}

export class PermissionDenied extends ApiError {
  constructor(detail: ServerMessage = serverText('permission_denied'), code?: ErrorCode) {
    super(403, detailBody(detail, code));
  }
}

/**
 * 403: the account is banned. At every way in, and on a request or socket with a session the ban
 * ended, so that a phone away at the time says why it was signed out.
 */
export class AccountSuspended extends PermissionDenied {
  constructor() {
    super(serverText('account_suspended'), 'account_suspended');
  }
}

export class NotFound extends ApiError {
  constructor(detail: ServerMessage = serverText('not_found'), code?: ErrorCode) {
    super(404, detailBody(detail, code));
  }
}

export class Conflict extends ApiError {
  constructor(detail: ServerMessage, code?: ErrorCode) {
    super(409, detailBody(detail, code));
  }
}

/** Something this server depends on (Stripe, say) is not answering: a 503 the client may retry. */
export class ServiceUnavailable extends ApiError {
  constructor(detail: ServerMessage, code?: ErrorCode) {
    super(503, detailBody(detail, code));
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(detail: ServerMessage = serverText('body_too_large')) {
    super(413, { detail });
  }
}

export class UnsupportedMediaType extends ApiError {
  constructor(detail: ServerMessage = serverText('unsupported_media_type')) {
    super(415, { detail });
  }
}

export class Throttled extends ApiError {
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, { detail: serverText('throttled', { seconds }) }, { 'Retry-After': String(seconds) });
  }
}

/** Zod issues to the 400's field map, each message still coded (shared/schemas/zod.ts). */
export function toFieldErrors(
  issues: ReadonlyArray<{ path?: ReadonlyArray<PropertyKey>; message: string; params?: unknown }>,
): FieldMessages {
  const fields: FieldMessages = {};
  for (const issue of issues) {
    const head = issue.path?.[0];
    const key = head === undefined ? 'non_field_errors' : String(head);
    const texts = (fields[key] ??= []);
    // A list's every item may fail alike: its field says so once.
    const text = textOfIssue(issue);
    if (!texts.includes(text)) texts.push(text);
  }
  return fields;
}

/** Fastify's own refusals of a body, in our words: its messages are English only. */
const statusDetails: Partial<Record<number, ServerMessageCode>> = {
  413: 'body_too_large',
  415: 'unsupported_media_type',
};

/** A failure the error handler answers: the typed errors above, and the ones Fastify and zod raise. */
export function asApiError(error: FastifyError): ApiError | null {
  if (error instanceof ApiError) return error;

  if (hasZodFastifySchemaValidationErrors(error)) {
    // A bogus id in the path is "no such thing", as in DRF.
    if (error.validationContext === 'params') return new NotFound();
    // A body that is not an object at all has no fields to blame (its one issue has an empty path).
    return new ValidationError(
      toFieldErrors(
        error.validation.map((v) => ({
          path: v.instancePath.split('/').filter(Boolean),
          message: v.message ?? 'Invalid value.',
          params: (v.params as { params?: unknown } | undefined)?.params,
        })),
      ),
    );
  }

  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    if (status === 429) return new ApiError(429, { detail: error.message });
    if (status === 404) return new NotFound();
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
      return new ApiError(400, { detail: serverText('json_parse_error') });
    }
    return new ApiError(status, { detail: serverText(statusDetails[status] ?? 'malformed') });
  }

  // A last line behind validation: text the database cannot store is a bad request.
  if (isUnstorableText(error)) return new ApiError(400, { detail: serverText('malformed') });
  // Rolled back to let a concurrent change of the same rows through (a deadlock): nothing was
  // stored, and the same request in a moment goes through.
  if (isTransientConflict(error)) return new ApiError(503, { detail: serverText('busy_try_again') }, { 'Retry-After': '1' });
  // Its connection to PostgreSQL ended under it (a backend ended, a restart, a failover): the next
  // statement opens a new one, so the request in a moment goes through.
  if (isConnectionLost(error)) return new ApiError(503, { detail: serverText('database_unreachable') }, { 'Retry-After': '1' });
  return null;
}

/** The methods the API's routes are registered under (a HEAD is answered as its GET). */
export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A 405 naming the methods the path takes, as DRF answers. */
export const methodNotAllowed = (method: string, allowed: readonly string[]) =>
  new ApiError(405, { detail: serverText('method_not_allowed', { method }) }, { Allow: allowed.join(', ') });

/**
 * A path parameter refused on a path that a fixed route holds under other methods: under this method
 * a parametric route took it (`GET /api/events/leave/` as the event "leave", `DELETE
 * /api/conversations/started/` as the conversation "started"), which would answer 404. DRF answers
 * the fixed path's 405, as for any other method it does not take.
 */
function fixedPathRefusal(app: FastifyInstance, request: FastifyRequest, error: FastifyError): ApiError | null {
  if (!hasZodFastifySchemaValidationErrors(error) || error.validationContext !== 'params') return null;
  const url = request.url.split('?')[0]!;
  const allowed = ROUTE_METHODS.filter((method) => {
    const route = app.findRoute({ method, url });
    return route !== null && Object.keys(route.params).length === 0;
  });
  return allowed.length > 0 ? methodNotAllowed(request.method, allowed) : null;
}

export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const language = languageOf(request.headers['accept-language']);
    const known = fixedPathRefusal(app, request, error) ?? asApiError(error);
    if (known) {
      // A 503 is a service of ours not answering (Stripe, the photo bucket), or a transaction rolled back
      // by a deadlock: the operator should hear of it.
      const line = known.statusCode >= 500 ? known.logLine : undefined;
      if (line) request.log.warn(line.facts, line.msg);
      else if (known.statusCode >= 500) request.log.warn({ err: error }, 'the request could not be served now: the client may try again');
      return reply.code(known.statusCode).headers(known.headers).send(known.render(language));
    }

    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: renderServerMessage(serverText('server_error'), language) });
  });
}

/**
 * The router's own refusals, made before any route or hook runs: a path whose percent-escapes are not
 * UTF-8, or a path parameter over 100 characters. Either names nothing here, so the answer is the
 * envelope's 404, with the headers every response carries (no hook adds them on this path).
 */
export function answerRouterRefusal(headers: Record<string, string>) {
  return (_error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const notFound = new NotFound();
    return reply.code(notFound.statusCode).headers(headers).send(notFound.render(languageOf(request.headers['accept-language'])));
  };
}

/**
 * An HTTP/1.1 request with no Host header. Node would refuse it itself, with a bare 400 before Fastify
 * sees it (`requireHostHeader`, turned off in app.ts so that it comes here): answered in the envelope,
 * first of all the hooks.
 */
export function rejectMissingHost(app: FastifyInstance) {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers.host || request.raw.httpVersion !== '1.1') return done();
    done(new ApiError(400, { detail: serverText('missing_host') }));
  });
}

/**
 * A request that reaches an instance shutting down (on a kept-alive connection: new connections are no
 * longer accepted) does nothing and is answered 503 in the envelope, with `Retry-After` and `Connection:
 * close`, as a socket's event is answered `unavailable`: the client sends it again, to an instance that
 * is up. Fastify's own answer to it (`return503OnClosing`, turned off in app.ts) is not the envelope.
 * Requests already in flight when the shutdown starts finish (docs/operations.md).
 */
export function refuseWhileClosing(app: FastifyInstance) {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('Connection', 'close');
    done(new ApiError(503, { detail: serverText('server_restarting') }, { 'Retry-After': '1' }));
  });
}

/** Each connection's last request's `Accept-Language`: the language of a refusal on it that names none. */
const connectionLanguages = new WeakMap<Socket, string>();

/**
 * Notes the language each request names on its connection (`connectionLanguages`): a phone keeps its
 * connection alive, and a request of its that Node refuses unread (headers too slow to come: nothing
 * of them is read) or broken is answered in the language its requests before it there asked for.
 */
export function rememberConnectionLanguage(app: FastifyInstance) {
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers['accept-language'];
    if (header) connectionLanguages.set(request.raw.socket, header);
    done();
  });
}

/**
 * The language of a request Node's parser refused: its `Accept-Language` when the bytes that came
 * (`rawPacket`, not there for a timeout) hold it, else that of the connection's request before it,
 * else that of a request naming none.
 */
function refusedRequestLanguage(rawPacket: unknown, socket: Socket): Language {
  const header = Buffer.isBuffer(rawPacket) ? rawPacket.toString('latin1').match(/\r\naccept-language:[ \t]*([^\r\n]*)/i)?.[1] : undefined;
  return languageOf(header ?? connectionLanguages.get(socket));
}

/**
 * A request whose `Expect` is not `100-continue`: Node answers it 417 itself, bare, unless told to
 * (`checkExpectation`): answered in the envelope, in its language, with the headers every response
 * carries. No route runs for it.
 */
export function answerUnmetExpectation(headers: Record<string, string>) {
  return (request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify(new ApiError(417, { detail: serverText('expectation_failed') }).render(languageOf(request.headers['accept-language'])));
    response.writeHead(417, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    response.end(body);
  };
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KB, a broken
 * request line, a slow client) still get the error envelope, not Fastify's own error shape.
 */
export function clientErrorHandler(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const detail = serverText(status === 408 ? 'request_timeout' : status === 431 ? 'headers_too_large' : 'malformed');
  if (!answerBegun(socket)) {
    writeRawAnswer(socket, status, JSON.stringify(new ApiError(status, { detail }).render(refusedRequestLanguage(error.rawPacket, socket))));
  }
  socket.destroy(error);
}

/**
 * Whether the request being read on this connection has its answer sent, or begun. A route may answer
 * before the body has come (a 401 for an upload without a token), and Node reads the rest of the body
 * after it: a refusal then (the body too slow) would follow that answer as one nobody asked for, so the
 * connection is only closed. Node's own fields: the response being written, the request being read.
 */
function answerBegun(socket: Socket): boolean {
  const connection = socket as Socket & { _httpMessage?: ServerResponse | null; parser?: { incoming?: IncomingMessage | null } | null };
  if (connection._httpMessage) return connection._httpMessage.headersSent;
  const reading = connection.parser?.incoming;
  return reading != null && !reading.complete;
}

/**
 * An answer in the envelope written on the connection itself, where no response object is there to
 * write it (a request Node refused, an upgrade refused): the connection closes after it.
 */
export function writeRawAnswer(socket: Socket, status: number, body: string, headers: Record<string, string> = {}) {
  if (!socket.writable) return;
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${extra}Content-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
