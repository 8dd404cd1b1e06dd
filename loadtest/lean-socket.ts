/**
 * A Socket.IO client for load generators (the party simulator and the benchmarks): the protocol
 * (Engine.IO 4, Socket.IO 5, default namespace, text packets) spoken straight over `ws`.
 * socket.io-client costs a generator several times more CPU and heap per socket, and on a small
 * machine the generator's CPU is taken from the servers it measures. The servers see the same frames
 * either way. Tests of the app use the real socket.io-client; this is for generating load.
 *
 * What it does: the handshake with `auth`, `connect_error` (rejects with the server's message),
 * events and acknowledgements, the server's pings, a heartbeat check for a server gone silent, and,
 * with `reconnect`, connecting again as the app's client does (client/lib/socket.ts): with backoff
 * when the transport drops, a second after the server's own disconnect (which socket.io-client alone
 * would leave disconnected), and with a longer backoff after a refused handshake, except a refused
 * token. Acknowledgements pending when the transport drops are not called: the caller tracks what
 * it sent and resends (the app's `client_id` makes a resend idempotent).
 *
 * Frames are parsed lazily: an event nobody listens to is not parsed past its name.
 */
import WebSocket from 'ws';
import type { ClientToServerEvents, ServerToClientEvents } from '../shared/events';

type Handler = (...args: never[]) => void;
type Ack = (...args: never[]) => void;

// Engine.IO packet types (first character) and Socket.IO packet types (second).
const ENGINE_OPEN = '0';
const ENGINE_CLOSE = '1';
const ENGINE_PING = '2';
const ENGINE_PONG = '3';
const ENGINE_MESSAGE = '4';
const SOCKET_CONNECT = '0';
const SOCKET_DISCONNECT = '1';
const SOCKET_EVENT = '2';
const SOCKET_ACK = '3';
const SOCKET_CONNECT_ERROR = '4';

/** The server refused the handshake (`connect_error`): its message, e.g. `unauthorized`. */
export class ConnectError extends Error {
  override name = 'ConnectError';
}

export type DisconnectReason = 'transport close' | 'io server disconnect' | 'io client disconnect' | 'ping timeout';

/** Refusals that no retry mends, as the app reads them: the token opens nothing (unknown, revoked, a ban). */
const FINAL_REFUSALS = new Set(['unauthorized', 'account_suspended']);

export interface LeanSocketOptions {
  /** Give up a handshake the server has not completed in this long (default 20 s). */
  handshakeTimeoutMs?: number;
  /**
   * Connect again once connected (default false), as the app does: after a dropped transport, delays
   * from `minDelayMs` (500) doubling to `maxDelayMs` (5 s), jittered; after the server's disconnect (a
   * restart or drain that disconnects rather than closes, a revoked token), `serverDisconnectDelayMs`
   * (1 s) later; after a refused handshake (`too_many_connections`, `unavailable`…), from
   * `serverDisconnectDelayMs` doubling to `refusedMaxDelayMs` (30 s). A refused token ends it.
   */
  reconnect?: boolean | { minDelayMs?: number; maxDelayMs?: number; serverDisconnectDelayMs?: number; refusedMaxDelayMs?: number };
  /** Called on every (re)connection once the server accepted the handshake (`handshakeMs` says how long it took). */
  onConnect?: (socket: LeanSocket) => void;
  /** Called when an established connection ends; `willReconnect` tells whether a retry is scheduled. */
  onDisconnect?: (socket: LeanSocket, reason: DisconnectReason, willReconnect: boolean) => void;
  /** A reconnection attempt failed (refused handshake or network error); retries continue unless the token was refused. */
  onReconnectError?: (socket: LeanSocket, error: Error) => void;
  /** Every event from the server, before the per-event handlers; `payload` is the first argument, parsed. */
  onEvent?: (socket: LeanSocket, event: string, payload: unknown) => void;
  /** Event names `onEvent` wants (default: all): the others are not parsed. */
  events?: ReadonlySet<string>;
}

/** One heartbeat sweep for every socket of the process, rather than a timer per socket. */
const live = new Set<LeanSocket>();
let sweeper: NodeJS.Timeout | null = null;
const SWEEP_MS = 5000;
function watch(socket: LeanSocket) {
  live.add(socket);
  sweeper ??= setInterval(() => {
    const now = Date.now();
    for (const each of live) each.checkHeartbeat(now);
    if (live.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = null;
    }
  }, SWEEP_MS).unref();
}

/** Frames in and out over every socket of the process: the load tool's count of operations. */
const frames = { in: 0, out: 0 };

export class LeanSocket {
  static frames() {
    return { ...frames };
  }

