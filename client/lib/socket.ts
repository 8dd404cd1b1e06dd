/**
 * The only socket. One connection per signed-in tab; stores subscribe through `onEvent` and send
 * through the helpers below, never through socket.io-client directly.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { io, type Socket } from 'socket.io-client';
import { create } from 'zustand';
import type {
  Ack,
  ClientToServerEvents,
  MessageReadPayload,
  MessageSendPayload,
  ServerToClientEvents,
} from '../../shared/events';
import { type MatchSeen, SEND_ACK_TIMEOUT_MS } from '../../shared/constants';
import type { Message } from '../../shared/schemas/conversations';
import { NetworkError, serverAnswers } from './api';
import { useLanguage } from './i18n';

type AppSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let socket: AppSocket | null = null;
const connectListeners = new Set<() => void>();
const reconnectListeners = new Set<() => void>();
const firstConnectListeners = new Set<() => void>();
const refusedListeners = new Set<(reason: string) => void>();
/**
 * What `onEvent` subscribed, on whichever socket is current: one subscribed before the socket exists
 * (a page mounting in the app's first render, whose effects run before AppRoot's), or kept across a
 * new socket (a replaced token), hears the events all the same.
 */
const eventListeners = new Set<{ event: keyof ServerToClientEvents; handler: never }>();

interface ConnectionState {
  connected: boolean;
  /**
   * The server could not be reached: the connection dropped, or the first one failed (the app opened
   * with no network). The banner shows while it lasts, never during a first connect that goes well.
   */
  lost: boolean;
  /** Refused because this user has MAX_SOCKETS_PER_USER sockets open already (tabs, devices). */
  tooMany: boolean;
  /**
   * The socket failed to connect BLOCKED_AFTER times in a row while the server answers over HTTP: this
   * network (a venue's Wi-Fi) lets no WebSocket through. Until it connects.
   */
  blocked: boolean;
}
const disconnected = { connected: false, lost: false, tooMany: false, blocked: false };
export const useConnection = create<ConnectionState>()(() => disconnected);

/**
 * Whether the device says it has a network at all (`navigator.onLine`), kept as it changes: with none,
 * the banner says "No connection", not "Reconnecting…", which it would be only once a network is back.
 */
export function useDeviceOnline() {
  return useSyncExternalStore(onNetworkChange, () => navigator.onLine);
}

function onNetworkChange(changed: () => void) {
  window.addEventListener('online', changed);
  window.addEventListener('offline', changed);
  return () => {
    window.removeEventListener('online', changed);
    window.removeEventListener('offline', changed);
  };
}

/**
 * For a page whose load failed (no answer, or the server's error: `loadFailure`): while `waiting`,
 * `retry` runs when the socket next connects, the moment the server is reachable again.
 */
export function useRetryWhenBackOnline(waiting: boolean, retry: () => void) {
  const latest = useRef(retry);
  latest.current = retry;
  const connected = useConnection((state) => state.connected);
  // The connection as the last effect saw it. A connect is told by the change from it, even one that
  // lands between the failure's render and its effect, which a subscription made there would miss.
  const seen = useRef(connected);
  useEffect(() => {
    const cameBack = connected && !seen.current;
    seen.current = connected;
    if (waiting && cameBack) latest.current();
  }, [waiting, connected]);
}

/**
 * Why a page's load failed, for what it says. `offline`: no answer came (no network, or none in
 * time), or the device says it has no network: "No connection", and it loads once back online.
 * `server`: the server answered with its own error (a 5xx, a limit for now); waiting for a network
 * the device already has would not mend it, so the page says that something went wrong and offers Try again.
 */
export type LoadFailure = 'offline' | 'server';
export const loadFailure = (error: unknown): LoadFailure =>
  error instanceof NetworkError || globalThis.navigator?.onLine === false ? 'offline' : 'server';

