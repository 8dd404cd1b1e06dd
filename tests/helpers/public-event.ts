import type { PublicEvent } from '../../shared/schemas/events';

const HOUR = 3_600_000;

/** An event as the API shows it to anyone, for client tests: "Fiesta", a QR event open now (an hour in, four to go). */
export const publicEvent = (overrides: Partial<PublicEvent> = {}): PublicEvent => ({
  id: 1,
  code: 'ABC234',
  name: 'Fiesta',
  venue: 'The Terrace',
  starts_at: new Date(Date.now() - HOUR).toISOString(),
  ends_at: new Date(Date.now() + 4 * HOUR).toISOString(),
  join_mode: 'qr',
  status: 'open',
  attendee_count: 12,
  ...overrides,
});
