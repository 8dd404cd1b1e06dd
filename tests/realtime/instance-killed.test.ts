import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../scripts/start.mjs';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { freePort } from '../helpers/ports';
import { startServer, type TestServer } from '../helpers/server';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';
import { type ClientSocket, connect, record, socketsClosedAfterEach, waitFor, waitUntil } from '../helpers/socket';
import { createPostgresDatabase } from '../helpers/database';
import { match, newClientId, storedMessages } from './fixtures';

const ready = (await hasPostgres()) && (await hasRedis());
const root = path.resolve(import.meta.dirname, '../..');

// One instance a real process, killed with SIGKILL while its sockets' sends and likes are in flight;
// the other in this process, on the same PostgreSQL and Redis. Nothing acknowledged may be lost or told
// twice, and what was not acknowledged, sent again with its client_id elsewhere, is stored once.
describe.skipIf(!ready)('an instance killed with SIGKILL', { timeout: 120_000 }, () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let dataDir: string;
  let doomed: { url: string; child: ChildProcess } | undefined;
  let live: TestServer;
  const sockets = socketsClosedAfterEach();
  const prefix = `test-killed-${process.pid}-${Date.now()}`;

  async function startDoomed() {
    const port = await freePort();
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', path.join(root, 'server/main.ts')], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        REDIS_URL,
        REDIS_PREFIX: prefix,
        DATA_DIR: dataDir,
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_TIME_COST: '1',
        LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const url = `http://127.0.0.1:${port}`;
    await waitUntil(
      () => fetch(`${url}/readyz`).then((r) => r.ok, () => false),
      60_000,
      'the doomed instance ready',
    );
    return { url, child };
  }

  async function kill() {
    const { child } = doomed!;
    const exited = new Promise((resolve) => (child.exitCode === null && child.signalCode === null ? child.once('exit', resolve) : resolve(null)));
    child.kill('SIGKILL');
    await exited;
    doomed = undefined;
  }

  beforeAll(async () => {
    database = await createPostgresDatabase({ migrated: true });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-killed-'));
    live = await startServer({ backend: 'postgres', databaseUrl: database.url, config: { redisUrl: REDIS_URL, redisPrefix: prefix } });
  }, 120_000);

  afterAll(async () => {
    if (doomed) await kill();
    await live?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores once each message sent again by its client_id, and tells Ben of each one sent again', async () => {
    doomed = await startDoomed();
    const proxy = { url: doomed.url } as TestServer;
    const ana = await makeCompletedUser(live, { name: 'Ana' }, { firstName: 'Ana' });
    const ben = await makeCompletedUser(live, { name: 'Ben' }, { firstName: 'Ben' });
    const conversationId = await match(live, ana, ben, proxy);
    const anaSocket = await connect(doomed.url, ana.token);
    sockets.keep(anaSocket);
    const benSocket = await sockets.connect(live.url, ben.token);
    const benEvents = record(benSocket);

    // A burst, the instance killed as its answers come back.
    const payloads = Array.from({ length: 14 }, (_, i) => ({ conversation_id: conversationId, content: `m${i}`, client_id: newClientId() }));
    const acked = new Set<string>();
    const answers = payloads.map((payload) =>
      anaSocket
        .timeout(10_000)
        .emitWithAck('message:send', payload)
        .then(
          (ack) => {
            if (!ack.ok) return;
            acked.add(payload.client_id);
            // Killed the moment its first answer comes back: the rest are in flight.
            if (acked.size === 1) doomed?.child.kill('SIGKILL');
          },
          () => {},
        ),
    );
    const disconnected = new Promise((resolve) => anaSocket.once('disconnect', resolve));
    await waitUntil(() => acked.size >= 1, 10_000, 'a send answered');
    await kill();
    await disconnected;
    await Promise.all(answers);
    anaSocket.close();

    // Ana's outbox sends again, on the live instance, everything not answered.
    const again = await sockets.connect(live.url, ana.token);
    for (const payload of payloads.filter((p) => !acked.has(p.client_id))) {
      const ack = await again.emitWithAck('message:send', payload);
      expect(ack.ok, JSON.stringify(ack)).toBe(true);
    }

    const stored = await storedMessages(live, ben.token, conversationId);
    expect(stored.map((m) => m.content)).toEqual(payloads.map((p) => p.content));
    // Ben is on the live instance all along. One told by both instances (stored and told by the dead
    // one, its answer lost, then sent again) comes twice, by one id: his thread holds it once.
    const heardIds = benEvents.filter((e) => e.event === 'message:new').map((e) => (e.payload as { message: { id: number } }).message.id);
    // Each one sent again was told again: the dead instance may have stored it and gone before telling.
    // One it answered may have gone untold (its publish died with it): a later message's previous_id
    // shows Ben's thread the gap, which it reads again, and a reconnect catches up on the rest.
    const resent = stored.filter((m) => !acked.has(payloads.find((p) => p.content === m.content)!.client_id));
    for (const message of resent) expect(heardIds).toContain(message.id);
  });

  it('tells both phones of a match made on an instance killed as it answers', async () => {
    doomed = await startDoomed();
    const proxy = { url: doomed.url } as TestServer;
    const pairs = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const a = await makeCompletedUser(live, { name: `A${i}` }, { firstName: `A${i}` });
        const b = await makeCompletedUser(live, { name: `B${i}` }, { firstName: `B${i}` });
        expect((await client(live.url).post('/api/matching/', { token: a.token, json: { response: 'like', other: b.id } })).body.match).toBe(false);
        return { a, b };
      }),
    );
    const aSockets = await Promise.all(pairs.map(({ a }) => sockets.connect(live.url, a.token)));
    const aEvents = aSockets.map(record);
    // Each b likes back on the doomed instance; it is killed while those requests are in flight.
    let answered = 0;
    const likes = pairs.map(({ a, b }) =>
      client(proxy.url)
        .post('/api/matching/', { token: b.token, json: { response: 'like', other: a.id } })
        .then((r) => (r.status === 200 ? (answered++, r.body) : null), () => null),
    );
    await waitUntil(() => answered >= 1, 10_000, 'a like answered');
    await kill();
    const answers = await Promise.all(likes);
    // Each b's phone sends its like again, as a retry, to the live instance (its answer was lost or not).
    for (const [i, { a, b }] of pairs.entries()) {
      const retried = await client(live.url).post('/api/matching/', { token: b.token, json: { response: 'like', other: a.id, retry: true } });
      expect(retried.status).toBe(200);
      expect(retried.body.match).toBe(true);
      if (answers[i]) expect(answers[i].conversation_id).toBe(retried.body.conversation_id);
      await waitUntil(() => aEvents[i]!.some((e) => e.event === 'match:new'), 5000, `A${i} told of the match`);
    }
  });
});
