/**
 * PostgreSQL's time by statement over a benchmark's run, from `pg_stat_statements` (bench:party's
 * `PARTY_STATEMENTS`): calls, how often each was planned, and its planning and execution time. Where
 * `activity-sampler.ts` samples what the backends were seen running, this counts every call, and it
 * tells planning from running: a prepared statement that PostgreSQL plans afresh at every call (its
 * generic plan's estimate dearer than a custom plan's) shows as plans ≈ calls.
 *
 * The module must be loaded when the server starts (`shared_preload_libraries = 'pg_stat_statements'`,
 * and `pg_stat_statements.track_planning = on` for the planning columns); without it this says so and
 * the benchmark runs on. Only the benchmark's own database is counted.
 */
import postgres from 'postgres';
import { namedConnections } from './lib';

interface StatementRow {
  calls: string;
  plans: string;
  exec_ms: number;
  plan_ms: number;
  query: string;
}

export async function statementStats(databaseUrl: string) {
  const probe = postgres(namedConnections(databaseUrl, 'bench-statements'), { max: 1, onnotice: () => {} });
  const close = () => probe.end({ timeout: 5 });
  const [loaded] = await probe<{ on: boolean }[]>`
    select current_setting('shared_preload_libraries') ~ 'pg_stat_statements' as on`;
  if (!loaded?.on) {
    await close();
    return { unavailable: "pg_stat_statements is not in PostgreSQL's shared_preload_libraries" } as const;
  }
  await probe`create extension if not exists pg_stat_statements`;
  const [{ planning } = { planning: false }] = await probe<{ planning: boolean }[]>`
    select current_setting('pg_stat_statements.track_planning')::bool as planning`;
  const thisDatabase = probe`(select oid from pg_database where datname = current_database())`;

  return {
    /** Counts from here on. */
    async begin() {
      await probe`select pg_stat_statements_reset(0, ${thisDatabase}, 0)`;
    },
    /** The `limit` statements that took the most time since `begin`, as table lines. */
    async top(limit: number): Promise<string[]> {
      const rows = await probe<StatementRow[]>`
        select calls, plans, total_exec_time as exec_ms, total_plan_time as plan_ms, query
        from pg_stat_statements where dbid = ${thisDatabase} and calls > 0
        order by total_exec_time + total_plan_time desc`;
      await close();
      const total = rows.reduce((sum, row) => sum + row.exec_ms + row.plan_ms, 0);
      const lines = rows.slice(0, limit).map((row) => {
        const ms = row.exec_ms + row.plan_ms;
        const text = row.query.replace(/\s+/g, ' ').slice(0, 90);
        return `| ${row.calls} | ${planning ? row.plans : '–'} | ${row.exec_ms.toFixed(0)} | ${planning ? row.plan_ms.toFixed(0) : '–'} | ${((1000 * ms) / Number(row.calls)).toFixed(0)} | ${((100 * ms) / total).toFixed(1)} % | ${text} |`;
      });
      return ['| calls | plans | running ms | planning ms | µs a call | share | statement |', '|---:|---:|---:|---:|---:|---:|---|', ...lines];
    },
  };
}
