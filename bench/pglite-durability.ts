/**
 * What the embedded database's durability costs: PGlite as it ships (PostgreSQL with fsync off, and
 * a filesystem that drops fsync) beside PGlite as the server opens it (server/db/client.ts: fsync on,
 * the WAL flushed to disk at every commit), in the same run, on the same disk.
 *
 *   npx tsx bench/pglite-durability.ts                 # 2,000 one-row commits, 200 twenty-row ones
 *   npx tsx bench/pglite-durability.ts --commits 5000 --dir /var/tmp   # another disk
 *
 * Each figure is printed beside the shipped one as a ratio (durable ÷ shipped). Each mode starts from a
 * database of its own, made before the clock starts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../server/db/client';

const { values: args } = parseArgs({
  options: {
    commits: { type: 'string', default: '2000' },
    batches: { type: 'string', default: '200' },
    dir: { type: 'string', default: os.tmpdir() },
  },
});
const commits = Number(args.commits);
const batches = Number(args.batches);

interface Query {
  query(text: string, params?: unknown[]): Promise<unknown>;
  exec(text: string): Promise<unknown>;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

async function measure(db: Query) {
  await db.exec('create table bench_durability (id bigserial primary key, body text not null)');
  const body = 'a message of about a hundred characters, as people send them at a party: where are you now?';
  const one: number[] = [];
  const started = performance.now();
  for (let i = 0; i < commits; i++) {
    const t = performance.now();
    await db.query('insert into bench_durability (body) values ($1)', [body]);
    one.push(performance.now() - t);
  }
  const oneElapsed = performance.now() - started;
  const batch: number[] = [];
  for (let i = 0; i < batches; i++) {
    const t = performance.now();
    await db.exec(`begin; ${Array.from({ length: 20 }, () => `insert into bench_durability (body) values ('${body}');`).join(' ')} commit;`);
    batch.push(performance.now() - t);
  }
  one.sort((a, b) => a - b);
  batch.sort((a, b) => a - b);
  return {
    'one-row commits per second': commits / (oneElapsed / 1000),
    'one-row commit p50 (ms)': percentile(one, 50),
    'one-row commit p99 (ms)': percentile(one, 99),
    'twenty-row commit p50 (ms)': percentile(batch, 50),
    'twenty-row commit p99 (ms)': percentile(batch, 99),
  };
}

const root = await mkdtemp(path.join(args.dir!, 'eventmatch-durability-'));
try {
  // As PGlite ships.
  const shipped = new PGlite(path.join(root, 'shipped'));
  await shipped.waitReady;
  const baseline = await measure(shipped);
  await shipped.close();

  // As the server opens it (migrations included, as at start-up).
  const database = await openDatabase({ databaseUrl: null, dataDir: path.join(root, 'durable') });
  const client = (database.db as unknown as { $client: PGlite }).$client;
  const durable = await measure(client);
  await database.close();

  const reopenStarted = performance.now();
  const reopened = await openDatabase({ databaseUrl: null, dataDir: path.join(root, 'durable') });
  const reopenMs = performance.now() - reopenStarted;
  await reopened.close();

  console.log(`PGlite durability on ${args.dir} (${commits} one-row commits, ${batches} twenty-row commits)\n`);
  console.log(`${'figure'.padEnd(30)} ${'shipped'.padStart(10)} ${'durable'.padStart(10)} ${'ratio'.padStart(7)}`);
  for (const [name, value] of Object.entries(baseline)) {
    const other = durable[name as keyof typeof durable];
    console.log(`${name.padEnd(30)} ${value.toFixed(2).padStart(10)} ${other.toFixed(2).padStart(10)} ${(other / value).toFixed(2).padStart(7)}`);
  }
  console.log(`\nreopening the durable database (migrations checked): ${reopenMs.toFixed(0)} ms`);
} finally {
  await rm(root, { recursive: true, force: true });
}
