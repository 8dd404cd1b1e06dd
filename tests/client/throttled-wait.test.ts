// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';
import type { Translate } from '../../client/lib/i18n';
import { http, Throttled } from '../../client/lib/api';
import { errorMessage } from '../../client/lib/errors';

const inSpanish: Translate = (key, vars) => format(es[key], vars);
const inEnglish: Translate = (key, vars) => format(en[key], vars);

function throttledFor(seconds: number | null) {
  const error = new Throttled(429, 'Request was throttled.');
  error.retryAfterSeconds = seconds;
  return error;
}

describe('the wait after too many attempts', () => {
  it('is given in minutes, rounded up, from a minute on', () => {
    // Forgot-password after six tries: the server's Retry-After of 52 min 4 s.
    expect(errorMessage(throttledFor(3124), inSpanish)).toBe('Demasiados intentos. Vuelve a intentarlo en 53 min.');
    expect(errorMessage(throttledFor(3124), inEnglish)).toBe('Too many attempts. Try again in 53 min.');
    expect(errorMessage(throttledFor(60), inEnglish)).toBe('Too many attempts. Try again in 1 min.');
    expect(errorMessage(throttledFor(61), inSpanish)).toBe('Demasiados intentos. Vuelve a intentarlo en 2 min.');
  });

  it('is given in hours, rounded up, past two hours (the data export\'s limit of a few a day)', () => {
    expect(errorMessage(throttledFor(86_388), inSpanish)).toBe('Demasiados intentos. Vuelve a intentarlo en 24 h.');
    expect(errorMessage(throttledFor(7201), inEnglish)).toBe('Too many attempts. Try again in 3 h.');
    expect(errorMessage(throttledFor(7200), inEnglish)).toBe('Too many attempts. Try again in 120 min.');
  });

  it('is given in seconds below a minute', () => {
    expect(errorMessage(throttledFor(59), inSpanish)).toBe('Demasiados intentos. Vuelve a intentarlo en 59 s.');
    expect(errorMessage(throttledFor(5), inEnglish)).toBe('Too many attempts. Try again in 5 s.');
  });

  it('says only "wait a moment" when the server gave no time', () => {
    expect(errorMessage(throttledFor(null), inEnglish)).toBe(en['error.throttled']);
  });
});

describe('a download refused by a limit', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('carries the server\'s Retry-After, as any other request does', async () => {
    const body = JSON.stringify({ detail: 'Request was throttled. Expected available in 86388 seconds.' });
    vi.stubGlobal('fetch', vi.fn(async () => new Response(body, { status: 429, headers: { 'Retry-After': '86388', 'Content-Type': 'application/json' } })));
    const refused = await http.download('/api/users/me/export/').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Throttled);
    expect((refused as Throttled).retryAfterSeconds).toBe(86_388);
  });
});
