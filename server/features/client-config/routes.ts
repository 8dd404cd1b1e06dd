import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ClientConfig } from '../../../shared/schemas/client-config';
import { withoutToken } from '../../plugins/api-docs';

/** Public: what the client shows depends on how this server is configured (Google buttons, checkout kind). */
const clientConfigRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/api/config/', { schema: { ...withoutToken, response: { 200: ClientConfig } } }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return {
      google_client_id: app.config.google.clientId,
      payments: app.config.checkoutMode,
      lookup_keys: app.config.stripe.lookupKeys,
    };
  });
};

export default clientConfigRoutes;
