/**
 * `npm run cluster`: docker-compose.yml's shape on loopback, without Docker. Two app instances on the
 * machine's PostgreSQL and Redis, behind a small WebSocket-aware proxy:
 *
 *   proxy :CLUSTER_PORT (3000) ──round robin──▶ instance :PORT+1, instance :PORT+2 ──▶ PostgreSQL, Redis
 *
 * Environment: CLUSTER_PORT, CLUSTER_INSTANCE_PORTS (default: the ports after CLUSTER_PORT), DATABASE_URL (default: database `eventmatch_cluster` on 127.0.0.1, created
 * when missing), REDIS_URL (default redis://127.0.0.1:6379), DATA_DIR (shared by both, for media),
 * CLUSTER_INSTANCES (default 2), CLUSTER_HOST (the proxy's address, default 127.0.0.1). On SIGTERM/SIGINT it stops the instances gracefully, then itself.
 * Prints one JSON line `{"ready":true,...}` once every instance answers /readyz.
 *
 * An instance that exits on its own once the cluster is up (a crash, or a SIGTERM sent to it alone: a
 * restart mid-event) is started again, as docker-compose.yml's `restart: unless-stopped` does; the proxy
 * sends it nothing until it answers /readyz, then one JSON line `{"restarted":{...}}` says so.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Readable, type Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import httpProxy from 'http-proxy';
import postgres from 'postgres';
import { languageOf, renderServerMessage, type ServerMessageCode, serverText } from '../shared/i18n/server-messages';
import { buildClientIfStale, SERVER_NODE_FLAGS } from './start.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.CLUSTER_PORT ?? 3000);
const instanceCount = Number(process.env.CLUSTER_INSTANCES ?? 2);
/** The instances' own ports, one instance each: CLUSTER_INSTANCE_PORTS (comma-separated), else CLUSTER_INSTANCES ports after the proxy's. */
const instancePorts = process.env.CLUSTER_INSTANCE_PORTS
  ? process.env.CLUSTER_INSTANCE_PORTS.split(',').map(Number)
  : Array.from({ length: instanceCount }, (_, index) => port + 1 + index);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const dataDir = path.resolve(process.env.DATA_DIR ?? path.join(root, 'data', 'cluster'));
/** How often a backend marked down (draining, restarting, gone) is asked `/readyz`; it is sent requests again once that answers 200. */
const PROBE_EVERY_MS = 250;
const STICKY_COOKIE = 'em_instance';
/**
 * A request body up to this size is read whole before it is sent on, so that it can be sent again to
 * another instance when the first refused the connection (every JSON call; a photo upload is bigger
 * and streams through, sent once).
 */
const REPLAYABLE_BODY_BYTES = 64 * 1024;
/** The methods whose repetition changes nothing more than their first sending (RFC 9110, 9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

interface Backend {
  index: number;
  url: string;
  port: number;
  process: ChildProcess;
  /** Marked down (`markDown`): sent nothing until its `/readyz` answers 200 again, or it is started again. */
  down: boolean;
  /** Started again after it exited, and not answering /readyz yet: the proxy sends it nothing. */
  starting?: boolean;
  /** A `/readyz` asked after it closed a WebSocket, not answered yet (`checkAfterClose`). */
  checking?: boolean;
}

/** The least time between an instance's exit and its next start: one that exits at once does not spin. */
const RESTART_DELAY_MS = 1000;

/** Not exited, on its own or by a signal (a process a signal ended has no exit code). */
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function ensureDatabase(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const admin = postgres('postgres://postgres@127.0.0.1:5432/postgres', { max: 1, onnotice: () => {} });
  const name = 'eventmatch_cluster';
  const [found] = await admin`select 1 as ok from pg_database where datname = ${name}`;
  if (!found) await admin.unsafe(`create database "${name}"`);
  await admin.end();
  return `postgres://postgres@127.0.0.1:5432/${name}`;
}

function startInstance(index: number, databaseUrl: string): Backend {
  const instancePort = instancePorts[index]!;
  // The server's runtime flags (scripts/start.mjs), on the TypeScript sources (no build step for a loopback cluster).
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', path.join(root, 'server/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(instancePort),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      DATA_DIR: dataDir,
      PUBLIC_URL: process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return { index, url: `http://127.0.0.1:${instancePort}`, port: instancePort, process: child, down: false };
}

