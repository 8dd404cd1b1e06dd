import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import { Server } from 'socket.io';
import { MAX_SOCKETS_PER_USER } from '../../shared/constants';
import { rooms, type ServerToClientEvents } from '../../shared/events';
import { createMessageBatcher } from '../features/conversations/message-batcher';
import { createEventLive, type EventLive } from '../features/events/live';
import { createHandlers } from './handlers';
import { createPresence } from './presence';
import { inFlight, settledWithin, turnsByKey } from '../lib/turns';
import { createRedisFanout } from './redis';
import { movedElsewhere } from './attendance';
import { revokedElsewhere } from './revocation';
import { answerRefusalsInEnvelope, refuseUpgradesElsewhere } from './refusals';
import type { Publish, RealtimeServer, RealtimeSocket } from './types';

/** How long a cluster-wide count of a user's sockets may take before this instance counts its own. */
const FETCH_SOCKETS_TIMEOUT_MS = 1000;

/** Where Socket.IO listens: every other path's upgrades are refused (`refusals.ts`). */
const SOCKET_PATH = '/socket.io/';

/** How long a close waits for each transport to send what is queued for it, before it cuts the connection. */
const TRANSPORT_CLOSE_GRACE_MS = 1000;

/** What the close uses of an engine.io connection (its `Socket`). */
interface EngineConnection {
  /** The handshake's request: its socket is the connection's. */
  request: IncomingMessage;
  close(): void;
}

/** Resolves once the connection's socket has closed. */
const closed = (socket: Socket) => (socket.closed ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve())));

/** The largest frame a client may send: a 2,000-character message in any script fits many times over. */
const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

declare module 'fastify' {
  interface FastifyInstance {
    io: RealtimeServer;
    /**
     * Push an event to every open socket of these users, on whichever instance they are connected.
     * Call it only after the write that made the event true has committed.
     */
    publish: Publish;
    /**
     * As `publish`, to one user, for news their sockets are dropped right after (`account:deleted`, then
     * the revocation of their sessions): their sockets on this instance hear it at once. Through Redis,
     * the adapter delivers here only once Redis has answered its publish, by which time they are gone;
     * the other instances hear it ahead of the revocation, sent after it on the same connection.
     */
    publishBeforeDrop: <E extends keyof ServerToClientEvents>(userId: number, event: E, ...args: Parameters<ServerToClientEvents[E]>) => void;
    /** Event rooms and their coalesced live counts (`server/features/events/live.ts`); call after commit. */
    eventLive: EventLive;
  }
}

/**
 * Socket.IO on the API's own port: token handshake, one room per user, the client → server events,
 * presence, and fan-out across instances through Redis when `REDIS_URL` is set.
 */
