/**
 * A database in memory (each test server's) keeps a small buffer pool: its pages are in memory
 * already, and PGlite zeroes the whole pool at every start, which for PostgreSQL's 128 MB was half of
 * the second of CPU a test server took to start. It opens from a small dump of a migrated database
 * (`migratedMemorySnapshot`): every file of the dump is copied in at each start.
 */
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { openMemoryDatabase } from '../helpers/database';

it('starts a database in memory with a 16 MB buffer pool', async () => {
  const database = await openMemoryDatabase();
  try {
    expect(rowsOf(await database.db.execute(sql`show shared_buffers`))).toEqual([{ shared_buffers: '16MB' }]);
  } finally {
    await database.close();
  }
});

it('opens from a migrated dump without template databases or WAL kept far ahead', async () => {
  const database = await openMemoryDatabase();
  try {
    expect(rowsOf(await database.db.execute(sql`select datname from pg_database order by datname`))).toEqual([{ datname: 'postgres' }]);
    expect(rowsOf(await database.db.execute(sql`show min_wal_size`))).toEqual([{ min_wal_size: '2MB' }]);
    expect(rowsOf(await database.db.execute(sql`select count(*)::int as count from users`))).toEqual([{ count: 0 }]);
  } finally {
    await database.close();
  }
});
