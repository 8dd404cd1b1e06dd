/**
 * The PostgreSQL pools `openDatabase` makes: the main pool of `maxConnections`, and the deck's two,
 * each a fifth of it with its own plan setting, whose statements wait their turn on a connection at
 * work rather than open more; the viewer's fit read on the event deck's pool, beside its decks; and
 * the one connection of the writes behind the requests, which no read waits behind.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, deckPoolSize, openDatabase, PreparedStatement, rowsOf } from '../../server/db/client';
import { viewerFitStatement } from '../../server/features/deck/queries';
import { getDeck } from '../../server/features/deck/service';
import { createPostgresDatabase } from '../helpers/database';
import { hasPostgres } from '../helpers/services';

const available = await hasPostgres();
const MAIN = 10;

/** Which backend ran a statement, and under which plan setting. */
interface Served {
  pid: number;
  mode: string;
}

// A statement that holds its connection for a moment, so that the calls below overlap.
const backend = new PreparedStatement<{ ms: number }>(
  sql`select pg_backend_pid() as pid, current_setting('plan_cache_mode') as mode from pg_sleep(${sql.placeholder('ms')}::int / 1000.0)`,
);

describe.skipIf(!available)('the PostgreSQL pools', () => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let database: Database;

  beforeAll(async () => {
    created = await createPostgresDatabase();
    database = await openDatabase({ databaseUrl: created.url, dataDir: '', maxConnections: MAIN });
  });
  afterAll(async () => {
    await database?.close();
    await created?.drop();
  });

  /** What `count` overlapping calls were served by. */
  const overlapping = async (run: () => Promise<Served[]>, count: number) => (await Promise.all(Array.from({ length: count }, run))).flat();

  /** How many backends served `count` overlapping calls, and under which plan settings. */
  async function served(run: () => Promise<Served[]>, count: number) {
    const rows = await overlapping(run, count);
    return { backends: new Set(rows.map((row) => row.pid)).size, modes: new Set(rows.map((row) => row.mode)) };
  }

  it('gives each deck pool a fifth of the main pool, rounded up', () => {
    expect([1, 2, 5, 6, 10, 11, 30].map(deckPoolSize)).toEqual([1, 1, 1, 2, 2, 3, 6]);
  });

  it('runs the deck statements on that many connections, each pool with its plan setting', async () => {
    const calls = 3 * MAIN;
    expect(await served(() => backend.runWithCustomPlan<Served>(database.db, { ms: 50 }), calls)).toEqual({
      backends: deckPoolSize(MAIN),
      modes: new Set(['force_custom_plan']),
    });
    expect(await served(() => backend.runWithGenericPlan<Served>(database.db, { ms: 50 }), calls)).toEqual({
      backends: deckPoolSize(MAIN),
      modes: new Set(['force_generic_plan']),
    });
  });

  it("reads the viewer's fit on the event deck's pool", async () => {
    const eventDeckBackends = (await overlapping(() => backend.runWithGenericPlan<Served>(database.db, { ms: 50 }), 3 * MAIN)).map((row) => row.pid);
    // No such user: the deck is empty, and its fit was read.
    expect(await getDeck(database.db, 2_000_000_000, Buffer.alloc(32))).toEqual({ results: [], next: null });
    const readers = rowsOf<{ pid: number }>(
      await database.db.execute(
        sql`select pid from pg_stat_activity where datname = current_database() and query = ${viewerFitStatement.text}`,
      ),
    ).map((row) => row.pid);
    expect(readers).toHaveLength(1);
    expect(eventDeckBackends).toContain(readers[0]);
  });

  describe('the writes behind the requests', () => {
    // Each write notes the backend that ran it, and that backend's settings.
    const note = new PreparedStatement<{ ms: number }>(
      sql`insert into written_by select pg_backend_pid(), current_setting('plan_cache_mode'), current_setting('synchronous_commit')
        from pg_sleep(${sql.placeholder('ms')}::int / 1000.0)`,
    );
    /** `count` overlapping writes, each `ms` long. */
    const writes = (count: number, ms: number) => Promise.all(Array.from({ length: count }, () => note.writeBehind(database.db, { ms })));
    beforeAll(async () => {
      await database.db.execute(sql`create table written_by (pid int not null, mode text not null, sync text not null)`);
    });

    it('runs them on one connection of its own, on the generic plan, with commits that do not wait for the disk', async () => {
      await writes(3 * MAIN, 20);
      const rows = rowsOf<{ pid: number; mode: string; sync: string }>(await database.db.execute(sql`select * from written_by`));
      expect(rows).toHaveLength(3 * MAIN);
      expect(new Set(rows.map(({ pid, mode, sync }) => `${pid} ${mode} ${sync}`)).size).toBe(1);
      expect(rows[0]).toMatchObject({ mode: 'force_generic_plan', sync: 'off' });
      // The main pool's commits still wait for the disk.
      const [main] = rowsOf<{ sync: string }>(await database.db.execute(sql`select current_setting('synchronous_commit') as sync`));
      expect(main?.sync).toBe('on');
    });

    it('holds no read behind a write that waits (here for a lock)', async () => {
      // Every pool's connections open, and the write's statement parsed on its connections: postgres.js
      // sends nothing behind a statement's first run on a connection (it waits for its description),
      // and a read waiting for a new connection would find none of them.
      const reads = () =>
        Promise.all([
          overlapping(() => backend.runWithGenericPlan<Served>(database.db, { ms: 5 }), 3 * MAIN),
          overlapping(() => backend.runWithCustomPlan<Served>(database.db, { ms: 5 }), 3 * MAIN),
          overlapping(() => backend.run<Served>(database.db, { ms: 5 }), 3 * MAIN),
        ]);
      await Promise.all([reads(), writes(3 * MAIN, 5)]);
      let write: Promise<void> | undefined;
      const outcome = await database.db.transaction(async (tx) => {
        await tx.execute(sql`lock table written_by in exclusive mode`);
        write = note.writeBehind(database.db, { ms: 0 });
        // Every pool's connections, more than once over, while the write waits. A read sent behind
        // the write would wait for the lock, which goes only after this returns: the test would time out.
        return Promise.race([reads().then(() => 'the reads'), write.then(() => 'the write')]);
      });
      expect(outcome).toBe('the reads');
      // The lock gone, the write goes through.
      await write;
    });
  });

  it('runs the other statements on the main pool, with PostgreSQL’s own plan choice', async () => {
    expect(await served(() => backend.run<Served>(database.db, { ms: 50 }), 3 * MAIN)).toEqual({ backends: MAIN, modes: new Set(['auto']) });
  });
});