export default fp(
  /** `headers`: the ones every response carries (app.ts), on the socket path's refusals too. */
  async (app, { headers }: { headers: Record<string, string> }) => {
    const fanout = app.redis ? createRedisFanout(app.redis) : null;

    const io: RealtimeServer = new Server(app.server, {
      path: SOCKET_PATH,
      serveClient: false,
      // Upgrades to other paths are answered at once (`refuseUpgradesElsewhere`), not ended unanswered.
      destroyUpgrade: false,
      // WebSocket only, as the app and the load tool connect: no long-polling, whose requests would all
      // have to reach the instance that holds their session (any balancer spreads WebSockets as it likes).
      transports: ['websocket'],
      maxHttpBufferSize: MAX_CLIENT_FRAME_BYTES,
      ...(fanout ? { adapter: fanout.adapter } : {}),
    });
    answerRefusalsInEnvelope(app.server, io.engine, headers);
    /** The engine's open connections (a protected field of engine.io's server), by id. */
    const engineConnections = () => (io.engine as unknown as { clients: Record<string, EngineConnection> }).clients;
    refuseUpgradesElsewhere(app.server, SOCKET_PATH, headers);

    let accepting = true;
    const tasks = inFlight();
    const track = (work: Promise<unknown>) =>
      tasks.track(work.catch((error: unknown) => app.log.error({ err: error }, 'realtime task failed')));
    const drain = tasks.settled;

    /**
     * A user's open sockets on every instance (this instance's alone while the others cannot answer).
     * Here, every socket in the user's room counts, those still in their handshake too (`fetchSockets`
     * answers only sockets that finished theirs).
     */
    async function openSocketCount(userId: number): Promise<number> {
      const room = rooms.user(userId);
      const here = io.of('/').adapter.rooms.get(room)?.size ?? 0;
      if (!fanout) return here;
      try {
        const everywhere = await io.in(room).timeout(FETCH_SOCKETS_TIMEOUT_MS).fetchSockets();
        return here + everywhere.filter((socket) => !io.of('/').sockets.has(socket.id)).length;
      } catch {
        return here;
      }
    }

    /**
     * A user's handshakes on this instance take their turn between counting the user's sockets and
     * joining the user's room: counted together (a phone's tabs reconnecting at once), each would find
     * the room as it was before the others joined. Handshakes on two instances at the same moment can
     * still both find room for one; the next count sees them both.
     */
    const inTurn = turnsByKey<number>();
    /** Each socket between its handshake and its connection: what follows the user's moves it missed meanwhile. */
    const connecting = new WeakMap<RealtimeSocket, () => void>();

    // A handshake under way is waited for by a close as a write is (`track`): it reads the database, and
    // the socket it lets in is one whose transport the close must then drop.
    io.use((socket, next) => track(admit(socket, next)));
    async function admit(socket: RealtimeSocket, next: (error?: Error) => void) {
      if (!accepting) {
        // A dropped transport makes the client reconnect (elsewhere, behind the proxy); a refusal would not.
        socket.conn.close();
        return next(new Error('unavailable'));
      }
      const token: unknown = socket.handshake.auth?.token;
      try {
        const user = typeof token === 'string' && token.length <= 200 ? await app.userForToken(token) : null;
        // As REST's 403 `account_suspended`: a phone away during the ban says why it is signed out.
        if (user === 'suspended') return next(new Error('account_suspended'));
        if (!user) return next(new Error('unauthorized'));
        socket.data.user = user;
        const language: unknown = socket.handshake.auth?.language;
        socket.data.language = language === 'es' ? 'es' : 'en';
        const room = rooms.user(user.id);
        const admitted = await inTurn(user.id, async () => {
          if ((await openSocketCount(user.id)) >= MAX_SOCKETS_PER_USER) return false;
          await socket.join(room);
          return true;
        });
        if (!admitted) return next(new Error('too_many_connections'));
        // The client hears "connected" only once its rooms (theirs, and their event's) are subscribed on
        // every path to them: an event another instance publishes for this user, or the organizer's
        // change to their event, a moment later must not pass by unheard, nor miss the catch-up it runs
        // then. After the user's room: a move of theirs applied from now until the socket is connected is
        // followed once it is (`followMoves`).
        const [followMoves] = await Promise.all([eventLive.socketConnected(socket), fanout?.subscribed(room)]);
        connecting.set(socket, followMoves);
        // A handshake that goes no further (its transport gone, now or during the waits above) stops
        // following the user's moves too: socket.io then drops the socket without a connection.
        if (socket.conn.readyState === 'open') socket.conn.once('close', followMoves);
        else followMoves();
        next();
      } catch (error) {
        app.log.error({ err: error }, 'socket handshake failed');
        next(new Error('unavailable'));
      }
    }

    function publish<E extends keyof ServerToClientEvents>(userIds: number[], event: E, ...args: Parameters<ServerToClientEvents[E]>) {
      if (userIds.length === 0) return;
      // In process, one emit to every room encodes the packet once.
      if (!fanout) return void io.to(userIds.map(rooms.user)).emit(event, ...args);
      // With Redis, one room per emit: the sharded adapter then publishes on that room's own channel,
      // which only the instances holding that user's sockets subscribe to (a multi-room emit goes to all).
      for (const id of new Set(userIds)) io.to(rooms.user(id)).emit(event, ...args);
    }
    app.decorate('io', io);
    app.decorate('publish', publish);
    app.decorate('publishBeforeDrop', <E extends keyof ServerToClientEvents>(userId: number, event: E, ...args: Parameters<ServerToClientEvents[E]>) => {
      if (!fanout) return publish([userId], event, ...args);
      const room = rooms.user(userId);
      // Each socket is in a room of its own id: the ones here, told now, are left out of the publish.
      const here = [...(io.of('/').adapter.rooms.get(room) ?? [])];
      io.local.to(room).emit(event, ...args);
      io.to(room).except(here).emit(event, ...args);
    });

    const presence = createPresence(app, io);
    const messages = createMessageBatcher(app.db, app.log, app.limits);
    const eventLive = createEventLive({
      io,
      db: app.db,
      log: app.log,
      broadcast: fanout
        ? (move) =>
            movedElsewhere(io, move).catch((error: unknown) => {
              app.log.warn({ err: error }, 'a move was not confirmed by every instance: theirs follows when they hear of it');
            })
        : null,
      subscribed: fanout ? (room) => fanout.subscribed(room) : null,
      countIntervalMs: app.config.eventCountIntervalMs,
      refreshIntervalMs: app.config.deckRefreshIntervalMs,
      deckRefreshFetchesPerSecond: app.config.deckRefreshFetchesPerSecond,
    });
    app.decorate('eventLive', eventLive);
    io.on('event:moved', (move, done) => {
      void eventLive.movedElsewhere(move).then(() => done?.());
    });

    // A logout ends the token's sockets at once, on every instance; the token-sweep job is the net for
    // news lost while Redis was away.
    const dropSocketsOf = (tokenHash: string) => {
      for (const socket of io.of('/').sockets.values()) {
        if (socket.data.user.tokenHash === tokenHash) socket.disconnect(true);
      }
    };
    app.onTokenRevoked((tokenHash) => {
      dropSocketsOf(tokenHash);
      // The revocation is answered only once every instance has dropped the token (or the wait's bound).
      if (fanout) {
        return revokedElsewhere(io, tokenHash).catch((error: unknown) => {
          app.log.warn({ err: error }, 'a revocation was not confirmed by every instance: theirs ends with its trust or the token sweep');
        });
      }
    });
    io.on('token:revoked', (tokenHash, done) => {
      app.revokeTokenHere(tokenHash);
      dropSocketsOf(tokenHash);
      done?.();
    });
    const handlers = createHandlers({ app, presence, messages, eventLive, accepting: () => accepting, track });
    io.on('connection', (socket) => {
      // Signed in with a token that was revoked while the handshake was in flight: too late for the
      // revocation to find this socket, so it goes now.
      if (app.isTokenRevoked(socket.data.user.tokenHash)) return void socket.disconnect(true);
      track(presence.connected(socket.data.user.id));
      const followMoves = connecting.get(socket);
      if (followMoves) {
        socket.conn.off('close', followMoves);
        followMoves();
      }
      handlers.attach(socket);
    });

    // Events published while Redis was away reached only the sockets of the instance that sent them.
    // Once it is back, every client is told to fetch what it may have missed (after its last id);
    // through the adapter, so the clients of instances whose own connection came back sooner hear it too.
    app.redis?.onRecovered(() => {
      app.log.info({ sockets: io.of('/').sockets.size }, 'redis is back: telling clients to catch up');
      // The event rooms too: check-ins and leaves made on other instances meanwhile did not move the sockets here.
      track(eventLive.resettle());
      io.emit('sync');
    });

    app.addHook('preClose', async () => {
      // Writes in flight finish and are acknowledged; new events get `unavailable`, so the client
      // resends (same client_id) on the instance it reconnects to.
      accepting = false;
      // Within the close's grace: a write stalled on a lock held elsewhere is left to the database's
      // close, which ends its statement (never acknowledged: the client sends it again, with the same client_id).
      await settledWithin(drain(), app.closeGrace.left());
      // Close the transports rather than disconnect the sockets: socket.io-client reconnects on its own
      // after a "transport close" (elsewhere, behind the proxy) but not after a server-side disconnect.
      // Open WebSockets would otherwise also hold the HTTP server open.
      // Every connection's, not only its signed-in sockets': one still before its handshake (opened as
      // the close began, or one that never asks to connect) would hold the close as long as it stays.
      const connections = Object.values(engineConnections());
      for (const connection of connections) connection.close();
      // A WebSocket closes once what is queued for it has gone and its client has answered the close: a
      // client that reads no more (a phone asleep, its connection half-open, the buffers to it full)
      // never does, and the close would wait for the ping's timeout or the close's own (30 s). After a
      // moment, such a connection is cut.
      const sockets = connections.map((connection) => connection.request.socket);
      await settledWithin(Promise.all(sockets.map(closed)), app.closeGrace.left(TRANSPORT_CLOSE_GRACE_MS));
      for (const socket of sockets) if (!socket.closed) socket.destroy();
      // The disconnects' presence updates still read the database, which closes after this.
      await settledWithin(drain(), app.closeGrace.left());
    });
    app.addHook('onClose', async () => {
      eventLive.close();
      await presence.close();
      await new Promise<void>((resolve) => {
        io.close(() => resolve());
      });
    });
  },
  { name: 'realtime', dependencies: ['database', 'auth', 'redis', 'limits'] },
);
