/**
 * A Socket.IO client for the load generator only: the protocol (Engine.IO 4, Socket.IO 5, default
 * namespace, text packets) spoken straight over `ws`. socket.io-client costs the generator several
 * times more CPU per frame, and on a 2-core machine the generator's CPU is taken from the servers it
 * measures: with it, the generator alone used about a core at 12,000 msg/s. The servers see the same
 * frames either way. Tests use the real socket.io-client; this is not for them.
 */
import WebSocket from 'ws';
import type { ClientToServerEvents, ServerToClientEvents } from '../shared/events';

type Handler = (...args: never[]) => void;
type Ack = (...args: never[]) => void;

// Engine.IO packet types (first character) and Socket.IO packet types (second).
const ENGINE_OPEN = '0';
const ENGINE_PING = '2';
const ENGINE_PONG = '3';
const ENGINE_MESSAGE = '4';
const SOCKET_CONNECT = '0';
const SOCKET_EVENT = '2';
const SOCKET_ACK = '3';
const SOCKET_CONNECT_ERROR = '4';

export class LeanSocket {
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly acks = new Map<number, Ack>();
  private nextAckId = 0;

  private constructor(private readonly ws: WebSocket) {}

  /** Connects and completes the Socket.IO handshake with `auth`; rejects with the server's connect_error. */
  static open(url: string, auth: object): Promise<LeanSocket> {
    const endpoint = new URL('/socket.io/?EIO=4&transport=websocket', url.replace(/^http/, 'ws'));
    const ws = new WebSocket(endpoint);
    const socket = new LeanSocket(ws);
    return new Promise((resolve, reject) => {
      ws.on('error', reject);
      ws.on('close', () => reject(new Error('closed during the handshake')));
      ws.on('message', (data) => {
        const text = data.toString();
        if (text[0] === ENGINE_OPEN) return ws.send(`${ENGINE_MESSAGE}${SOCKET_CONNECT}${JSON.stringify(auth)}`);
        if (text[0] === ENGINE_PING) return ws.send(ENGINE_PONG);
        if (text[0] !== ENGINE_MESSAGE) return;
        if (text[1] === SOCKET_CONNECT) {
          ws.removeAllListeners('message').removeAllListeners('close').removeAllListeners('error');
          ws.on('message', (frame) => socket.receive(frame.toString()));
          ws.on('error', () => {});
          return resolve(socket);
        }
        if (text[1] === SOCKET_CONNECT_ERROR) {
          ws.close();
          reject(new Error((JSON.parse(text.slice(2)) as { message: string }).message));
        }
      });
    });
  }

  /** As socket.io-client's: a function last is the acknowledgement callback. */
  emit<E extends keyof ClientToServerEvents>(event: E, ...args: Parameters<ClientToServerEvents[E]>) {
    const last: unknown = args.at(-1);
    let id = '';
    if (typeof last === 'function') {
      this.nextAckId += 1;
      this.acks.set(this.nextAckId, last as Ack);
      id = String(this.nextAckId);
    }
    const payload = typeof last === 'function' ? args.slice(0, -1) : args;
    this.ws.send(`${ENGINE_MESSAGE}${SOCKET_EVENT}${id}${JSON.stringify([event, ...payload])}`);
  }

  on<E extends keyof ServerToClientEvents>(event: E, handler: ServerToClientEvents[E]) {
    const set = this.handlers.get(event) ?? new Set();
    set.add(handler as Handler);
    this.handlers.set(event, set);
  }

  off<E extends keyof ServerToClientEvents>(event: E, handler: ServerToClientEvents[E]) {
    this.handlers.get(event)?.delete(handler as Handler);
  }

  close() {
    this.ws.close();
  }

  private receive(text: string) {
    if (text[0] === ENGINE_PING) return this.ws.send(ENGINE_PONG);
    if (text[0] !== ENGINE_MESSAGE) return;
    const type = text[1];
    if (type !== SOCKET_EVENT && type !== SOCKET_ACK) return;
    // An optional ack id runs from the packet type up to the JSON array.
    const bracket = text.indexOf('[', 2);
    const args = JSON.parse(text.slice(bracket)) as unknown[];
    if (type === SOCKET_ACK) {
      const id = Number(text.slice(2, bracket));
      const ack = this.acks.get(id);
      this.acks.delete(id);
      ack?.(...(args as never[]));
      return;
    }
    const [event, ...rest] = args as [string, ...never[]];
    for (const handler of this.handlers.get(event) ?? []) handler(...rest);
  }
}
