import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { timeoutSignal } from '../../server/lib/timeout-signal';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('a timeout signal', () => {
  it('aborts the signal built on it with AbortSignal.any, a garbage collection in between', async () => {
    const shutdown = new AbortController();
    // Built as the mailer builds a send's deadline: nothing but the composite refers to the timeout.
    const deadline = AbortSignal.any([timeoutSignal(100), shutdown.signal]);
    const aborted = new Promise<unknown>((resolve) => deadline.addEventListener('abort', () => resolve(deadline.reason)));
    // Collected once the code that built it is done with it (AbortSignal.timeout's is, then).
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
    await expect(aborted).resolves.toMatchObject({ name: 'TimeoutError' });
  }, 5_000);

  it('aborts as AbortSignal.timeout does, once its time is up and not before', async () => {
    // Taken before the timer starts: taken after, a stall between the two (a loaded machine) counted
    // against the timer, which then seemed to fire early.
    const started = performance.now();
    const ours = timeoutSignal(50);
    const node = AbortSignal.timeout(50);
    await new Promise((resolve) => ours.addEventListener('abort', resolve));
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    if (!node.aborted) await new Promise((resolve) => node.addEventListener('abort', resolve));
    expect(ours.reason).toBeInstanceOf(DOMException);
    expect(ours.reason).toMatchObject({ name: node.reason.name, message: node.reason.message });
  });
});
