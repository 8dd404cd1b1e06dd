/**
 * The Socket.IO server and socket as this app types them: the event maps of `shared/events.ts`, the
 * events instances send each other, and what a socket carries. A module of its own, so that the parts
 * the plugin wires together (handlers, presence, an event's live counts) import the types without
 * importing the plugin.
 */
import type { Server, Socket } from 'socket.io';
import type { Language } from '../../shared/constants';
import type { ClientToServerEvents, ServerToClientEvents } from '../../shared/events';
import type { AuthUser } from '../plugins/auth';

export interface SocketData {
  /** Who signed in, and the hash of the token they signed in with: a revocation names it. */
  user: AuthUser;
  /** The language of the messages in this socket's acks (its handshake's `auth.language`). */
  language: Language;
}

/** A user's attendance changed: the event they left (`from`), the one they are at now (`to`). */
export interface AttendanceMove {
  userId: number;
  from: number | null;
  to: number | null;
}

/** Between instances (through Redis), never to clients. */
export interface InterServerEvents {
  /**
   * A token was revoked on the sending instance: forget it and drop its sockets here too, then say so
   * (`done`, when the sender waits for it).
   */
  'token:revoked': (tokenHash: string, done?: () => void) => void;
  /**
   * A user checked in or left on the sending instance: their sockets here follow, and the counts are
   * told; then say so (`done`, when the sender waits for it).
   */
  'event:moved': (move: AttendanceMove, done?: () => void) => void;
}

/**
 * Pushes an event to every open socket of these users, on whichever instance they are connected (the
 * server's `app.publish`). Called only after the write that made the event true has committed.
 */
export type Publish = <E extends keyof ServerToClientEvents>(userIds: number[], event: E, ...args: Parameters<ServerToClientEvents[E]>) => void;

export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type RealtimeSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
