/**
 * What a user's first page of `started/` costs PostgreSQL, by how many conversations the user has:
 * `npx tsx bench/conversation-list.ts`.
 *
 * One user matched with N others, 40 messages in each conversation (inserted in random order, so a
 * conversation's messages are spread over the table), nothing read yet. The app's own connection
 * (max 1) runs `conversationListQuery` 300 times a size; the backend's CPU comes from /proc/<pid>/stat.
 * Environment: LIST_CONVERSATIONS ("30,300,3000"), LIST_RUNS (300).
 */
import os from 'node:os';
import type postgres from 'postgres';
import { openDatabase } from '../server/db/client';
import { conversationListQuery } from '../server/features/conversations/queries';
import { createPostgresDatabase } from '../tests/helpers/database';
import { processCpuMs } from './lib';

const SIZES = (process.env.LIST_CONVERSATIONS ?? '30,300,3000').split(',').map(Number);
const RUNS = Number(process.env.LIST_RUNS ?? 300);
const MESSAGES = 40;
const PAGE = 20;

console.log(`The first page of started/ (${PAGE} conversations), ${RUNS} runs a size; load average ${os.loadavg()[0]!.toFixed(1)}\n`);
console.log('| conversations | p50 ms | p99 ms | backend CPU µs a page |');
console.log('|---:|---:|---:|---:|');
for (const size of SIZES) {
  const database = await createPostgresDatabase();
  const opened = await openDatabase({ databaseUrl: database.url, dataDir: os.tmpdir(), maxConnections: 1 });
  try {
    const sql = (opened.db as unknown as { $client: postgres.Sql }).$client;
    await sql`insert into users (email, first_name, last_name) select 'u' || g || '@example.com', 'U' || g, 'X' from generate_series(1, ${size + 1}) g`;
    await sql`insert into profiles (user_id, name) select id, first_name from users`;
    const [me] = await sql<{ id: number }[]>`select min(id) as id from users`;
    await sql`insert into conversations (user_low_id, user_high_id) select ${me!.id}, id from users where id > ${me!.id}`;
    await sql`insert into conversation_members (conversation_id, user_id)
      select id, user_low_id from conversations union all select id, user_high_id from conversations`;
    await sql`insert into messages (conversation_id, sender_id, content, created_at)
      select c.id, case when s % 2 = 0 then c.user_low_id else c.user_high_id end, 'line ' || s,
        now() - interval '1 day' + (s * c.id % 5000) * interval '1 second'
      from conversations c cross join generate_series(1, ${MESSAGES}) s order by random()`;
    await sql`vacuum analyze`;
    const [{ pid }] = await sql<[{ pid: number }]>`select pg_backend_pid() as pid`;
    const page = () => conversationListQuery(opened.db, me!.id, 'started', null, PAGE);
    for (let i = 0; i < 20; i++) await page();
    const walls: number[] = [];
    const before = processCpuMs(pid)!;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await page();
      walls.push(performance.now() - started);
    }
    const cpu = ((processCpuMs(pid)! - before) * 1000) / RUNS;
    walls.sort((a, b) => a - b);
    const at = (q: number) => walls[Math.min(walls.length - 1, Math.floor(walls.length * q))]!.toFixed(2);
    console.log(`| ${size} | ${at(0.5)} | ${at(0.99)} | ${cpu.toFixed(0)} |`);
  } finally {
    await opened.close();
    await database.drop();
  }
}
process.exit(0);
