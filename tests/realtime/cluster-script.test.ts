import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import postgres from 'postgres';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase } from '../helpers/database';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';
import { type ClientSocket, connect, waitFor, waitUntil } from '../helpers/socket';
import { freePort } from '../helpers/ports';
import { makePair, match, newClientId, storedMessages } from './fixtures';

const ready = (await hasPostgres()) && (await hasRedis());

interface ClusterInfo {
  url: string;
  instances: Array<{ url: string; pid: number }>;
}

describe.skipIf(!ready)('npm run cluster: two instances behind the proxy', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let cluster: ChildProcess;
  let info: ClusterInfo;
  let dataDir: string | undefined;
  const open: ClientSocket[] = [];
  /** The cluster's line saying that an instance that exited is up again. */
  let restartedLine: Promise<{ url: string; pid: number }>;
  /** Every such line so far, in order. */
  const restarts: Array<{ url: string; pid: number }> = [];

  beforeAll(async () => {
    database = await createPostgresDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-cluster-'));
    // Every port the cluster listens on is one found free: the ports after the proxy's may be taken
    // by another test's server (an instance then failed to listen and the cluster exited with 1).
    const [port, ...instancePorts] = [await freePort(), await freePort(), await freePort()];
    cluster = spawn('npm', ['run', '--silent', 'cluster'], {
      env: {
        ...process.env,
        CLUSTER_PORT: String(port),
        CLUSTER_INSTANCE_PORTS: instancePorts.join(','),
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        REDIS_URL,
        REDIS_PREFIX: `test-cluster-${randomBytes(6).toString('hex')}`,
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_TIME_COST: '1',
        LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
      // Its own process group, so that the whole tree (npm → tsx → node → instances) is stopped by its id.
      detached: true,
    });
    const lines = readline.createInterface({ input: cluster.stdout! });
    restartedLine = new Promise((resolve) => {
      lines.on('line', (line) => {
        if (!line.startsWith('{"restarted":')) return;
        const { restarted } = JSON.parse(line) as { restarted: { url: string; pid: number } };
        restarts.push(restarted);
        resolve(restarted);
      });
    });
    info = await new Promise<ClusterInfo>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line.startsWith('{"ready":true')) resolve(JSON.parse(line) as ClusterInfo);
      });
      cluster.once('exit', (code) => reject(new Error(`cluster exited with ${code}`)));
    });
  }, 120_000);

  afterAll(async () => {
    for (const socket of open) socket.close();
    if (cluster?.exitCode === null && cluster.pid) {
      const exited = new Promise((resolve) => cluster.once('exit', resolve));
      process.kill(-cluster.pid, 'SIGTERM');
      await exited;
    }
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the API and carries a match and messages between sockets on different instances', async () => {
    // The helpers only need the base URL: everything goes through the proxy.
    const proxy = { url: info.url } as TestServer;
    const ana = await makeCompletedUser(proxy, { name: 'Ana' });
    const ben = await makeCompletedUser(proxy, { name: 'Ben' });
    // Round robin: two sockets opened back to back land on the two instances.
    const anaSocket = await connect(info.url, ana.token, { reconnection: true });
    const benSocket = await connect(info.url, ben.token, { reconnection: true });
    open.push(anaSocket, benSocket);
    const heard = waitFor(benSocket, 'match:new');
    const conversationId = await match(proxy, ana, ben);
    expect((await heard).conversation_id).toBe(conversationId);

    const message = waitFor(benSocket, 'message:new');
    const sent = await anaSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'via proxy', client_id: newClientId() });
    expect(sent.ok).toBe(true);
    expect((await message).message.content).toBe('via proxy');

    // SIGTERM to instance 0: its sockets are closed (they reconnect through the proxy to instance 1),
    // writes in flight finish, and the process exits cleanly.
    const instance = info.instances[0]!;
    const sends = (socket: ClientSocket, user: TestUser) =>
      Array.from({ length: 15 }, (_, i) => {
        const payload = { conversation_id: conversationId, content: `${user.id}-${i}`, client_id: newClientId() };
        return socket
          .timeout(3000)
          .emitWithAck('message:send', payload)
          .then(
            (ack) => ({ payload, ok: ack.ok }),
            () => ({ payload, ok: false }),
          );
      });
    const reconnected = Promise.race(
      [anaSocket, benSocket].map(
        (socket) =>
          new Promise<ClientSocket>((resolve) => {
            socket.io.once('reconnect', () => resolve(socket));
          }),
      ),
    );
    const inFlight = [...sends(anaSocket, ana), ...sends(benSocket, ben)];
    process.kill(instance.pid, 'SIGTERM');
    const outcomes = await Promise.all(inFlight);
    await reconnected;
    await waitExit(instance.pid);

    // Whatever was not acknowledged is resent with the same client_id: stored exactly once.
    for (const outcome of outcomes.filter((o) => !o.ok)) {
      const sender = outcome.payload.content.startsWith(`${ana.id}-`) ? anaSocket : benSocket;
      const ack = await sender.emitWithAck('message:send', outcome.payload);
      expect(ack.ok, JSON.stringify(ack)).toBe(true);
    }
    const stored = await storedMessages(proxy, ana.token, conversationId);
    expect(stored.map((m) => m.content).sort()).toEqual(['via proxy', ...outcomes.map((o) => o.payload.content)].sort());

    // After the failover both users are on instance 1 and still reach each other.
    const after = waitFor(anaSocket, 'message:new', (event) => event.message.content === 'after failover');
    expect((await benSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'after failover', client_id: newClientId() })).ok).toBe(true);
    await after;
    expect((await client(info.url).get('/readyz')).status).toBe(200);

    // Instance 0 is started again on its port, as `restart: unless-stopped` does in docker-compose.yml,
    // and is one of the cluster again: a socket on it hears a message sent through the other.
    const restarted = await Promise.race([
      restartedLine,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('instance 0 was not started again within 20 s')), 20_000)),
    ]);
    expect(restarted.url).toBe(instance.url);
    expect(restarted.pid).not.toBe(instance.pid);
    expect((await client(instance.url).get('/readyz')).status).toBe(200);
    const benOnZero = await connect(instance.url, ben.token);
    open.push(benOnZero);
    const onZero = waitFor(benOnZero, 'message:new', (event) => event.message.content === 'after the restart');
    expect((await anaSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'after the restart', client_id: newClientId() })).ok).toBe(true);
    await onZero;
  }, 60_000);

  /** The instance at `index` as it runs now: the pid of its last start. */
  const instanceNow = (index: number) => {
    const { url } = info.instances[index]!;
    return { index, url, pid: restarts.findLast((line) => line.url === url)?.pid ?? info.instances[index]!.pid };
  };
  const pinnedTo = (index: number) => ({ cookie: `em_instance=${index}` });
  const stickyCookie = (response: Response | { headers: Headers }) =>
    response.headers.getSetCookie().find((cookie) => cookie.startsWith('em_instance='))?.split(';')[0];

  /**
   * SIGTERMs an instance while a request to it, straight to its port, is in flight (its headers read:
   * the server said `100 Continue`; its body never sent): the instance drains, refusing new connections,
   * until `release` ends that request. Then it exits, and the cluster starts it again.
   */
  async function drainHeldOpen(instance: { url: string; pid: number }) {
    const port = Number(new URL(instance.url).port);
    const held = net.connect(port, '127.0.0.1');
    await once(held, 'connect');
    held.write('POST /api/auth/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n');
    expect(String((await once(held, 'data'))[0])).toMatch(/^HTTP\/1\.1 100 /);
    process.kill(instance.pid, 'SIGTERM');
    const refuses = () =>
      new Promise<boolean>((resolve) => {
        const probe = net.connect(port, '127.0.0.1');
        probe.once('connect', () => {
          probe.destroy();
          resolve(false);
        });
        probe.once('error', () => resolve(true));
      });
    await waitUntil(refuses, 5000, 'the draining instance to stop accepting connections');
    return { release: () => held.destroy() };
  }

  /**
   * SIGTERMs an instance while a socket event of its is waiting on a table lock the test holds: the
   * instance stays in the first step of its drain (still listening, answering every new request 503 and
   * closing every new socket, its /readyz no longer 200) until `release` lets the event finish.
   */
  async function drainHeldListening(instance: { url: string; pid: number }, pair: { a: TestUser; conversationId: number }) {
    const sql = postgres(database.url, { max: 2, onnotice: () => {} });
    const lock = await sql.reserve();
    await lock`begin`;
    await lock`lock table messages in access exclusive mode`;
    const direct = await connect(instance.url, pair.a.token);
    const sent = direct.emitWithAck('message:send', { conversation_id: pair.conversationId, content: 'held', client_id: newClientId() });
    await waitUntil(async () => {
      const [row] = await sql`select count(*)::int as waiting from pg_locks where not granted and relation = 'messages'::regclass`;
      return row!.waiting > 0;
    }, 5000, 'the socket event to wait on the lock');
    process.kill(instance.pid, 'SIGTERM');
    await waitUntil(async () => (await client(instance.url).get('/readyz')).status !== 200, 5000, 'the instance to start draining');
    return {
      async release() {
        await lock`commit`;
        lock.release();
        await sent.catch(() => undefined);
        direct.close();
        await sql.end();
      },
    };
  }

  /** The instance, drained, exits and is started again: the cluster says so. */
  async function restartedAfter(instance: { url: string; pid: number }) {
    await waitUntil(() => restarts.some((line) => line.url === instance.url && line.pid !== instance.pid), 20_000, `${instance.url} to be started again`);
  }

  it('hands a request that a draining instance refused to a live instance, and answers it from there', async () => {
    const proxy = { url: info.url } as TestServer;
    const ana = await makeCompletedUser(proxy, { name: 'Ana' });
    const ben = await makeCompletedUser(proxy, { name: 'Ben' });
    const draining = instanceNow(1);
    const drain = await drainHeldOpen(draining);
    try {
      // A like tapped during a deploy, by a phone whose cookie names the draining instance: the
      // instance refused the proxy's connection, so it did nothing; the other instance does it.
      const like = await client(info.url).post('/api/matching/', {
        token: ana.token,
        json: { response: 'like', other: ben.id },
        headers: pinnedTo(1),
      });
      expect(like.status, JSON.stringify(like.body)).toBe(200);
      expect(like.body).toEqual({ match: false, conversation_id: null });
      expect(stickyCookie(like)).toBe('em_instance=0');
      const profile = await client(info.url).get('/api/users/me/profile/', { token: ana.token, headers: pinnedTo(1) });
      expect(profile.status).toBe(200);
    } finally {
      drain.release();
    }
    await restartedAfter(draining);
  }, 60_000);

  it('sends the retry of a request a draining instance answered 503 to a live instance, and moves the cookie there', async () => {
    const proxy = { url: info.url } as TestServer;
    const pair = await makePair(proxy);
    const draining = instanceNow(0);
    const drain = await drainHeldListening(draining, pair);
    try {
      // The phone's call reaches the draining instance, which does nothing and says to try again in a second.
      const refused = await client(info.url).get('/api/users/me/profile/', { token: pair.a.token, headers: pinnedTo(0) });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      // Its retry, with the same cookie, goes to the other instance, which takes the cookie.
      const retried = await client(info.url).get('/api/users/me/profile/', { token: pair.a.token, headers: pinnedTo(0) });
      expect(retried.status).toBe(200);
      expect(stickyCookie(retried)).toBe('em_instance=1');
    } finally {
      await drain.release();
    }
    await restartedAfter(draining);
  }, 60_000);

  it('reconnects a socket whose cookie names a draining instance to a live one while that instance drains', async () => {
    const proxy = { url: info.url } as TestServer;
    const pair = await makePair(proxy);
    const draining = instanceNow(1);
    const drain = await drainHeldListening(draining, pair);
    const socket: ClientSocket = io(info.url, {
      path: '/socket.io/',
      auth: { token: pair.b.token },
      transports: ['websocket'],
      extraHeaders: pinnedTo(1),
      forceNew: true,
    });
    try {
      // The draining instance takes the socket and closes it at once; the socket tries again, and
      // is let in while that instance still drains: by the other instance.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the socket did not connect while the instance drained')), 8000);
        socket.once('connect', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    } finally {
      socket.close();
      await drain.release();
    }
    await restartedAfter(draining);
  }, 60_000);
});

