import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PageQuery } from '../../../shared/schemas/common';
import { LikesYouPage } from '../../../shared/schemas/plan';
import { currentUser } from '../../plugins/auth';
import { LikePositionSchema, likesYou } from './service';

const likesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.authenticate);

  app.get(
    '/api/users/me/likes/',
    { schema: { querystring: PageQuery, response: { 200: LikesYouPage } } },
    async (request) => {
      const after = app.cursors.open('likes', request.query.cursor, LikePositionSchema);
      const { count, ...slice } = await likesYou(app.db, currentUser(request).id, { after, limit: request.query.limit });
      return { count, ...app.cursors.page('likes', slice) };
    },
  );
};

export default likesRoutes;
