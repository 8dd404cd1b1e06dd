import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, PreparedStatement, rowsOf, transactionInOneRoundTrip } from '../../server/db/client';
import { databaseBackends, openTestDatabase } from '../helpers/database';

// A table of its own; `total` refuses a negative sum, so a statement can be made to fail.
const SETUP = sql`create table if not exists one_trip (id int primary key, total int not null check (total >= 0))`;
const insert = new PreparedStatement<{ id: number; total: number }>(
  sql`insert into one_trip (id, total) values (${sql.placeholder('id')}::int, ${sql.placeholder('total')}::int) returning id`,
);
const add = new PreparedStatement<{ id: number; by: number }>(
  sql`update one_trip set total = total + ${sql.placeholder('by')}::int where id = ${sql.placeholder('id')}::int returning total`,
);
const lock = new PreparedStatement<{ key: number }>(sql`select pg_advisory_xact_lock(${sql.placeholder('key')}::bigint)`);
const count = new PreparedStatement<{ id: number }>(sql`select count(*)::int as n from one_trip where id = ${sql.placeholder('id')}::int`);

const backends = await databaseBackends();

describe.each(backends)('transactionInOneRoundTrip on %s', (backend, available) => {
  let database: Database;
  let url: string | null = null;
  let close = async () => {};

  beforeAll(async () => {
    if (!available) return;
    ({ database, url, close } = await openTestDatabase(backend));
    await database.db.execute(SETUP);
  });
  afterAll(() => close());

  const totals = async () =>
    rowsOf<{ id: number; total: number }>(await database.db.execute(sql`select id, total from one_trip order by id`)).map((row) => [
      Number(row.id),
      Number(row.total),
    ]);
  /** Two statements in a row share a transaction id only inside a transaction left open (an aborted one refuses them). */
  const inTransaction = async () => {
    const xid = async () => rowsOf<{ id: string }>(await database.db.execute(sql`select pg_current_xact_id()::text as id`))[0]?.id;
    return (await xid()) === (await xid());
  };

  it.skipIf(!available)('commits every statement in order and answers each one’s rows', async () => {
    const [inserted, added] = await transactionInOneRoundTrip<[{ id: number }[], { total: number }[]]>(database.db, [
      insert.with({ id: 1, total: 5 }),
      add.with({ id: 1, by: 2 }),
    ]);
    expect(inserted.map((row) => Number(row.id))).toEqual([1]);
    expect(added.map((row) => Number(row.total))).toEqual([7]);
    expect(await totals()).toEqual([[1, 7]]);
    expect(await inTransaction()).toBe(false);
  });

  it.skipIf(!available)('rolls back every statement when the last fails, and leaves the connection outside any transaction', async () => {
    const attempt = transactionInOneRoundTrip(database.db, [insert.with({ id: 3, total: 1 }), add.with({ id: 1, by: -100 })]);
    await expect(attempt).rejects.toThrow(/check constraint/);
    expect(await totals()).toEqual([[1, 7]]);
    expect(await inTransaction()).toBe(false);
  });

  it.skipIf(!available)('fails with the first statement’s own error, and runs nothing after it', async () => {
    // The insert fails; the add after it would have succeeded on its own.
    const attempt = transactionInOneRoundTrip(database.db, [insert.with({ id: 1, total: 1 }), add.with({ id: 1, by: 1 })]);
    await expect(attempt).rejects.toThrow(/duplicate key/);
    expect(await totals()).toEqual([[1, 7]]);
    expect(await inTransaction()).toBe(false);
  });

  // PostgreSQL only: PGlite has one connection, so nothing else can hold a lock while a transaction waits for it.
  if (backend !== 'postgres') return;
  it.skipIf(!available)(
    'starts each statement after the one before: it sees what was committed while that one waited for a lock',
    async () => {
      const other = postgres(url!, { max: 1, onnotice: () => {} });
      try {
        let held = () => {};
        const locked = new Promise<void>((resolve) => (held = resolve));
        const committed = other.begin(async (tx) => {
          await tx`select pg_advisory_xact_lock(42)`;
          await tx`insert into one_trip (id, total) values (10, 1)`;
          held();
          // Kept open until ours is seen waiting for the lock: only then does this transaction commit.
          while ((await tx`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`)[0]!.n === 0) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        });
        await locked;
        const ours = transactionInOneRoundTrip<[unknown[], { n: number }[]]>(database.db, [lock.with({ key: 42 }), count.with({ id: 10 })]);
        await committed;
        const [, counted] = await ours;
        expect(counted.map((row) => Number(row.n))).toEqual([1]);
      } finally {
        await other.end();
      }
    },
  );
});

describe('prepared statements on PGlite', () => {
  let database: Database;
  let close = async () => {};
  beforeAll(async () => {
    ({ database, close } = await openTestDatabase('pglite'));
    await database.db.execute(SETUP);
  });
  afterAll(() => close());

  /** The statements this PGlite session holds parsed under a name by the protocol (not SQL's PREPARE). */
  const named = async (text: string) =>
    rowsOf<{ name: string }>(await database.db.execute(sql`select name from pg_prepared_statements where statement = ${text} and not from_sql`));

  it('parses a statement once under a name and runs that one at every call, in a transaction too', async () => {
    expect(await named(count.text)).toEqual([]);
    expect((await count.run<{ n: number }>(database.db, { id: 1 })).map((row) => row.n)).toEqual([0]);
    const [first] = await named(count.text);
    expect(first?.name).toBeTruthy();
    await insert.run(database.db, { id: 1, total: 2 });
    const [, [counted]] = await transactionInOneRoundTrip<[unknown[], { n: number }[]]>(database.db, [add.with({ id: 1, by: 1 }), count.with({ id: 1 })]);
    expect(counted?.n).toBe(1);
    expect(await named(count.text)).toEqual([first]);
  });

  it("fails with the database's own error, and the next call runs as if nothing had happened", async () => {
    await expect(insert.run(database.db, { id: 1, total: 5 })).rejects.toMatchObject({ code: '23505' });
    await expect(add.run(database.db, { id: 1, by: -100 })).rejects.toThrow(/check constraint/);
    expect(await insert.run<{ id: number }>(database.db, { id: 2, total: 5 })).toEqual([{ id: 2 }]);
    expect((await count.run<{ n: number }>(database.db, { id: 2 })).map((row) => row.n)).toEqual([1]);
    // A text that cannot be parsed names nothing; the next new text is parsed under a name of its own.
    await expect(new PreparedStatement(sql`select nothing_here from one_trip`).run(database.db, {})).rejects.toThrow(/nothing_here/);
    const sum = new PreparedStatement(sql`select sum(total)::int as total from one_trip`);
    expect(await sum.run(database.db, {})).toEqual([{ total: 8 }]);
    expect(await named(sum.text)).toHaveLength(1);
  });
});
