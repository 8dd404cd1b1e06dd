/**
 * What one message batch costs PostgreSQL, by batch size: `npx tsx bench/message-batch.ts`.
 *
 * One connection, one send (or one batch) at a time, on a fresh database; the backend's CPU from
 * /proc/<pid>/stat (Linux) per message, beside a prepared `select 1` (a round trip) and a prepared
 * one-row insert with its commit. The batches go to one conversation, and the last row's to eight (one
 * send each: eight send locks a batch). Then `EXPLAIN (ANALYZE, BUFFERS)` of the batch statement for
 * one message. `N` (default 2000) is the number of operations per row.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import postgres from 'postgres';
import { loadConfig } from '../server/config';
import { openDatabase } from '../server/db/client';
import { batchStatement, createMessageBatcher } from '../server/features/conversations/message-batcher';
import { memoryCounters } from '../server/lib/counters';
import { createLimits, limitRules } from '../server/lib/limits';
import { createPostgresDatabase } from '../tests/helpers/database';
import { processCpuMs } from './lib';

const N = Number(process.env.N ?? 2000);
/** The backend's CPU so far, µs (it is alive for the whole run). */
const cpuMicros = (pid: number) => processCpuMs(pid)! * 1000;

const database = await createPostgresDatabase();
const { db, close } = await openDatabase({ databaseUrl: database.url, dataDir: os.tmpdir(), maxConnections: 1 });
const sql = postgres(database.url, { max: 1, onnotice: () => {} });
try {
  const pairs: Array<{ conversation: number; low: number }> = [];
  for (let i = 0; i < 8; i++) {
    const [low, high] = await sql<{ id: number }[]>`
      insert into users (email, first_name, last_name) values (${`a${i}@example.com`}, 'A', 'B'), (${`b${i}@example.com`}, 'B', 'A') returning id`;
    const [conversation] = await sql<{ id: number }[]>`
      insert into conversations (user_low_id, user_high_id) values (${low!.id}, ${high!.id}) returning id`;
    await sql`insert into conversation_members (conversation_id, user_id) values (${conversation!.id}, ${low!.id}), (${conversation!.id}, ${high!.id})`;
    pairs.push({ conversation: conversation!.id, low: low!.id });
  }
  const conversation = { id: pairs[0]!.conversation };
  const low = { id: pairs[0]!.low };
  // The app's own connection (max 1), so its backend is the one measured.
  const client = (db as unknown as { $client: postgres.Sql }).$client;
  const [{ pid }] = await client<[{ pid: number }]>`select pg_backend_pid() as pid`;
  // Limits in memory, too high to refuse anything: the batch's cost to PostgreSQL is what is measured.
  const limits = createLimits(memoryCounters(), limitRules(loadConfig({ RATE_LIMIT_MULTIPLIER: '1000000' })));
  const batcher = createMessageBatcher(db, { warn: console.warn } as never, limits);
  const send = (pair = pairs[0]!) => batcher.send({ conversationId: pair.conversation, senderId: pair.low, content: 'hello', clientId: randomUUID() });

  console.log(`PostgreSQL backend CPU per message, ${N} operations a row, one at a time; load average ${os.loadavg()[0]!.toFixed(1)}\n`);
  console.log('| operation | µs of backend CPU per message | wall µs per operation |');
  console.log('|---|---:|---:|');
  async function row(name: string, operation: () => Promise<unknown>, messages = 1) {
    for (let i = 0; i < 200; i++) await operation();
    const before = cpuMicros(pid);
    const started = performance.now();
    for (let i = 0; i < N; i++) await operation();
    const wall = performance.now() - started;
    console.log(`| ${name} | ${((cpuMicros(pid) - before) / N / messages).toFixed(0)} | ${((wall * 1000) / N).toFixed(0)} |`);
  }
  await row('prepared `select 1` (a round trip)', () => client.unsafe('select 1', [], { prepare: true }));
  await row('prepared one-row insert and commit', () =>
    client.unsafe('insert into messages (conversation_id, sender_id, content, client_id) values ($1, $2, $3, $4)', [conversation.id, low.id, 'hello', randomUUID()], {
      prepare: true,
    }),
  );
  for (const size of [1, 2, 4, 8]) {
    // Sends of one event-loop turn make one batch.
    await row(`message batch of ${size}`, () => Promise.all(Array.from({ length: size }, () => send())), size);
  }
  await row('message batch of 8, in 8 conversations', () => Promise.all(pairs.map((pair) => send(pair))), pairs.length);

  const items = JSON.stringify([{ idx: 0, conversation_id: conversation.id, sender_id: low.id, content: 'hello', client_id: randomUUID() }]);
  const params = batchStatement.params({ items, conversations: `{${conversation.id}}` }) as string[];
  // The database is dropped at the end: the row EXPLAIN ANALYZE inserts does not matter.
  const plan = await client.unsafe(`explain (analyze, buffers, costs off) ${batchStatement.text}`, params);
  console.log(`\nThe batch statement for one message:\n\n${plan.map((line) => line['QUERY PLAN']).join('\n')}`);
} finally {
  await sql.end();
  await close();
  await database.drop();
}
process.exit(0);
