// @vitest-environment jsdom
/**
 * The host screen's "Check-ins in total" beside its live headcount: the count comes over the socket at
 * once, the stats at most every ten seconds. At the doors, people arrive faster than that: the total
 * must never read fewer than the people the screen says are inside. The api and the socket (connected,
 * its count 5) are faked.
 */
import { act, cleanup } from '@testing-library/react';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { api } from '../helpers/host-fakes';
import { inEnglish, renderHostScreen } from '../helpers/host-screen';
import { publicEvent } from '../helpers/public-event';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  ...(await import('../helpers/host-fakes')).socketHearing(5),
}));
vi.mock('../../client/lib/api-app', () => import('../helpers/host-fakes'));

beforeAll(inEnglish);

afterEach(() => {
  cleanup();
  vi.resetAllMocks();
});

it('never counts fewer check-ins in total than the people it shows inside', async () => {
  const event = { ...publicEvent({ id: 7, attendee_count: 3 }), is_organizer: true as const };
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  api.eventQr.mockResolvedValue({ token: 't', url: 'https://party.example.com/e/ABC234?t=t', svg: '<svg/>', expires_at: new Date(Date.now() + 120_000).toISOString(), expires_in_ms: 120_000 });
  // Counted a moment before two more came in: the socket's count (5) is newer.
  api.eventStats.mockResolvedValue({ attendee_count: 3, checked_in_total: 3, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
  renderHostScreen();
  await vi.waitFor(() => expect(document.querySelector('.host-stats')).not.toBeNull());
  await act(async () => {});
  expect(document.querySelector('.host-live-number')?.textContent).toBe('5');
  const total = [...document.querySelectorAll('.host-stats > div')].find((row) => row.querySelector('dt')?.textContent === 'Check-ins in total');
  expect(total?.querySelector('dd')?.textContent).toBe('5');
});
