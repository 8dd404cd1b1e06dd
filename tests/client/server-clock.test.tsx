// @vitest-environment jsdom
/**
 * A phone whose clock is minutes off the server's: the event bar says the event is open or ended when
 * the server has it so, and the likes come back when the server says, by the server's clock measured
 * from where I am (`GET /api/events/current/`'s `now`), not by the phone's.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { PublicEvent } from '../../shared/schemas/events';
import { publicEvent } from '../helpers/public-event';

const api = vi.hoisted(() => ({ currentEvent: vi.fn(), likeAllowance: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { EventBar } = await import('../../client/components/EventBar');
const { initLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');
const { useEvents } = await import('../../client/stores/events');
const { usePlan } = await import('../../client/stores/plan');

const MINUTE = 60_000;
/** The server's time when the test begins. */
const SERVER = Date.parse('2026-12-05T22:00:00.000Z');

/** Where I am read with the phone's clock `ahead` ms off the server's, and the event bar shown. */
async function atEvent(ahead: number, event: PublicEvent) {
  vi.useFakeTimers({ now: SERVER + ahead });
  api.currentEvent.mockResolvedValue({ event, now: new Date(SERVER).toISOString() });
  await useEvents.getState().loadCurrent();
  const { hook } = memoryLocation({ path: '/app/home/' });
  render(
    <Router hook={hook}>
      <EventBar />
    </Router>,
  );
}
const liveDot = () => screen.getByRole('region', { name: 'Fiesta' }).querySelector('.live-dot');

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  useEvents.setState({ current: undefined });
  localStorage.clear();
});

const open = (endsIn: number) =>
  publicEvent({ starts_at: new Date(SERVER - MINUTE).toISOString(), ends_at: new Date(SERVER + endsIn).toISOString() });

it('on a phone minutes ahead, shows the event open until the server’s clock reaches its end', async () => {
  await atEvent(5 * MINUTE, open(2 * MINUTE));
  expect(liveDot()).not.toBeNull();
  act(() => void vi.advanceTimersByTime(2 * MINUTE + 1000));
  expect(liveDot()).toBeNull();
});

it('on a phone minutes behind, shows the event ended when the server’s clock reaches its end', async () => {
  await atEvent(-5 * MINUTE, open(MINUTE));
  expect(liveDot()).not.toBeNull();
  act(() => void vi.advanceTimersByTime(MINUTE + 1000));
  expect(liveDot()).toBeNull();
});

it('on a phone minutes behind, asks for the likes when they come back by the server’s clock', async () => {
  await atEvent(-5 * MINUTE, open(MINUTE));
  const out = { unlimited: false, remaining: 0, limit: 20, resets_at: new Date(SERVER + MINUTE).toISOString() };
  api.likeAllowance.mockResolvedValue(out);
  await usePlan.getState().loadAllowance();
  expect(api.likeAllowance).toHaveBeenCalledTimes(1);
  await vi.advanceTimersByTimeAsync(MINUTE + 2000);
  expect(api.likeAllowance).toHaveBeenCalledTimes(2);
});
