import { setTimeout as sleep } from 'node:timers/promises';
import { type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../db/client';
import type { Job } from './job';

/**
 * Autovacuum's own rules for when a table needs its work, at PostgreSQL's defaults: a table is
 * analyzed once more rows changed since its last ANALYZE than 50 plus a tenth of the rows it had then
 * (`autovacuum_analyze_threshold`, `autovacuum_analyze_scale_factor`); it is vacuumed once its dead
 * row versions pass 50 plus a fifth of its rows (`autovacuum_vacuum_threshold`, `…_scale_factor`), or
 * its inserts since the last VACUUM pass 1,000 plus a fifth (`autovacuum_vacuum_insert_threshold`,
 * `…_scale_factor`), so that pages of rows that never change are marked all-visible and frozen too.
 */
const ANALYZE_AFTER = { rows: 50, share: 0.1 };
const VACUUM_AFTER_DEAD = { rows: 50, share: 0.2 };
const VACUUM_AFTER_INSERTS = { rows: 1000, share: 0.2 };

/** Whether `count` passes `after` for the table `c` (`pg_class`), by the rows it had at its last analysis. */
const past = (count: SQL, after: { rows: number; share: number }) => sql`${count} > ${after.rows} + ${after.share} * greatest(c.reltuples, 0)`;

/** Nothing is to be done while an autovacuum launcher runs on the server: autovacuum does it. */
const noAutovacuum = sql`not exists (select 1 from pg_stat_activity where backend_type = 'autovacuum launcher')`;

/** A table, by its schema and name. */
export interface Table {
  schema: string;
  name: string;
}

const qualified = (table: Table): SQL => sql`${sql.identifier(table.schema)}.${sql.identifier(table.name)}`;

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
        and ${past(sql`s.n_mod_since_analyze`, ANALYZE_AFTER)}
        and ${noAutovacuum}
      order by s.relname`),
  );
  return rows.map((row) => row.name);
}

/**
 * The database's tables that need a VACUUM, where nothing else will run one (as `staleTables`): those
 * with dead row versions or inserts past autovacuum's thresholds, the system catalogs among them
 * (every ANALYZE rewrites rows of `pg_statistic`), and any table whose oldest unfrozen transaction id
 * or multixact is older than the server's `autovacuum_freeze_max_age` or
 * `autovacuum_multixact_freeze_max_age`. VACUUM makes that last kind of pass aggressive itself, which
 * keeps the database away from transaction id wraparound, where PostgreSQL refuses every write.
 * Only tables we may vacuum: a superuser may vacuum any, a table's owner that table, the database's
 * owner any but the catalogs shared by every database (VACUUM would skip the rest with a warning, at
 * every run; PostgreSQL 17's MAINTAIN privilege, granted apart from ownership, is not looked at).
 * `freezeAfter` stands in for both ages (tests; the server's settings otherwise).
 */
export async function tablesToVacuum(db: DbOrTx, { freezeAfter }: { freezeAfter?: number } = {}): Promise<Table[]> {
  const xidAge = freezeAfter ?? sql`current_setting('autovacuum_freeze_max_age')::bigint`;
  const multixactAge = freezeAfter ?? sql`current_setting('autovacuum_multixact_freeze_max_age')::bigint`;
  return rowsOf<Table>(
    await db.execute(sql`
      select n.nspname as schema, c.relname as name
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_stat_all_tables s on s.relid = c.oid
      where c.relkind in ('r', 'm') and c.relpersistence <> 't'
        and (pg_has_role(c.relowner, 'USAGE')
          or (not c.relisshared and pg_has_role((select datdba from pg_database where datname = current_database()), 'USAGE')))
        and (${past(sql`s.n_dead_tup`, VACUUM_AFTER_DEAD)}
          or ${past(sql`s.n_ins_since_vacuum`, VACUUM_AFTER_INSERTS)}
          or age(c.relfrozenxid) > ${xidAge}
          or mxid_age(c.relminmxid) > ${multixactAge})
        and ${noAutovacuum}
      order by n.nspname, c.relname`),
  );
}

/**
 * What autovacuum does, where none runs (`staleTables`, `tablesToVacuum`): the embedded database
 * never has it, and a PostgreSQL may have it off. Without statistics the planner guesses at every
 * table's contents: on a party's database that had never been analyzed, the deck statement scanned
 * every user for the banned ones instead of reading their small index, and ran 2.6 ms where it runs
 * 0.6 ms once the tables are analyzed (bench/README.md). Without VACUUM, dead row versions pile up in
 * the tables and their indexes (an attendee's profile row is rewritten each minute they are active),
 * and the transaction ids march towards wraparound. Tables are vacuumed, then analyzed, one at a time,
 * each in its own statement; on the embedded database (one backend) requests wait while each runs.
 *
 * Once a minute, as autovacuum visits each database (`autovacuum_naptime`): in a busy party the
 * tables that grow (reactions, likes) are due at every run, and each ANALYZE of them (30,000 rows
 * sampled and sorted) ran 40–130 ms. At 30 s, a party's REST requests slowed in a burst at each run
 * (90–190 requests over 30 ms in the second after it, on a VM of two cores; bench/README.md).
 *
 * Paced, as autovacuum is by its cost delay: between two statements the job rests `REST_PER_MS_RUN`
 * times as long as the first of them ran, so that it takes at most a third of one core, and requests
 * queued behind a statement (on the embedded database, every request) go ahead before the next
 * table's. A run that took 0.5 s at once now spreads over nearly 1.5 s. When the process stops, the run ends
 * after the statement in flight; the tables left are due again at the next start.
 */
export const tableUpkeep: Job = {
  name: 'table-upkeep',
  everyMs: 60 * 1000,
  firstAfterMs: 10 * 1000,
  scope: 'cluster',
  async run(app, stopping) {
    const next = pacer(stopping);
    let vacuumed = 0;
    for (const table of await tablesToVacuum(app.db)) {
      if (!(await next(() => app.db.execute(sql`vacuum ${qualified(table)}`)))) break;
      vacuumed += 1;
    }
    let analyzed = 0;
    for (const name of await staleTables(app.db)) {
      if (!(await next(() => app.db.execute(sql`analyze ${sql.identifier(name)}`)))) break;
      analyzed += 1;
    }
    return { vacuumed, analyzed };
  },
};

/** The job's rest between two statements, per ms the first of them ran. */
const REST_PER_MS_RUN = 2;

/**
 * Runs the job's statements one at a time, each after resting in proportion to the one before it;
 * a statement is not begun once the process is stopping (the answer is then false).
 */
function pacer(stopping: AbortSignal) {
  let owed = 0;
  return async (statement: () => Promise<unknown>): Promise<boolean> => {
    if (owed > 0) await sleep(owed, undefined, { signal: stopping }).catch(() => {});
    if (stopping.aborted) return false;
    const started = performance.now();
    await statement();
    owed = (performance.now() - started) * REST_PER_MS_RUN;
    return true;
  };
}
