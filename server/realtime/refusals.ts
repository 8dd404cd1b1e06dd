import type { EventEmitter } from 'node:events';
import { type IncomingMessage, type Server as HttpServer, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Server } from 'socket.io';
import { languageOf, type ServerMessageCode, serverText } from '../../shared/i18n/server-messages';
import { ApiError, writeRawAnswer } from '../errors';

/** engine.io's refusals (its `Server.errors`), in our words: its own are English, outside the envelope. */
const engineRefusals: Record<number, { status: number; detail: ServerMessageCode }> = {
  0: { status: 400, detail: 'websocket_only' },
  1: { status: 400, detail: 'realtime_session_unknown' },
  2: { status: 400, detail: 'malformed' },
  3: { status: 400, detail: 'malformed' },
  4: { status: 403, detail: 'permission_denied' },
  5: { status: 400, detail: 'realtime_version_unsupported' },
};

/** The only Engine.IO protocol the server speaks (engine.io's `allowEIO3` is off). */
const ENGINE_PROTOCOL = '4';

/** What engine.io adds to a request: its query, its response (a plain request), its WebSocket once upgraded. */
type EngineRequest = IncomingMessage & { _query: Record<string, string | undefined>; res?: ServerResponse; websocket?: unknown };

const envelope = (request: IncomingMessage, status: number, detail: ServerMessageCode) =>
  JSON.stringify(new ApiError(status, { detail: serverText(detail) }).render(languageOf(request.headers['accept-language'])));

/**
 * The socket path's refusals in the API's envelope, in the request's language, with the headers every
 * response carries, instead of engine.io's `{code, message}` (or bare text, for a WebSocket upgrade):
 *
 * - A plain HTTP request: the socket path takes WebSockets only (long-polling is off, see `plugin.ts`),
 *   so every one is refused here, before engine.io sees it. engine.io would refuse most of them too,
 *   but a GET naming an open socket's `sid` it left unanswered, holding its connection for ever.
 * - An upgrade of another protocol than ours: engine.io finds it out only once it has upgraded the
 *   connection, and then writes its refusal into the WebSocket as if it were HTTP; refused here, before.
 * - Any other upgrade engine.io refuses (a transport or `sid` it does not know): answered as it is
 *   refused (`connection_error`, which engine.io emits just before it writes its own answer, which
 *   it then leaves out: the connection is closed).
 * - A WebSocket handshake whose own headers are wrong (its key, version or subprotocols): the `ws`
 *   server under engine.io answered it in bare English text/html; with a `wsClientError` listener, it
 *   leaves the answer to us.
 *
 * A real client never meets any of these: socket.io-client opens a WebSocket with protocol 4 and no sid.
 */
export function answerRefusalsInEnvelope(server: HttpServer, engine: Server['engine'], headers: Record<string, string>) {
  engine.use((req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
    const request = req as EngineRequest;
    if (res instanceof ServerResponse) {
      res.writeHead(400, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
      res.end(envelope(request, 400, 'websocket_only'));
      return;
    }
    if (!request._query.sid && request._query.EIO !== ENGINE_PROTOCOL) {
      refuseUpgrade(request, engineRefusals[5]!, headers);
      return;
    }
    next();
  });
  engine.on('connection_error', ({ req, code }: { req: EngineRequest; code: number }) => {
    // A plain request is answered above, never here; an upgrade refused once done (its handshake
    // failed) can take no HTTP answer.
    if (req.res !== undefined || req.websocket !== undefined) return;
    refuseUpgrade(req, engineRefusals[code] ?? { status: 400, detail: 'malformed' }, headers);
  });
  // engine.io makes its `ws` server anew each time the HTTP server starts listening (after this).
  const answerHandshakeRefusals = () => {
    const webSockets = (engine as unknown as { ws?: EventEmitter }).ws;
    if (!webSockets || webSockets.listenerCount('wsClientError') > 0) return;
    webSockets.on('wsClientError', (_error: Error, _socket: Socket, req: IncomingMessage) => {
      // A version it does not speak is answered with the ones it does (RFC 6455, 4.4).
      const version = req.headers['sec-websocket-version'];
      const known = version === '13' || version === '8';
      refuseUpgrade(req, { status: 400, detail: 'malformed' }, known ? headers : { ...headers, 'Sec-WebSocket-Version': '13, 8' });
    });
  };
  answerHandshakeRefusals();
  server.on('listening', answerHandshakeRefusals);
}

/**
 * An upgrade to any other path than the socket path names nothing here: the envelope's 404, at once.
 * engine.io, which listens for every upgrade on the server, left it unanswered and ended the connection
 * a second later (its `destroyUpgrade`, turned off in `plugin.ts` for this).
 */
export function refuseUpgradesElsewhere(server: HttpServer, socketPath: string, headers: Record<string, string>) {
  server.on('upgrade', (request: IncomingMessage) => {
    // engine.io's own test of the path: a prefix.
    if (request.url?.startsWith(socketPath)) return;
    refuseUpgrade(request, { status: 404, detail: 'not_found' }, headers);
  });
}

/** Answers an upgrade request on its socket, which it then closes (engine.io, which would answer too, finds it closed). */
function refuseUpgrade(request: IncomingMessage, refusal: { status: number; detail: ServerMessageCode }, headers: Record<string, string>) {
  writeRawAnswer(request.socket, refusal.status, envelope(request, refusal.status, refusal.detail), headers);
  request.socket.destroy();
}
