import { afterEach, describe, expect, it, vi } from 'vitest';
import { inFlight, settledWithin, sharedGrace, turnsByKey } from '../../server/lib/turns';

/** A promise and the hands that settle it. */
function pending() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Whether `promise` has settled once everything already queued has run. */
async function hasSettled(promise: Promise<unknown>) {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('work in flight', () => {
  it('is settled at once when nothing runs', async () => {
    expect(await hasSettled(inFlight().settled())).toBe(true);
  });

  it('is settled once every piece has, those started while it waited too, failed or not', async () => {
    const work = inFlight();
    const first = pending();
    const second = pending();
    work.track(first.promise);
    const settled = work.settled();
    work.track(second.promise);
    first.reject(new Error('refused'));
    expect(await hasSettled(settled)).toBe(false);
    second.resolve();
    expect(await hasSettled(settled)).toBe(true);
    // The failure was the caller's to hear: settling does not throw it.
    await expect(settled).resolves.toBeUndefined();
    await expect(first.promise).rejects.toThrow('refused');
  });
});

describe('turns by key', () => {
  it('starts a piece once the one before it of its key has settled, other keys meanwhile', async () => {
    const inTurn = turnsByKey<string>();
    const ana = pending();
    const started: string[] = [];
    const first = inTurn('ana', () => {
      started.push('ana 1');
      return ana.promise;
    });
    const second = inTurn('ana', async () => void started.push('ana 2'));
    const other = inTurn('luz', async () => void started.push('luz'));
    await other;
    expect(started).toEqual(['ana 1', 'luz']);
    ana.reject(new Error('failed'));
    await expect(first).rejects.toThrow('failed');
    await second;
    expect(started).toEqual(['ana 1', 'luz', 'ana 2']);
  });
});

describe('a wait with a grace', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends when its work settles, failed or not, before the grace is up', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const work = pending();
    const waiting = settledWithin(work.promise, 1000);
    expect(await hasSettled(waiting)).toBe(false);
    work.reject(new Error('its caller handles it'));
    expect(await hasSettled(waiting)).toBe(true);
    // Its timer went with it.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends once the grace is up when its work never settles, and not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const waiting = settledWithin(pending().promise, 1000);
    vi.advanceTimersByTime(999);
    expect(await hasSettled(waiting)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await hasSettled(waiting)).toBe(true);
  });
});

describe('sharedGrace', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives each wait its own bound, but never more than what is left of the whole since it began', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const grace = sharedGrace(5000);
    // Not begun yet: its first wait begins it.
    vi.advanceTimersByTime(60_000);
    expect(grace.left(3000)).toBe(3000);
    vi.advanceTimersByTime(3000);
    expect(grace.left(3000)).toBe(2000);
    expect(grace.left()).toBe(2000);
    vi.advanceTimersByTime(2500);
    expect(grace.left(1000)).toBe(0);
  });

  it('counts from its first begin, however often it is begun again', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const grace = sharedGrace(5000);
    grace.begin();
    vi.advanceTimersByTime(4000);
    grace.begin();
    expect(grace.left()).toBe(1000);
  });
});
