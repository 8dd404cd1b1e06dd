/**
 * What PostgreSQL's backends were doing, second by second, for a benchmark that needs to know why a
 * few seconds of its run were slow (bench:party's `PARTY_ACTIVITY`). Every 100 ms it reads
 * `pg_stat_activity` for the app's connections: how many were running a statement, what each waited
 * on (`CPU` where nothing), and the longest-running statement. `worst()` lists the seconds with the
 * most backends busy at once; `statements()` which statements the backends were seen running, over
 * the whole run: a sampled profile of PostgreSQL's time by statement, with no extension to load.
 */
import postgres from 'postgres';
import { APP_CONNECTIONS, namedConnections } from './lib';

const SAMPLE_MS = 100;

interface Second {
  /** The most backends active in one sample. */
  busiest: number;
  waits: Map<string, number>;
  longest: { ms: number; query: string };
}

/** How often a statement was seen running, and how often on the CPU (waiting on nothing). */
interface Seen {
  samples: number;
  onCpu: number;
}

interface ActiveRow {
  wait: string;
  query: string;
  running_ms: number;
}

export function sampleActivity(databaseUrl: string) {
  const probe = postgres(namedConnections(databaseUrl, 'bench-activity'), { max: 1, onnotice: () => {} });
  const started = performance.now();
  const seconds = new Map<number, Second>();
  const statements = new Map<string, Seen>();
  let stopped = false;

  const record = (rows: ActiveRow[]) => {
    const at = Math.floor((performance.now() - started) / 1000);
    let second = seconds.get(at);
    if (!second) {
      second = { busiest: 0, waits: new Map(), longest: { ms: 0, query: '' } };
      seconds.set(at, second);
    }
    second.busiest = Math.max(second.busiest, rows.length);
    for (const row of rows) {
      second.waits.set(row.wait, (second.waits.get(row.wait) ?? 0) + 1);
      if (Number(row.running_ms) > second.longest.ms) second.longest = { ms: Number(row.running_ms), query: row.query };
      const seen = statements.get(row.query) ?? { samples: 0, onCpu: 0 };
      seen.samples += 1;
      if (row.wait === 'CPU') seen.onCpu += 1;
      statements.set(row.query, seen);
    }
  };

  const sampling = (async () => {
    while (!stopped) {
      const rows = await probe<ActiveRow[]>`
        select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait,
          left(regexp_replace(query, '\\s+', ' ', 'g'), 140) as query,
          extract(epoch from clock_timestamp() - query_start) * 1000 as running_ms
        from pg_stat_activity
        where datname = current_database() and application_name = ${APP_CONNECTIONS} and state = 'active'`;
      record(rows);
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await sampling;
    await probe.end();
  };

  return {
    /** Stops sampling; the `count` seconds with the most backends active, one line each, in time order. */
    async worst(count: number): Promise<string[]> {
      await stop();
      return [...seconds]
        .sort(([, a], [, b]) => b.busiest - a.busiest)
        .slice(0, count)
        .sort(([a], [b]) => a - b)
        .map(([at, second]) => {
          const waits = [...second.waits]
            .sort(([, a], [, b]) => b - a)
            .map(([wait, n]) => `${wait} ${n}`)
            .join(', ');
          return `${at} s: up to ${second.busiest} backends active (samples by wait: ${waits}); longest ${second.longest.ms.toFixed(0)} ms: ${second.longest.query}`;
        });
    },

    /**
     * Stops sampling; the `count` statements seen running most often, one line each: their share of
     * all the samples of a running statement, the share of their own samples spent on the CPU, and
     * their text (its first 140 characters).
     */
    async statements(count: number): Promise<string[]> {
      await stop();
      const total = [...statements.values()].reduce((sum, seen) => sum + seen.samples, 0);
      return [...statements]
        .sort(([, a], [, b]) => b.samples - a.samples)
        .slice(0, count)
        .map(([query, seen]) =>
          `${((100 * seen.samples) / total).toFixed(1).padStart(5)} % of ${total} (${((100 * seen.onCpu) / seen.samples).toFixed(0)} % on CPU): ${query}`,
        );
    },
  };
}
