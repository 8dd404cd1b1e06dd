/**
 * A deleted account's person and events deleted in PostHog (POSTHOG_PERSONAL_API_KEY), against the
 * local fake of PostHog: after the deletion has answered, and until PostHog has done it, whatever
 * PostHog does meanwhile and across a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { posthogErasures } from '../../server/db/schema';
import { runJob } from '../../server/jobs';
import { posthogErasure } from '../../server/jobs/posthog-erasure';
import { type FakePostHog, startFakePostHog } from '../fakes/posthog';
import { makeUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { waitUntil } from '../helpers/socket';
import { startServer, startTwoInstances, type TestServer, type TwoInstances } from '../helpers/server';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';

const EVENTS = '/api/analytics/events/';

describe('deleting a deleted account in PostHog', () => {
  let posthog: FakePostHog;
  const servers: TestServer[] = [];
  // Each test's own: every test's database numbers its users from 1, the distinct ids PostHog knows.
  beforeEach(async () => {
    posthog = await startFakePostHog();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await posthog?.close();
  });

  async function start(options: { dataDir?: string; sendTimeoutMs?: number } = {}) {
    const server = await startServer({
      ...(options.dataDir ? { dataDir: options.dataDir, onDisk: true } : {}),
      config: {
        posthog: { ...posthog.appConfig, sendTimeoutMs: options.sendTimeoutMs ?? posthog.appConfig.sendTimeoutMs },
      },
    });
    servers.push(server);
    return server;
  }

  /**
   * `test` given a data folder of its own, which its servers keep on disk for the next one to start
   * over; the servers are closed and the folder removed after it, whatever it did.
   */
  async function withDataDir(test: (dataDir: string) => Promise<void>) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-erasure-'));
    try {
      await test(dataDir);
    } finally {
      await Promise.all(servers.splice(0).map((server) => server.close()));
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  /** Stops a server as a restart does: what it recorded stays in its data folder. */
  async function stop(server: TestServer) {
    await server.close();
    servers.splice(servers.indexOf(server), 1);
  }

  /** An account with an event in PostHog, deleted: answered 204. */
  async function deleteOne(server: TestServer) {
    const user = await makeUser(server);
    expect((await client(server.url).post(EVENTS, { token: user.token, json: { name: 'app_opened' } })).status).toBe(204);
    await server.app.analytics.flush();
    const deleted = await client(server.url).delete('/api/users/me/', { token: user.token, json: { password: user.password } });
    expect(deleted.status).toBe(204);
    return String(user.id);
  }

  const erasures = (server: TestServer) =>
    server.app.db.select({ distinctId: posthogErasures.distinctId, attempts: posthogErasures.attempts }).from(posthogErasures);
  const attemptsAt = (fake: FakePostHog) => fake.requests.filter((request) => request.path.endsWith('/persons/bulk_delete/')).length;

  it('PostHog down: the account is deleted at once; its person there once PostHog is back', async () => {
    const server = await start();
    posthog.personApi.state = 'down';
    const distinctId = await deleteOne(server);
    // Tried once due, refused, and kept for later, with a wait before the next try.
    await waitUntil(async () => (await erasures(server)).some((row) => row.attempts === 1), 10_000, 'the first attempt failed');
    expect(attemptsAt(posthog)).toBe(1);
    expect(posthog.deleted).not.toContain(distinctId);
    expect(await runJob(server.app, posthogErasure)).toMatchObject({ status: 'done', report: { erased: 0, failed: 0 } });
    expect(attemptsAt(posthog)).toBe(1);

    // Still down when the wait is over (set as if 30 s had passed): waits longer the next time.
    await server.app.db.execute(sql`update posthog_erasures set next_attempt_at = now()`);
    expect(await runJob(server.app, posthogErasure)).toMatchObject({ status: 'done', report: { erased: 0, failed: 1 } });
    const [waits] = rowsOf<{ seconds: number }>(await server.app.db.execute(sql`select extract(epoch from next_attempt_at - now())::int as seconds from posthog_erasures`));
    expect(Number(waits!.seconds)).toBeGreaterThan(45);
    expect(Number(waits!.seconds)).toBeLessThanOrEqual(60);

    posthog.personApi.state = 'up';
    await server.app.db.execute(sql`update posthog_erasures set next_attempt_at = now()`);
    expect(await runJob(server.app, posthogErasure)).toMatchObject({ status: 'done', report: { erased: 1, failed: 0 } });
    expect(posthog.deleted).toContain(distinctId);
    expect(posthog.events.filter((event) => event.distinct_id === distinctId)).toEqual([]);
    expect(await erasures(server)).toEqual([]);
  });

  it('PostHog not answering: the deletion does not wait for it, and a restart in between still deletes it there', async () => {
    await withDataDir(async (dataDir) => {
      const first = await start({ dataDir });
      posthog.personApi.state = 'hanging';
      const distinctId = await deleteOne(first);
      // Answered with PostHog still to answer: the erasure is recorded, not done.
      expect(posthog.deleted).not.toContain(distinctId);
      expect((await erasures(first)).map((row) => row.distinctId)).toEqual([distinctId]);
      await waitUntil(() => attemptsAt(posthog) > 0, 10_000, 'the erasure tried');
      // Stopped with the attempt in flight.
      await stop(first);

      posthog.personApi.state = 'up';
      const second = await start({ dataDir });
      expect((await erasures(second)).map((row) => row.distinctId)).toEqual([distinctId]);
      expect(await runJob(second.app, posthogErasure)).toMatchObject({ status: 'done', report: { erased: 1 } });
      expect(posthog.deleted).toContain(distinctId);
      expect(await erasures(second)).toEqual([]);
    });
  });

  it('erases them there after a restart that came before the erasure was due', async () => {
    await withDataDir(async (dataDir) => {
      // Batches that may take a minute: the erasure is due two minutes after the deletion.
      const first = await start({ dataDir, sendTimeoutMs: 60_000 });
      const distinctId = await deleteOne(first);
      await stop(first);

      const second = await start({ dataDir });
      // Not before it is due, the restart notwithstanding: a batch of theirs may still be on its way.
      expect(await runJob(second.app, posthogErasure)).toMatchObject({ status: 'done', report: { erased: 0 } });
      expect(attemptsAt(posthog)).toBe(0);
      const [waits] = rowsOf<{ seconds: number }>(await second.app.db.execute(sql`select extract(epoch from next_attempt_at - now())::int as seconds from posthog_erasures`));
      expect(Number(waits!.seconds)).toBeGreaterThan(60);
      expect(Number(waits!.seconds)).toBeLessThanOrEqual(120);

      // Then it is (set as if the two minutes had passed).
      await second.app.db.execute(sql`update posthog_erasures set next_attempt_at = now()`);
      expect(await runJob(second.app, posthogErasure)).toMatchObject({ status: 'done', report: { erased: 1 } });
      expect(posthog.deleted).toContain(distinctId);
      expect(await erasures(second)).toEqual([]);
    });
  });

  it('records nothing to erase without the personal API key', async () => {
    const server = await startServer({ config: { posthog: { ...posthog.appConfig, erasure: null } } });
    servers.push(server);
    await deleteOne(server);
    expect(await erasures(server)).toEqual([]);
  });
});

