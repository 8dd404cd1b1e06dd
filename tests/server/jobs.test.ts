import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { type Job, jobs, runJob, startJobs } from '../../server/jobs';
import { type Database, type DbOrTx, openDatabase, rowsOf } from '../../server/db/client';
import { lockKey } from '../../server/jobs/job';
import { endedConversationsPurge } from '../../server/jobs/ended-conversations-purge';
import { orphanFileSweep } from '../../server/jobs/orphan-file-sweep';
import { staleTables, tablesToVacuum, tableUpkeep } from '../../server/jobs/table-upkeep';
import { bannedPlanStop } from '../../server/jobs/banned-plan-stop';
import { testPlanEnd } from '../../server/jobs/test-plan-end';
import { uploadSweep } from '../../server/jobs/upload-sweep';
import { users } from '../../server/db/schema';
import { makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { cancelThroughTestPortal, subscribeThroughTestCheckout } from '../helpers/plan';
import { createPostgresDatabase } from '../helpers/database';
import { serverPerSuite, startTwoInstances, type TestServer, type TwoInstances } from '../helpers/server';
import { hasPostgres, POSTGRES_ADMIN_URL } from '../helpers/services';
import { waitUntil } from '../helpers/socket';

/** A job that holds its turn until released, counting its runs and how many ran at once. */
function heldJob(scope: Job['scope'] = 'cluster') {
  let release: () => void = () => {};
  let gate = Promise.resolve();
  const state = { runs: 0, active: 0, mostAtOnce: 0 };
  const job: Job = {
    name: `test-job-${randomBytes(4).toString('hex')}`,
    everyMs: 20,
    firstAfterMs: 1,
    scope,
    async run() {
      state.runs += 1;
      state.active += 1;
      state.mostAtOnce = Math.max(state.mostAtOnce, state.active);
      try {
        await gate;
      } finally {
        state.active -= 1;
      }
      return { runs: 1 };
    },
  };
  return {
    job,
    state,
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
  };
}

describe.skipIf(!(await hasPostgres()))('background jobs on two instances of one PostgreSQL database', () => {
  let cluster: TwoInstances;
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    cluster = await startTwoInstances();
    ({ one, two } = cluster);
  });
  afterAll(() => cluster?.close());

  it('runs a cluster job on one instance at a time: the other skips its turn until the first is done', async () => {
    const held = heldJob();
    held.hold();
    const first = runJob(one.app, held.job);
    await waitUntil(() => held.state.runs === 1, 5000, 'the first run to start');
    expect(await runJob(two.app, held.job)).toEqual({ status: 'skipped' });
    expect(await runJob(one.app, held.job)).toEqual({ status: 'skipped' });
    held.release();
    expect(await first).toMatchObject({ status: 'done', report: { runs: 1 } });
    // The lock went with the run: the other instance has its turn now.
    expect(await runJob(two.app, held.job)).toMatchObject({ status: 'done', report: { runs: 1 } });
    expect(held.state).toMatchObject({ runs: 2, mostAtOnce: 1 });
  });

  it('runs the timers of every instance, never two runs at once across them', async () => {
    const held = heldJob();
    const runners = [startJobs(one.app, [held.job]), startJobs(two.app, [held.job])];
    try {
      await waitUntil(() => held.state.runs >= 10, 10_000, 'ten runs');
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
    }
    expect(held.state.mostAtOnce).toBe(1);
    // stop() waited for the runs in flight.
    expect(held.state.active).toBe(0);
  });

  it('runs an instance job on every instance at once', async () => {
    const held = heldJob('instance');
    held.hold();
    const runs = [runJob(one.app, held.job), runJob(two.app, held.job)];
    await waitUntil(() => held.state.runs === 2, 5000, 'both runs to start');
    expect(held.state.mostAtOnce).toBe(2);
    held.release();
    expect(await Promise.all(runs)).toMatchObject([{ status: 'done' }, { status: 'done' }]);
  });

  it('skips while another process holds the lock, and runs once that process is gone', async () => {
    const held = heldJob();
    // Another process on the same database, holding the job's lock on its own connection.
    const other = postgres(cluster.databaseUrl, { max: 1, onnotice: () => {} });
    await other`select pg_advisory_lock(${String(lockKey(held.job.name))}::bigint)`;
    expect(await runJob(one.app, held.job)).toEqual({ status: 'skipped' });
    // It dies without unlocking: PostgreSQL releases a session's locks with its connection.
    await other.end();
    expect(await runJob(one.app, held.job)).toMatchObject({ status: 'done' });
  });

  it('reports a failing run, and the next one runs', async () => {
    let calls = 0;
    const flaky: Job = {
      name: `test-flaky-${randomBytes(4).toString('hex')}`,
      everyMs: 1000,
      scope: 'cluster',
      async run() {
        calls += 1;
        if (calls === 1) throw new Error('the first run fails');
        return { done: 1 };
      },
    };
    expect(await runJob(one.app, flaky)).toMatchObject({ status: 'failed', error: new Error('the first run fails') });
    expect(await runJob(one.app, flaky)).toMatchObject({ status: 'done', report: { done: 1 } });
  });

  it('runs the sweeps and purges of the process as jobs, under their locks', async () => {
    expect(await runJob(one.app, uploadSweep)).toMatchObject({ status: 'done', report: { swept: 0 } });
    expect(await runJob(two.app, endedConversationsPurge)).toMatchObject({ status: 'done', report: { messages: 0 } });
    expect(await runJob(one.app, orphanFileSweep)).toMatchObject({ status: 'done', report: { photos: 0, evidence: 0, failed: 0 } });
  });
});

