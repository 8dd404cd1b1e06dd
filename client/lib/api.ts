/**
 * The only door to HTTP. Every call carries `Authorization: Token …` (when signed in) and
 * `X-CSRFToken` from the csrftoken cookie; the API's error envelope becomes a typed error here, once.
 */
import type { RegisterResponse } from '../../shared/schemas/auth';
import type { ClientAnalyticsEvent } from '../../shared/schemas/analytics';
import type { FieldErrors } from '../../shared/schemas/common';
import type { CurrentUser } from '../../shared/schemas/users';
import { ERROR_CODES, type ErrorCode } from '../../shared/error-codes';
import { useLanguage } from './i18n';
import { getToken, PENDING_JOIN_KEY, readJson } from './storage';

/**
 * A failed call. Decide by `status` and `code` (shared/error-codes.ts), never by the words:
 * `detail` is the server's sentence for people, in the language the client asked for.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The body's machine `code`, beside its detail: decide by it, never by the words. */
    readonly code: ErrorCode | null = null,
    /** The body's `detail`, when it had one. */
    readonly detail: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
  /** From `Retry-After`, when the server said (a limit's 429, an instance restarting's 503). */
  declare retryAfterSeconds?: number | null;
}
/** 400: the server's field map, with `non_field_errors` for the form as a whole. */
export class ValidationError extends ApiError {
  constructor(readonly fields: FieldErrors) {
    super(400, Object.values(fields).flat()[0] ?? 'Invalid input.');
    this.name = 'ValidationError';
  }
}
/**
 * The server answered no (a 4xx: not there, not yours): asking again will not change it. Anything else
 * (no answer at all, a server not up) may pass once the connection is back.
 */
export const refusedByServer = (error: unknown): boolean => error instanceof ApiError && error.status >= 400 && error.status < 500;
/** A failure that may pass by itself: no answer, the server's own error, or a limit reached for now. */
export const mayPass = (error: unknown): boolean => !refusedByServer(error) || error instanceof Throttled;
/** 401, or 403 `account_suspended`: the token opens nothing any more (unknown, revoked, or ended by a ban). */
export class NotAuthenticated extends ApiError {
  override name = 'NotAuthenticated';
}
export class NotFound extends ApiError {
  override name = 'NotFound';
}
export class Throttled extends ApiError {
  override name = 'Throttled';
}
/** 429 `daily_likes_exhausted`: the free plan's likes are used up until `resetsAt`. */
export class LikesExhausted extends Throttled {
  override name = 'LikesExhausted';
  constructor(
    status: number,
    message: string,
    readonly resetsAt: string,
    detail: string | null = null,
  ) {
    super(status, message, 'daily_likes_exhausted', detail);
  }
}
/** No answer at all: offline, DNS, server down. */
export class NetworkError extends ApiError {
  override name = 'NetworkError';
}

/**
 * A failed call, in the console for whoever looks into it; not one made while the phone is offline:
 * expected then, said on screen already, and each reload would add a line for every call. No answer
 * while online (a dead Wi-Fi, the server down) is still logged.
 */
export function logFailure(what: string, error: unknown) {
  if (error instanceof NetworkError && !navigator.onLine) return;
  console.error(what, error);
}

/** Whether the server answers at all, within 4 s (`/healthz`): when it does, what failed is not the network. */
export const serverAnswers = () =>
  fetch('/healthz', { cache: 'no-store', signal: AbortSignal.timeout(4000) }).then(
    (response) => response.ok,
    () => false,
  );

export interface Page<T> {
  results: T[];
  next: string | null;
}

let onUnauthorized: ((code: ErrorCode | null) => void) | null = null;
/**
 * The session store registers what a rejected token means (sign out), without an import cycle; `code`
 * says why: `account_suspended` for a session a ban ended.
 */
export function setUnauthorizedHandler(handler: (code: ErrorCode | null) => void) {
  onUnauthorized = handler;
}

export function csrfToken(): string {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]*)/);
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

