import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParams } from '../../../shared/schemas/common';
import { CurrentUser, IMAGE_FIELDS, OwnProfile, ProfileInput, PublicProfile } from '../../../shared/schemas/users';
import { ApiError, asApiError, NotFound, SessionEnded, ValidationError } from '../../errors';
import { requestSubject } from '../../lib/limits';
import { currentUser } from '../../plugins/auth';
import { isDataUri } from '../media/service';
import { getCurrentUser, getOwnProfile, getPublicProfile, refusedImageReferences, saveProfile } from './service';
import { serverText } from '../../../shared/i18n/server-messages';

/** Six data: URIs of up to 10 MB each, base64-encoded, plus the rest of the profile. */
const PROFILE_BODY_LIMIT = 6 * Math.ceil((10 * 1024 * 1024 * 4) / 3) + 64 * 1024;

const userRoutes: FastifyPluginAsyncZod = async (app) => {
  /**
   * Users with a profile save on its way on this instance. The save's body may be some 80 MB, all of it
   * read and parsed before it can be refused: one at a time per user (and `profile:save` an hour), so
   * that one account cannot make an instance hold many at once. The app's own: apps of one process (a
   * test's) keep theirs apart.
   */
  const savesInProgress = new Set<number>();
  async function oneSaveAtATime(request: FastifyRequest, reply: FastifyReply) {
    const { id } = currentUser(request);
    if (savesInProgress.has(id)) throw new ApiError(429, { detail: serverText('profile_save_in_progress') }, { 'Retry-After': '1' });
    savesInProgress.add(id);
    // Answered, refused, or the connection gone half-way through the body: the user may save again.
    reply.raw.once('close', () => savesInProgress.delete(id));
  }

  app.addHook('onRequest', app.authenticate);

  app.get('/api/users/me/', { schema: { response: { 200: CurrentUser } } }, async (request) => {
    const user = await getCurrentUser(app.db, currentUser(request).id);
    // Signed in just before the account was deleted (another phone): the session ended with it.
    if (!user) throw new SessionEnded();
    return user;
  });

  app.get('/api/users/me/profile/', { schema: { response: { 200: OwnProfile } } }, async (request) => {
    const profile = await getOwnProfile(app.db, currentUser(request).id);
    // Made with the account, gone only with it.
    if (!profile) throw new SessionEnded();
    return profile;
  });

  app.put(
    '/api/users/me/profile/',
    {
      bodyLimit: PROFILE_BODY_LIMIT,
      schema: { body: ProfileInput, response: { 200: OwnProfile } },
      // A body its schema refuses is answered below, with its photos that are not the user's named too.
      attachValidation: true,
      onRequest: [app.limits.hook('profile:save'), oneSaveAtATime],
      // A photo sent inline is an upload: it counts against the same hourly limit as POST /api/uploads/.
      preHandler: async (request) => {
        if (request.validationError) {
          const refused = asApiError(request.validationError as never);
          if (!(refused instanceof ValidationError)) throw refused ?? request.validationError;
          const images = await refusedImageReferences(app.db, app.media, currentUser(request).id, request.body, refused.fields);
          throw new ValidationError({ ...refused.fields, ...images });
        }
        const inline = IMAGE_FIELDS.filter((field) => isDataUri(request.body[field] ?? ''));
        const refused = (await app.limits.consumeEach('upload', inline.map(() => requestSubject(request)))).find(Boolean);
        if (refused) throw refused;
      },
    },
    async (request) => {
      const { id } = currentUser(request);
      const saved = await saveProfile(app.db, app.media, id, request.body, request.log);
      // My other phones read me again: my photo in their header, and a profile completed here lets them past the profile page.
      app.publish([id], 'account:changed');
      return saved;
    },
  );

  app.get(
    '/api/users/:id/profile/',
    { schema: { params: IdParams, response: { 200: PublicProfile } }, onRequest: app.limits.hook('profile:view') },
    async (request) => {
      const profile = await getPublicProfile(app.db, currentUser(request).id, request.params.id);
      if (!profile) throw new NotFound();
      return profile;
    },
  );
};

export default userRoutes;
