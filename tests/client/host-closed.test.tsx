// @vitest-environment jsdom
/**
 * The host screen's headcount once the after-party is over: the attendances lapse by the clock, with no
 * `event:count` pushed, and the server counts no one there (its stats, its watch, the organizer's view);
 * a screen left open across that moment reads as over (no count, no live dot, no link to share), not
 * the last count it heard, its stats kept. Until then, the organizer checked in there keeps the way to
 * the deck. The clock is fake; the api and the socket (connected, its last count 5) are faked.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { EVENT_AFTER_PARTY_HOURS } from '../../shared/constants';
import { eventStatusAt } from '../../shared/event-status';
import { useEvents } from '../../client/stores/events';
import { api } from '../helpers/host-fakes';
import { inEnglish, renderHostScreen } from '../helpers/host-screen';
import { publicEvent } from '../helpers/public-event';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  ...(await import('../helpers/host-fakes')).socketHearing(5),
}));
vi.mock('../../client/lib/api-app', () => import('../helpers/host-fakes'));

const HOUR = 3_600_000;

beforeAll(inEnglish);

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.resetAllMocks();
});

it('reads as over once the after-party is over: no count it heard last, no live dot, no link', async () => {
  const now = Date.parse('2026-06-06T12:00:00Z');
  vi.useFakeTimers({ now });
  // Ended a minute short of a day ago: the deck is open to the five inside for one more minute.
  const endsAt = now - EVENT_AFTER_PARTY_HOURS * HOUR + 60_000;
  const event = {
    ...publicEvent({ id: 7, starts_at: new Date(endsAt - 3 * HOUR).toISOString(), ends_at: new Date(endsAt).toISOString(), status: 'after', attendee_count: 5 }),
    is_organizer: true as const,
  };
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  api.eventQr.mockResolvedValue({ token: 't', url: 'https://party.example.com/e/ABC234?t=t', svg: '<svg/>', expires_at: new Date(now + 120_000).toISOString(), expires_in_ms: 120_000 });
  // As the server counts: those inside until the lapse, no one after it.
  api.eventStats.mockImplementation(async () => {
    const closed = eventStatusAt(Date.parse(event.starts_at), endsAt, Date.now()) === 'closed';
    return { attendee_count: closed ? 0 : 5, checked_in_total: 9, likes: 0, matches: 0, conversations_started: 0, timeline: [] };
  });
  renderHostScreen();
  const headcount = () => document.querySelector('.host-live-number')?.textContent;
  await act(() => vi.advanceTimersByTimeAsync(0));
  expect(headcount()).toBe('5');

  // The after-party ends, and the stats are read again after it.
  await act(() => vi.advanceTimersByTimeAsync(60_000 + 30_000));
  expect(document.querySelector('.host-page .notice')?.textContent).toBe('The event is over, and so is its deck.');
  // Read as over: no live count or dot, no link to share to a door that opens no more; the stats stay.
  expect(headcount()).toBeUndefined();
  expect(document.querySelector('.live-dot')).toBeNull();
  expect(screen.queryByRole('button', { name: 'Share link' })).toBeNull();
  expect(screen.getByText('How the night went')).toBeTruthy();
});

it('keeps the way to the deck through the after-party for an organizer checked in there, and only for them', async () => {
  const now = Date.parse('2026-06-06T12:00:00Z');
  vi.useFakeTimers({ now });
  const endsAt = now - HOUR;
  const event = {
    ...publicEvent({ id: 7, starts_at: new Date(endsAt - 3 * HOUR).toISOString(), ends_at: new Date(endsAt).toISOString(), status: 'after', attendee_count: 5 }),
    is_organizer: true as const,
  };
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  api.eventStats.mockResolvedValue({ attendee_count: 5, checked_in_total: 9, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
  const { unmount } = renderHostScreen();
  await act(() => vi.advanceTimersByTimeAsync(0));
  // Not checked in: no one can come in any more, so nothing to join.
  expect(screen.queryByRole('link', { name: 'Go to my deck' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Join the deck myself' })).toBeNull();
  unmount();

  useEvents.setState({ current: event });
  renderHostScreen();
  await act(() => vi.advanceTimersByTimeAsync(0));
  expect(screen.getByRole('link', { name: 'Go to my deck' }).getAttribute('href')).toBe('/app/home/');
  useEvents.setState({ current: undefined });
});