function headers(json: boolean): Record<string, string> {
  const result: Record<string, string> = {
    'X-CSRFToken': csrfToken(),
    Accept: 'application/json',
    // The server writes its messages (field errors above all) in the language the reader chose.
    'Accept-Language': useLanguage.getState().language,
  };
  if (json) result['Content-Type'] = 'application/json';
  const token = getToken();
  if (token) result.Authorization = `Token ${token}`;
  return result;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isErrorCode = (value: unknown): value is ErrorCode => (ERROR_CODES as readonly unknown[]).includes(value);

/** The API's error envelope → one typed error. */
export function toError(status: number, body: unknown, retryAfter: string | null = null): ApiError {
  const detail = isRecord(body) && typeof body.detail === 'string' ? body.detail : null;
  const code = isRecord(body) && isErrorCode(body.code) ? body.code : null;
  const message = detail ?? `HTTP ${status}`;
  if (status === 400 && isRecord(body)) {
    const fields: FieldErrors = {};
    for (const [key, value] of Object.entries(body)) {
      if (Array.isArray(value)) fields[key] = value.map(String);
      else if (typeof value === 'string') fields[key] = [value];
    }
    return new ValidationError(fields);
  }
  if (status === 401 || code === 'account_suspended') return new NotAuthenticated(status, message, code, detail);
  if (status === 404) return new NotFound(status, message, code, detail);
  const error =
    status !== 429
      ? new ApiError(status, message, code, detail)
      : code === 'daily_likes_exhausted' && isRecord(body) && typeof body.resets_at === 'string'
        ? new LikesExhausted(status, message, body.resets_at, detail)
        : new Throttled(status, message, code, detail);
  const seconds = Number.parseInt(retryAfter ?? '', 10);
  if (Number.isFinite(seconds)) error.retryAfterSeconds = seconds;
  return error;
}

/**
 * A request whose answer has not begun by then is given up as unanswered (`NetworkError`): a party's
 * half-dead Wi-Fi can hold one for minutes, and a screen waiting on it shows nothing but a spinner.
 * Only the wait for the answer's start: a long download, once begun, takes the time it takes.
 */
export const ANSWER_TIMEOUT_MS = 15_000;

async function send(method: string, path: string, body?: unknown): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ANSWER_TIMEOUT_MS);
  try {
    return await fetch(path, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal: controller.signal,
    });
  } catch (error) {
    throw new NetworkError(0, error instanceof Error ? error.message : 'Network error');
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A 401 says the session ended, if it was of the token this tab sends now: not of one it has replaced
 * since (a call that crossed the password change that answered the new one).
 */
function refusal(error: ApiError, sent: string | null): ApiError {
  if (error instanceof NotAuthenticated && sent && sent === getToken()) onUnauthorized?.(error.code);
  return error;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const sent = getToken();
  const response = await send(method, path, body);
  const text = await response.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) throw refusal(toError(response.status, parsed, response.headers.get('Retry-After')), sent);
  return parsed as T;
}

/** A file behind the token (the data export, a report's photo copies): the body as a Blob, or the envelope's typed error. */
async function download(path: string): Promise<Blob> {
  const sent = getToken();
  const response = await send('GET', path);
  if (response.ok) return response.blob();
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the status alone says what went wrong.
  }
  throw refusal(toError(response.status, parsed, response.headers.get('Retry-After')), sent);
}

const get = <T>(path: string) => request<T>('GET', path);
const post = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);
const put = <T>(path: string, body: unknown) => request<T>('PUT', path, body);
const del = <T>(path: string, body?: unknown) => request<T>('DELETE', path, body);

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

/**
 * The requests themselves, for `api-app.ts` and `api-account.ts`: the app's and the account pages'
 * calls live there, in their chunks, so the landing page does not carry them. Every call still goes
 * out through here.
 */
export const http = { request, get, post, put, del, download, query, headers, refusal };


export interface RegisterInput {
  first_name: string;
  last_name: string;
  username: string;
  password: string;
  password2: string;
}

/**
 * The pass the event's QR link gave (`lib/pending-join.ts`), sent with a sign-up or login: the venue's
 * crowd shares its Wi-Fi's one address, and with a pass the server counts the door's rush per event.
 */
export function joinPass(): string | undefined {
  return (readJson(PENDING_JOIN_KEY) as { pass?: string } | null)?.pass;
}

/**
 * What the landing, login and register pages call. The signed-in app's calls are in `api-app.ts`
 * (which re-exports these), the Google button's in `google.ts`, so the first page does not carry them.
 */
export const api = {
  login: (username: string, password: string) => post<{ token: string }>('/api/auth/', { username, password, pass: joinPass() }),
  register: (input: RegisterInput) => post<RegisterResponse>('/api/auth/register/', { ...input, pass: joinPass() }),
  logout: () => post<null>('/api/auth/logout/'),
  recordEvent: (name: ClientAnalyticsEvent, clientId: string, ageMs: number) =>
    post<null>('/api/analytics/events/', { name, client_id: clientId, age_ms: ageMs }),
  me: () => get<CurrentUser>('/api/users/me/'),
};

export type Api = typeof api;
