// @vitest-environment jsdom
/**
 * The likes left are read again when the server says they come back, however wrong the phone's clock:
 * a phone whose clock runs ahead of the server's sees that moment already past while the server still
 * says none are left, and must not ask again every second until the server's clock gets there (a
 * request a second from each such phone at a party). The like still comes back within about a minute.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { usePlan } from '../../client/stores/plan';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

/** How far ahead of the server's clock the phone's runs. */
const SKEW_MS = 5 * 60_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  useSession.setState({ token: 't', user: currentUser() });
});
afterEach(() => {
  usePlan.getState().reset();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

it('asks ever less often while the server still names a moment the phone’s clock has passed', async () => {
  const serverNow = () => Date.now() - SKEW_MS;
  const comesBack = serverNow() + 100_000;
  let reads = 0;
  vi.stubGlobal('fetch', async () => {
    reads += 1;
    const back = serverNow() >= comesBack;
    return Response.json({ unlimited: false, limit: 100, remaining: back ? 1 : 0, resets_at: back ? null : new Date(comesBack).toISOString() });
  });
  await usePlan.getState().loadAllowance();
  expect(usePlan.getState().allowance?.remaining).toBe(0);

  await vi.advanceTimersByTimeAsync(99_000);
  expect(reads).toBeLessThanOrEqual(8);
  expect(usePlan.getState().allowance?.remaining).toBe(0);
  await vi.advanceTimersByTimeAsync(66_000);
  expect(usePlan.getState().allowance?.remaining).toBe(1);
});

it('still reads them again a second after the moment the server names when the clocks agree', async () => {
  const comesBack = Date.now() + 100_000;
  vi.stubGlobal('fetch', async () => {
    const back = Date.now() >= comesBack;
    return Response.json({ unlimited: false, limit: 100, remaining: back ? 1 : 0, resets_at: back ? null : new Date(comesBack).toISOString() });
  });
  await usePlan.getState().loadAllowance();
  await vi.advanceTimersByTimeAsync(100_000);
  expect(usePlan.getState().allowance?.remaining).toBe(0);
  await vi.advanceTimersByTimeAsync(1_000);
  expect(usePlan.getState().allowance?.remaining).toBe(1);
});
