import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AnalyticsEventInput, AnalyticsSummary, AnalyticsSummaryQuery } from '../../../shared/schemas/analytics';
import { NoBody } from '../../../shared/schemas/common';
import { NotFound, SessionEnded } from '../../errors';
import { currentUser } from '../../plugins/auth';
import { isModerator } from '../moderation/service';
import { dailySummary } from './service';

/** First-party analytics: the client names what happened; the server keeps who and when. */
const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/api/analytics/events/', {
    schema: { body: AnalyticsEventInput, response: { 204: NoBody } },
    onRequest: [app.authenticate, app.limits.hook('analytics:event')],
    handler: async (request, reply) => {
      // Signed in as the account was deleted: the session has ended with it.
      const { name, client_id: clientId, age_ms: ageMs } = request.body;
      if (!(await app.analytics.record(currentUser(request).id, name, clientId, ageMs))) throw new SessionEnded();
      return reply.code(204).send(null);
    },
  });

  // Moderators only; anyone else finds nothing here (as the moderation queue).
  app.get('/api/analytics/summary/', {
    schema: { querystring: AnalyticsSummaryQuery, response: { 200: AnalyticsSummary } },
    onRequest: [
      app.authenticate,
      async (request) => {
        if (!(await isModerator(app.db, currentUser(request).id))) throw new NotFound();
      },
    ],
    handler: async (request) => ({ days: await dailySummary(app.db, request.query.days) }),
  });
};

export default analyticsRoutes;
