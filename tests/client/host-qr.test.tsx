// @vitest-environment jsdom
/**
 * The host screen's door QR against the clock: the next code swaps in a little before the window
 * turns. Timers and Date are fake; the api and the socket are faked.
 */
import { act } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QR_EARLY_SECONDS, QR_WINDOW_SECONDS } from '../../shared/constants';
import type { EventQr } from '../../shared/schemas/events';
import { publicEvent } from '../helpers/public-event';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  isConnected: () => false,
  onConnect: () => () => {},
  onReconnect: () => () => {},
  onEvent: () => () => {},
  watchEvent: async () => null,
}));
const api = vi.hoisted(() => ({ myEvents: vi.fn(), eventQr: vi.fn(), eventStats: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { openHostScreen, useHost } = await import('../../client/stores/host');

const WINDOW = QR_WINDOW_SECONDS * 1000;
/** A window's turn, as the server counts them (from the epoch, a window at a time). */
const TURN = 29_000_000 * WINDOW;
/** The code the server hands out, good until `expires`. */
const qrUntil = (expires: number): EventQr => ({ token: `t${expires}`, url: 'u', svg: '<svg/>', expires_at: new Date(expires).toISOString() });

/** Lets the fake clock run `ms`, and whatever it wakes (the api's answers, React's renders) settle. */
const run = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

let stop = () => {};
afterEach(() => {
  stop();
  stop = () => {};
  vi.useRealTimers();
  vi.resetAllMocks();
});

function answers(now: number) {
  vi.useFakeTimers({ now });
  const event = { ...publicEvent({ id: 7 }), is_organizer: true as const };
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  api.eventStats.mockResolvedValue({ attendee_count: 12, checked_in_total: 12, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
}

describe('the host screen’s QR', () => {
  it('swaps in the next code a little before the window turns, not after', async () => {
    answers(TURN - 30_000);
    api.eventQr.mockResolvedValueOnce(qrUntil(TURN + WINDOW)).mockResolvedValue(qrUntil(TURN + 2 * WINDOW));
    stop = openHostScreen(7);
    await run(0);
    expect(useHost.getState().qr?.expires_at).toBe(qrUntil(TURN + WINDOW).expires_at);
    // Not before the server hands the next one out…
    await run(30_000 - QR_EARLY_SECONDS * 1000);
    expect(api.eventQr).toHaveBeenCalledTimes(1);
    // …and on screen before the turn.
    await run(QR_EARLY_SECONDS * 1000 - 1);
    expect(api.eventQr).toHaveBeenCalledTimes(2);
    expect(useHost.getState().qr?.expires_at).toBe(qrUntil(TURN + 2 * WINDOW).expires_at);
  });

});
