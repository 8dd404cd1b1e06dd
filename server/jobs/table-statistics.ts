import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../db/client';
import type { Job } from './job';

/**
 * Autovacuum's own rule for when a table's statistics are stale: more rows changed since its last
 * ANALYZE than 50 plus a tenth of the rows it had then (`autovacuum_analyze_threshold` and
 * `autovacuum_analyze_scale_factor`, PostgreSQL's defaults).
 */
const STALE_AFTER_ROWS = 50;
const STALE_AFTER_SHARE = 0.1;

/**
 * Our tables whose statistics are stale, where nothing else will refresh them: only when no
 * autovacuum launcher runs on the server. The embedded database (PGlite, one backend, no background
 * workers) never has one; a PostgreSQL may have autovacuum turned off. With a launcher this is empty,
 * and autovacuum keeps doing its work.
 */
export async function staleTables(db: DbOrTx): Promise<string[]> {
  const rows = rowsOf<{ name: string }>(
    await db.execute(sql`
      select s.relname as name from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema()
        and s.n_mod_since_analyze > ${STALE_AFTER_ROWS} + ${STALE_AFTER_SHARE} * greatest(c.reltuples, 0)
        and not exists (select 1 from pg_stat_activity where backend_type = 'autovacuum launcher')
      order by s.relname`),
  );
  return rows.map((row) => row.name);
}

/**
 * The planner's statistics, kept fresh where autovacuum does not (`staleTables`). Without them the
 * planner guesses at every table's contents: on a party's database that had never been analyzed, the
 * deck statement scanned every user for the banned ones instead of reading their small index, and
 * ran 2.6 ms where it runs 0.6 ms once the tables are analyzed (bench/README.md). Tables are analyzed
 * one at a time, each in its own short statement.
 */
export const tableStatistics: Job = {
  name: 'table-statistics',
  everyMs: 30 * 1000,
  firstAfterMs: 10 * 1000,
  scope: 'cluster',
  async run(app) {
    const tables = await staleTables(app.db);
    for (const table of tables) await app.db.execute(sql`analyze ${sql.identifier(table)}`);
    return { analyzed: tables.length };
  },
};
