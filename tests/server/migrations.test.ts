/**
 * Migrations that change data, applied the way an existing deployment meets them: its database at the
 * migration before the first of them, with rows in it, then the app's migrations folder as it ships.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const shipped = path.resolve(import.meta.dirname, '../../drizzle');

/** A copy of the migrations folder that stops before the migration tagged `tag`. */
function migrationsBefore(tag: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  cpSync(shipped, dir, { recursive: true });
  const journalPath = path.join(dir, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((entry) => entry.tag === tag);
  if (at < 1) throw new Error(`no migration tagged ${tag}`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

// PGlite's WebAssembly start and the whole schema's migrations: tens of seconds on a busy machine.
describe('data migrations, from a database made before them', { timeout: 120_000 }, () => {
  const client = new PGlite();
  const before = migrationsBefore('0008_google_accounts_verified');

  beforeAll(async () => {
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: before });
    await client.exec(`
      insert into users (id, email, password_hash, first_name, last_name, google_sub, created_at) values
        (1, 'google@example.com', null, 'G', 'Oogle', 'sub-1', '2026-01-02T03:04:05Z'),
        (2, 'both@example.com', 'hash', 'B', 'Oth', 'sub-2', '2026-02-03T04:05:06Z'),
        (3, 'password@example.com', 'hash', 'P', 'Assword', null, '2026-03-04T05:06:07Z');
      insert into users (id, email, password_hash, first_name, last_name, email_verified_at) values
        (4, 'verified@example.com', 'hash', 'V', 'Erified', '2026-04-05T06:07:08Z');
      -- 1 subscribed monthly, then yearly; 2 subscribed once and left an open checkout after; 3 never paid.
      update users set stripe_subscription_id = 'sub_' || id where id in (1, 2);
      insert into checkout_sessions (id, user_id, lookup_key, provider, status, created_at) values
        ('cs_1', 1, 'basic_monthly', 'stripe', 'complete', '2026-05-01T00:00:00Z'),
        ('cs_2', 1, 'basic_yearly', 'stripe', 'complete', '2026-06-01T00:00:00Z'),
        ('cs_3', 2, 'basic_monthly', 'stripe', 'complete', '2026-05-01T00:00:00Z'),
        ('cs_4', 2, 'basic_yearly', 'stripe', 'open', '2026-06-01T00:00:00Z'),
        ('cs_5', 3, 'basic_yearly', 'stripe', 'canceled', '2026-06-01T00:00:00Z');`);
    await migrate(db, { migrationsFolder: shipped });
  }, 120_000);

  afterAll(async () => {
    await client.close();
    rmSync(before, { recursive: true, force: true });
  });

  const column = async (name: string) =>
    (await client.query<{ email: string; value: unknown }>(`select email, ${name} as value from users order by id`)).rows.map((row) => [
      row.email,
      row.value instanceof Date ? row.value.toISOString() : row.value,
    ]);

  it('0008 marks Google accounts verified from their creation, and leaves password accounts to prove theirs', async () => {
    expect(await column('email_verified_at')).toEqual([
      ['google@example.com', '2026-01-02T03:04:05.000Z'],
      ['both@example.com', '2026-02-03T04:05:06.000Z'],
      ['password@example.com', null],
      ['verified@example.com', '2026-04-05T06:07:08.000Z'],
    ]);
  });

  it("0009 gives each subscription the price of its latest completed checkout", async () => {
    expect(await column('plan_lookup_key')).toEqual([
      ['google@example.com', 'basic_yearly'],
      ['both@example.com', 'basic_monthly'],
      ['password@example.com', null],
      ['verified@example.com', null],
    ]);
  });
});
