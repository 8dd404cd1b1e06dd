import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { databaseBackends, openTestDatabase } from '../helpers/database';

const backends = await databaseBackends();

/**
 * The event deck's plan is made once for every viewer, from `reactions`' statistics: how many likes
 * one person received is estimated as the reactions over the people who received any. A party's first
 * minute, when everybody likes the same few people, must not make that estimate hundreds.
 */
describe.each(backends)('the planner’s estimate of the likes one person received, on %s', (backend, available) => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  beforeAll(async () => {
    if (available) opened = await openTestDatabase(backend);
  });
  afterAll(() => opened?.close());

  it.skipIf(!available)('stays a few dozen when 400 people all liked the same 5', async () => {
    const { db } = opened!.database;
    await db.execute(sql`insert into users (email, first_name, last_name)
      select 'skew-' || g || '@example.com', 'S', 'K' from generate_series(1, 405) g`);
    // Users 1–5 are liked by everyone else: 2,000 reactions, 5 people who received any.
    await db.execute(sql`insert into reactions (from_user_id, to_user_id, kind)
      select f.id, t.id, 'like' from users f, users t where t.id <= 5 and f.id > 5`);
    await db.execute(sql`analyze reactions`);
    // One transaction, so that the setting, the statement and its plan share one session.
    const estimate = await db.transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
      await tx.execute(sql.raw(`prepare liked_by(int) as select 1 from reactions where to_user_id = $1 and kind = 'like'`));
      const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(await tx.execute(sql.raw('explain (format json) execute liked_by(1)')));
      await tx.execute(sql.raw('deallocate liked_by'));
      const plan = typeof row!['QUERY PLAN'] === 'string' ? JSON.parse(row!['QUERY PLAN']) : row!['QUERY PLAN'];
      return (plan as Array<{ Plan: { 'Plan Rows': number } }>)[0]!.Plan['Plan Rows'];
    });
    // Estimated from the sample alone: 2,000 reactions over 5 people, 400 each.
    expect(estimate).toBeLessThan(50);
  });
});
