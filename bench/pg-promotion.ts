/**
 * What the app's database calls promote to V8's old generation: `npx tsx bench/pg-promotion.ts`.
 *
 * Each row runs in a fresh node process with the server's flags and `--trace-gc-nvp`, on one pool of
 * 10 connections as the app opens it (`openDatabase`), ~RATE operations a second for SECONDS, and sums
 * the bytes each young-generation collection promoted. What is promoted is what the next full GC must
 * collect: in a party, the app's full GCs are where the overlay and message tails gather
 * (bench/README.md). The baseline row is one prepared statement an operation; the others are what a
 * like does (`transactionInOneRoundTrip`: BEGIN, a statement and COMMIT sent together on a reserved
 * connection) and three statements awaited one after the other on the pool. The last three rows leave
 * postgres.js out (`bench/pg-wire.ts`, a bare client on as many connections): three statements written
 * out one after the other, each a plain promise, or each a `Promise` subclass built as postgres.js 3.4.9
 * builds its queries (a closure over the resolving function kept on each), or as our patch builds them.
 * Environment: PROMOTION_RATE (1000), PROMOTION_SECONDS (10).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../scripts/start.mjs';
import { type Db, openDatabase, transactionInOneRoundTrip } from '../server/db/client';
import { createPostgresDatabase } from '../tests/helpers/database';
import { DirectWireQuery, openWire, type Wire, WireQuery } from './pg-wire';
import { gcTrace, root, survivedMedian } from './lib';

const RATE = Number(process.env.PROMOTION_RATE ?? 1000);
const SECONDS = Number(process.env.PROMOTION_SECONDS ?? 10);
const MODES = {
  one: 'one prepared statement (baseline)',
  like: 'a transaction in one round trip (a like)',
  three: 'three prepared statements, one after the other',
  'wire-plain': 'three statements on a bare client, each a plain promise',
  'wire-query': 'three statements on a bare client, each a Promise subclass keeping a closure',
  'wire-direct': 'three statements on a bare client, each a Promise subclass keeping its resolver',
} as const;
type Mode = keyof typeof MODES;

const statement = (i: number) => ({ text: 'select $1::int as n, $2::text as padding', params: [i, 'x'.repeat(50)] });

async function operation(db: Db, mode: Mode, i: number) {
  const client = (db as Db & { $client: import('postgres').Sql }).$client;
  const { text, params } = statement(i);
  const run = () => client.unsafe(text, params as never[], { prepare: true });
  if (mode === 'like') await transactionInOneRoundTrip(db, [statement(i)]);
  else if (mode === 'three') for (let k = 0; k < 3; k += 1) await run();
  else await run();
}

/** The same statement as `statement`, its values written into its text: the simple protocol has none. */
const wireText = (i: number) => `select ${i}::int as n, '${'x'.repeat(50)}'::text as padding`;

// The awaits are written out, not looped: in a script, the same three statements in a `for` loop kept
// nothing alive once optimized, written out they did (bench/README.md).
async function wireOperation(wire: Wire, mode: Mode, i: number) {
  if (mode === 'wire-query') {
    await new WireQuery(wireText(i), wire);
    await new WireQuery(wireText(i), wire);
    await new WireQuery(wireText(i), wire);
  } else if (mode === 'wire-direct') {
    await new DirectWireQuery(wireText(i), wire);
    await new DirectWireQuery(wireText(i), wire);
    await new DirectWireQuery(wireText(i), wire);
  } else {
    const run = () => new Promise<number>((settle) => wire.send({ text: wireText(i), settle }));
    await run();
    await run();
    await run();
  }
}

async function open(mode: Mode, databaseUrl: string) {
  if (mode.startsWith('wire-')) {
    const wire = await openWire(databaseUrl, 10);
    return { operation: (i: number) => wireOperation(wire, mode, i), close: async () => wire.close() };
  }
  const { db, close } = await openDatabase({ databaseUrl, dataDir: os.tmpdir(), maxConnections: 10 });
  return { operation: (i: number) => operation(db, mode, i), close };
}

/** The child: the load, then how many operations it completed (the GC trace goes to stdout too). */
async function child(mode: Mode, databaseUrl: string) {
  const { operation, close } = await open(mode, databaseUrl);
  await operation(0);
  let done = 0;
  let next = 0;
  const start = performance.now();
  // Every 5 ms the operations due, open loop.
  const timer = setInterval(() => {
    for (let k = 0; k < RATE / 200; k += 1) void operation(next++).then(() => (done += 1));
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  clearInterval(timer);
  await new Promise((resolve) => setTimeout(resolve, 200));
  // The load's span, on the clock of the trace's lines (ms since the process began): start-up's
  // collections are not counted.
  console.log(`done=${done} window=${start.toFixed(0)},${performance.now().toFixed(0)}`);
  await close();
}

async function row(mode: Mode, databaseUrl: string) {
  const output = await new Promise<string>((resolve, reject) => {
    const node = spawn(
      process.execPath,
      [...SERVER_NODE_FLAGS, '--trace-gc-nvp', '--import', 'tsx', path.join(root, 'bench/pg-promotion.ts'), '--child', mode, databaseUrl],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    node.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    node.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${mode} exited with ${code}`))));
  });
  const [done = 0, from = 0, to = 0] = (/done=(\d+) window=(\d+),(\d+)/.exec(output) ?? []).slice(1).map(Number);
  const { scavenges, fullGcs } = gcTrace(output, { from, to });
  const promoted = scavenges.reduce((sum, scavenge) => sum + scavenge.promoted, 0);
  // What each scavenge of the run's second half found alive: a few kilobytes (the statements in
  // flight) or, when something keeps the dead alive, all the operations since the scavenge before.
  const halfway = (from + to) / 2;
  const survived = survivedMedian(scavenges.filter((scavenge) => scavenge.at >= halfway));
  return { mode, done, scavenges: scavenges.length, promotedPerOperation: promoted / Math.max(1, done), fullGcs, survivedMedian: survived };
}

if (process.argv[2] === '--child') {
  await child(process.argv[3] as Mode, process.argv[4]!);
} else {
  console.log(`Promotion to the old generation by database call, ${RATE} operations/s for ${SECONDS} s each, one process a row\n`);
  const database = await createPostgresDatabase();
  try {
    const rows = [];
    for (const mode of Object.keys(MODES) as Mode[]) rows.push(await row(mode, database.url));
    const baseline = rows[0]!.promotedPerOperation;
    console.log('| operation | done | scavenges | full GCs | promoted bytes / operation | × baseline | survived a scavenge, median of the second half |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      const survived = `${(r.survivedMedian / 1024).toFixed(0)} KB`;
      console.log(`| ${MODES[r.mode]} | ${r.done} | ${r.scavenges} | ${r.fullGcs} | ${r.promotedPerOperation.toFixed(0)} | ${(r.promotedPerOperation / baseline).toFixed(1)}× | ${survived} |`);
    }
  } finally {
    await database.drop();
  }
}
