import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ReactionInput, ReactionResult } from '../../../shared/schemas/matching';
import { currentUser } from '../../plugins/auth';
import { react } from './service';

const matchingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.authenticate);

  app.post(
    '/api/matching/',
    { schema: { body: ReactionInput, response: { 200: ReactionResult } }, onRequest: app.limits.hook('reaction') },
    async (request) => {
    const outcome = await react(app.db, currentUser(request).id, request.body);
    // Committed: now both users hear about the match.
    for (const { userId, other } of outcome.matched) {
      app.publish([userId], 'match:new', { conversation_id: outcome.conversationId!, user: other });
    }
    return { match: outcome.match, conversation_id: outcome.conversationId };
    },
  );
};

export default matchingRoutes;
