// @vitest-environment jsdom
/**
 * An event's name shown alone (a page's heading, the deck's event bar, a line of My events) is headed
 * in its own direction: the element that holds it says `dir="auto"`, so an Arabic or Hebrew name reads
 * right to left with its "!" and digits in place, and the event bar's ellipsis cuts its end, not its
 * start. The api and the socket are faked.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { type ReactNode, Suspense } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { enEvents } from '../../shared/i18n/en-events';
import { publicEvent } from '../helpers/public-event';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  isConnected: () => true,
  onConnect: () => () => {},
  onReconnect: () => () => {},
  onEvent: () => () => {},
  watchEvent: async () => 5,
  unwatchEvent: () => {},
}));
const api = vi.hoisted(() => ({ event: vi.fn(), eventPass: vi.fn(), currentEvent: vi.fn(), checkIn: vi.fn(), myEvents: vi.fn(), eventQr: vi.fn(), eventStats: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { EventBar } = await import('../../client/components/EventBar');
const { EventSummary } = await import('../../client/pages/events/EventSummary');
const { EventPage } = await import('../../client/pages/events/EventPage');
const { HostScreen } = await import('../../client/pages/events/HostScreen');
const { EditEvent } = await import('../../client/pages/events/EditEvent');
const { Events } = await import('../../client/pages/events/Events');
const { initLanguage, useLanguage } = await import('../../client/lib/i18n');
const { useEvents } = await import('../../client/stores/events');
await import('../../client/lib/messages-events');
await import('../../client/lib/messages-app');

/** "The 2026 party!" in Arabic: a name that starts right to left and ends in digits and a "!". */
const NAME = 'حفلة 2026!';
const party = () => publicEvent({ id: 7, name: NAME });
const mine = (overrides = {}) => ({ ...party(), is_organizer: true as const, ...overrides });

function renderAt(path: string, page: ReactNode) {
  const { hook } = memoryLocation({ path });
  return render(
    <Router hook={hook}>
      <Suspense fallback={null}>{page}</Suspense>
    </Router>,
  );
}

/** The element that holds exactly the name, with the direction it is given. */
async function nameHolder(selector = '*') {
  await screen.findAllByText(NAME);
  const holders = screen.getAllByText(NAME).filter((element) => element.matches(selector));
  expect(holders.length).toBeGreaterThan(0);
  return holders;
}

beforeAll(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  await useLanguage.getState().setLanguage('en');
});
afterEach(() => {
  cleanup();
  vi.resetAllMocks();
  useEvents.setState({ current: undefined });
});

describe('an event’s name shown alone', () => {
  it('in the deck’s event bar', async () => {
    useEvents.setState({ current: party() });
    renderAt('/app/home/', <EventBar />);
    for (const holder of await nameHolder('.event-bar-name')) expect(holder.getAttribute('dir')).toBe('auto');
  });

  it('as the heading of an event’s summary', async () => {
    renderAt('/app/events/', <EventSummary event={party()} title />);
    const heading = await screen.findByRole('heading', { name: NAME });
    expect(heading.getAttribute('dir')).toBe('auto');
  });

  it('as the heading of an event’s public page', async () => {
    api.event.mockResolvedValue(party());
    api.currentEvent.mockResolvedValue({ event: null });
    renderAt(`/e/ABC234`, <EventPage code="ABC234" />);
    const heading = await screen.findByRole('heading', { level: 1, name: NAME });
    expect(heading.getAttribute('dir')).toBe('auto');
  });

  it('as the headings of the host screen and its big screen', async () => {
    api.myEvents.mockResolvedValue({ results: [mine()], next: null });
    api.eventQr.mockResolvedValue({ token: 't', url: 'https://party.example.com/e/ABC234?t=t', svg: '<svg/>', expires_at: new Date(Date.now() + 120_000).toISOString(), expires_in_ms: 120_000 });
    api.eventStats.mockResolvedValue({ attendee_count: 3, checked_in_total: 3, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
    api.currentEvent.mockResolvedValue({ event: null });
    renderAt('/app/events/7/host/', <HostScreen id={7} />);
    const heading = await screen.findByRole('heading', { level: 1, name: NAME });
    expect(heading.getAttribute('dir')).toBe('auto');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: enEvents['host.present'] })));
    const big = await screen.findByRole('heading', { level: 2, name: NAME });
    expect(big.getAttribute('dir')).toBe('auto');
  });

  it('as the heading of an event over, opened to edit', async () => {
    api.myEvents.mockResolvedValue({ results: [mine({ status: 'closed', starts_at: new Date(Date.now() - 20 * 3_600_000).toISOString(), ends_at: new Date(Date.now() - 10 * 3_600_000).toISOString() })], next: null });
    renderAt('/app/events/7/edit/', <EditEvent id={7} />);
    const heading = await screen.findByRole('heading', { level: 1, name: NAME });
    expect(heading.getAttribute('dir')).toBe('auto');
  });

  it('in My events', async () => {
    api.myEvents.mockResolvedValue({ results: [mine()], next: null });
    api.currentEvent.mockResolvedValue({ event: null });
    renderAt('/app/events/', <Events />);
    for (const holder of await nameHolder('.my-event-name')) expect(holder.getAttribute('dir')).toBe('auto');
  });
});
