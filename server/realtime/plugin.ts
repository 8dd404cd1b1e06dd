import fp from 'fastify-plugin';
import { Server } from 'socket.io';
import { type ClientToServerEvents, rooms, type ServerToClientEvents } from '../../shared/events';
import type { AuthUser } from '../plugins/auth';
import { findUserByToken } from '../plugins/auth';

export interface SocketData {
  user: AuthUser;
}

export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

type EventArgs<E extends keyof ServerToClientEvents> = Parameters<ServerToClientEvents[E]>;

declare module 'fastify' {
  interface FastifyInstance {
    io: RealtimeServer;
    /**
     * Push an event to every open socket of these users, on whichever instance they are connected.
     * Call it only after the write that made the event true has committed.
     */
    publish: <E extends keyof ServerToClientEvents>(userIds: number[], event: E, ...args: EventArgs<E>) => void;
  }
}

/** Socket.IO on the API's own port: token handshake, one room per user. */
export default fp(
  async (app) => {
    const io: RealtimeServer = new Server(app.server, { path: '/socket.io/', serveClient: false });

    io.use(async (socket, next) => {
      const token: unknown = socket.handshake.auth?.token;
      const user = typeof token === 'string' && token.length <= 200 ? await findUserByToken(app.db, token) : null;
      if (!user) return next(new Error('unauthorized'));
      socket.data.user = user;
      next();
    });

    io.on('connection', (socket) => {
      void socket.join(rooms.user(socket.data.user.id));
    });

    app.decorate('io', io);
    function publish<E extends keyof ServerToClientEvents>(userIds: number[], event: E, ...args: EventArgs<E>) {
      if (userIds.length === 0) return;
      io.to(userIds.map(rooms.user)).emit(event, ...args);
    }
    app.decorate('publish', publish);

    app.addHook('preClose', async () => {
      // Clients reconnect elsewhere; open WebSockets would otherwise hold the HTTP server open.
      io.local.disconnectSockets(true);
    });
    app.addHook('onClose', async () => {
      await new Promise<void>((resolve) => {
        io.close(() => resolve());
      });
    });
  },
  { name: 'realtime', dependencies: ['database'] },
);
