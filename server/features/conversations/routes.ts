import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CONVERSATIONS_PAGE_SIZE } from '../../../shared/constants';
import { MessageReadPayload } from '../../../shared/events';
import { NoBody, page, PageQuery } from '../../../shared/schemas/common';
import {
  ConversationDetail,
  ConversationParams,
  ConversationSummary,
  Message,
  MessageInput,
  MessagesQuery,
} from '../../../shared/schemas/conversations';
import { NotFound } from '../../errors';
import { currentUser } from '../../plugins/auth';
import {
  ConversationListPositionSchema,
  getConversation,
  listConversations,
  listMessages,
  MessagePositionSchema,
  readAndTell,
} from './service';
import { sendCountedOnce } from './message-batcher';

const conversationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.authenticate);

  for (const kind of ['empty', 'started'] as const) {
    app.get(
      `/api/conversations/${kind}/`,
      { schema: { querystring: PageQuery, response: { 200: page(ConversationSummary) } } },
      async (request) => {
        const scope = `conversations-${kind}`;
        const after = app.cursors.open(scope, request.query.cursor, ConversationListPositionSchema);
        const slice = await listConversations(app.db, currentUser(request).id, {
          kind,
          after,
          limit: request.query.limit ?? CONVERSATIONS_PAGE_SIZE,
        });
        return app.cursors.page(scope, slice);
      },
    );
  }

  app.get(
    '/api/conversations/:id/',
    { schema: { params: ConversationParams, response: { 200: ConversationDetail } } },
    async (request) => {
      const conversation = await getConversation(app.db, request.params.id, currentUser(request).id);
      if (!conversation) throw new NotFound();
      return conversation;
    },
  );

  app.get(
    '/api/conversations/:id/messages/',
    { schema: { params: ConversationParams, querystring: MessagesQuery, response: { 200: page(Message) } } },
    async (request) => {
      const { cursor, after, limit } = request.query;
      // A cursor of one conversation's history is no cursor for another's.
      const scope = `messages-${request.params.id}`;
      const position = app.cursors.open(scope, cursor, MessagePositionSchema);
      const slice = await listMessages(app.db, request.params.id, currentUser(request).id, {
        position,
        afterId: after,
        limit,
      });
      if (!slice) throw new NotFound();
      return app.cursors.page(scope, slice);
    },
  );

  app.post(
    '/api/conversations/:id/messages/',
    {
      schema: { params: ConversationParams, body: MessageInput, response: { 201: Message } },
    },
    async (request, reply) => {
      // Counted as the socket's sends are: a resend of a message stored already takes none of the limit.
      const { message, participantIds, previousId } = await sendCountedOnce(app.db, app.limits, {
        conversationId: request.params.id,
        senderId: currentUser(request).id,
        content: request.body.content,
        clientId: request.body.client_id ?? null,
      });
      // Committed: push it to both participants; a retried send again (see realtime/handlers.ts).
      app.publish(participantIds, 'message:new', { conversation_id: request.params.id, message, previous_id: previousId });
      return reply.code(201).send(message);
    },
  );

  // A read, as the socket's `message:read` tells it, for a tab with no socket: a network that lets
  // none through, or a tab beyond the user's sockets. Without it, what was read there stayed unread.
  app.post(
    '/api/conversations/:id/read/',
    {
      schema: { params: ConversationParams, body: MessageReadPayload.pick({ last_read_id: true }), response: { 204: NoBody } },
      onRequest: app.limits.hook('message:read'),
    },
    async (request, reply) => {
      await readAndTell(app.db, app.publish, { conversationId: request.params.id, userId: currentUser(request).id, lastReadId: request.body.last_read_id });
      return reply.code(204).send(null);
    },
  );
};

export default conversationRoutes;
