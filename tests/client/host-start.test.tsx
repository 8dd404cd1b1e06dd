// @vitest-environment jsdom
/**
 * The host screen left open across the event's start: the delete it offered until then goes at that
 * moment (the server refuses it after), though the status changed at check-in's opening before it and
 * changes no more until the end. The clock is fake; the api and the socket are faked.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { enEvents } from '../../shared/i18n/en-events';
import { api } from '../helpers/host-fakes';
import { inEnglish, renderHostScreen } from '../helpers/host-screen';
import { publicEvent } from '../helpers/public-event';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  ...(await import('../helpers/host-fakes')).socketHearing(0),
}));
vi.mock('../../client/lib/api-app', () => import('../helpers/host-fakes'));

const HOUR = 3_600_000;

beforeAll(inEnglish);

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.resetAllMocks();
});

it('stops offering the delete at the start', async () => {
  const now = Date.parse('2026-06-06T20:00:00Z');
  vi.useFakeTimers({ now });
  const event = {
    ...publicEvent({ id: 7, starts_at: new Date(now + 60_000).toISOString(), ends_at: new Date(now + 4 * HOUR).toISOString(), status: 'open', attendee_count: 0 }),
    is_organizer: true as const,
  };
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  // Each code timed by the (fake) clock it is asked at: the server's is the phone's.
  api.eventQr.mockImplementation(async () => ({ token: 't', url: 'https://party.example.com/e/ABC234?t=t', svg: '<svg/>', expires_at: new Date(Date.now() + 120_000).toISOString(), expires_in_ms: 120_000 }));
  api.eventStats.mockResolvedValue({ attendee_count: 0, checked_in_total: 0, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
  renderHostScreen();
  await act(() => vi.advanceTimersByTimeAsync(0));
  screen.getByRole('button', { name: enEvents['host.delete'] });

  await act(() => vi.advanceTimersByTimeAsync(60_000 + 1000));
  expect(screen.queryByRole('button', { name: enEvents['host.delete'] })).toBeNull();
});
