// @vitest-environment jsdom
/**
 * The host screen's chart, whose script loads only there, in a tab of an older build after a new one
 * went out: the old chart's script is gone from the server. The screen asks the server (`/healthz`),
 * and reloads once into the new build when it answers, rather than saying "Loading the chart…" for
 * ever; with no answer (the server restarting for the new version, no network) the door's screen stays
 * as it is, QR and all, and reloads once the server answers. The chart's module fails as Chromium says
 * a script that is not there; the api and the socket are faked, fetch answers `/healthz` or not; a
 * reload shows as the mark it leaves in session storage, as jsdom cannot navigate.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { api } from '../helpers/host-fakes';
import { inEnglish, renderHostScreen } from '../helpers/host-screen';
import { noNetwork } from '../helpers/no-network';
import { publicEvent } from '../helpers/public-event';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  ...(await import('../helpers/host-fakes')).socketHearing(5),
}));
vi.mock('../../client/lib/api-app', () => import('../helpers/host-fakes'));
vi.mock('../../client/lib/event-chart', () => {
  throw new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/event-chart-0ld.js');
});

const reloaded = () => window.sessionStorage.getItem('reloaded_for_new_build_at') !== null;
const fetch = vi.fn<typeof globalThis.fetch>();

beforeAll(inEnglish);
beforeEach(() => {
  window.sessionStorage.clear();
  vi.stubGlobal('fetch', fetch);
  const event = { ...publicEvent({ id: 7, attendee_count: 3 }), is_organizer: true as const };
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  api.eventQr.mockResolvedValue({ token: 't', url: 'https://party.example.com/e/ABC234?t=t', svg: '<svg/>', expires_at: new Date(Date.now() + 120_000).toISOString(), expires_in_ms: 120_000 });
  const timeline = [{ at: new Date(Date.now() - 600_000).toISOString(), check_ins: 3, matches: 1 }];
  api.eventStats.mockResolvedValue({ attendee_count: 3, checked_in_total: 3, likes: 2, matches: 1, conversations_started: 0, timeline });
});
afterEach(() => {
  cleanup();
  vi.resetAllMocks();
  vi.unstubAllGlobals();
});

it('reloads into the new build when the chart’s script is gone and the server answers', async () => {
  fetch.mockImplementation(async () => Response.json({ status: 'ok' }));
  renderHostScreen();
  await screen.findByText(en['host.chartLoading']);
  await vi.waitFor(() => expect(reloaded()).toBe(true));
  expect(fetch).toHaveBeenCalledWith('/healthz', expect.objectContaining({ signal: expect.any(AbortSignal) }));
});

it('keeps the door’s screen while the server does not answer, and reloads once it does', async () => {
  fetch.mockImplementation(noNetwork);
  renderHostScreen();
  await screen.findByText(en['host.chartLoading']);
  await vi.waitFor(() => expect(fetch).toHaveBeenCalledWith('/healthz', expect.anything()));
  await act(async () => {});
  expect(reloaded()).toBe(false);
  // The QR and the counts stay on screen: no "No connection" in their place.
  expect(screen.queryByRole('alert')).toBeNull();
  expect(document.querySelector('.host-live-number')?.textContent).toBe('5');

  fetch.mockImplementation(async () => Response.json({ status: 'ok' }));
  await act(async () => window.dispatchEvent(new Event('online')));
  await vi.waitFor(() => expect(reloaded()).toBe(true));
});
