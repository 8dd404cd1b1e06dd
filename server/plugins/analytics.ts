import fp from 'fastify-plugin';
import { PostHog } from 'posthog-node';
import type { AnalyticsEventName } from '../../shared/schemas/analytics';
import { recordEvent } from '../features/analytics/service';
import { runJob } from '../jobs/job';
import { posthogErasure } from '../jobs/posthog-erasure';

export interface Analytics {
  /**
   * Stores the event (and forwards it to PostHog when `POSTHOG_KEY` is set). Answers false, having done
   * neither, when the account is gone (deleted meanwhile). An event whose `clientId` was stored already
   * (the same one sent again) is neither stored nor forwarded again, and answers true. `ageMs`: how long
   * ago it happened.
   */
  record(userId: number, name: AnalyticsEventName, clientId?: string, ageMs?: number): Promise<boolean>;
  /** Sends what PostHog forwarding has queued (tests; shutdown does it on its own). */
  flush(): Promise<void>;
  /**
   * Whether a deleted account is to be deleted in PostHog too: its events went there and its API key is
   * set (`POSTHOG_PERSONAL_API_KEY`). The deletion then records it (`posthog_erasures`), for `forget`.
   */
  erases: boolean;
  /**
   * Deleted accounts' persons and events deleted in PostHog (its distinct ids, the old user ids). Throws
   * when PostHog refuses or does not answer; `signal` ends the wait early.
   */
  forget(distinctIds: string[], signal?: AbortSignal): Promise<void>;
  /**
   * Runs the erasures recorded (`jobs/posthog-erasure.ts`) now, in the background, rather than at the
   * job's next turn: a deletion has just recorded one. Never throws; what fails is tried again later.
   */
  eraseSoon(): void;
}

/** Long enough for PostHog's API on a bad day; no request waits for it (the erasure job does). */
const ERASURE_TIMEOUT_MS = 10_000;

declare module 'fastify' {
  interface FastifyInstance {
    analytics: Analytics;
  }
}

/**
 * First-party analytics: events are stored in our own database, keyed by user id. With
 * `POSTHOG_KEY`, the same events also go to PostHog, keyed by the user id only: no e-mail, no name,
 * no address (GeoIP off), no cookie; and go from there with the account (`forget`).
 */
export default fp(
  async (app) => {
    const { key, host, erasure } = app.config.posthog;
    const posthog = key ? new PostHog(key, { host, disableGeoip: true }) : null;
    posthog?.on('error', (error: unknown) => app.log.warn({ err: error }, 'posthog forwarding failed'));
    if (posthog && !erasure) {
      app.log.warn('POSTHOG_KEY is set but POSTHOG_PERSONAL_API_KEY and POSTHOG_PROJECT_ID are not: a deleted account keeps its events in PostHog');
    }

    const stopping = new AbortController();
    let erasing: Promise<void> | null = null;
    let again = false;

    app.decorate('analytics', {
      async record(userId: number, name: AnalyticsEventName, clientId?: string, ageMs = 0) {
        const recorded = await recordEvent(app.db, userId, name, clientId, ageMs);
        if (recorded === 'gone') return false;
        // PostHog drops a second event with the same uuid too, but only when it merges its tables, later.
        if (recorded === 'stored') posthog?.capture({
          distinctId: String(userId),
          event: name,
          uuid: clientId,
          ...(ageMs > 0 ? { timestamp: new Date(Date.now() - ageMs) } : {}),
          disableGeoip: true,
        });
        return true;
      },
      async flush() {
        await posthog?.flush();
      },
      erases: Boolean(posthog && erasure),
      async forget(distinctIds: string[], signal?: AbortSignal) {
        if (!posthog || !erasure || distinctIds.length === 0) return;
        // PostHog deletes only the events it has when asked: first those still queued here.
        await posthog.flush();
        const timeout = AbortSignal.timeout(ERASURE_TIMEOUT_MS);
        const response = await fetch(`${erasure.apiHost}/api/projects/${encodeURIComponent(erasure.projectId)}/persons/bulk_delete/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${erasure.personalApiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ distinct_ids: distinctIds, delete_events: true }),
          signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        });
        if (!response.ok) throw new Error(`PostHog answered ${response.status} to the persons' deletion: ${(await response.text()).slice(0, 200)}`);
      },
      eraseSoon() {
        if (!posthog || !erasure || stopping.signal.aborted) return;
        // One run at a time here; one asked for during a run goes after it (that run may have read the
        // erasures before this one was recorded).
        if (erasing) {
          again = true;
          return;
        }
        erasing = (async () => {
          do {
            again = false;
            await runJob(app, posthogErasure, stopping.signal);
          } while (again && !stopping.signal.aborted);
        })().finally(() => {
          erasing = null;
        });
      },
    });
    // An erasure under way gives up (recorded still, for the next start) rather than hold the stop.
    app.addHook('preClose', async () => {
      stopping.abort();
      await erasing;
    });
    app.addHook('onClose', async () => {
      await posthog?.shutdown();
    });
  },
  { name: 'analytics', dependencies: ['database'] },
);
