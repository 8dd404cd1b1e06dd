import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AnalyticsEventInput } from '../../../shared/schemas/analytics';
import { currentUser } from '../../plugins/auth';

/** First-party analytics (ACCOUNT.md): the client names what happened; the server keeps who and when. */
const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/api/analytics/events/', {
    schema: { body: AnalyticsEventInput },
    onRequest: [app.authenticate, app.limits.hook('analytics:event')],
    handler: async (request, reply) => {
      await app.analytics.record(currentUser(request).id, request.body.name);
      return reply.code(204).send();
    },
  });
};

export default analyticsRoutes;
