import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, PreparedStatement, rowsOf, twoStepTransaction } from '../../server/db/client';
import { createPostgresDatabase } from '../helpers/database';
import { hasPostgres } from '../helpers/services';

// A table of its own; `total` refuses a negative sum, so the second step can be made to fail.
const SETUP = sql`create table if not exists two_step (id int primary key, total int not null check (total >= 0))`;
const insert = new PreparedStatement<{ id: number; total: number }>(
  sql`insert into two_step (id, total) values (${sql.placeholder('id')}::int, ${sql.placeholder('total')}::int) returning id`,
);
const add = new PreparedStatement<{ id: number; by: number }>(
  sql`update two_step set total = total + ${sql.placeholder('by')}::int where id = ${sql.placeholder('id')}::int returning total`,
);

const backends: Array<['pglite' | 'postgres', boolean]> = [
  ['pglite', true],
  ['postgres', await hasPostgres()],
];

describe.each(backends)('twoStepTransaction on %s', (backend, available) => {
  let database: Database;
  let drop = async () => {};

  beforeAll(async () => {
    if (!available) return;
    if (backend === 'postgres') {
      const created = await createPostgresDatabase();
      drop = created.drop;
      // One connection: whatever a transaction leaves on it, the next call meets.
      database = await openDatabase({ databaseUrl: created.url, dataDir: '', maxConnections: 1 });
    } else {
      database = await openDatabase({ databaseUrl: null, dataDir: '', inMemory: true });
    }
    await database.db.execute(SETUP);
  });
  afterAll(async () => {
    await database?.close();
    await drop();
  });

  const totals = async () =>
    rowsOf<{ id: number; total: number }>(await database.db.execute(sql`select id, total from two_step order by id`)).map((row) => [
      Number(row.id),
      Number(row.total),
    ]);
  /** Two statements in a row share a transaction id only inside a transaction left open (an aborted one refuses them). */
  const inTransaction = async () => {
    const xid = async () => rowsOf<{ id: string }>(await database.db.execute(sql`select pg_current_xact_id()::text as id`))[0]?.id;
    return (await xid()) === (await xid());
  };

  it.skipIf(!available)('commits both statements, the second chosen from the first one’s rows', async () => {
    const rows = await twoStepTransaction<{ id: number }, { total: number }>(database.db, insert.with({ id: 1, total: 5 }), ([row]) =>
      add.with({ id: Number(row!.id), by: 2 }),
    );
    expect(rows?.map((row) => Number(row.total))).toEqual([7]);
    expect(await totals()).toEqual([[1, 7]]);
  });

  it.skipIf(!available)('rolls back the first statement when the second is not wanted', async () => {
    const rows = await twoStepTransaction(database.db, insert.with({ id: 2, total: 1 }), () => null);
    expect(rows).toBeNull();
    expect(await totals()).toEqual([[1, 7]]);
    expect(await inTransaction()).toBe(false);
  });

  it.skipIf(!available)('rolls back both when the second statement fails, and leaves the connection outside any transaction', async () => {
    const attempt = twoStepTransaction(database.db, insert.with({ id: 3, total: 1 }), () => add.with({ id: 1, by: -100 }));
    await expect(attempt).rejects.toThrow(/check constraint/);
    expect(await totals()).toEqual([[1, 7]]);
    expect(await inTransaction()).toBe(false);
  });

  it.skipIf(!available)('rolls back when the first statement fails, or when choosing the second throws', async () => {
    await expect(twoStepTransaction(database.db, insert.with({ id: 1, total: 1 }), () => null)).rejects.toThrow(/duplicate key/);
    const choice = twoStepTransaction(database.db, insert.with({ id: 4, total: 1 }), () => {
      throw new Error('no second statement');
    });
    await expect(choice).rejects.toThrow('no second statement');
    expect(await totals()).toEqual([[1, 7]]);
    expect(await inTransaction()).toBe(false);
  });
});
