import { ANALYTICS_MAX_AGE_MS } from '../constants';
import { integerIn, wholeNumber } from './common';
import { z } from './zod';

/** The events a client records; anything else is a 400. */
export const CLIENT_ANALYTICS_EVENTS = ['app_opened', 'user_logged_in', 'profile_completed', 'match_opened', 'message_sent'] as const;
/**
 * Recorded by the server itself, where it is the witness: an account was created (`signed_up`), a like
 * made a match (`matched`, with the match, by the user whose like made it). Never accepted from a client.
 */
export const SERVER_ANALYTICS_EVENTS = ['signed_up', 'matched'] as const;
export const ANALYTICS_EVENTS = [...CLIENT_ANALYTICS_EVENTS, ...SERVER_ANALYTICS_EVENTS] as const;

export type ClientAnalyticsEvent = (typeof CLIENT_ANALYTICS_EVENTS)[number];
export type AnalyticsEventName = (typeof ANALYTICS_EVENTS)[number];

export const AnalyticsEventInput = z.object({
  name: z.enum(CLIENT_ANALYTICS_EVENTS),
  /** The client's id for this event (a UUID): sent again, its answer lost, it is stored once. */
  client_id: z.uuid().optional(),
  /**
   * How long ago it happened, by the client's clock (an event kept while offline): counted then, not
   * when it arrived. A duration rather than a time, so that a phone's clock set wrong does not move
   * it. At most `ANALYTICS_MAX_AGE_MS`; none: now.
   */
  age_ms: integerIn(0, ANALYTICS_MAX_AGE_MS).optional(),
});
export type AnalyticsEventInput = z.infer<typeof AnalyticsEventInput>;

export const MAX_SUMMARY_DAYS = 365;

export const AnalyticsSummaryQuery = z.object({
  days: wholeNumber(1, MAX_SUMMARY_DAYS).default(30),
});
export type AnalyticsSummaryQuery = z.infer<typeof AnalyticsSummaryQuery>;

export const AnalyticsDay = z.object({
  date: z.string(),
  signups: z.number(),
  logins: z.number(),
  active_users: z.number(),
  matches: z.number(),
  messages: z.number(),
});
export type AnalyticsDay = z.infer<typeof AnalyticsDay>;

export const AnalyticsSummary = z.object({ days: z.array(AnalyticsDay) });
export type AnalyticsSummary = z.infer<typeof AnalyticsSummary>;
