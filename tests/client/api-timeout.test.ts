// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ANSWER_TIMEOUT_MS, api, NetworkError } from '../../client/lib/api';

/** A network that takes the request and never answers, until the request is given up. */
function silentNetwork() {
  const signals: AbortSignal[] = [];
  vi.stubGlobal('fetch', (_path: string, init: RequestInit) => {
    signals.push(init.signal!);
    return new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(new DOMException('The operation was aborted.', 'AbortError'))));
  });
  return signals;
}

describe('a request with no answer', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it(`is given up as unanswered after ${ANSWER_TIMEOUT_MS / 1000} s`, async () => {
    vi.useFakeTimers();
    const signals = silentNetwork();
    const asked = api.me();
    const outcome = asked.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(ANSWER_TIMEOUT_MS - 1);
    expect(signals[0]!.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toBeInstanceOf(NetworkError);
  });

  it('keeps no timer once the answer has begun', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ detail: 'x' }), { status: 200, headers: { 'content-type': 'application/json' } }));
    await api.me();
    expect(vi.getTimerCount()).toBe(0);
  });
});