const answersReady = (backend: Backend) =>
  fetch(`${backend.url}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
    (response) => response.ok,
    () => false,
  );

async function waitReady(backend: Backend) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!running(backend.process)) {
      throw new Error(`instance ${backend.index} (port ${backend.port}) exited with ${backend.process.exitCode ?? backend.process.signalCode}`);
    }
    if (await answersReady(backend)) return;
    if (Date.now() > deadline) throw new Error(`instance ${backend.index} not ready after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function stickyIndex(request: http.IncomingMessage): number | null {
  const match = new RegExp(`(?:^|;\\s*)${STICKY_COOKIE}=(\\d+)`).exec(request.headers.cookie ?? '');
  return match ? Number(match[1]) : null;
}

/**
 * The request's body when it can be sent twice: empty for a request without one, whole when it is
 * small; null for a bigger one (or one of unknown length), which streams through as it comes.
 */
async function replayableBody(request: http.IncomingMessage): Promise<Buffer | null> {
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0)) return Buffer.alloc(0);
  if (request.headers['transfer-encoding'] !== undefined || !(Number(length) <= REPLAYABLE_BODY_BYTES)) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The proxy's own answer, in the API's error envelope and the language the request asks for. */
function answer(request: http.IncomingMessage, response: http.ServerResponse, status: number, code: ServerMessageCode, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ detail: renderServerMessage(serverText(code), languageOf(request.headers['accept-language'])) });
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers }).end(body);
}

/**
 * No instance can take the request now (all starting, restarting or draining), and none did anything
 * with it: 503 with `Retry-After`, as an instance that drains answers, so that the client sends it
 * again in a second (the web client does so for the calls safe to repeat).
 */
const answerRestarting = (request: http.IncomingMessage, response: http.ServerResponse) =>
  answer(request, response, 503, 'server_restarting', { 'retry-after': '1' });

