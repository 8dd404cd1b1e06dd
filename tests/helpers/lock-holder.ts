import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { Config } from '../../server/config';
import { createPostgresDatabase } from './database';
import { startServer, type TestServer } from './server';
import { waitUntil } from './socket';

/**
 * A PostgreSQL connection of the test's own, to order a race: it holds a row or a lock in an open
 * transaction while the server's requests (or jobs) run into it, then lets go.
 */
export function lockHolder(holder: postgres.Sql) {
  /** How many connections to this database wait on a lock (a row's or an advisory one). */
  async function waiting(): Promise<number> {
    const [row] = await holder<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    return row!.n;
  }

  return {
    /**
     * Runs `statement` in a transaction of the holder's, left open until the answer is called: rolled
     * back, or committed (a change the server's waiting work must then find made). Its `run` runs
     * another statement in the same transaction meanwhile.
     */
    async hold(statement: string, params: (number | string)[] = []) {
      const session = await holder.reserve();
      await session`begin`;
      await session.unsafe(statement, params);
      const end = async (how: 'rollback' | 'commit' = 'rollback') => {
        await session.unsafe(how);
        session.release();
      };
      return Object.assign(end, { run: (next: string, nextParams: (number | string)[] = []) => session.unsafe(next, nextParams) });
    },
    waiting,
    /** Until `work` has finished, or `waiters` connections wait on a lock (it is as far as it can go); answers whether it finished. */
    async stuckOrDone(work: Promise<unknown>, waiters: number): Promise<boolean> {
      let done = false;
      const settle = () => (done = true);
      void work.then(settle, settle);
      await waitUntil(async () => done || (await waiting()) >= waiters, 5000, `done, or ${waiters} waiting on a lock`);
      return done;
    },
  };
}

export type LockHolder = ReturnType<typeof lockHolder>;

/** The `application_name` of `racesOnPostgres`'s holder. */
const HOLDER_NAME = 'test-lock-holder';

/** The connections to the holder's database that are not the holder's: the server's, say. */
export async function serverConnections(holder: postgres.Sql): Promise<number> {
  const [row] = await holder<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name <> ${HOLDER_NAME}`;
  return row!.n;
}

/**
 * The setup of a describe that races the server on PostgreSQL (a describe skipped, loudly, where the
 * machine has none: `describe.skipIf(!(await hasPostgres()))`). Its hooks start the server on a
 * PostgreSQL database of its own and open the test's own connection to that database, `holder` (two
 * connections at most); after the describe's tests they close both and drop the database. `server`
 * and `holder` are there while the tests run; `hold`, `waiting` and `stuckOrDone` are the holder's,
 * as `lockHolder` makes them.
 */
export function racesOnPostgres(
  options: {
    /** A fresh server and database for each test, for tests that close the server themselves. */
    perTest?: boolean;
    /** The database's deadlock_timeout, for every connection to it (the server's and the holder's). */
    deadlockTimeout?: string;
    /** The server's settings that differ (a smaller pool, say). */
    config?: Partial<Config>;
  } = {},
) {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
  let started: { server: TestServer; holder: postgres.Sql; lock: LockHolder } | undefined;
  const current = () => {
    if (!started) throw new Error('racesOnPostgres: its server and holder are there only while its tests run');
    return started;
  };
  const [before, after] = options.perTest ? [beforeEach, afterEach] : [beforeAll, afterAll];

  before(async () => {
    database = await createPostgresDatabase();
    if (options.deadlockTimeout) {
      const admin = postgres(database.url, { max: 1, onnotice: () => {} });
      await admin.unsafe(`alter database "${new URL(database.url).pathname.slice(1)}" set deadlock_timeout = '${options.deadlockTimeout}'`);
      await admin.end();
    }
    const server = await startServer({ backend: 'postgres', databaseUrl: database.url, config: options.config });
    // Named, so that a test can tell the server's connections from the holder's (`serverConnections`).
    const holder = postgres(database.url, { max: 2, onnotice: () => {}, connection: { application_name: HOLDER_NAME } });
    started = { server, holder, lock: lockHolder(holder) };
  });
  after(async () => {
    await started?.holder.end();
    await started?.server.close();
    await database?.drop();
    started = undefined;
    database = undefined;
  });

  return {
    get server() {
      return current().server;
    },
    get holder() {
      return current().holder;
    },
    hold: (...args: Parameters<LockHolder['hold']>) => current().lock.hold(...args),
    waiting: () => current().lock.waiting(),
    stuckOrDone: (...args: Parameters<LockHolder['stuckOrDone']>) => current().lock.stuckOrDone(...args),
  };
}
