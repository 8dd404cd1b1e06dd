/**
 * The party's REST client: node:http (node:https for an https address) over kept-alive connections
 * (one pool per instance), JSON in and out, every call timed under its route's name. fetch (undici)
 * costs several times the CPU per request, which a tool simulating thousands of phones cannot spare.
 */
import http from 'node:http';
import https from 'node:https';
import { Histogram } from './histogram';

export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: http.IncomingHttpHeaders;
}

/** A request that did not get an answer at all (connection refused, reset, timeout). */
export class NetworkError extends Error {
  override name = 'NetworkError';
}

/** How long a call may go without an answer (a server under a party's load may be slow: no less). */
const TIMEOUT_MS = 60_000;

export class Rest {
  private readonly agents = new Map<string, http.Agent>();
  /** Per route ("POST /api/matching/"): latency of every answered call, and counts by status. */
  readonly latency = new Map<string, Histogram>();
  readonly statuses = new Map<string, Map<number, number>>();
  requests = 0;
  /** Calls that got an answer, whatever its status. */
  answers = 0;
  /** Calls that got an answer or failed for want of one. */
  private ended = 0;
  /**
   * How long each call waited for a connection of its pool (the tool's own queue, in every REST latency
   * and in the match overlay): near zero unless the server is so slow that every connection is busy.
   */
  poolWait = new Histogram();
  /** Every route's latency since the last `takeRecent()`, for the live display. */
  private recent = new Histogram();

  /** `maxSockets`: each instance's pool of kept-alive connections. */
  constructor(readonly maxSockets = 128) {}

  private agentFor(base: URL) {
    let agent = this.agents.get(base.origin);
    if (!agent) {
      const options = { keepAlive: true, maxSockets: this.maxSockets, scheduling: 'lifo' } as const;
      agent = base.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      this.agents.set(base.origin, agent);
    }
    return agent;
  }

  /**
   * `route` names the call in the figures (the path with its parameters left as names); `path` is the
   * real one. Resolves with any status; rejects only when no answer came (within `timeoutMs` of silence:
   * no connection, or nothing from it; TIMEOUT_MS by default).
   */
  request<T = any>(
    base: URL,
    method: string,
    route: string,
    path: string,
    options: { token?: string; json?: unknown; timeoutMs?: number } = {},
  ): Promise<Reply<T>> {
    const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    const body = options.json === undefined ? undefined : JSON.stringify(options.json);
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
    if (options.token) headers.authorization = `Token ${options.token}`;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    this.requests += 1;
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = (base.protocol === 'https:' ? https : http).request(
        {
          protocol: base.protocol,
          // An IPv6 address comes out of a URL in brackets ("[::1]"), which node:http would look up as a name.
          hostname: base.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: base.port,
          method,
          path,
          headers,
          agent: this.agentFor(base),
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            this.record(route, status, performance.now() - started);
            const text = chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString();
            let parsed: unknown = text;
            if (text && (res.headers['content-type'] ?? '').includes('json')) {
              try {
                parsed = JSON.parse(text);
              } catch {
                // Left as text: the caller sees the status.
              }
            }
            resolve({ status, body: parsed as T, headers: res.headers });
          });
          res.on('error', (error) => reject(new NetworkError(`${route}: ${error.message}`)));
        },
      );
      req.once('socket', () => this.poolWait.record(performance.now() - started));
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        this.record(route, 0, performance.now() - started, false);
        reject(new NetworkError(`${method} ${base.origin}${path}: ${error.code ?? error.message}`));
      });
      req.end(body);
    });
  }

  /** Calls sent and not yet answered (nor failed). */
  get inFlight() {
    return this.requests - this.ended;
  }

  private record(route: string, status: number, ms: number, answered = true) {
    this.ended += 1;
    let byStatus = this.statuses.get(route);
    if (!byStatus) this.statuses.set(route, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (!answered) return;
    this.answers += 1;
    let histogram = this.latency.get(route);
    if (!histogram) this.latency.set(route, (histogram = new Histogram()));
    histogram.record(ms);
    this.recent.record(ms);
  }

  takeRecent() {
    const recent = this.recent;
    this.recent = new Histogram();
    return recent;
  }

  close() {
    for (const agent of this.agents.values()) agent.destroy();
  }
}

/** The detail of an error reply in the API's envelope, for messages. */
export function detailOf(reply: Reply): string {
  const body = reply.body as Record<string, unknown> | string;
  if (typeof body === 'string') return body.slice(0, 200);
  if (body && typeof body.detail === 'string') return body.detail;
  return JSON.stringify(body).slice(0, 200);
}
