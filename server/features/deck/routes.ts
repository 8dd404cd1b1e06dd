import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { page, PageQuery } from '../../../shared/schemas/common';
import { DeckCard } from '../../../shared/schemas/users';
import { currentUser } from '../../plugins/auth';
import { getDeck } from './service';

const deckRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.authenticate);

  app.get(
    '/api/users/matching-profiles/',
    { schema: { querystring: PageQuery, response: { 200: page(DeckCard) } } },
    async (request) => getDeck(app.db, currentUser(request).id, request.query),
  );
};

export default deckRoutes;