/** Stops a cluster and whatever it started (its own process group), unless the whole group is gone already. */
function killGroup(pid: number) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The whole group is gone already.
  }
}

async function waitExit(pid: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`instance ${pid} did not exit after SIGTERM`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm run cluster with no instance ready', () => {
  it('answers 503 in the envelope, in the asker\'s language, with Retry-After', async () => {
    // A database that takes the connection and never answers: the instance never gets ready.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const [port, ...instancePorts] = [await freePort(), await freePort()];
    const cluster = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts'], {
      env: {
        ...process.env,
        CLUSTER_PORT: String(port),
        CLUSTER_INSTANCE_PORTS: instancePorts.join(','),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${(silent.address() as net.AddressInfo).port}/nowhere`,
        LOG_LEVEL: 'fatal',
      },
      stdio: ['ignore', 'ignore', 'ignore'],
      detached: true,
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitUntil(() => fetch(`${url}/readyz`).then(() => true, () => false), 20_000, 'the proxy to listen');
      const response = await client(url).get('/api/users/me/profile/', { headers: { 'accept-language': 'es' } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.body).toEqual({ detail: 'El servidor se está reiniciando; vuelve a enviarlo cuando se reconecte.' });
    } finally {
      killGroup(cluster.pid!);
      silent.close();
    }
  }, 60_000);
});

describe('npm run cluster on a port already taken', () => {
  it('says so in one line and exits 1, having started no instance', async () => {
    // What `npm start` on its default 3000 is to the cluster's default 3000.
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const instancePorts = [await freePort(), await freePort()];
    const cluster = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts'], {
      env: {
        ...process.env,
        CLUSTER_PORT: String(port),
        CLUSTER_INSTANCE_PORTS: instancePorts.join(','),
        // Nowhere: an instance started all the same would stop at its first query.
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
        LOG_LEVEL: 'fatal',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: whatever it started, left behind or not, is stopped with it below.
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    cluster.stdout!.on('data', (chunk) => (stdout += chunk));
    cluster.stderr!.on('data', (chunk) => (stderr += chunk));
    try {
      const code = await new Promise<number | null>((resolve) => cluster.once('exit', resolve));
      expect(stderr.trim()).toBe(`cluster: cannot listen on 127.0.0.1:${port} (CLUSTER_PORT): EADDRINUSE`);
      expect(code).toBe(1);
      // Nothing built, no instance started for a proxy that could not be.
      expect(stdout).toBe('');
    } finally {
      killGroup(cluster.pid!);
      taken.close();
    }
  }, 60_000);
});