/** How long a send waits for the server's ack before the connection counts as dead (`answerOf`). */
export { SEND_ACK_TIMEOUT_MS };
const SERVER_DISCONNECT_RETRY_MS = 1000;
const REFUSED_RETRY_MAX_MS = 30_000;
const BLOCKED_AFTER = 3;

export function connectSocket(token: string) {
  if (socket) return;
  // Read at every (re)connect: the acks' messages come in the language the reader has chosen by then.
  const next: AppSocket = io({
    path: '/socket.io/',
    auth: (send) => send({ token, language: useLanguage.getState().language }),
    transports: ['websocket'],
  });
  socket = next;
  for (const { event, handler } of eventListeners) next.on(event, handler);
  let refusals = 0;
  let failures = 0;
  next.on('connect', () => {
    refusals = failures = 0;
    const { lost } = useConnection.getState();
    useConnection.setState({ connected: true, lost: false, tooMany: false, blocked: false });
    for (const listener of connectListeners) listener();
    // Back after a drop, or after an opening with no network: the listeners fetch what was missed or
    // could not load (catch-up).
    if (lost) for (const listener of reconnectListeners) listener();
    else for (const listener of firstConnectListeners) listener();
  });
  next.on('disconnect', (reason) => {
    useConnection.setState({ connected: false, lost: true });
    // A server closing our socket (a restart, a drain) does not auto-reconnect in socket.io; we do.
    if (reason === 'io server disconnect') setTimeout(() => socket === next && next.connect(), SERVER_DISCONNECT_RETRY_MS);
  });
  next.on('connect_error', (error) => {
    useConnection.setState({ connected: false, lost: true });
    // A transport failure is retried by socket.io itself; a refusal by the server's handshake is not.
    if (next.active) {
      if (++failures >= BLOCKED_AFTER && navigator.onLine && !useConnection.getState().blocked) {
        void serverAnswers().then((blocked) => socket === next && !next.connected && useConnection.setState({ blocked }));
      }
      return;
    }
    // The token opens nothing any more: unknown or revoked, or its session ended by a ban.
    if (error.message === 'unauthorized' || error.message === 'account_suspended') {
      for (const listener of refusedListeners) listener(error.message);
      return;
    }
    // Refused for now (too many tabs, an instance shutting down, a database blip): try again, backing off.
    if (error.message === 'too_many_connections') useConnection.setState({ tooMany: true });
    const delay = Math.min(SERVER_DISCONNECT_RETRY_MS * 2 ** refusals++, REFUSED_RETRY_MAX_MS);
    setTimeout(() => socket === next && next.connect(), delay);
  });
}

/**
 * The device says its network is back: connect now. socket.io would wait out its backoff first, up
 * to 5 s after a minute with no network, while the party's messages wait behind it. Taken down and
 * brought up again, it connects at once, with the same listeners (a `connect` after a loss, as ever).
 */
if (typeof window !== 'undefined') {
  window.addEventListener('online', () => {
    if (socket && !socket.connected) socket.disconnect().connect();
  });
}

/**
 * The device woke from a sleep it was not told of (a laptop's lid closed on the host screen): a socket
 * that still counts as connected may be one the server dropped meanwhile, which socket.io would hear
 * of only when the server's pings stop coming, up to 45 s on, the pushes of that time passing it by.
 * Taken down and brought up again at once, as when the network comes back: a `connect` after a loss,
 * whose listeners read what was missed.
 */
export function reconnectAfterSleep() {
  if (socket?.connected) socket.disconnect().connect();
}

/**
 * No answer in time on a socket that still counts as connected: the connection is dead without
 * knowing it (a party's Wi-Fi that lost its way out), which socket.io would hear of only when the
 * server's pings stop coming, 45 s on. Its transport is closed now, as a lost network's would be:
 * socket.io says `disconnect` and connects again, and what waited on it goes out over the next one.
 */
async function answerOf<T>(current: AppSocket, answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    if (current.connected) current.io.engine.close();
    throw error;
  }
}

export function disconnectSocket() {
  socket?.disconnect();
  socket = null;
  useConnection.setState(disconnected);
}

