import type { FastifyInstance } from 'fastify';
import type { ZodType } from 'zod';
import {
  type Ack,
  type ClientToServerEvents,
  EventWatchPayload,
  MessageReadPayload,
  MessageSendPayload,
  PresenceListPayload,
  TypingPayload,
} from '../../shared/events';
import type { MessageBatcher } from '../features/conversations/message-batcher';
import { getParticipantIds, markRead } from '../features/conversations/service';
import type { EventLive } from '../features/events/live';
import { attendeeCount, findOrganizedEvent } from '../features/events/service';
import { type LimitName, userSubject } from '../lib/limits';
import { errorAck, invalidPayload, notFoundAck, unavailableAck } from './acks';
import type { RealtimeSocket } from './plugin';
import type { Presence } from './presence';

/**
 * Typing fires often: who is in a conversation is remembered per socket for a little while (the
 * visibility rule decides it, and `match:removed` to this socket forgets it at once).
 */
const PARTICIPANTS_CACHE_MS = 30_000;
const PARTICIPANTS_CACHE_SIZE = 64;

export interface HandlerContext {
  app: FastifyInstance;
  presence: Presence;
  /** `sendMessage` with group commit: the same rules, one commit for every send waiting on it. */
  messages: MessageBatcher;
  eventLive: EventLive;
  /** False once the instance has started to shut down. */
  accepting: () => boolean;
  /** Keeps shutdown waiting until this write has finished. */
  track: (work: Promise<unknown>) => void;
}

type Reply = (reply: Ack) => void;
const noReply: Reply = () => {};

/** The client → server events of API.md: validated with shared/ schemas, handled by the REST route's services. */
export function registerHandlers(socket: RealtimeSocket, context: HandlerContext) {
  const { app, presence } = context;
  const { user, language } = socket.data;
  const participants = new Map<number, { ids: [number, number]; at: number }>();

  // A conversation that ends (block, unmatch, report, ban) is forgotten the moment this socket is told.
  socket.onAnyOutgoing((event: string, payload: { conversation_id?: number }) => {
    if (event === 'match:removed' && payload.conversation_id !== undefined) participants.delete(payload.conversation_id);
  });

  async function participantsOf(conversationId: number) {
    const cached = participants.get(conversationId);
    if (cached && performance.now() - cached.at < PARTICIPANTS_CACHE_MS) return cached.ids;
    const ids = await getParticipantIds(app.db, conversationId, user.id);
    if (!ids) return null;
    if (participants.size >= PARTICIPANTS_CACHE_SIZE) participants.clear();
    participants.set(conversationId, { ids, at: performance.now() });
    return ids;
  }

  /**
   * One event: validate, throttle (the user's limit of the same name, shared with the REST route and
   * every instance), run, ack. A bad payload or a failing service gets an error ack; the socket itself
   * is never dropped for it.
   */
  function on<T>(
    event: keyof ClientToServerEvents & LimitName,
    schema: ZodType<T>,
    handle: (payload: T) => Promise<Ack>,
  ) {
    socket.on(event, (...args: unknown[]) => {
      // The ack is the last argument: with no payload at all, it is the only one.
      const last = args.at(-1);
      const reply = typeof last === 'function' ? (last as Reply) : noReply;
      const payload = typeof args[0] === 'function' ? undefined : args[0];
      if (!context.accepting()) return reply(unavailableAck(language));
      const parsed = schema.safeParse(payload);
      if (!parsed.success) return reply(invalidPayload(parsed.error, language));
      context.track(
        app.limits
          .consume(event, userSubject(user.id))
          .then(() => handle(parsed.data))
          .then(reply, (error: unknown) => reply(errorAck(error, app.log, language))),
      );
    });
  }

  on('message:send', MessageSendPayload, async (payload) => {
    const { message, participantIds, created } = await context.messages.send({
      conversationId: payload.conversation_id,
      senderId: user.id,
      content: payload.content,
      clientId: payload.client_id,
    });
    // Committed: now it may be told. A retried send (same client_id) was told the first time.
    if (created) app.publish(participantIds, 'message:new', { conversation_id: payload.conversation_id, message });
    return { ok: true, message };
  });

  on('message:read', MessageReadPayload, async (payload) => {
    const { participantIds, lastReadId } = await markRead(app.db, {
      conversationId: payload.conversation_id,
      userId: user.id,
      lastReadId: payload.last_read_id,
    });
    app.publish(
      participantIds.filter((id) => id !== user.id),
      'message:read',
      { conversation_id: payload.conversation_id, user_id: user.id, last_read_id: lastReadId },
    );
    return { ok: true };
  });

  on('typing', TypingPayload, async (payload) => {
    const ids = await participantsOf(payload.conversation_id);
    if (!ids) return notFoundAck(language);
    app.publish(
      ids.filter((id) => id !== user.id),
      'typing',
      { conversation_id: payload.conversation_id, user_id: user.id },
    );
    return { ok: true };
  });

  on('presence:list', PresenceListPayload, async () => ({ ok: true, online: await presence.onlinePartners(user.id) }));

  // The host screen: only the organizer; anyone else is told there is no such event.
  on('event:watch', EventWatchPayload, async (payload) => {
    const event = await findOrganizedEvent(app.db, payload.event_id, user.id);
    if (!event) return notFoundAck(language);
    await context.eventLive.watch(socket, event.id);
    return { ok: true, count: await attendeeCount(app.db, event.id) };
  });
}