/** Rows enough to make a table's statistics stale by autovacuum's rule (50 + 10 % of its rows). */
const ANALYTICS_ROWS = "insert into analytics_events (name) select 'app_opened' from generate_series(1, 200)";
/** Then dead row versions enough for a VACUUM by autovacuum's rule (50 + 20 % of its rows). */
const ANALYTICS_DELETED = "delete from analytics_events where name = 'app_opened'";
/** Inserts enough for a VACUUM by autovacuum's rule (1,000 + 20 % of its rows), into a table left empty. */
const ANALYTICS_MANY_ROWS = "insert into analytics_events (name) select 'app_opened' from generate_series(1, 1200)";

const tableStats = async (app: TestServer['app']) =>
  rowsOf<{ analyzed: Date | string | null; vacuums: number; dead: number }>(
    await app.db.execute(sql`
      select last_analyze as analyzed, vacuum_count::int as vacuums, n_dead_tup::int as dead
      from pg_stat_user_tables where relname = 'analytics_events' and schemaname = current_schema()`),
  )[0]!;

/** `tablesToVacuum`'s answer as `schema.name`. */
const toVacuum = async (db: DbOrTx, options?: Parameters<typeof tablesToVacuum>[1]) =>
  (await tablesToVacuum(db, options)).map((table) => `${table.schema}.${table.name}`);

/** Analyzes what went stale, once its changes reach the statistics, and then nothing more. */
async function expectStaleTablesAnalyzed(app: TestServer['app']) {
  await waitUntil(async () => (await staleTables(app.db)).includes('analytics_events'), 15_000, 'the inserts to reach the statistics');
  expect((await tableStats(app)).analyzed).toBeNull();
  const outcome = await runJob(app, tableUpkeep);
  expect(outcome).toMatchObject({ status: 'done' });
  expect(outcome.status === 'done' && outcome.report.analyzed).toBeGreaterThanOrEqual(1);
  expect((await tableStats(app)).analyzed).not.toBeNull();
  expect(await staleTables(app.db)).not.toContain('analytics_events');
  expect(await runJob(app, tableUpkeep)).toMatchObject({ status: 'done', report: { analyzed: 0 } });
}

/**
 * Vacuums analytics_events once `change` reaches the statistics, clearing its dead row versions, and
 * then leaves it be. Answers what the statistics held before the run. (Only this table is looked at
 * afterwards: on PostgreSQL, the catalogs every database shares take dead rows from the other test
 * files' databases, created and dropped meanwhile, and may fall due at any moment.)
 */
async function expectVacuumedAfter(app: TestServer['app'], change: () => Promise<unknown>) {
  const { vacuums } = await tableStats(app);
  await change();
  await waitUntil(async () => (await toVacuum(app.db)).includes('public.analytics_events'), 15_000, 'the change to reach the statistics');
  const before = await tableStats(app);
  const outcome = await runJob(app, tableUpkeep);
  expect(outcome).toMatchObject({ status: 'done' });
  expect(outcome.status === 'done' && outcome.report.vacuumed).toBeGreaterThanOrEqual(1);
  expect(await tableStats(app)).toMatchObject({ vacuums: vacuums + 1, dead: 0 });
  expect(await toVacuum(app.db)).not.toContain('public.analytics_events');
  expect(await runJob(app, tableUpkeep)).toMatchObject({ status: 'done' });
  expect((await tableStats(app)).vacuums).toBe(vacuums + 1);
  return before;
}

