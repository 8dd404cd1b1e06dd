import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';
import { inArray } from 'drizzle-orm';
import fp from 'fastify-plugin';
import { PostHog, type PostHogOptions } from 'posthog-node';
import type { AnalyticsEventName } from '../../shared/schemas/analytics';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { users } from '../db/schema';
import { recordEvent } from '../features/analytics/service';
import { runJob } from '../jobs/job';
import { posthogErasure } from '../jobs/posthog-erasure';
import { timeoutSignal } from '../lib/timeout-signal';

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
   * Whether a deleted account is to be deleted in PostHog too, and when: its events went there and its
   * API key is set (`POSTHOG_PERSONAL_API_KEY`). The deletion then records it (`posthog_erasures`), due
   * `afterMs` later, for `forget`: by then no batch of its events checked before the deletion
   * (`sendingTheLivingOnly`) can still reach PostHog, which would make the person again there. Null:
   * their events stay there.
   */
  erasure: { afterMs: number } | null;
  /**
   * Deleted accounts' persons and events deleted in PostHog (its distinct ids, the old user ids). Throws
   * when PostHog refuses or does not answer; `signal` ends the wait early.
   */
  forget(distinctIds: string[], signal?: AbortSignal): Promise<void>;
  /**
   * Runs the erasures recorded (`jobs/posthog-erasure.ts`) in the background as soon as the one a
   * deletion has just recorded is due, rather than at the job's next turn. Never throws; what fails is
   * tried again later, and what a stop came before is the job's after the next start.
   */
  eraseWhenDue(): void;
}

/** How long the close waits for the events still queued for PostHog. */
const SHUTDOWN_FLUSH_MS = 3_000;

/** Long enough for PostHog's API on a bad day; no request waits for it (the erasure job does). */
const ERASURE_TIMEOUT_MS = 10_000;

const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

/** What PostHog answers a batch it took; here, one with nothing left to send. */
const SENT_NOTHING = { status: 200, text: async () => '{"status":1}', json: async () => ({ status: 1 }) };

/**
 * PostHog's `fetch`, which sends each batch of events without those of accounts deleted since they
 * were queued: on any instance, each send (a retry too: a batch PostHog did not answer stays queued,
 * however long it is down) asks the database just before it goes. Each is abandoned `timeoutMs` after
 * its check began, so that one checked just before a deletion committed has reached PostHog, or never
 * will, by the time its erasure is due (`erasure.afterMs`); tried again, it is checked again.
 */
function sendingTheLivingOnly(db: Db, timeoutMs: number): NonNullable<PostHogOptions['fetch']> {
  return async (url, options) => {
    if (!new URL(url).pathname.endsWith('/batch/') || options.body === undefined) return fetch(url, options);
    // Counted from before the check: what it lets through arrives within the time, or not at all.
    const deadline = timeoutSignal(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const gzipped = options.headers['Content-Encoding'] === 'gzip';
    const raw = typeof options.body === 'string' ? Buffer.from(options.body) : Buffer.from(await options.body.arrayBuffer());
    const payload = JSON.parse((gzipped ? await gunzip(raw) : raw).toString('utf8')) as { batch: { distinct_id: string }[] };
    const ids = [...new Set(payload.batch.map((event) => Number(event.distinct_id)).filter(Number.isSafeInteger))];
    const living = ids.length ? await db.select({ id: users.id }).from(users).where(inArray(users.id, ids)) : [];
    const kept = new Set(living.map((user) => String(user.id)));
    const batch = payload.batch.filter((event) => kept.has(event.distinct_id));
    if (batch.length === payload.batch.length) return fetch(url, { ...options, signal });
    if (batch.length === 0) return SENT_NOTHING;
    const json = JSON.stringify({ ...payload, batch });
    return fetch(url, { ...options, signal, body: gzipped ? new Blob([await gzip(json)]) : json });
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    analytics: Analytics;
  }
}

/**
 * When a deleted account's PostHog person goes (`deleteAccount`'s `postHogErasure`): with PostHog and its
 * erasure configured, twice the send's time after the deletion, the margin for a batch that PostHog had
 * whole as it was abandoned, still being taken in there, and for the deletion's commit after it has
 * recorded the erasure. Null when PostHog keeps nothing, or cannot be told to erase.
 */
export const erasureDelay = ({ key, erasure, sendTimeoutMs }: Config['posthog']): { afterMs: number } | null =>
  key && erasure ? { afterMs: 2 * sendTimeoutMs } : null;

/**
 * First-party analytics: events are stored in our own database, keyed by user id. With
 * `POSTHOG_KEY`, the same events also go to PostHog, keyed by the user id only: no e-mail, no name,
 * no address (GeoIP off), no cookie; and go from there with the account (`forget`).
 */
export default fp(
  async (app) => {
    const { key, host, sendTimeoutMs, erasure } = app.config.posthog;
    const posthog = key ? new PostHog(key, { host, disableGeoip: true, fetch: sendingTheLivingOnly(app.db, sendTimeoutMs) }) : null;
    posthog?.on('error', (error: unknown) => app.log.warn({ err: error }, 'posthog forwarding failed'));
    if (posthog && !erasure) {
      app.log.warn('POSTHOG_KEY is set but POSTHOG_PERSONAL_API_KEY and POSTHOG_PROJECT_ID are not: a deleted account keeps its events in PostHog');
    }

    const erasesAfter = erasureDelay(app.config.posthog);
    const stopping = new AbortController();
    let erasing: Promise<void> | null = null;
    let again = false;
    const waiting = new Set<NodeJS.Timeout>();

    // One run at a time here; one asked for during a run goes after it (that run may have read the
    // erasures before this one was due).
    const erase = () => {
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
    };

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
      erasure: erasesAfter,
      async forget(distinctIds: string[], signal?: AbortSignal) {
        if (!posthog || !erasure || distinctIds.length === 0) return;
        const timeout = timeoutSignal(ERASURE_TIMEOUT_MS);
        const response = await fetch(`${erasure.apiHost}/api/projects/${encodeURIComponent(erasure.projectId)}/persons/bulk_delete/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${erasure.personalApiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ distinct_ids: distinctIds, delete_events: true }),
          signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        });
        if (!response.ok) throw new Error(`PostHog answered ${response.status} to the persons' deletion: ${(await response.text()).slice(0, 200)}`);
      },
      eraseWhenDue() {
        if (!erasesAfter || stopping.signal.aborted) return;
        const timer = setTimeout(() => {
          waiting.delete(timer);
          erase();
        }, erasesAfter.afterMs).unref();
        waiting.add(timer);
      },
    });
    // An erasure waiting or under way gives up (recorded still, for the next start) rather than hold the stop.
    app.addHook('preClose', async () => {
      stopping.abort();
      for (const timer of waiting) clearTimeout(timer);
      await erasing;
    });
    // The events still queued go out, for a moment at most: left to itself, PostHog's SDK waits 30 s for
    // a PostHog that does not answer (each try `sendTimeoutMs`, and three more after it), past the
    // process's 10 s shutdown deadline, which exits without closing the database.
    app.addHook('onClose', async () => {
      await posthog?.shutdown(app.closeGrace.left(SHUTDOWN_FLUSH_MS)).catch((error: unknown) => app.log.warn({ err: error }, 'posthog: events still queued at the close were not sent'));
    });
  },
  { name: 'analytics', dependencies: ['database'] },
);
