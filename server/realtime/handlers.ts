import type { FastifyInstance } from 'fastify';
import type { ZodType } from 'zod';
import {
  type Ack,
  type ClientToServerEvents,
  EventUnwatchPayload,
  EventWatchPayload,
  MatchSeenPayload,
  MessageReadPayload,
  MessageSendPayload,
  PresenceListPayload,
  rooms,
  TypingPayload,
} from '../../shared/events';
import type { MessageBatcher } from '../features/conversations/message-batcher';
import { getParticipantIds, markMatchesSeen, readAndTell } from '../features/conversations/service';
import type { EventLive } from '../features/events/live';
import { attendeeCount, findOrganizedEvent } from '../features/events/service';
import { type LimitName, userSubject } from '../lib/limits';
import { errorAck, invalidPayload, notFoundAck, unavailableAck } from './acks';
import type { RealtimeSocket } from './types';
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

type Handler<T> = (socket: RealtimeSocket, payload: T) => Promise<Ack>;
interface Route {
  schema: ZodType;
  handle: Handler<never>;
  /** Whether dispatch counts the user's limit of the event's name; false where the handler does, or none is needed. */
  throttled: boolean;
  /** Whether the socket's events of this kind run one after the other, in the order sent. */
  inOrder: boolean;
}
interface RouteOptions {
  throttled?: boolean;
  inOrder?: boolean;
}

/**
 * The client → server events (docs/socket-events.md): validated with shared/ schemas, handled by the
 * REST route's services. Built once per server: `attach` gives a socket one catch-all listener shared
 * by every socket (Socket.IO calls it with the socket as `this`), not a set of closures of its own;
 * with thousands of idle sockets, that is most of what the app holds per socket beyond the bare transport.
 */