  private handlers: Map<string, Set<Handler>> | null = null;
  private acks: Map<number, Ack> | null = null;
  private nextAckId = 0;
  private ws: WebSocket | null = null;
  private closedByUs = false;
  private attempts = 0;
  /** Refused handshakes in a row since the last connect: the refusal backoff's step. */
  private refusals = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  /** The connection attempt under way, which a `connect()` meanwhile waits for. */
  private connecting: Promise<void> | null = null;
  /** When the server last spoke, and how long it may stay silent (its pingInterval + pingTimeout). */
  private lastSeen = 0;
  private silenceMs = 45_000;
  connected = false;
  /** How long the last successful handshake took, ms: from the connection attempt to the server's accept. */
  handshakeMs = 0;

  constructor(
    readonly url: string,
    public auth: object,
    private readonly options: LeanSocketOptions = {},
  ) {}

  /** Connects and completes the Socket.IO handshake with `auth`; rejects with the server's connect_error. */
  static async open(url: string, auth: object, options: LeanSocketOptions = {}): Promise<LeanSocket> {
    const socket = new LeanSocket(url, auth, options);
    await socket.connect();
    return socket;
  }

  /**
   * Connects: resolves once the server accepted the handshake. Asked again while connected, it resolves
   * at once; while connecting, it waits for the attempt under way rather than open a second WebSocket,
   * which would replace the first one's place here and leave it open on the server.
   */
  connect(): Promise<void> {
    if (this.connected) return Promise.resolve();
    this.connecting ??= this.handshake().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** One connection attempt: resolves once the server accepted the handshake. */
  private handshake(): Promise<void> {
    this.closedByUs = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const endpoint = new URL('/socket.io/?EIO=4&transport=websocket', this.url.replace(/^http/, 'ws'));
    // No permessage-deflate offer: the servers do not enable it, and an offer costs a zlib context if one did.
    // No UTF-8 check of every frame: each is JSON.parsed (or dropped unread) and the server is the one under test.
    const ws = new WebSocket(endpoint, { perMessageDeflate: false, skipUTF8Validation: true });
    this.ws = ws;
    const begun = performance.now();
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        if (this.ws === ws) this.ws = null;
        reject(error);
      };
      const limit = this.options.handshakeTimeoutMs ?? 20_000;
      const timer = setTimeout(() => fail(new Error(`no handshake within ${limit / 1000} s`)), limit);
      ws.on('error', fail);
      ws.on('close', () => fail(new Error('closed during the handshake')));
      ws.on('message', (data) => {
        const text = data.toString();
        if (text[0] === ENGINE_OPEN) {
          const open = JSON.parse(text.slice(1)) as { pingInterval?: number; pingTimeout?: number };
          this.silenceMs = (open.pingInterval ?? 25_000) + (open.pingTimeout ?? 20_000);
          return ws.send(`${ENGINE_MESSAGE}${SOCKET_CONNECT}${JSON.stringify(this.auth)}`);
        }
        if (text[0] === ENGINE_PING) return ws.send(ENGINE_PONG);
        if (text[0] !== ENGINE_MESSAGE) return;
        if (text[1] === SOCKET_CONNECT) {
          settled = true;
          clearTimeout(timer);
          ws.removeAllListeners();
          ws.on('message', (frame) => this.receive(frame.toString()));
          ws.on('error', () => {});
          ws.on('close', () => this.dropped(ws, 'transport close'));
          this.connected = true;
          this.attempts = 0;
          this.refusals = 0;
          this.handshakeMs = performance.now() - begun;
          this.lastSeen = Date.now();
          watch(this);
          this.options.onConnect?.(this);
          return resolve();
        }
        if (text[1] === SOCKET_CONNECT_ERROR) {
          const body = JSON.parse(text.slice(2)) as { message?: string };
          fail(new ConnectError(body.message ?? 'connect_error'));
        }
      });
    });
  }

  /** As socket.io-client's: a function last is the acknowledgement callback. */
  emit<E extends keyof ClientToServerEvents>(event: E, ...args: Parameters<ClientToServerEvents[E]>): boolean {
    if (!this.connected || !this.ws) return false;
    const last: unknown = args.at(-1);
    let id = '';
    if (typeof last === 'function') {
      this.nextAckId += 1;
      (this.acks ??= new Map()).set(this.nextAckId, last as Ack);
      id = String(this.nextAckId);
      args.pop();
    }
    // One or two arguments in practice: no spread of a fresh array for the frame.
    const body = args.length === 1 ? `["${event}",${JSON.stringify(args[0])}]` : JSON.stringify([event, ...args]);
    this.ws.send(`${ENGINE_MESSAGE}${SOCKET_EVENT}${id}${body}`);
    frames.out += 1;
    return true;
  }

  on<E extends keyof ServerToClientEvents>(event: E, handler: ServerToClientEvents[E]) {
    this.handlers ??= new Map();
    const set = this.handlers.get(event) ?? new Set();
    set.add(handler as Handler);
    this.handlers.set(event, set);
  }

  off<E extends keyof ServerToClientEvents>(event: E, handler: ServerToClientEvents[E]) {
    this.handlers?.get(event)?.delete(handler as Handler);
  }

  /** Ends the connection for good (no reconnection), as socket.io-client's `close()`. */
  close() {
    this.closedByUs = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const ws = this.ws;
    if (!ws) return;
    if (this.connected) ws.send(`${ENGINE_MESSAGE}${SOCKET_DISCONNECT}`);
    ws.close();
    this.dropped(ws, 'io client disconnect');
  }

  /**
   * Ends the transport as a dead one, as the app does when a send goes unanswered too long (its
   * `engine.close()`): the pending acknowledgements are dropped and, with `reconnect`, it connects again.
   */
  drop() {
    const ws = this.ws;
    if (!this.connected || !ws) return;
    ws.terminate();
    this.dropped(ws, 'transport close');
  }

  /** Called by the shared sweep: a server silent past its own ping deadline is gone. */
  checkHeartbeat(now: number) {
    if (!this.connected || !this.ws) return void live.delete(this);
    if (now - this.lastSeen > this.silenceMs) {
      const ws = this.ws;
      ws.terminate();
      this.dropped(ws, 'ping timeout');
    }
  }

  private dropped(ws: WebSocket, reason: DisconnectReason) {
    if (this.ws !== ws) return;
    this.ws = null;
    live.delete(this);
    const wasConnected = this.connected;
    this.connected = false;
    this.acks?.clear();
    const retry = !this.closedByUs && Boolean(this.options.reconnect);
    if (wasConnected) this.options.onDisconnect?.(this, reason, retry);
    if (!retry) return;
    // socket.io-client stays disconnected after the server's own disconnect; the app connects again a moment later.
    if (reason === 'io server disconnect') this.retryIn(this.settings().serverDisconnectDelayMs);
    else this.scheduleRetry();
  }

  private settings() {
    const given = typeof this.options.reconnect === 'object' ? this.options.reconnect : {};
    return { minDelayMs: 500, maxDelayMs: 5000, serverDisconnectDelayMs: 1000, refusedMaxDelayMs: 30_000, ...given };
  }

  /** After a dropped transport or a failed attempt: socket.io-client's own backoff, jittered. */
  private scheduleRetry() {
    const { minDelayMs, maxDelayMs } = this.settings();
    this.retryIn(Math.min(maxDelayMs, minDelayMs * 2 ** this.attempts) * (0.5 + Math.random() / 2));
    this.attempts += 1;
  }

  private retryIn(delay: number) {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.closedByUs) return;
      this.connect().catch((error: Error) => {
        this.options.onReconnectError?.(this, error);
        if (this.closedByUs) return;
        if (!(error instanceof ConnectError)) return this.scheduleRetry();
        if (FINAL_REFUSALS.has(error.message)) return;
        // Refused for now (too many sockets, an instance shutting down, a database blip): the app backs off longer.
        const { serverDisconnectDelayMs, refusedMaxDelayMs } = this.settings();
        this.retryIn(Math.min(serverDisconnectDelayMs * 2 ** this.refusals, refusedMaxDelayMs));
        this.refusals += 1;
      });
    }, delay);
  }

  private receive(text: string) {
    this.lastSeen = Date.now();
    frames.in += 1;
    const engine = text[0];
    if (engine === ENGINE_PING) {
      frames.out += 1;
      return void this.ws?.send(ENGINE_PONG);
    }
    if (engine === ENGINE_CLOSE) return void this.ws?.close();
    if (engine !== ENGINE_MESSAGE) return;
    const type = text[1];
    if (type === SOCKET_DISCONNECT) {
      const ws = this.ws;
      if (ws) {
        this.dropped(ws, 'io server disconnect');
        ws.close();
      }
      return;
    }
    if (type !== SOCKET_EVENT && type !== SOCKET_ACK) return;
    // An optional ack id runs from the packet type up to the JSON array.
    const bracket = text.indexOf('[', 2);
    if (type === SOCKET_ACK) {
      const id = Number(text.slice(2, bracket));
      const ack = this.acks?.get(id);
      if (!ack) return;
      this.acks!.delete(id);
      ack(...(JSON.parse(text.slice(bracket)) as never[]));
      return;
    }
    // The event name without parsing the frame: `["name"` or `["name",…]`.
    const nameEnd = text.indexOf('"', bracket + 2);
    const event = text.slice(bracket + 2, nameEnd);
    const handlers = this.handlers?.get(event);
    const onEvent = this.options.onEvent && (!this.options.events || this.options.events.has(event)) ? this.options.onEvent : null;
    if (!onEvent && (!handlers || handlers.size === 0)) return;
    const [, ...rest] = JSON.parse(text.slice(bracket)) as [string, ...never[]];
    onEvent?.(this, event, rest[0]);
    if (handlers) for (const handler of handlers) handler(...rest);
  }
}
