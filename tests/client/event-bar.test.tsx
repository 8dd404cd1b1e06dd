// @vitest-environment jsdom
/**
 * The event bar above the deck, and its Leave sheet, once the event has ended: the deck stays open to
 * those inside (the after-party), but the bar has no live dot, says it has ended, and the sheet says
 * that leaving is final (check-in is refused after the end). "Ended" is the status, or the end passed
 * since this client read it.
 */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enApp } from '../../shared/i18n/en-app';
import { esApp } from '../../shared/i18n/es-app';
import { format } from '../../shared/i18n/format';
import type { PublicEvent } from '../../shared/schemas/events';
import { EventBar } from '../../client/components/EventBar';
import { initLanguage } from '../../client/lib/i18n';
import { writeCache } from '../../client/lib/device-cache';
import { useConnection } from '../../client/lib/socket';
import '../../client/lib/messages-app';
import { useEvents } from '../../client/stores/events';
import { useSession } from '../../client/stores/session';
import { publicEvent } from '../helpers/public-event';

const hour = 3_600_000;
const party = publicEvent;

function renderBar(event?: PublicEvent) {
  useEvents.setState({ current: event });
  const { hook } = memoryLocation({ path: '/app/home/' });
  return render(
    <Router hook={hook}>
      <EventBar />
    </Router>,
  );
}

const bar = () => screen.getByRole('region', { name: 'Fiesta' });
const liveDot = () => bar().querySelector('.live-dot');
const openSheet = () => {
  fireEvent.click(within(bar()).getByRole('button', { name: enApp['deck.event.leave'] }));
  return screen.getByRole('dialog');
};

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  useEvents.setState({ current: undefined });
  useConnection.setState({ connected: false, lost: false });
  useSession.setState({ user: undefined });
  localStorage.clear();
});

describe('the event bar', () => {
  it('while the event is open: the live dot, the headcount, and how to come back', () => {
    renderBar(party());
    expect(liveDot()).not.toBeNull();
    expect(within(bar()).getByText(format(enApp['deck.event.here'], { count: 12 }))).toBeTruthy();
    expect(within(openSheet()).getByText(enApp['deck.event.leaveQr'])).toBeTruthy();
  });

  it('writes a big headcount as the language writes numbers', async () => {
    // It read "12345 checked in" in English, and the same in Spanish.
    renderBar(party({ attendee_count: 12_345 }));
    expect(within(bar()).getByText(format(enApp['deck.event.here'], { count: '12,345' }))).toBeTruthy();
    localStorage.setItem('language_code', 'es');
    await act(() => initLanguage());
    expect(within(bar()).getByText(format(esApp['deck.event.here'], { count: '12.345' }))).toBeTruthy();
    // Spanish groups from five digits only: «1234», not «1.234».
    act(() => useEvents.setState({ current: party({ attendee_count: 1234 }) }));
    expect(within(bar()).getByText(format(esApp['deck.event.here'], { count: '1234' }))).toBeTruthy();
  });

  it('with the connection lost, greys the dot (the headcount is the last heard), live again once back', () => {
    useConnection.setState({ connected: false, lost: true });
    renderBar(party());
    expect(liveDot()?.classList.contains('is-stale')).toBe(true);
    expect(within(bar()).getByText(format(enApp['deck.event.here'], { count: 12 }))).toBeTruthy();
    act(() => useConnection.setState({ connected: true, lost: false }));
    expect(liveDot()?.classList.contains('is-stale')).toBe(false);
  });

  it('for a code event that is open, says to enter the code again', () => {
    renderBar(party({ join_mode: 'code' }));
    expect(within(openSheet()).getByText(enApp['deck.event.leaveCode'])).toBeTruthy();
  });

  for (const [name, overrides] of [
    ['its status is the after-party', { status: 'after', ends_at: new Date(Date.now() - hour).toISOString() }],
    ['its end has passed since it was read (status still open)', { status: 'open', ends_at: new Date(Date.now() - 60_000).toISOString() }],
  ] as const) {
    for (const join_mode of ['qr', 'code'] as const) {
      it(`once ${name} (${join_mode}): no live dot, "ended", and leaving is final`, () => {
        renderBar(party({ ...overrides, join_mode }));
        expect(liveDot()).toBeNull();
        expect(within(bar()).getByText(format(enApp['deck.event.ended'], { count: 12 }))).toBeTruthy();
        const sheet = openSheet();
        expect(within(sheet).getByText(enApp['deck.event.leaveEnded'])).toBeTruthy();
        expect(within(sheet).queryByText(enApp['deck.event.leaveQr'])).toBeNull();
        expect(within(sheet).queryByText(enApp['deck.event.leaveCode'])).toBeNull();
      });
    }
  }

  it('turns to "ended" when the end comes while it is on screen', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    renderBar(party({ ends_at: new Date(Date.now() + 5 * 60_000).toISOString() }));
    expect(liveDot()).not.toBeNull();
    act(() => vi.advanceTimersByTime(5 * 60_000 + 1_000));
    expect(liveDot()).toBeNull();
    expect(within(bar()).getByText(format(enApp['deck.event.ended'], { count: 12 }))).toBeTruthy();
  });

  it('turns to the way into an event when the after-party ends while it is on screen (the attendance lapses)', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    renderBar(party({ status: 'after', starts_at: new Date(Date.now() - 27 * hour).toISOString(), ends_at: new Date(Date.now() - 24 * hour + 60_000).toISOString() }));
    expect(within(bar()).getByText(format(enApp['deck.event.ended'], { count: 12 }))).toBeTruthy();
    act(() => vi.advanceTimersByTime(60_000 + 1_000));
    expect(screen.queryByRole('region', { name: 'Fiesta' })).toBeNull();
    expect(screen.getByRole('link', { name: new RegExp(enApp['deck.event.join']) })).toBeTruthy();
  });

  // The deck's cards may come before the server says where I am: a bar coming after them pushed the
  // card down under the thumb (68 px on a 360 × 640 phone).
  it('says how to join an event from the first paint when this phone last knew me at none', () => {
    useSession.setState({ user: { id: 5 } as never });
    writeCache('event', null, 5);
    renderBar();
    expect(screen.getByRole('link', { name: new RegExp(enApp['deck.event.join']) })).toBeTruthy();
  });

  // Once known there is always a bar (the event's, or the way into one): its room is held before, the
  // way in's words in it, as many lines as they will take (hidden by app.css's .event-bar-held).
  it('holds the bar’s room, unseen and unheard, while neither the server nor this phone knows where I am', () => {
    useSession.setState({ user: { id: 5 } as never });
    const { container } = renderBar();
    const room = container.firstElementChild;
    expect(room?.classList.contains('event-bar-held')).toBe(true);
    expect(room?.getAttribute('aria-hidden')).toBe('true');
    expect(room?.textContent).toBe(enApp['deck.event.join'] + enApp['deck.event.joinHint']);
    expect(screen.queryByRole('link')).toBeNull();
    act(() => useEvents.setState({ current: null }));
    expect(container.children).toHaveLength(1);
    expect(screen.getByRole('link', { name: new RegExp(enApp['deck.event.join']) })).toBe(container.firstElementChild);
  });

  it('has its Spanish copy', () => {
    expect(esApp['deck.event.ended']).toBe('Terminado · {count} dentro');
    expect(esApp['deck.event.leaveEnded']).toMatch(/^El evento ha terminado: si sales, ya no podrás volver a entrar\./);
  });
});