/** An upgrade no instance can take now: 503 with `Retry-After` in the envelope, as `answerRestarting`, on the raw socket. */
function refuseUpgrade(request: http.IncomingMessage, socket: Duplex): Duplex {
  if (!socket.writable) return socket;
  const body = JSON.stringify({ detail: renderServerMessage(serverText('server_restarting'), languageOf(request.headers['accept-language'])) });
  socket.write(
    `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  );
  return socket;
}

/**
 * Round robin over the live backends. The server takes WebSockets only, which need no stickiness; a
 * cookie still keeps a client on the instance it first reached while that one is live, so that a
 * request can be sent to one instance on purpose (the cluster's tests pin theirs so).
 */
function createProxy(backends: Backend[]) {
  const proxy = httpProxy.createProxyServer({ xfwd: true, ws: true });
  const chosen = new WeakMap<http.IncomingMessage, Backend>();
  let next = 0;

  const live = (backend: Backend) => !backend.starting && running(backend.process) && !backend.down;
  /** The backend for a request: its cookie's when that one is live, else the next live one; never one already `tried`. */
  function pick(request: http.IncomingMessage, tried: ReadonlySet<Backend> = new Set()): Backend | null {
    const sticky = stickyIndex(request);
    const pinned = sticky === null ? undefined : backends[sticky];
    if (pinned && live(pinned) && !tried.has(pinned)) return pinned;
    for (let i = 0; i < backends.length; i += 1) {
      const backend = backends[(next + i) % backends.length]!;
      if (!live(backend) || tried.has(backend)) continue;
      next = (backend.index + 1) % backends.length;
      return backend;
    }
    return null;
  }
  /**
   * Sends the backend nothing more, its sticky cookie's clients included, until its `/readyz` answers
   * 200 (a drain never ends so: it exits, and is taken back once started again and ready).
   */
  function markDown(backend: Backend) {
    if (backend.down) return;
    backend.down = true;
    const child = backend.process;
    void (async () => {
      while (backend.down && backend.process === child && running(child) && !stopping) {
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
        if (backend.process === child && running(child) && (await answersReady(backend))) backend.down = false;
      }
    })();
  }

  proxy.on('proxyRes', (proxyRes, request) => {
    const backend = chosen.get(request);
    if (!backend) return;
    // A 503 saying when to try again: the instance drains (it did nothing with the request, and the
    // client sends it again in a second, to another instance), or a write of its was rolled back (then
    // its /readyz answers 200 at once, and it is taken back).
    if (proxyRes.statusCode === 503 && proxyRes.headers['retry-after'] !== undefined) markDown(backend);
    if (stickyIndex(request) === backend.index) return;
    const cookie = `${STICKY_COOKIE}=${backend.index}; Path=/; HttpOnly; SameSite=Lax`;
    const existing = proxyRes.headers['set-cookie'] ?? [];
    proxyRes.headers['set-cookie'] = [...existing, cookie];
  });

  /**
   * Sends the request to a live backend. One that fails before it answers anything is marked down, and
   * the request goes to the next live one when it can be sent again: its body is at hand (`body`), and
   * the backend refused the connection (it got nothing), or the method is idempotent (a second sending
   * changes nothing). A POST or PATCH the backend may have received before it reset is not sent again:
   * it may have been done. Not sent again, the request is answered 503 with `Retry-After` when nothing
   * was done or doing it again changes nothing (the web client then repeats it), else 502.
   */
  function forward(request: http.IncomingMessage, response: http.ServerResponse, body: Buffer | null, tried: Set<Backend>) {
    const backend = pick(request, tried);
    if (!backend) return answerRestarting(request, response);
    tried.add(backend);
    chosen.set(request, backend);
    // A fresh stream of the body for each backend tried (the request itself can be read once).
    const buffer = body ? { buffer: Readable.from(body.length > 0 ? [body] : []) } : {};
    proxy.web(request, response, { target: backend.url, ...buffer }, (error) => {
      // The client went away: nothing to answer, and nothing the backend did.
      if (request.socket.destroyed) return;
      markDown(backend);
      // Gone mid-answer: the client sees the answer cut short rather than a whole one with a wrong end.
      if (response.headersSent) return void response.destroy();
      // Refused: the connection never opened, the backend got nothing. Otherwise (reset, hung up) it
      // may have got the request, and done it.
      const refused = (error as NodeJS.ErrnoException).code === 'ECONNREFUSED';
      const idempotent = IDEMPOTENT_METHODS.has(request.method ?? '');
      if (body && (refused || idempotent)) return forward(request, response, body, tried);
      if (refused || idempotent) return answerRestarting(request, response);
      answer(request, response, 502, 'server_error');
    });
  }

  const server = http.createServer((request, response) => {
    void replayableBody(request).then((body) => forward(request, response, body, new Set()), () => request.destroy());
  });
  /** The upgrade requests whose WebSocket opened (a failure after that is not answered in HTTP). */
  const upgraded = new WeakSet<http.IncomingMessage>();
  /**
   * A backend that closed a WebSocket may be draining (it closes every socket it holds, and each new
   * one at once): asked `/readyz` once, and marked down unless that answers 200, so that the clients'
   * reconnections (a second later) go to another instance, whatever their cookie says. The upgrade
   * itself tells nothing: a draining instance still accepts it.
   */
  function checkAfterClose(backend: Backend) {
    if (backend.down || backend.checking) return;
    backend.checking = true;
    const child = backend.process;
    void answersReady(backend).then((ready) => {
      backend.checking = false;
      if (!ready && backend.process === child) markDown(backend);
    });
  }
  proxy.on('proxyReqWs', (proxyReq, request) => {
    const backend = chosen.get(request);
    proxyReq.on('upgrade', (_response, backendSocket: Duplex) => {
      upgraded.add(request);
      if (backend) backendSocket.once('end', () => checkAfterClose(backend));
    });
  });

  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const backend = pick(request);
    if (!backend) return void refuseUpgrade(request, socket).end();
    chosen.set(request, backend);
    // A refusal, or a backend gone before the WebSocket opened: the client reconnects on its own,
    // to another instance (this one is marked down). http-proxy ends the socket after this.
    proxy.ws(request, socket, head, { target: backend.url }, () => {
      markDown(backend);
      if (!upgraded.has(request)) refuseUpgrade(request, socket);
    });
  });
  return server;
}

/**
 * Once the cluster is up, an instance that exits without the cluster stopping is started again (after
 * RESTART_DELAY_MS), on its port, and taken back by the proxy once it answers /readyz. Meanwhile the
 * other instances serve everyone: its sockets have reconnected to them through the proxy.
 */
function superviseInstance(backend: Backend, databaseUrl: string) {
  backend.process.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`cluster: instance ${backend.index} (port ${backend.port}) exited with ${code ?? signal}; starting it again`);
    backend.starting = true;
    setTimeout(() => {
      if (stopping) return;
      backend.process = startInstance(backend.index, databaseUrl).process;
      superviseInstance(backend, databaseUrl);
      waitReady(backend).then(
        () => {
          if (stopping) return;
          backend.starting = false;
          backend.down = false;
          console.log(JSON.stringify({ restarted: { url: backend.url, pid: backend.process.pid } }));
        },
        // It exited again before it was ready, or it never got ready (then it is stopped): its exit starts it again.
        (error: unknown) => {
          // Stopped with the cluster meanwhile: nothing went wrong.
          if (stopping) return;
          console.error(`cluster: ${(error as Error).message}`);
          if (running(backend.process)) backend.process.kill('SIGKILL');
        },
      );
    }, RESTART_DELAY_MS);
  });
}

/** The instances started so far, ready or not: all of them are stopped with the cluster, whatever stops it. */
const started: Backend[] = [];
let stopping = false;
/** Stops every instance started (SIGTERM: each finishes what it has in flight), then the proxy. */
async function stopInstances(signal: NodeJS.Signals) {
  const exits = started
    .filter((backend) => running(backend.process))
    .map((backend) => new Promise((resolve) => backend.process.once('exit', resolve)));
  for (const backend of started) if (running(backend.process)) backend.process.kill(signal === 'SIGINT' ? 'SIGTERM' : signal);
  await Promise.all(exits);
}
async function stop(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  await stopInstances(signal);
  proxyServer.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

/**
 * The cluster could not start (its port taken, PostgreSQL away, an instance that exited or never got
 * ready): one line saying why, the instances already started stopped (not left running on their ports
 * with nothing in front of them), and exit 1.
 */
async function giveUp(message: string): Promise<never> {
  // Stopped by a signal meanwhile (its instances' exits end the start too): `stop` exits.
  if (stopping) return new Promise<never>(() => {});
  console.error(`cluster: ${message}`);
  stopping = true;
  await stopInstances('SIGTERM');
  process.exit(1);
}

// The proxy's port first: taken (by `npm start` on 3000, say), nothing else is started for nothing.
// Until every instance is ready, the proxy has none to send to, and answers 503.
const backends: Backend[] = [];
const proxyServer = createProxy(backends);
const host = process.env.CLUSTER_HOST ?? '127.0.0.1';
try {
  await new Promise<void>((resolve, reject) => {
    proxyServer.once('error', reject);
    proxyServer.listen(port, host, () => {
      proxyServer.off('error', reject);
      resolve();
    });
  });
} catch (error) {
  await giveUp(`cannot listen on ${host}:${port} (CLUSTER_PORT): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
}
let databaseUrlInUse = '';
try {
  // The instances serve dist/client as `npm start` does: a fresh clone's would otherwise answer 503.
  await buildClientIfStale();
  const databaseUrl = await ensureDatabase();
  databaseUrlInUse = databaseUrl;
  // One after the other, each ready before the next is started (instances started together would take
  // turns to apply the migrations, under an advisory lock).
  for (let i = 0; i < instancePorts.length; i += 1) {
    const backend = startInstance(i, databaseUrl);
    started.push(backend);
    await waitReady(backend);
  }
} catch (error) {
  await giveUp((error as Error).message);
}
if (stopping) await new Promise(() => {});
backends.push(...started);
for (const backend of backends) superviseInstance(backend, databaseUrlInUse);
console.log(
  JSON.stringify({
    ready: true,
    url: `http://127.0.0.1:${port}`,
    instances: backends.map((backend) => ({ url: backend.url, pid: backend.process.pid })),
  }),
);
