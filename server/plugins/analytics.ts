import fp from 'fastify-plugin';
import { PostHog } from 'posthog-node';
import type { AnalyticsEventName } from '../../shared/schemas/analytics';
import { recordEvent } from '../features/analytics/service';

export interface Analytics {
  /**
   * Stores the event (and forwards it to PostHog when `POSTHOG_KEY` is set). Answers false, having done
   * neither, when the account is gone (deleted meanwhile).
   */
  record(userId: number, name: AnalyticsEventName): Promise<boolean>;
  /** Sends what PostHog forwarding has queued (tests; shutdown does it on its own). */
  flush(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    analytics: Analytics;
  }
}

/**
 * First-party analytics: events are stored in our own database, keyed by user id. With
 * `POSTHOG_KEY`, the same events also go to PostHog, keyed by the user id only: no e-mail, no name,
 * no address (GeoIP off), no cookie.
 */
export default fp(
  async (app) => {
    const { key, host } = app.config.posthog;
    const posthog = key ? new PostHog(key, { host, disableGeoip: true }) : null;
    posthog?.on('error', (error: unknown) => app.log.warn({ err: error }, 'posthog forwarding failed'));

    app.decorate('analytics', {
      async record(userId: number, name: AnalyticsEventName) {
        if (!(await recordEvent(app.db, userId, name))) return false;
        posthog?.capture({ distinctId: String(userId), event: name, disableGeoip: true });
        return true;
      },
      async flush() {
        await posthog?.flush();
      },
    });
    app.addHook('onClose', async () => {
      await posthog?.shutdown();
    });
  },
  { name: 'analytics', dependencies: ['database'] },
);
