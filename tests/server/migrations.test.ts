/**
 * Migrations that change data, applied the way an existing deployment meets them: its database at the
 * migration before, with rows in it, then the app's migrations folder as it ships.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, describe, expect, it } from 'vitest';

const shipped = path.resolve(import.meta.dirname, '../../drizzle');

/** A copy of the migrations folder that stops before the migration tagged `tag`. */
function migrationsBefore(tag: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  cpSync(shipped, dir, { recursive: true });
  const journalPath = path.join(dir, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((entry) => entry.tag === tag);
  expect(at, `a migration tagged ${tag}`).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

describe('0008: accounts signed in with Google count as verified', () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('marks Google accounts verified from their creation, and leaves password accounts to prove theirs', async () => {
    const client = new PGlite();
    const db = drizzle(client);
    const before = migrationsBefore('0008_google_accounts_verified');
    folders.push(before);
    await migrate(db, { migrationsFolder: before });
    await client.exec(`
      insert into users (email, password_hash, first_name, last_name, google_sub, created_at) values
        ('google@example.com', null, 'G', 'Oogle', 'sub-1', '2026-01-02T03:04:05Z'),
        ('both@example.com', 'hash', 'B', 'Oth', 'sub-2', '2026-02-03T04:05:06Z'),
        ('password@example.com', 'hash', 'P', 'Assword', null, '2026-03-04T05:06:07Z');
      insert into users (email, password_hash, first_name, last_name, email_verified_at) values
        ('verified@example.com', 'hash', 'V', 'Erified', '2026-04-05T06:07:08Z');`);

    await migrate(db, { migrationsFolder: shipped });
    const { rows } = await client.query<{ email: string; verified: Date | null }>(
      'select email, email_verified_at as verified from users order by id',
    );
    expect(rows.map((row) => [row.email, row.verified?.toISOString() ?? null])).toEqual([
      ['google@example.com', '2026-01-02T03:04:05.000Z'],
      ['both@example.com', '2026-02-03T04:05:06.000Z'],
      ['password@example.com', null],
      ['verified@example.com', '2026-04-05T06:07:08.000Z'],
    ]);
    await client.close();
  });
});
