// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { enApp } from '../../shared/i18n/en-app';
import { enEvents } from '../../shared/i18n/en-events';
import { esApp } from '../../shared/i18n/es-app';
import { esEvents } from '../../shared/i18n/es-events';
import { format } from '../../shared/i18n/format';
import type { PublicEvent } from '../../shared/schemas/events';
import { EventSummary } from '../../client/pages/events/EventSummary';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { formatDateTime } from '../../client/lib/format';

const event = (attendee_count: number): PublicEvent => ({
  id: 1,
  code: 'ABC234',
  name: 'Fiesta',
  venue: '',
  starts_at: '2026-11-29T20:00:00.000Z',
  ends_at: '2026-11-30T02:00:00.000Z',
  join_mode: 'code',
  status: 'open',
  attendee_count,
});

describe('an event’s headcount', () => {
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it('says the headcount in the words of the deck’s bar and My events, one person as many', async () => {
    await initLanguage();
    // During the party: the headcount shows only while the event is open by the clock too.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-29T22:00:00.000Z') });
    for (const count of [1, 2, 0]) {
      render(
        <Suspense fallback={null}>
          <EventSummary event={event(count)} />
        </Suspense>,
      );
      // It read "47 personas aquí" here, "47 aquí" on the deck and "47 dentro" in My events.
      const text = format(esApp['deck.event.here'], { count });
      expect(text).toBe(format(esEvents['events.count'], { count }));
      expect((await screen.findByText(text)).textContent).toBe(` ${text}`);
      cleanup();
    }
    expect(esEvents['events.count']).toBe('{count} dentro');
    expect(enApp['deck.event.here']).toBe(enEvents['events.count']);
  });
});

describe('an event’s status on a page left open', () => {
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it('follows the clock: open when check-in opens, the after-party at the end, closed after it', async () => {
    await initLanguage();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.parse('2026-11-29T18:00:00.000Z') });
    // Read at 18:00 for a party from 20:00 to 02:00: check-in opens at 19:00.
    render(
      <Suspense fallback={null}>
        <EventSummary event={{ ...event(3), status: 'upcoming' }} />
      </Suspense>,
    );
    const pill = () => document.querySelector('.event-status')!;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    // Not a bare "Próximamente" for an event whose date is known: when it starts.
    expect(pill().textContent).toBe(format(esEvents['events.status.upcoming'], { time: formatDateTime('2026-11-29T20:00:00.000Z', 'es') }));
    expect(pill().textContent).toMatch(/^Empieza el .*\d/);
    expect(screen.queryByText(format(esEvents['events.count'], { count: 3 }))).toBeNull();
    for (const [at, status] of [
      ['2026-11-29T19:00:01.000Z', 'open'],
      ['2026-11-30T02:00:01.000Z', 'after'],
      ['2026-12-01T02:00:01.000Z', 'closed'],
    ] as const) {
      act(() => vi.advanceTimersByTime(Date.parse(at) - Date.now()));
      expect(pill().textContent, at).toBe(esEvents[`events.status.${status}`]);
    }
  });

  it('says in English too when an upcoming event starts', async () => {
    await initLanguage();
    await act(() => useLanguage.getState().setLanguage('en'));
    try {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-29T18:00:00.000Z') });
      render(
        <Suspense fallback={null}>
          <EventSummary event={{ ...event(3), status: 'upcoming' }} />
        </Suspense>,
      );
      const text = format(enEvents['events.status.upcoming'], { time: formatDateTime('2026-11-29T20:00:00.000Z', 'en') });
      expect(text).toMatch(/^Starts .*\d/);
      // The time's no-break space, as the query's default normalizer makes it (a plain one).
      expect((await screen.findByText(text.replace(/\s+/g, ' '))).className).toContain('event-status');
    } finally {
      await act(() => useLanguage.getState().setLanguage('es'));
    }
  });

  it('keeps the server’s word when it is further on than the phone’s clock (ended early)', async () => {
    await initLanguage();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.parse('2026-11-29T21:00:00.000Z') });
    render(
      <Suspense fallback={null}>
        <EventSummary event={{ ...event(3), status: 'after', ends_at: '2026-11-29T21:00:00.500Z' }} />
      </Suspense>,
    );
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(document.querySelector('.event-status')!.textContent).toBe(esEvents['events.status.after']);
  });
});
