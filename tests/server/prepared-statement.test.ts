import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, PreparedStatement } from '../../server/db/client';
import { databaseBackends, openTestDatabase } from '../helpers/database';

const backends = await databaseBackends();

// A value the statement uses three times, one used once, and one written in.
const statement = new PreparedStatement<{ n: number; word: string }>(
  sql`select ${sql.placeholder('n')}::int + ${sql.placeholder('n')}::int as twice, ${sql.placeholder('word')}::text as word,
    ${7}::int as written_in, ${sql.placeholder('n')}::int * 10 as tenfold`,
);

describe('a prepared statement', () => {
  it('sends one parameter for each named value, however often the text uses it', () => {
    expect(statement.text.match(/\$\d+/g)).toEqual(['$1', '$1', '$2', '$3', '$1']);
    expect(statement.params({ n: 4, word: 'hola' })).toEqual([4, 'hola', 7]);
  });
});

describe.each(backends)('a prepared statement on %s', (backend, available) => {
  let database: Database;
  let close = async () => {};
  beforeAll(async () => {
    if (!available) return;
    ({ database, close } = await openTestDatabase(backend));
  });
  afterAll(() => close());

  it.skipIf(!available)('gives every use of a value the value, named or written in', async () => {
    for (const [n, word] of [[4, 'hola'], [-2, 'adiós']] as const) {
      const [row] = await statement.run<{ twice: number; word: string; written_in: number; tenfold: number }>(database.db, { n, word });
      expect(row).toEqual({ twice: 2 * n, word, written_in: 7, tenfold: 10 * n });
    }
  });
});
