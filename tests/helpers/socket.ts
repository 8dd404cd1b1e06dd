import { io, type Socket } from 'socket.io-client';
import { afterEach } from 'vitest';
import type { ClientToServerEvents, ServerToClientEvents } from '../../shared/events';

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
type Payload<E extends keyof ServerToClientEvents> = Parameters<ServerToClientEvents[E]>[0];

const DEFAULT_WAIT_MS = 5000;

/** A real socket.io-client, connected (WebSocket only, as browsers end up), or rejected with the connect_error. */
export function connect(
  url: string,
  token: string | undefined,
  options: {
    reconnection?: boolean;
    auth?: Record<string, unknown>;
    /** Listens to the socket before it connects: what the server sends the moment it is connected is heard. */
    listen?: (socket: ClientSocket) => void;
  } = {},
) {
  const socket: ClientSocket = io(url, {
    path: '/socket.io/',
    auth: { ...(token === undefined ? {} : { token }), ...options.auth },
    transports: ['websocket'],
    reconnection: options.reconnection ?? false,
    forceNew: true,
  });
  options.listen?.(socket);
  return new Promise<ClientSocket>((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

/**
 * The sockets a describe block's tests open, each closed when its test ends (by an afterEach in the
 * block this is called in): `connect` as above, `keep` for sockets opened another way.
 */
export function socketsClosedAfterEach() {
  const open: ClientSocket[] = [];
  afterEach(() => {
    for (const socket of open.splice(0)) socket.close();
  });
  return {
    async connect(...args: Parameters<typeof connect>) {
      const socket = await connect(...args);
      open.push(socket);
      return socket;
    },
    keep(...sockets: ClientSocket[]) {
      open.push(...sockets);
    },
  };
}

/** The next `event` on this socket that matches `predicate`; fails after `timeoutMs` with what it was waiting for. */
export function waitFor<E extends keyof ServerToClientEvents>(
  socket: ClientSocket,
  event: E,
  predicate: (payload: Payload<E>) => boolean = () => true,
  timeoutMs = DEFAULT_WAIT_MS,
): Promise<Payload<E>> {
  return new Promise((resolve, reject) => {
    const listener = (payload: Payload<E>) => {
      if (!predicate(payload)) return;
      clearTimeout(timer);
      socket.off(event, listener as never);
      resolve(payload);
    };
    const timer = setTimeout(() => {
      socket.off(event, listener as never);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for "${event}"`));
    }, timeoutMs);
    socket.on(event, listener as never);
  });
}

/** Resolves when `check` holds, polled on the event loop (for state that has no event of its own). */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = DEFAULT_WAIT_MS, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Everything a socket receives, in order: to prove what did NOT arrive once a later event has. */
export function record(socket: ClientSocket) {
  const events: Array<{ event: string; payload: unknown }> = [];
  socket.onAny((event: string, payload: unknown) => events.push({ event, payload }));
  return events;
}

/** Resolves on the socket's disconnect, with its reason. */
export function waitForDisconnect(socket: ClientSocket, timeoutMs = DEFAULT_WAIT_MS) {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out waiting for disconnect')), timeoutMs);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}
