// @vitest-environment jsdom
/**
 * The server's clock as measured on a party's Wi-Fi, where one answer comes at once and the next after
 * seconds: the offset is the quickest recent answer's, which a slow one does not move, yet it follows
 * the phone's clock being set, and gives way to newer answers once old.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { useServerAhead } from '../../client/lib/server-clock';
import { useEvents } from '../../client/stores/events';

const MINUTE = 60_000;
/** How far the server's clock is ahead of the phone's: the phone runs five minutes fast. */
const AHEAD = -5 * MINUTE;

/** A wait on the fake clock; none at all for 0 ms (a timer due at the very end of an advance is not run). */
const wait = (ms: number) => new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : resolve(undefined)));

/**
 * Where I am read once, the request taking `up` ms to reach the server, which reads its clock
 * (`ahead` of the phone's) then, and its answer `down` ms to come back.
 */
async function read(up: number, down: number, ahead = AHEAD) {
  vi.stubGlobal('fetch', async () => {
    await wait(up);
    const now = new Date(Date.now() + ahead).toISOString();
    await wait(down);
    return Response.json({ event: null, now });
  });
  const done = useEvents.getState().loadCurrent();
  await vi.advanceTimersByTimeAsync(up + down);
  await done;
}

/** Each test at a time of its own, an hour after the last's: the answers of one are no others'. */
let hours = 0;
function startClock() {
  hours += 1;
  vi.useFakeTimers({ now: Date.parse('2026-12-05T20:00:00.000Z') + hours * 60 * MINUTE, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  useEvents.setState({ current: undefined });
  localStorage.clear();
});

it('keeps the quickest answer’s offset when a slow one comes after it', async () => {
  startClock();
  await read(40, 40);
  expect(useServerAhead.getState()).toBe(AHEAD);
  // Held up on its way back for 8 s: taken as read at the trip's middle, it says 4 s less.
  await read(0, 8000);
  expect(useServerAhead.getState()).toBe(AHEAD);
  await vi.advanceTimersByTimeAsync(MINUTE);
  await read(6000, 0);
  expect(useServerAhead.getState()).toBe(AHEAD);
});

it('follows the phone’s clock when it is set, even from a slow answer', async () => {
  startClock();
  await read(40, 40);
  // Set three minutes further ahead: the quick answer of before no longer holds.
  vi.setSystemTime(Date.now() + 3 * MINUTE);
  await read(0, 3000, AHEAD - 3 * MINUTE);
  expect(Math.abs(useServerAhead.getState() - (AHEAD - 3 * MINUTE))).toBeLessThanOrEqual(1500);
  // Set back: the answers heard "later" than now are dropped too.
  vi.setSystemTime(Date.now() - 10 * MINUTE);
  await read(0, 3000, AHEAD + 7 * MINUTE);
  expect(Math.abs(useServerAhead.getState() - (AHEAD + 7 * MINUTE))).toBeLessThanOrEqual(1500);
});

it('takes a newer answer’s offset once the quick one is old', async () => {
  startClock();
  await read(40, 40);
  await vi.advanceTimersByTimeAsync(11 * MINUTE);
  await read(0, 1600);
  expect(useServerAhead.getState()).toBe(AHEAD - 800);
});
