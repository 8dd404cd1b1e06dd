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
      const userId = currentUser(request).id;
      // The user's own list: a cursor of someone else's names a like of theirs.
      const after = app.cursors.open('likes', request.query.cursor, LikePositionSchema, userId);
      const { count, ...slice } = await likesYou(app.db, userId, { after, limit: request.query.limit });
      return { count, ...app.cursors.page('likes', slice, userId) };
    },
  );
};

export default likesRoutes;
