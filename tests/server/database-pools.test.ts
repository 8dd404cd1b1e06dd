/**
 * The PostgreSQL pools `openDatabase` makes: the main pool of `maxConnections`, and the deck's two,
 * each a third of it with its own plan setting, whose statements wait their turn on a connection at
 * work rather than open more.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, deckPoolSize, openDatabase, PreparedStatement } from '../../server/db/client';
import { createPostgresDatabase } from '../helpers/database';
import { hasPostgres } from '../helpers/services';

const available = await hasPostgres();
const MAIN = 6;

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

  /** How many backends served `count` overlapping calls, and under which plan settings. */
  async function served(run: () => Promise<Served[]>, count: number) {
    const rows = (await Promise.all(Array.from({ length: count }, run))).flat();
    return { backends: new Set(rows.map((row) => row.pid)).size, modes: new Set(rows.map((row) => row.mode)) };
  }

  it('gives each deck pool a third of the main pool, rounded up', () => {
    expect([1, 2, 3, 4, 6, 10, 30].map(deckPoolSize)).toEqual([1, 1, 1, 2, 2, 4, 10]);
  });

  it('runs the deck statements on that many connections, each pool with its plan setting', async () => {
    const overlapping = 3 * MAIN;
    expect(await served(() => backend.runWithCustomPlan<Served>(database.db, { ms: 50 }), overlapping)).toEqual({
      backends: deckPoolSize(MAIN),
      modes: new Set(['force_custom_plan']),
    });
    expect(await served(() => backend.runWithGenericPlan<Served>(database.db, { ms: 50 }), overlapping)).toEqual({
      backends: deckPoolSize(MAIN),
      modes: new Set(['force_generic_plan']),
    });
  });

  it('runs the other statements on the main pool, with PostgreSQL’s own plan choice', async () => {
    expect(await served(() => backend.run<Served>(database.db, { ms: 50 }), 3 * MAIN)).toEqual({ backends: MAIN, modes: new Set(['auto']) });
  });
});
