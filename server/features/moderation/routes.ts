import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParams } from '../../../shared/schemas/common';
import {
  ModerationQuery,
  ModerationReportDetail,
  ModerationReportPage,
  ReportPhoto,
  ReportPhotoParams,
  ResolveInput,
} from '../../../shared/schemas/safety';
import { z } from '../../../shared/schemas/zod';
import { NotFound } from '../../errors';
import { currentUser } from '../../plugins/auth';
import { findEventById, presentEvent } from '../events/service';
import { stopRenewalOfBanned } from '../payments/subscription';
import { announceEnded } from '../safety/service';
import { getReport, isModerator, listReports, type QueuePosition, reportPhotoKey, resolveReport } from './service';

const QueuePositionSchema: z.ZodType<QueuePosition> = z.object({
  atUs: z.string().regex(/^\d{1,18}$/),
  id: z.number().int().min(1).max(2_147_483_647),
});

const QUEUE_PAGE_SIZE = 50;

/**
 * The moderation queue: moderators only; anyone else finds nothing here, and a moderator finds no
 * report about herself, nor any she made.
 */
const moderationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.authenticate);
  app.addHook('onRequest', async (request) => {
    if (!(await isModerator(app.db, currentUser(request).id))) throw new NotFound();
  });

  app.get(
    '/api/moderation/reports/',
    { schema: { querystring: ModerationQuery, response: { 200: ModerationReportPage } } },
    async (request) => {
      const { status, cursor, limit } = request.query;
      const scope = `moderation-${status}`;
      const after = app.cursors.open(scope, cursor, QueuePositionSchema);
      return app.cursors.page(scope, await listReports(app.db, currentUser(request).id, { status, after, limit: limit ?? QUEUE_PAGE_SIZE }));
    },
  );

  app.get(
    '/api/moderation/reports/:id/',
    { schema: { params: IdParams, response: { 200: ModerationReportDetail } } },
    async (request) => {
      const report = await getReport(app.db, currentUser(request).id, request.params.id);
      if (!report) throw new NotFound();
      return report;
    },
  );

  const photo = { params: ReportPhotoParams, response: { 200: { content: { 'image/webp': { schema: ReportPhoto } } } } };
  app.get('/api/moderation/reports/:id/photos/:index/', { schema: photo }, async (request, reply) => {
    const key = await reportPhotoKey(app.db, currentUser(request).id, request.params.id, request.params.index);
    const bytes = key ? await app.evidence.read(key) : null;
    if (!bytes) throw new NotFound();
    // Evidence, for the moderator's eyes: never kept by a shared cache. Bytes go out as they are (Fastify
    // does not serialize a Buffer); ReportPhoto only describes them, as a file, for the API's documentation.
    return reply.type('image/webp').header('cache-control', 'private, no-store').send(bytes as unknown as File);
  });

  app.post(
    '/api/moderation/reports/:id/resolve/',
    { schema: { params: IdParams, body: ResolveInput, response: { 200: ModerationReportDetail } } },
    async (request) => {
      const resolution = await resolveReport(app.db, currentUser(request).id, request.params.id, request.body);
      if (!resolution) throw new NotFound();
      if (resolution.banned) {
        // Their open phones hear why before their sockets drop (this instance's at once, the others'
        // sent ahead of the revocation, on the same path to each instance), then the sessions the ban
        // ended are forgotten everywhere, sockets dropped on every instance (a phone away hears it when
        // it comes back: its token says so); partners see the conversation go.
        app.publishBeforeDrop(resolution.banned.userId, 'account:suspended');
        await app.suspendedTokens(resolution.banned.tokenHashes);
        announceEnded(app.publish, resolution.banned.ended);
        const { userId, leftEventId, shownTo } = resolution.banned;
        // Whoever may have them on screen (their card, their like) drops them now, as after a block.
        app.publish(shownTo, 'person:gone', { user_id: userId });
        if (leftEventId !== null) app.eventLive.left(userId, leftEventId);
        // Their events' guests hear of them as of an organizer's own deletion or early end.
        for (const eventId of resolution.banned.events.deleted) app.eventLive.removed(eventId, userId);
        for (const eventId of resolution.banned.events.ended) {
          const event = await findEventById(app.db, eventId);
          if (event) app.eventLive.changedByOrganizer(presentEvent(event), userId);
        }
        // They can no longer sign in to cancel their plan: it ends at the end of the period paid for.
        await stopRenewalOfBanned(app.db, app.stripe, userId, request.log, app.config.stripe.lookupKeys.yearly);
      }
      // The report is resolved by now: copies that cannot be removed (the bucket down) do not make that
      // a 500, nor keep a ban from ending the sessions above. The orphan sweep removes them later.
      try {
        await Promise.all(resolution.photoCopies.map((key) => app.evidence.remove(key)));
      } catch (error) {
        request.log.warn(
          { reportId: request.params.id, photos: resolution.photoCopies.length, err: error },
          'report resolved, but its photo copies were not removed',
        );
      }
      return resolution.report;
    },
  );
};

export default moderationRoutes;
