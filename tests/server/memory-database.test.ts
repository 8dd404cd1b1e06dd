/**
 * A database in memory (each test server's) keeps a small buffer pool: its pages are in memory
 * already, and PGlite zeroes the whole pool at every start, which for PostgreSQL's 128 MB was half of
 * the second of CPU a test server took to start.
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
