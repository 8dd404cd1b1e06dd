import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { getReport, listReports, type QueuePosition, queueQuery } from '../../server/features/moderation/service';
import { databaseBackends, openTestDatabase } from '../helpers/database';

const backends = await databaseBackends();

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Output?: string[];
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * The moderation queue, on a table of a few thousand reports: each of its two orders walks an index in
 * that order and stops after a page (no sort of every report), and a page reads none of the reports'
 * JSON (their snapshots, their additions), which only one report's own page shows.
 */
describe.each(backends)('the moderation queue’s statement, on %s', (backend, available) => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  let firstReport = 0;
  beforeAll(async () => {
    if (!available) return;
    opened = await openTestDatabase(backend);
    const { db } = opened.database;
    const [first] = rowsOf<{ id: number }>(
      await db.execute(sql`insert into users (email, first_name, last_name)
        select 'queue-' || g || '@example.com', 'Q', 'U' from generate_series(1, 400) g returning id`),
    );
    const base = Number(first!.id);
    // 4,000 reports, one in ten open; each with a snapshot of 50 messages, as a report of a chat keeps.
    const [report] = rowsOf<{ id: number }>(
      await db.execute(sql`insert into reports (reporter_id, reported_id, reason, snapshot, status, resolution, resolved_at, created_at)
        select ${base}::int + g % 200, ${base}::int + 200 + (g / 200) % 200, 'spam',
          jsonb_build_object('profile', null, 'messages', (
            select jsonb_agg(jsonb_build_object('id', m, 'sender', ${base}::int, 'content', repeat('words ', 40), 'time', '2026-01-01T00:00:00.000Z'))
            from generate_series(1, 50) m)),
          case when g % 10 = 0 then 'open' else 'resolved' end,
          case when g % 10 = 0 then null else 'dismiss' end,
          case when g % 10 = 0 then null else now() - g * interval '1 minute' end,
          now() - g * interval '2 minutes'
        from generate_series(1, 4000) g returning id`),
    );
    firstReport = Number(report!.id);
    await db.execute(sql`analyze reports`);
    await db.execute(sql`analyze users`);
    await db.execute(sql`analyze profiles`);
  });
  afterAll(() => opened?.close());

  const planOf = async (status: 'open' | 'resolved', after: QueuePosition | null) => {
    const query = queueQuery(0, { status, after, limit: 50 });
    const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(await opened!.database.db.execute(sql`explain (format json, verbose) ${query}`));
    const plan = typeof row!['QUERY PLAN'] === 'string' ? JSON.parse(row!['QUERY PLAN']) : row!['QUERY PLAN'];
    return (plan as Array<{ Plan: PlanNode }>)[0]!.Plan;
  };

  it.skipIf(!available).each([
    ['resolved', 'reports_resolved'],
    ['open', 'reports_queue'],
  ] as const)('walks the %s reports in order through %s, reading none of their JSON', async (status, index) => {
    const first = await listReports(opened!.database.db, 0, { status, after: null, limit: 50 });
    expect(first.results).toHaveLength(50);
    expect(first.next).not.toBeNull();
    for (const after of [null, first.next]) {
      const plan = await planOf(status, after);
      const nodes = nodesOf(plan);
      expect(nodes.map((node) => node['Index Name']), JSON.stringify(plan)).toContain(index);
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
      expect(plan.Output).not.toContain('r.snapshot');
      expect(plan.Output).not.toContain('r.additions');
    }
  });

  it.skipIf(!available)('still gives one report its snapshot and additions', async () => {
    const report = await getReport(opened!.database.db, 0, firstReport);
    expect(report?.snapshot.messages).toHaveLength(50);
    expect(report?.additions).toEqual([]);
  });
});