describe.skipIf(!(await hasPostgres()))('table upkeep on PostgreSQL', () => {
  const server = serverPerSuite({ backend: 'postgres' });
  let launcherRuns = false;
  beforeAll(async () => {
    const [launcher] = rowsOf<{ running: boolean }>(
      await server.app.db.execute(sql`select exists (select 1 from pg_stat_activity where backend_type = 'autovacuum launcher') as running`),
    );
    launcherRuns = launcher?.running ?? false;
  });

  /** Runs a statement on a connection of its own, whose statistics are flushed at once rather than when it idles. */
  const runFlushed = (statement: string) => async () => {
    const client = postgres(server.config.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      await client.unsafe(statement);
      await client`select pg_stat_force_next_flush()`;
      await client`select 1`;
    } finally {
      await client.end();
    }
  };

  it('analyzes and vacuums when no autovacuum runs, and leaves it all to autovacuum when it does', async () => {
    if (launcherRuns) {
      await runFlushed(ANALYTICS_ROWS)();
      await runFlushed(ANALYTICS_DELETED)();
      expect(await staleTables(server.app.db)).toEqual([]);
      expect(await tablesToVacuum(server.app.db)).toEqual([]);
      expect(await runJob(server.app, tableUpkeep)).toMatchObject({ status: 'done', report: { analyzed: 0, vacuumed: 0 } });
      return;
    }
    await runFlushed(ANALYTICS_ROWS)();
    await expectStaleTablesAnalyzed(server.app);
    expect((await expectVacuumedAfter(server.app, runFlushed(ANALYTICS_DELETED))).dead).toBeGreaterThan(50);
    expect((await expectVacuumedAfter(server.app, runFlushed(ANALYTICS_MANY_ROWS))).dead).toBe(0);
  });
});