describe.skipIf(!((await hasPostgres()) && (await hasRedis())))('a deleted account erased in PostHog, with two instances', () => {
  let posthog: FakePostHog;
  let cluster: TwoInstances;
  beforeAll(async () => {
    posthog = await startFakePostHog();
    cluster = await startTwoInstances({ redisUrl: REDIS_URL, config: { posthog: posthog.appConfig } });
  });
  afterAll(async () => {
    await cluster?.close();
    await posthog?.close();
  });

  it('sends no event of theirs that another instance held when they were erased there', async () => {
    const { one, two } = cluster;
    const [gone, staying] = [await makeUser(one), await makeUser(one)];
    const distinctId = String(gone.id);
    expect((await client(one.url).post(EVENTS, { token: gone.token, json: { name: 'app_opened' } })).status).toBe(204);
    await one.app.analytics.flush();
    // Their next event, and someone else's, held by instance two (its queue not sent yet) as the account goes on one.
    for (const user of [gone, staying]) {
      expect((await client(two.url).post(EVENTS, { token: user.token, json: { name: 'app_opened' } })).status).toBe(204);
    }
    expect((await client(one.url).delete('/api/users/me/', { token: gone.token, json: { password: gone.password } })).status).toBe(204);
    await waitUntil(() => posthog.deleted.includes(distinctId), 10_000, 'the person erased in PostHog');

    // Instance two sends what it held: never theirs, which would make the person again there.
    await two.app.analytics.flush();
    expect(posthog.events.filter((event) => event.distinct_id === String(staying.id)).map((event) => event.event)).toContain('app_opened');
    expect(posthog.events.filter((event) => event.distinct_id === distinctId)).toEqual([]);
  });

  it('erases them there only once no batch checked before the deletion can still arrive', async () => {
    const { one, two } = cluster;
    const [gone, staying] = [await makeUser(one), await makeUser(one)];
    const distinctId = String(gone.id);
    await one.app.analytics.flush();
    // Their next event, and someone else's, checked by instance two (the account still there) and on
    // its way to PostHog as the account goes on one.
    posthog.capture.state = 'holding';
    for (const user of [gone, staying]) {
      expect((await client(two.url).post(EVENTS, { token: user.token, json: { name: 'app_opened' } })).status).toBe(204);
    }
    const sending = two.app.analytics.flush();
    await waitUntil(() => posthog.held.length === 1, 10_000, 'the batch on its way');
    expect((await client(one.url).delete('/api/users/me/', { token: gone.token, json: { password: gone.password } })).status).toBe(204);

    // At worst it is still on its way when the erasure is: it must not arrive after it.
    await waitUntil(() => posthog.deleted.includes(distinctId), 10_000, 'the erasure');
    posthog.release();
    await sending;
    expect(posthog.events.filter((event) => event.distinct_id === distinctId)).toEqual([]);
    // Given up on the way, and sent again, checked again: without theirs.
    expect(posthog.events.filter((event) => event.distinct_id === String(staying.id)).map((event) => event.event)).toContain('app_opened');
  });
});
