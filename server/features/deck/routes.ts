import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { page, PageQuery } from '../../../shared/schemas/common';
import { DeckCard } from '../../../shared/schemas/users';
import { currentUser } from '../../plugins/auth';
import { DeckPositionSchema, getDeck } from './service';

const deckRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.authenticate);
  const likersKey = app.keyFor('deck-likers');

  app.get(
    '/api/users/matching-profiles/',
    { schema: { querystring: PageQuery, response: { 200: page(DeckCard) } } },
    async (request) => {
      const viewerId = currentUser(request).id;
      // The viewer's own: another account's cursor would tell, by where it resumes, which tier it is in.
      const after = app.cursors.open('deck', request.query.cursor, DeckPositionSchema, viewerId);
      const slice = await getDeck(app.db, viewerId, likersKey, { after, limit: request.query.limit });
      return app.cursors.page('deck', slice, viewerId);
    },
  );
};

export default deckRoutes;
