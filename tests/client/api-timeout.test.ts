// @vitest-environment jsdom
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventInputBody } from '../../shared/schemas/events';
import { ANSWER_TIMEOUT_MS, api, ApiError, NetworkError } from '../../client/lib/api';
import { api as appApi } from '../../client/lib/api-app';
import { setToken } from '../../client/lib/storage';

const realFetch = globalThis.fetch;

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

/**
 * An instance draining for a deploy or a restart answers what reaches it 503 with `Retry-After: 1`,
 * doing nothing (server/errors.ts `refuseWhileClosing`, tests/realtime/shutdown.test.ts); the same call
 * a second later reaches an instance that is up. A stand-in on loopback answers as that instance, then
 * as the next one: `refusals` times the draining one's exact answer, then 200 with what was asked.
 */
async function restartingServer(refusals: number, retryAfter: string | null = '1') {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    if (seen.length <= refusals) {
      response.writeHead(503, { 'Content-Type': 'application/json', Connection: 'close', ...(retryAfter === null ? {} : { 'Retry-After': retryAfter }) });
      response.end(JSON.stringify({ detail: 'El servidor se está reiniciando; vuelve a enviarlo cuando se reconecte.' }));
      return;
    }
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  vi.stubGlobal('fetch', (input: string, init: RequestInit) => realFetch(new URL(input, url), init));
  // Only the waits between tries are played forward; the requests themselves are real.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  return {
    seen,
    /** Until the stand-in has had `count` requests, then the client's wait after the last played out. */
    async afterRequest(count: number) {
      await vi.waitFor(() => expect(seen).toHaveLength(count));
      await vi.advanceTimersByTimeAsync(1000);
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('a request that reaches an instance restarting', () => {
  let standIn: Awaited<ReturnType<typeof restartingServer>> | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    await standIn?.close();
    standIn = undefined;
  });

  it('is sent again after the wait it says, when safe to repeat: a check-in, a like, a message, a profile saved, a read', async () => {
    standIn = await restartingServer(5);
    const calls = [
      appApi.checkIn('PARTY1'),
      appApi.react(7, 'like'),
      appApi.sendMessage(3, 'hola', 'client-1'),
      appApi.saveLanguage('es'),
      appApi.currentEvent(),
    ];
    await standIn.afterRequest(5);
    expect(await Promise.all(calls.map((call) => call.catch((error: unknown) => error)))).toEqual(Array(5).fill({ ok: true }));
    expect(standIn.seen.slice(5).sort()).toEqual(standIn.seen.slice(0, 5).sort());
  });

  it('is given up after about 5 s of waits in all, never in a loop', async () => {
    standIn = await restartingServer(Infinity);
    const outcome = appApi.currentEvent().catch((error: unknown) => error);
    for (let tries = 1; tries <= 5; tries += 1) await standIn.afterRequest(tries);
    const error = await outcome;
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect(standIn.seen).toHaveLength(6);
  });

  it('is not sent again in the name of someone who signed in here meanwhile', async () => {
    setToken('token-of-ana');
    standIn = await restartingServer(1);
    const outcome = appApi.sendMessage(3, 'hola', 'client-2').catch((error: unknown) => error);
    await vi.waitFor(() => expect(standIn!.seen).toHaveLength(1));
    setToken('token-of-ben');
    await vi.advanceTimersByTimeAsync(1000);
    expect(((await outcome) as ApiError).status).toBe(503);
    expect(standIn.seen).toHaveLength(1);
  });

  it('is not sent again when it would be done twice (an event created, a report), or when no time is said', async () => {
    standIn = await restartingServer(1);
    const created = await appApi.createEvent({} as EventInputBody).catch((error: unknown) => error);
    expect((created as ApiError).status).toBe(503);
    expect(standIn.seen).toHaveLength(1);
    await standIn.close();

    standIn = await restartingServer(1, null);
    const read = await appApi.currentEvent().catch((error: unknown) => error);
    expect((read as ApiError).status).toBe(503);
    expect(standIn.seen).toHaveLength(1);
  });
});

/** A network that takes an upload's bytes as the test says, and never answers. */
function stalledUploads() {
  const sent: FakeUpload[] = [];
  class FakeUpload {
    upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    onload: (() => void) | null = null;
    onloadend: (() => void) | null = null;
    aborted = false;
    open() {}
    setRequestHeader() {}
    send() {
      sent.push(this);
    }
    abort() {
      this.aborted = true;
      this.onabort?.();
      this.onloadend?.();
    }
    /** `loaded` of the file's bytes have gone out. */
    progress(loaded: number) {
      this.upload.onprogress?.({ lengthComputable: true, loaded, total: 100 } as ProgressEvent);
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeUpload);
  return sent;
}

describe('an upload with no answer', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it(`is given up as unanswered once nothing has moved for ${ANSWER_TIMEOUT_MS / 1000} s since bytes went out, not while they still go out`, async () => {
    vi.useFakeTimers();
    const sent = stalledUploads();
    const outcome = appApi.upload(new File(['x'], 'me.jpg', { type: 'image/jpeg' })).catch((error: unknown) => error);
    // Held back by the browser until a connection is free (other photos going up): not stalled yet.
    await vi.advanceTimersByTimeAsync(4 * ANSWER_TIMEOUT_MS);
    expect(sent[0]!.aborted).toBe(false);
    // A slow network: the photo goes out a little at a time, for longer than the wait.
    for (let loaded = 10; loaded <= 100; loaded += 10) {
      await vi.advanceTimersByTimeAsync(ANSWER_TIMEOUT_MS - 1);
      sent[0]!.progress(loaded);
    }
    expect(sent[0]!.aborted).toBe(false);
    // All of it sent, and then no answer (the Wi-Fi died): the slot does not say "Uploading" for ever.
    await vi.advanceTimersByTimeAsync(ANSWER_TIMEOUT_MS);
    expect(sent[0]!.aborted).toBe(true);
    expect(await outcome).toBeInstanceOf(NetworkError);
    expect(vi.getTimerCount()).toBe(0);
  });
});