describe.skipIf(!(await hasPostgres()))('table upkeep as the database\'s owner, not a superuser', () => {
  const role = `upkeep_${randomBytes(4).toString('hex')}`;
  let admin: postgres.Sql;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let owned: Database;
  beforeAll(async () => {
    admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create role ${role} login`);
    database = await createPostgresDatabase({ owner: role });
    const url = new URL(database.url);
    url.username = role;
    owned = await openDatabase({ databaseUrl: url.toString(), dataDir: '', maxConnections: 1 });
  });
  afterAll(async () => {
    await owned?.close();
    await database?.drop();
    await admin.unsafe(`drop role if exists ${role}`);
    await admin.end();
  });

  it('lists only the tables it may vacuum: its own and its database\'s catalogs, not the shared ones', async () => {
    const tables = await toVacuum(owned.db, { freezeAfter: 0 });
    expect(tables).toEqual(expect.arrayContaining(['pg_catalog.pg_class', 'public.users']));
    expect(tables).not.toContain('pg_catalog.pg_database');
    // A superuser may vacuum the shared catalogs too, and has them listed in the same database.
    const superuser = await openDatabase({ databaseUrl: database.url, dataDir: '', maxConnections: 1 });
    try {
      const all = await toVacuum(superuser.db, { freezeAfter: 0 });
      expect(all).toEqual(expect.arrayContaining(['pg_catalog.pg_class', 'pg_catalog.pg_database', 'public.users']));
    } finally {
      await superuser.close();
    }
  });
});

describe('background jobs on the embedded database', () => {
  const server = serverPerSuite();

  it('keeps one run of a job at a time in the one process that holds the database', async () => {
    const held = heldJob();
    held.hold();
    const first = runJob(server.app, held.job);
    await waitUntil(() => held.state.runs === 1, 5000, 'the first run to start');
    expect(await runJob(server.app, held.job)).toEqual({ status: 'skipped' });
    held.release();
    expect(await first).toMatchObject({ status: 'done' });
  });

  it('starts only the jobs whose configuration it has (`runsWith`)', async () => {
    const wanted = heldJob();
    const unwanted = heldJob();
    const runner = startJobs(server.app, [{ ...wanted.job, runsWith: (config) => config === server.app.config }, { ...unwanted.job, runsWith: () => false }]);
    try {
      await waitUntil(() => wanted.state.runs >= 3, 5000, 'the wanted job to run a few times');
      expect(unwanted.state.runs).toBe(0);
    } finally {
      await runner.stop();
    }
  });

  it('tries again to stop a banned account’s plan at Stripe whenever there is a key, whatever the checkout mode', () => {
    expect(jobs).toContain(bannedPlanStop);
    for (const mode of ['test', 'stripe', 'off'] as const) {
      for (const secretKey of ['sk_test_key', null]) {
        const config = { ...server.app.config, checkoutMode: mode, stripe: { ...server.app.config.stripe, secretKey } };
        expect(bannedPlanStop.runsWith?.(config), `${mode}, key ${secretKey}`).toBe(secretKey !== null);
      }
    }
  });

  it('ends, every minute, the test plans cancelled at a period’s end once it has passed; whatever the checkout mode', async () => {
    expect(jobs).toContain(testPlanEnd);
    expect(testPlanEnd).toMatchObject({ scope: 'cluster', everyMs: 60 * 1000 });
    // Test plans given before a switch to Stripe, or off, must end too (tests/server/payments.test.ts).
    for (const mode of ['test', 'stripe', 'off'] as const) {
      expect(testPlanEnd.runsWith?.({ ...server.app.config, checkoutMode: mode }) ?? true, mode).toBe(true);
    }
    const [due, later, kept] = await Promise.all([makeUser(server), makeUser(server), makeUser(server)]);
    for (const user of [due, later, kept]) await subscribeThroughTestCheckout(server, user);
    await cancelThroughTestPortal(server, due);
    await cancelThroughTestPortal(server, later);
    await server.app.db.update(users).set({ planEndsAt: new Date(Date.now() - 1000) }).where(eq(users.id, due.id));

    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { ended: 1 } });
    const plan = async (user: TestUser) => (await client(server.url).get('/api/payments/subscription/', { token: user.token })).body;
    expect(await plan(due)).toMatchObject({ active: false, ends_at: null });
    // Its period not over yet: it keeps the plan, and says until when.
    expect(await plan(later)).toMatchObject({ active: true, renews_at: null, ends_at: expect.any(String) });
    expect(await plan(kept)).toMatchObject({ active: true, renews_at: expect.any(String), ends_at: null });
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { ended: 0 } });
  });

  it('runs the orphan file sweep every 6 hours, on one instance at a time, its first run minutes after start', () => {
    expect(jobs).toContain(orphanFileSweep);
    expect(orphanFileSweep).toMatchObject({ scope: 'cluster', everyMs: 6 * 60 * 60 * 1000, firstAfterMs: 5 * 60 * 1000 });
  });

  const run = (statement: string) => () => server.app.db.execute(sql.raw(statement));

  it('keeps the planner statistics fresh: PGlite has no autovacuum', async () => {
    await run(ANALYTICS_ROWS)();
    await expectStaleTablesAnalyzed(server.app);
  });

  it('vacuums a table once its dead row versions or its inserts pass autovacuum\'s thresholds', async () => {
    // The deleted rows are dead row versions; the inserts after them leave none.
    expect((await expectVacuumedAfter(server.app, run(ANALYTICS_DELETED))).dead).toBeGreaterThan(50);
    expect((await expectVacuumedAfter(server.app, run(ANALYTICS_MANY_ROWS))).dead).toBe(0);
  });

  it('vacuums any table whose transaction ids grow old, the system catalogs among them', async () => {
    const tables = await toVacuum(server.app.db, { freezeAfter: 0 });
    expect(tables).toEqual(expect.arrayContaining(['pg_catalog.pg_class', 'public.users', 'public.reports']));
    // At the server's own ages (200 million transactions), a table nobody writes to is not due.
    expect(await toVacuum(server.app.db)).not.toContain('public.reports');
  });

  it('stops between tables when the process stops its jobs, and leaves the rest for the next run', async () => {
    await run(ANALYTICS_MANY_ROWS)();
    await waitUntil(async () => (await staleTables(server.app.db)).includes('analytics_events'), 15_000, 'the inserts to reach the statistics');
    const stopped = new AbortController();
    stopped.abort();
    expect(await runJob(server.app, tableUpkeep, stopped.signal)).toMatchObject({ status: 'done', report: { vacuumed: 0, analyzed: 0 } });
    expect(await staleTables(server.app.db)).toContain('analytics_events');
    const outcome = await runJob(server.app, tableUpkeep);
    expect(outcome.status === 'done' && outcome.report.analyzed).toBeGreaterThanOrEqual(1);
    expect(await staleTables(server.app.db)).not.toContain('analytics_events');
  });
});
