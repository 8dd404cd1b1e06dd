// @vitest-environment jsdom
/**
 * An organizer's event in "My events": its status, time, code and headcount on one line that a
 * 360 px phone wraps. Each "·" stays at the end of the part before it ("11:01 ·" then "69W8DB"):
 * wrapped before it, the next line began with a stray "· 69W8DB · 3 dentro". The count stays whole:
 * broken in it, a line ended on a bare "· 0" and the next began with "checked in".
 */
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import '../../client/lib/messages-events';
import { Events } from '../../client/pages/events/Events';
import { formatDateTime } from '../../client/lib/format';
import { chatPageWorld } from '../helpers/chat-page';
import { renderAt } from '../helpers/render-at';

const startsAt = new Date(Date.now() - 30 * 60_000).toISOString();
const event = {
  id: 5,
  code: '69W8DB',
  name: 'Terrace Party',
  venue: 'Rooftop',
  starts_at: startsAt,
  ends_at: new Date(Date.now() + 4 * 3_600_000).toISOString(),
  join_mode: 'code',
  status: 'open',
  attendee_count: 3,
  is_organizer: true,
};
// Not open yet: check-in opens three days from now, an hour before its start.
const opensAt = Date.now() + 3 * 86_400_000;
const upcoming = {
  ...event,
  id: 6,
  code: 'K7XQ2M',
  name: 'Garden Brunch',
  starts_at: new Date(opensAt + 3_600_000).toISOString(),
  ends_at: new Date(opensAt + 5 * 3_600_000).toISOString(),
  status: 'upcoming',
  attendee_count: 0,
};
// Joined by the QR at its door: its code finds its page and lets nobody in (the host screen shows none).
const atTheDoor = { ...event, id: 7, code: 'Q4RD00', name: 'Door Party', join_mode: 'qr' };
const answer = (url: string) => (new URL(url, 'http://localhost').pathname === '/api/events/mine/' ? { results: [event, upcoming, atTheDoor] } : { event: null });

chatPageWorld(1, answer);

describe('an event in My events', () => {
  it('holds each separator to the part before it, and the count to its words, so that no line starts with one or ends on a bare number', async () => {
    renderAt('/app/events/', <Events />);
    const line = (await screen.findByText('Terrace Party')).closest('.my-event')!.querySelector('.muted')!;
    expect(line.textContent).toContain('69W8DB\u00a0· 3\u00a0checked\u00a0in');
    expect(line.textContent).not.toMatch(/ ·/);
  });

  it('says when one not open yet starts, as its organizer set it, not a bare "Upcoming", and only once', async () => {
    renderAt('/app/events/', <Events />);
    const line = (await screen.findByText('Garden Brunch')).closest('.my-event')!.querySelector('.muted')!;
    expect(line.textContent).toBe(`Starts ${formatDateTime(upcoming.starts_at, 'en')}\u00a0· K7XQ2M`);
  });

  it('gives no code for an event joined by the QR at its door, as its host screen gives none: typed, it lets nobody in', async () => {
    renderAt('/app/events/', <Events />);
    const line = (await screen.findByText('Door Party')).closest('.my-event')!.querySelector('.muted')!;
    expect(line.textContent).toBe(`Open now\u00a0· ${formatDateTime(atTheDoor.starts_at, 'en')}\u00a0· 3\u00a0checked\u00a0in`);
  });
});
