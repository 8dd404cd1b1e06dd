// @vitest-environment jsdom
/**
 * My events on a computer whose clock runs minutes ahead of the server's: one still going by the
 * server's clock is listed with what is going on, not among the past ones.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { enEvents } from '../../shared/i18n/en-events';
import { publicEvent } from '../helpers/public-event';
import { renderAt } from '../helpers/render-at';

const api = vi.hoisted(() => ({ currentEvent: vi.fn(), myEvents: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { initLanguage } = await import('../../client/lib/i18n');
const { Events } = await import('../../client/pages/events/Events');

const MINUTE = 60_000;

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  localStorage.clear();
});

it('lists an event still going by the server’s clock as going on, on a computer 10 minutes ahead', async () => {
  const server = Date.parse('2026-12-05T22:00:00.000Z');
  vi.useFakeTimers({ now: server + 10 * MINUTE, shouldAdvanceTime: true });
  const event = {
    ...publicEvent({ starts_at: new Date(server - 3 * 60 * MINUTE).toISOString(), ends_at: new Date(server + 5 * MINUTE).toISOString() }),
    is_organizer: true as const,
  };
  api.currentEvent.mockResolvedValue({ event: null, now: new Date(server).toISOString() });
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  await act(async () => {
    renderAt('/app/events/', <Events />);
  });
  expect(await screen.findByText('Fiesta')).toBeTruthy();
  expect(screen.queryByText(enEvents['events.mine.past'])).toBeNull();
});
