import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CONVERSATIONS_PAGE_SIZE } from '../../../shared/constants';
import { IdParams, NoBody, page, PageQuery } from '../../../shared/schemas/common';
import { BlockedUser, EndedChat, ReportCreated, ReportInput } from '../../../shared/schemas/safety';
import { z } from '../../../shared/schemas/zod';
import { NotFound } from '../../errors';
import { type LimitName, userSubject } from '../../lib/limits';
import { noBody } from '../../plugins/api-docs';
import { currentUser } from '../../plugins/auth';
import {
  announceEnded,
  type BlockPosition,
  block,
  ENDED_CONVERSATION_MESSAGES_KEPT_MS,
  type EndedChatPosition,
  listBlocks,
  listEndedChats,
  report,
  type ReportQuota,
  unblock,
  unmatch,
} from './service';

const BlockPositionSchema: z.ZodType<BlockPosition> = z.object({
  blockedAtUs: z.string().regex(/^\d{1,18}$/),
  id: z.number().int().min(1).max(2_147_483_647),
});

const EndedChatPositionSchema: z.ZodType<EndedChatPosition> = z.object({
  endedAtUs: z.string().regex(/^\d{1,18}$/),
  id: z.number().int().min(1).max(2_147_483_647),
});

/** The limit each of a reporter's daily quotas counts on. */
const REPORT_LIMITS = { new: 'report', addition: 'report:addition', repeat: 'report:repeat' } as const satisfies Record<ReportQuota, LimitName>;

/** Block, unblock, unmatch and report: each takes effect for both people at once. */
const safetyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.authenticate);

  const bodyless = { params: IdParams, ...noBody, response: { 204: NoBody } };
  /**
   * A block, a report's or an unmatch: each person's open phones drop the other's card and profile at
   * once. The blocker's always hear it (their own doing); the blocked person's only with `blockedTold`.
   * An unmatch says it as a block does, so that the one left cannot tell the two apart by what they hear.
   */
  const outOfReach = (blocker: number, blocked: number, { blockedTold = true } = {}) => {
    if (blockedTold) app.publish([blocked], 'person:gone', { user_id: blocker });
    app.publish([blocker], 'person:gone', { user_id: blocked, by_you: true });
  };

  app.post('/api/users/:id/block/', { schema: bodyless, onRequest: app.limits.hook('block') }, async (request, reply) => {
    const { id } = currentUser(request);
    const outcome = await block(app.db, id, request.params.id);
    if (!outcome) throw new NotFound();
    // Blocked already (a double tap, a retry, another phone): everyone was told the first time.
    if (outcome.added) {
      announceEnded(app.publish, outcome.ended, id);
      outOfReach(id, request.params.id, { blockedTold: outcome.hid });
    }
    return reply.code(204).send(null);
  });

  app.delete('/api/users/:id/block/', { schema: bodyless }, async (request, reply) => {
    const { id } = currentUser(request);
    // Only to my own phones, which hold the person as gone: the one unblocked never learns of a block.
    if (await unblock(app.db, id, request.params.id)) app.publish([id], 'person:unblocked', { user_id: request.params.id });
    return reply.code(204).send(null);
  });

  app.get(
    '/api/users/me/blocks/',
    { schema: { querystring: PageQuery, response: { 200: page(BlockedUser) } } },
    async (request) => {
      const after = app.cursors.open('blocks', request.query.cursor, BlockPositionSchema);
      const limit = request.query.limit ?? CONVERSATIONS_PAGE_SIZE;
      return app.cursors.page('blocks', await listBlocks(app.db, currentUser(request).id, { after, limit }));
    },
  );

  // What a report can still reach: someone who ended a chat (a block, an unmatch) after what they said
  // or did, for as long as the chat's messages are kept for one.
  app.get(
    '/api/conversations/ended/',
    { schema: { querystring: PageQuery, response: { 200: page(EndedChat) } } },
    async (request) => {
      const after = app.cursors.open('ended-chats', request.query.cursor, EndedChatPositionSchema);
      const limit = request.query.limit ?? CONVERSATIONS_PAGE_SIZE;
      const since = new Date(Date.now() - ENDED_CONVERSATION_MESSAGES_KEPT_MS);
      return app.cursors.page('ended-chats', await listEndedChats(app.db, currentUser(request).id, { since, after, limit }));
    },
  );

  app.delete('/api/conversations/:id/', { schema: bodyless }, async (request, reply) => {
    const { id } = currentUser(request);
    const ended = await unmatch(app.db, id, request.params.id);
    if (!ended) throw new NotFound();
    announceEnded(app.publish, ended, id);
    for (const { userIds } of ended) outOfReach(id, userIds[0] === id ? userIds[1] : userIds[0]);
    return reply.code(204).send(null);
  });

  app.post(
    '/api/reports/',
    { schema: { body: ReportInput, response: { 200: ReportCreated, 201: ReportCreated } } },
    async (request, reply) => {
      const { id } = currentUser(request);
      // The day's limit is taken by the service, once it knows whether the report is new or an addition to an open one.
      const takeQuota = (kind: ReportQuota) => app.limits.consume(REPORT_LIMITS[kind], userSubject(id));
      const outcome = await report(app.db, app.evidence, app.media, id, request.body, takeQuota);
      if (!outcome) throw new NotFound();
      announceEnded(app.publish, outcome.ended, id);
      // Of the report itself the reported person is never told: only of the two being hidden by it. The
      // reporter's phones hear of a new report or a new block, not of the same again (a retry, an addition).
      if (outcome.created || outcome.blocked) outOfReach(id, request.body.user_id, { blockedTold: outcome.hid });
      return reply.code(outcome.created ? 201 : 200).send({ id: outcome.id });
    },
  );
};

export default safetyRoutes;
