import { asc, inArray, lte, sql } from 'drizzle-orm';
import { posthogErasures } from '../db/schema';
import type { Job } from './job';

/** PostHog takes up to 1000 distinct ids a request; fewer keeps one refusal's say small. */
const BATCH = 100;
/** The wait after a failed attempt: doubling from 30 s, at most 6 h (PostHog down for a day is tried ~10 times). */
const FIRST_BACKOFF_SECONDS = 30;
const MOST_BACKOFF_SECONDS = 6 * 60 * 60;

/**
 * Deletes deleted accounts' persons and events in PostHog (`posthog_erasures`, written with each
 * deletion), after the deletion has answered: PostHog down or slow never holds up, nor undoes, an
 * account's deletion here. Each erasure stays recorded until PostHog has confirmed it, tried again with
 * a growing wait, across restarts. A deletion runs it once its erasure is due (`analytics.eraseWhenDue`);
 * the timer is for what failed and for a restart in between.
 */
export const posthogErasure: Job = {
  name: 'posthog-erasure',
  everyMs: 60_000,
  firstAfterMs: 15_000,
  scope: 'cluster',
  runsWith: (config) => Boolean(config.posthog.key && config.posthog.erasure),
  async run(app, stopping) {
    let erased = 0;
    let failed = 0;
    while (!stopping.aborted) {
      const due = await app.db
        .select({ id: posthogErasures.id, distinctId: posthogErasures.distinctId })
        .from(posthogErasures)
        .where(lte(posthogErasures.nextAttemptAt, sql`now()`))
        .orderBy(asc(posthogErasures.id))
        .limit(BATCH);
      if (due.length === 0) break;
      const ids = due.map((row) => row.id);
      try {
        await app.analytics.forget([...new Set(due.map((row) => row.distinctId))], stopping);
      } catch (error) {
        // Given up as the process stops: not PostHog's failure, due still at the next start.
        if (stopping.aborted) break;
        // Each waits longer than the last time; the next turn tries those whose wait is over.
        await app.db
          .update(posthogErasures)
          .set({
            attempts: sql`${posthogErasures.attempts} + 1`,
            nextAttemptAt: sql`now() + least(${FIRST_BACKOFF_SECONDS}::int * power(2, least(${posthogErasures.attempts}, 20)), ${MOST_BACKOFF_SECONDS}::int) * interval '1 second'`,
          })
          .where(inArray(posthogErasures.id, ids));
        failed += due.length;
        app.log.warn({ err: error, distinctIds: due.map((row) => row.distinctId) }, 'deleting accounts in PostHog failed: tried again later');
        break;
      }
      await app.db.delete(posthogErasures).where(inArray(posthogErasures.id, ids));
      erased += due.length;
    }
    return { erased, failed };
  },
};
