/** Where an event is in its life, by the clock: the server's answers and the client's screens alike. */
import { EVENT_AFTER_PARTY_HOURS, EVENT_CHECK_IN_LEAD_MINUTES } from './constants';

export const EVENT_STATUSES = ['upcoming', 'open', 'after', 'closed'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** When check-in opens: `EVENT_CHECK_IN_LEAD_MINUTES` before the start. */
export const checkInOpensAt = (startsAtMs: number) => startsAtMs - EVENT_CHECK_IN_LEAD_MINUTES * MINUTE_MS;

/**
 * Upcoming before check-in opens (`EVENT_CHECK_IN_LEAD_MINUTES` before the start), open until the end,
 * then the after-party (`EVENT_AFTER_PARTY_HOURS`), then closed. It has ended at its end itself, as in
 * SQL (`ends_at > now()` is still going): an event ended early gets `ends_at = now()`, and the response
 * that follows within the same millisecond must already read it as over.
 */
export function eventStatusAt(startsAtMs: number, endsAtMs: number, now: number): EventStatus {
  if (now < checkInOpensAt(startsAtMs)) return 'upcoming';
  if (now < endsAtMs) return 'open';
  if (now <= endsAtMs + EVENT_AFTER_PARTY_HOURS * HOUR_MS) return 'after';
  return 'closed';
}

/** The next moment after `now` at which the status changes, or null once closed. */
export function nextStatusChangeAt(startsAtMs: number, endsAtMs: number, now: number): number | null {
  const moments = [checkInOpensAt(startsAtMs), endsAtMs, endsAtMs + EVENT_AFTER_PARTY_HOURS * HOUR_MS + 1];
  return moments.find((moment) => moment > now) ?? null;
}