export function onEvent<E extends keyof ServerToClientEvents>(event: E, handler: ServerToClientEvents[E]) {
  // socket.io-client's typed `on` needs the listener cast through its own event-map helper.
  const listener = { event, handler: handler as never };
  eventListeners.add(listener);
  socket?.on(event, listener.handler);
  return () => {
    eventListeners.delete(listener);
    socket?.off(event, listener.handler);
  };
}

/** Every connect, the first included: state the server only tells as it changes starts from here. */
export function onConnect(listener: () => void) {
  connectListeners.add(listener);
  return () => {
    connectListeners.delete(listener);
  };
}

/** Connected again after the connection was lost (or the first try failed): pushes were missed. */
export function onReconnect(listener: () => void) {
  reconnectListeners.add(listener);
  return () => {
    reconnectListeners.delete(listener);
  };
}

/**
 * The socket's first connect, the first try having gone well. What the app read while it connected
 * was read before the server had the socket in its rooms: what it pushed meanwhile passed it by.
 */
export function onFirstConnect(listener: () => void) {
  firstConnectListeners.add(listener);
  return () => {
    firstConnectListeners.delete(listener);
  };
}

/**
 * The server refused our token (revoked, for example by a logout elsewhere); `reason` is its word for
 * why: `account_suspended` for a session a ban ended.
 */
export function onRefused(listener: (reason: string) => void) {
  refusedListeners.add(listener);
  return () => {
    refusedListeners.delete(listener);
  };
}

export const isConnected = () => Boolean(socket?.connected);

/** The server answered a socket send with an error (not a participant, throttled, invalid). */
export class SocketRefused extends Error {
  override name = 'SocketRefused';
  constructor(
    readonly code: string,
    message: string,
    /** Throttled: seconds until the send may go (the ack's `retry_after`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Sends over the socket; resolves with the stored message or rejects (`SocketRefused`, or no answer in time or no socket). */
export async function sendMessageOverSocket(payload: MessageSendPayload): Promise<Message> {
  if (!socket?.connected) throw new Error('offline');
  const reply: Ack<{ message: Message }> = await answerOf(socket, socket.timeout(SEND_ACK_TIMEOUT_MS).emitWithAck('message:send', payload));
  if (!reply.ok) throw new SocketRefused(reply.error.code, reply.error.message, reply.error.retry_after);
  return reply.message;
}

/** Which of my matches are connected now; after that, `presence` events keep it current. */
export async function listOnlinePartners(): Promise<number[]> {
  if (!socket?.connected) throw new Error('offline');
  const reply = await answerOf(socket, socket.timeout(SEND_ACK_TIMEOUT_MS).emitWithAck('presence:list', {}));
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.online;
}

export function sendTyping(conversationId: number) {
  // Volatile: a typing hint buffered through a disconnect would be a lie when it finally arrives.
  socket?.volatile.emit('typing', { conversation_id: conversationId });
}

export function sendRead(payload: MessageReadPayload) {
  socket?.emit('message:read', payload);
}

/** Matches seen here (their overlay, or the chats): the user's other phones are told, and the server keeps it for those opened later. */
export function sendMatchSeen(conversationIds: number[], seen: MatchSeen) {
  socket?.emit('match:seen', { conversation_ids: conversationIds, seen });
}

/** The host screen's live count: joins the event's room; resolves with the count now, or null if refused. */
export async function watchEvent(eventId: number): Promise<number | null> {
  if (!socket) return null;
  const reply: Ack<{ count: number }> = await answerOf(socket, socket.timeout(SEND_ACK_TIMEOUT_MS).emitWithAck('event:watch', { event_id: eventId }));
  return reply.ok ? reply.count : null;
}

/** The host screen closed: its socket stops hearing the event (a connection made since never heard it). */
export function unwatchEvent(eventId: number) {
  if (socket?.connected) socket.emit('event:unwatch', { event_id: eventId });
}
