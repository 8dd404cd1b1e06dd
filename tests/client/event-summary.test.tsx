// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { esEvents } from '../../shared/i18n/es-events';
import { format } from '../../shared/i18n/format';
import type { PublicEvent } from '../../shared/schemas/events';
import { EventSummary } from '../../client/pages/events/EventSummary';
import { initLanguage } from '../../client/lib/i18n';

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
  afterEach(cleanup);

  it('says one person, and people from two on', async () => {
    await initLanguage();
    for (const [count, text] of [
      [1, esEvents['eventPage.hereOne']],
      [2, format(esEvents['eventPage.here'], { count: 2 })],
      [0, format(esEvents['eventPage.here'], { count: 0 })],
    ] as const) {
      render(
        <Suspense fallback={null}>
          <EventSummary event={event(count)} />
        </Suspense>,
      );
      expect((await screen.findByText(text)).textContent).toBe(` ${text}`);
      cleanup();
    }
    expect(esEvents['eventPage.hereOne']).toBe('1 persona aquí');
  });
});
