import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { NoBody, page, PageQuery } from '../../../shared/schemas/common';
import {
  CheckedIn,
  CheckInInput,
  CurrentEvent,
  EventCodeParams,
  EventIdParams,
  EventInput,
  EventQr,
  EventStats,
  EventUpdate,
  JoinPass,
  OrganizerEvent,
  PassInput,
  PublicEventPage,
} from '../../../shared/schemas/events';
import { NotFound } from '../../errors';
import { noBody, withoutToken } from '../../plugins/api-docs';
import { currentUser, personOrAddressLimit } from '../../plugins/auth';
import { addressOf } from '../../lib/limits';
import {
  checkIn,
  createEvent,
  currentEventOf,
  currentQr,
  deleteEvent,
  endEvent,
  EventListPositionSchema,
  eventStats,
  findEventByCode,
  findOrganizedEvent,
  issueJoinPass,
  leaveEvent,
  listOrganizedEvents,
  presentEvent,
  presentOrganizerEvent,
  updateEvent,
} from './service';

/** "My events" page size: an organizer makes at most 10 a day. */
const MY_EVENTS_PAGE_SIZE = 50;

/**
 * The events' routes. One path parameter, `:event`, whether it holds a code (the public routes) or an
 * id (the organizer's): two names at one position of the route tree would be one node with two names.
 *
 * They are thin, over `service.ts`; the live side goes through `app.eventLive` after each commit. */
const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  const byIp = (request: { ip: string }) => `ip:${addressOf(request)}`;

  /** The public page's limit: per person signed in, per address otherwise. */
  const lookupLimit = personOrAddressLimit(app, 'event:lookup', 'event:lookup:ip');

  // Anyone: the public page and the exchange of a QR token for a join pass.
  app.get(
    '/api/events/:event/',
    { schema: { ...withoutToken, params: EventCodeParams, response: { 200: PublicEventPage } }, onRequest: lookupLimit },
    async (request) => {
      const event = await findEventByCode(app.db, request.params.event);
      if (!event) throw new NotFound();
      // The status by the clock the page says: a visitor's phone times the event from there.
      const now = Date.now();
      return { ...presentEvent(event, now), now: new Date(now).toISOString() };
    },
  );

  app.post(
    '/api/events/:event/pass/',
    { schema: { ...withoutToken, params: EventCodeParams, body: PassInput, response: { 200: JoinPass } }, onRequest: app.limits.hook('event:pass:ip', byIp) },
    async (request) => {
      const event = await findEventByCode(app.db, request.params.event);
      if (!event) throw new NotFound();
      return issueJoinPass(app.sealer, event, request.body.token);
    },
  );

  // Signed in.
  await app.register(async (scope) => {
    scope.addHook('onRequest', app.authenticate);
    const signedIn = scope.withTypeProvider<ZodTypeProvider>();

    signedIn.post(
      '/api/events/',
      { schema: { body: EventInput, response: { 201: OrganizerEvent } }, preHandler: app.limits.hook('event:create') },
      async (request, reply) => {
        const event = await createEvent(app.db, currentUser(request).id, request.body);
        return reply.code(201).send(presentOrganizerEvent(event));
      },
    );

    signedIn.get(
      '/api/events/mine/',
      { schema: { querystring: PageQuery, response: { 200: page(OrganizerEvent) } } },
      async (request) => {
        const after = app.cursors.open('events-mine', request.query.cursor, EventListPositionSchema);
        const slice = await listOrganizedEvents(app.db, currentUser(request).id, {
          after,
          limit: request.query.limit ?? MY_EVENTS_PAGE_SIZE,
        });
        return app.cursors.page('events-mine', slice);
      },
    );

    signedIn.get('/api/events/current/', { schema: { response: { 200: CurrentEvent } } }, async (request) => {
      const event = await currentEventOf(app.db, currentUser(request).id);
      return { event: event ? presentEvent(event) : null, now: new Date().toISOString() };
    });

    signedIn.post(
      '/api/events/:event/check-in/',
      {
        schema: { params: EventCodeParams, body: CheckInInput.nullish(), response: { 200: CheckedIn } },
        onRequest: app.limits.hook('event:check-in'),
      },
      async (request) => {
        const userId = currentUser(request).id;
        const outcome = await checkIn(app.db, app.sealer, userId, request.params.event, request.body ?? {});
        // Committed: now the user's sockets join the room and the attendees hear of it. Answered once
        // their sockets on every instance are there, so that what the room is told next reaches them all.
        if (outcome.changed) await app.eventLive.checkedIn(userId, outcome.event.id, outcome.previousEventId);
        return { event: presentEvent(outcome.event) };
      },
    );

    signedIn.post('/api/events/leave/', { schema: { ...noBody, response: { 204: NoBody } } }, async (request, reply) => {
      const userId = currentUser(request).id;
      const eventId = await leaveEvent(app.db, userId);
      if (eventId !== null) app.eventLive.left(userId, eventId);
      return reply.code(204).send(null);
    });

    // The organizer's paths: 404 for anyone else.
    const organized = async (id: number, userId: number) => {
      const event = await findOrganizedEvent(app.db, id, userId);
      if (!event) throw new NotFound();
      return event;
    };

    signedIn.get(
      '/api/events/:event/qr/',
      { schema: { params: EventIdParams, response: { 200: EventQr } } },
      async (request, reply) => {
        const event = await organized(request.params.event, currentUser(request).id);
        // A live secret: never kept by a browser or a proxy.
        void reply.header('Cache-Control', 'no-store');
        return currentQr(event, app.publicUrlFor(request));
      },
    );

    signedIn.get(
      '/api/events/:event/stats/',
      { schema: { params: EventIdParams, response: { 200: EventStats } } },
      async (request) => eventStats(app.db, await organized(request.params.event, currentUser(request).id)),
    );

    signedIn.post(
      '/api/events/:event/end/',
      { schema: { params: EventIdParams, ...noBody, response: { 200: OrganizerEvent } } },
      async (request) => {
        const userId = currentUser(request).id;
        const event = await organized(request.params.event, userId);
        const { event: ended, changed } = await endEvent(app.db, event);
        // Ended already (sent again, or from another of the organizer's screens): nobody is told again.
        if (changed) app.eventLive.changedByOrganizer(presentEvent(ended), userId);
        return presentOrganizerEvent(ended);
      },
    );

    signedIn.patch(
      '/api/events/:event/',
      { schema: { params: EventIdParams, body: EventUpdate, response: { 200: OrganizerEvent } }, preHandler: app.limits.hook('event:update') },
      async (request) => {
        const userId = currentUser(request).id;
        const event = await organized(request.params.event, userId);
        const { event: changed, changed: differs } = await updateEvent(app.db, event.id, request.body);
        // Saved as it was: nothing to tell the room, whose phones would each say it changed.
        if (differs) app.eventLive.changedByOrganizer(presentEvent(changed), userId);
        return presentOrganizerEvent(changed);
      },
    );

    signedIn.delete(
      '/api/events/:event/',
      { schema: { params: EventIdParams, response: { 204: NoBody } } },
      async (request, reply) => {
        const userId = currentUser(request).id;
        const event = await organized(request.params.event, userId);
        await deleteEvent(app.db, event);
        app.eventLive.removed(event.id, userId);
        return reply.code(204).send(null);
      },
    );
  });
};

export default eventRoutes;
