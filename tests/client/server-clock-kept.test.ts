// @vitest-environment jsdom
/**
 * The server's clock from the app's last opening: the first screen of the next one is timed by it
 * before any answer has come, unless what was kept is stale or could not have been measured, and the
 * first answer of the new opening outranks it.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The phone runs five minutes fast. */
const AHEAD = -5 * MINUTE;

/** The app opened afresh: its modules loaded again over what storage holds. */
async function open() {
  vi.resetModules();
  const { useServerAhead } = await import('../../client/lib/server-clock');
  const { useEvents } = await import('../../client/stores/events');
  return { ahead: () => useServerAhead.getState(), useEvents };
}

/** Where I am read once, answered after `trip` ms, the server reading its clock (`ahead` of the phone's) half-way. */
async function read(useEvents: Awaited<ReturnType<typeof open>>['useEvents'], trip: number, ahead = AHEAD) {
  vi.stubGlobal('fetch', async () => {
    await new Promise((resolve) => setTimeout(resolve, trip / 2));
    const now = new Date(Date.now() + ahead).toISOString();
    await new Promise((resolve) => setTimeout(resolve, trip / 2));
    return Response.json({ event: null, now });
  });
  const done = useEvents.getState().loadCurrent();
  await vi.advanceTimersByTimeAsync(trip);
  await done;
}

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-12-05T22:00:00.000Z'), toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  localStorage.clear();
});

it('opens with the offset the last opening measured', async () => {
  const first = await open();
  await read(first.useEvents, 80);
  expect(first.ahead()).toBe(AHEAD);
  vi.advanceTimersByTime(3 * HOUR);
  expect((await open()).ahead()).toBe(AHEAD);
});

it('opens with none when what was kept is a day old, or no answer could have said it', async () => {
  const kept = (samples: unknown) => localStorage.setItem('server_clock', JSON.stringify(samples));
  const now = Date.now();
  kept([{ ahead: AHEAD, trip: 80, at: now - 25 * HOUR }]);
  expect((await open()).ahead()).toBe(0);
  kept([{ ahead: AHEAD, trip: 80, at: now + MINUTE }]);
  expect((await open()).ahead()).toBe(0);
  kept([{ ahead: AHEAD, trip: -80, at: now - MINUTE }, { ahead: AHEAD, trip: 5 * MINUTE, at: now - MINUTE }]);
  expect((await open()).ahead()).toBe(0);
  kept([null, 3, { ahead: String(AHEAD), trip: 80, at: now - MINUTE }, { ahead: AHEAD }]);
  expect((await open()).ahead()).toBe(0);
  localStorage.setItem('server_clock', '{not json');
  expect((await open()).ahead()).toBe(0);
});

it('takes the new opening’s first answer over a quicker one kept from hours before', async () => {
  const first = await open();
  await read(first.useEvents, 20);
  // The phone's clock was put right meanwhile, by two minutes: the kept answer no longer holds.
  vi.advanceTimersByTime(2 * HOUR);
  const next = await open();
  await read(next.useEvents, 600, AHEAD + 2 * MINUTE);
  expect(next.ahead()).toBe(AHEAD + 2 * MINUTE);
});
