import { describe, expect, it } from 'vitest';
import { EVENT_AFTER_PARTY_HOURS, EVENT_CHECK_IN_LEAD_MINUTES } from '../../shared/constants';
import { eventStatus } from '../../server/features/events/service';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('an event’s status by the clock', () => {
  const startsAt = new Date('2026-11-27T21:00:00.000Z');
  const endsAt = new Date('2026-11-28T03:00:00.000Z');
  const at = (ms: number) => eventStatus({ startsAt, endsAt }, ms);

  it('opens for check-in ahead of the start and has ended at its end time itself, as SQL has', () => {
    const opens = startsAt.getTime() - EVENT_CHECK_IN_LEAD_MINUTES * MINUTE;
    expect(at(opens - 1)).toBe('upcoming');
    expect(at(opens)).toBe('open');
    expect(at(endsAt.getTime() - 1)).toBe('open');
    // An organizer's "end now" sets ends_at = now(); the reply, in the same millisecond, reads it over.
    expect(at(endsAt.getTime())).toBe('after');
    const closes = endsAt.getTime() + EVENT_AFTER_PARTY_HOURS * HOUR;
    expect(at(closes)).toBe('after');
    expect(at(closes + 1)).toBe('closed');
  });
});