export function createHandlers(context: HandlerContext) {
  const { app, presence } = context;
  const routes = new Map<string, Route>();
  /**
   * For typing, per socket, made on its first typing: who is in a conversation, and the conversations
   * this socket was told have ended (an ended conversation never opens again).
   */
  const typingCaches = new WeakMap<RealtimeSocket, { participants: Map<number, { ids: [number, number]; at: number }>; ended: Set<number> }>();

  function typingCacheOf(socket: RealtimeSocket) {
    let cache = typingCaches.get(socket);
    if (!cache) {
      const created = { participants: new Map<number, { ids: [number, number]; at: number }>(), ended: new Set<number>() };
      cache = created;
      typingCaches.set(socket, created);
      // A conversation that ends (block, unmatch, report, ban) is forgotten the moment this socket is told.
      socket.onAnyOutgoing((event: string, payload: { conversation_id?: number }) => {
        if (event !== 'match:removed' || payload.conversation_id === undefined) return;
        created.participants.delete(payload.conversation_id);
        created.ended.add(payload.conversation_id);
      });
    }
    return cache;
  }

  async function participantsOf(socket: RealtimeSocket, conversationId: number) {
    // Listening before the first lookup: an ending told while it runs is heard.
    const { participants, ended } = typingCacheOf(socket);
    const cached = participants.get(conversationId);
    if (cached && performance.now() - cached.at < PARTICIPANTS_CACHE_MS) return cached.ids;
    const ids = await getParticipantIds(app.db, conversationId, socket.data.user.id);
    // Told of its end while it was looked up: the answer is from before the end, and cached it would
    // relay typing to the one who ended it for as long as the cache keeps it.
    if (!ids || ended.has(conversationId)) return null;
    if (participants.size >= PARTICIPANTS_CACHE_SIZE) participants.clear();
    participants.set(conversationId, { ids, at: performance.now() });
    return ids;
  }

  /**
   * One event: validate, throttle (the user's limit of the same name, shared with the REST route and
   * every instance), run, ack. A bad payload or a failing service gets an error ack; the socket itself
   * is never dropped for it.
   */
  function on<T>(event: keyof ClientToServerEvents & LimitName, schema: ZodType<T>, handle: Handler<T>, options?: RouteOptions): void;
  function on<T>(event: keyof ClientToServerEvents, schema: ZodType<T>, handle: Handler<T>, options: RouteOptions & { throttled: false }): void;
  function on<T>(event: keyof ClientToServerEvents, schema: ZodType<T>, handle: Handler<T>, { throttled = true, inOrder = false }: RouteOptions = {}) {
    routes.set(event, { schema, handle: handle as Handler<never>, throttled, inOrder });
  }

  /** Per socket, the last of its in-order events, which the next one waits for. */
  const lastInOrder = new WeakMap<RealtimeSocket, Promise<unknown>>();

  function dispatch(this: RealtimeSocket, event: string, ...args: unknown[]) {
    const route = routes.get(event);
    if (!route) return;
    const socket = this;
    const { user, language } = socket.data;
    // The ack is the last argument: with no payload at all, it is the only one.
    const last = args.at(-1);
    const reply = typeof last === 'function' ? (last as Reply) : noReply;
    const payload = typeof args[0] === 'function' ? undefined : args[0];
    if (!context.accepting()) return reply(unavailableAck(language));
    const parsed = route.schema.safeParse(payload);
    if (!parsed.success) return reply(invalidPayload(parsed.error, language));
    const allowed = route.throttled ? app.limits.consume(event as LimitName, userSubject(user.id)) : Promise.resolve();
    // Its turn comes once the one before has finished, whatever became of it.
    const ready = route.inOrder ? Promise.allSettled([lastInOrder.get(socket), allowed]).then(() => allowed) : allowed;
    const done = ready
      .then(() => route.handle(socket, parsed.data as never))
      .then(reply, (error: unknown) => reply(errorAck(error, app.log, language)));
    if (route.inOrder) lastInOrder.set(socket, done);
    context.track(done);
  }

  // The batcher counts the send limit, a batch's sends in one call.
  on(
    'message:send',
    MessageSendPayload,
    async (socket, payload) => {
      const { message, participantIds, previousId } = await context.messages.send({
        conversationId: payload.conversation_id,
        senderId: socket.data.user.id,
        content: payload.content,
        clientId: payload.client_id,
      });
      // Committed: now it may be told. A retried send (same client_id) is told again: the instance that
      // stored it may have gone (or lost Redis) before telling of it, and clients take a message once by its id.
      app.publish(participantIds, 'message:new', { conversation_id: payload.conversation_id, message, previous_id: previousId });
      return { ok: true, message };
    },
    { throttled: false },
  );

  on('message:read', MessageReadPayload, async (socket, payload) => {
    const userId = socket.data.user.id;
    await readAndTell(app.db, app.publish, { conversationId: payload.conversation_id, userId, lastReadId: payload.last_read_id });
    return { ok: true };
  });

  on('match:seen', MatchSeenPayload, async (socket, payload) => {
    const userId = socket.data.user.id;
    const moved = await markMatchesSeen(app.db, userId, payload.conversation_ids, payload.seen);
    // To my other phones and tabs, not back to this one: the overlay, and after the chats the dot, go
    // there too. Here it was seen as it showed: the matches list in view, seeing a match it has just
    // heard of, would close that match's overlay the moment it opened.
    if (moved.length) socket.to(rooms.user(userId)).emit('match:seen', { conversation_ids: moved, seen: payload.seen });
    return { ok: true };
  });

  on('typing', TypingPayload, async (socket, payload) => {
    const userId = socket.data.user.id;
    const ids = await participantsOf(socket, payload.conversation_id);
    if (!ids) return notFoundAck(socket.data.language);
    app.publish(
      ids.filter((id) => id !== userId),
      'typing',
      { conversation_id: payload.conversation_id, user_id: userId },
    );
    return { ok: true };
  });

  on('presence:list', PresenceListPayload, async (socket) => ({ ok: true, online: await presence.onlinePartners(socket.data.user.id) }));

  // The host screen: only the organizer; anyone else is told there is no such event. A socket's watches
  // and unwatches run in the order sent: a host screen closed as it opened (a watch still reading its
  // event when the unwatch comes) ends out of the room.
  on(
    'event:watch',
    EventWatchPayload,
    async (socket, payload) => {
      const event = await findOrganizedEvent(app.db, payload.event_id, socket.data.user.id);
      if (!event) return notFoundAck(socket.data.language);
      await context.eventLive.watch(socket, event.id);
      return { ok: true, count: await attendeeCount(app.db, event.id) };
    },
    { inOrder: true },
  );

  // Not counted: it reads anything only after a watch, which was.
  on(
    'event:unwatch',
    EventUnwatchPayload,
    async (socket, payload) => {
      await context.eventLive.unwatch(socket, payload.event_id);
      return { ok: true };
    },
    { throttled: false, inOrder: true },
  );

  function disconnected(this: RealtimeSocket) {
    context.track(presence.disconnected(this.data.user.id));
  }

  return {
    attach(socket: RealtimeSocket) {
      socket.onAny(dispatch);
      socket.on('disconnect', disconnected);
    },
  };
}
