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
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../server/db/client';
import * as schema from '../../server/db/schema';
import { dailySummary } from '../../server/features/analytics/service';
import { createPostgresDatabase } from '../helpers/database';
import { hasPostgres } from '../helpers/services';

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
// Each describe's PGlite is made in its beforeAll, not as the file is collected: its start holds the
// event loop for seconds at a time, and three made at once stalled the other describes' tests (the
// instances starting together sat 10 s and more between two statements of their migrations).
describe('data migrations, from a database made before them', { timeout: 120_000 }, () => {
  let client: PGlite;
  let before: string;

  beforeAll(async () => {
    client = new PGlite();
    before = migrationsBefore('0008_google_accounts_verified');
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
        ('cs_5', 3, 'basic_yearly', 'stripe', 'canceled', '2026-06-01T00:00:00Z');
      -- 1 is checked in to the first event, 2 left it, 3 is checked in to the second, 4 never came.
      insert into profiles (user_id) values (1), (2), (3), (4);
      insert into events (id, code, name, starts_at, ends_at, join_mode, organizer_id, qr_secret) values
        (1, 'AAAAAA', 'First', now() - interval '1 hour', now() + interval '1 hour', 'code', 4, 's'),
        (2, 'BBBBBB', 'Second', now() - interval '1 hour', now() + interval '1 hour', 'code', 4, 's');
      insert into attendances (event_id, user_id, left_at) values (1, 1, null), (1, 2, now()), (2, 3, null);
      -- 3 and 4 matched and wrote to each other.
      insert into conversations (id, user_low_id, user_high_id) values (1, 3, 4);
      insert into conversation_members (conversation_id, user_id) values (1, 3), (1, 4);
      insert into messages (conversation_id, sender_id, content) values (1, 3, 'hi'), (1, 4, 'hello'), (1, 3, 'how are you?');
      -- 2 was banned on report 1, which resolved report 2 with it; report 3 was dismissed with a note
      -- that reads the same, and report 4 names a report that is not there. 5 was dismissed with a blank note.
      insert into reports (id, reporter_id, reported_id, reason, snapshot, status, resolution, note) values
        (1, 3, 2, 'spam', '{}', 'resolved', 'ban', 'Links everywhere.'),
        (2, 4, 2, 'other', '{}', 'resolved', 'ban', 'Resolved with report #1'),
        (3, 4, 3, 'other', '{}', 'resolved', 'dismiss', 'Resolved with report #1'),
        (4, 3, 4, 'spam', '{}', 'resolved', 'ban', 'Resolved with report #99'),
        (5, 3, 4, 'other', '{}', 'resolved', 'dismiss', '');`);
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

  const placed = async () =>
    (await client.query<{ user_id: number; event_id: number | null }>(
      'select user_id, checked_in_event_id as event_id from profiles order by user_id',
    )).rows.map((row) => [row.user_id, row.event_id]);

  it('0010 places every profile at the event of its open attendance', async () => {
    expect(await placed()).toEqual([[1, 1], [2, null], [3, 2], [4, null]]);
  });

  it('0010 keeps the profiles placed through every write to attendances after it', async () => {
    await client.exec(`
      -- 1 moves to the second event the way a check-in does: the open row closes, the new one opens.
      update attendances set left_at = now() where user_id = 1 and left_at is null;
      insert into attendances (event_id, user_id) values (2, 1);
      -- 2 comes back to the first event: their row reopens.
      update attendances set left_at = null where event_id = 1 and user_id = 2;
      -- 3 leaves.
      update attendances set left_at = now() where user_id = 3;`);
    expect(await placed()).toEqual([[1, 2], [2, 1], [3, null], [4, null]]);

    // An event that goes takes its attendances, and its place on their profiles, with it.
    await client.exec('delete from events where id = 1');
    expect(await placed()).toEqual([[1, 2], [2, null], [3, null], [4, null]]);
    // A deleted account takes its attendances and profile in one statement.
    await client.exec('delete from users where id = 1');
    expect(await placed()).toEqual([[2, null], [3, null], [4, null]]);
  });

  const messages = async () =>
    (await client.query<{ sender_id: number; content: string }>('select sender_id, content from messages order by id')).rows.map((row) => [
      row.sender_id,
      row.content,
    ]);

  it('0022 names the report whose ban resolved another, where its note said so in English', async () => {
    const rows = await client.query<{ id: number; note: string | null; resolved_with: number | null }>(
      'select id, note, resolved_with from reports where id <= 4 order by id',
    );
    expect(rows.rows.map((row) => [row.id, row.note, row.resolved_with])).toEqual([
      [1, 'Links everywhere.', null],
      [2, null, 1],
      [3, 'Resolved with report #1', null],
      [4, 'Resolved with report #99', null],
    ]);
  });

  it('0032 makes a blank note no note, as one resolved without a note has', async () => {
    expect((await client.query<{ note: string | null }>('select note from reports where id = 5')).rows).toEqual([{ note: null }]);
  });

  it('0011 keeps every message, and refuses one whose sender is not in the conversation', async () => {
    expect(await messages()).toEqual([[3, 'hi'], [4, 'hello'], [3, 'how are you?']]);
    await expect(client.exec("insert into messages (conversation_id, sender_id, content) values (1, 2, 'let me in')")).rejects.toThrow(
      /messages_member_fk/,
    );
    await expect(client.exec("insert into messages (conversation_id, sender_id, content) values (2, 3, 'nowhere')")).rejects.toThrow(
      /messages_member_fk/,
    );
    expect(await messages()).toHaveLength(3);
  });

  it("0011 takes a conversation's messages with either participant's account", async () => {
    await client.exec('delete from users where id = 4');
    expect(await messages()).toEqual([]);
  });
});

const postgresReady = await hasPostgres();

describe.skipIf(!postgresReady)('migrations when instances start together', { timeout: 120_000 }, () => {
  it('applies each migration once, and every instance starts', async () => {
    const created = await createPostgresDatabase();
    try {
      const opened = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ databaseUrl: created.url, dataDir: '' })));
      await Promise.all(opened.map((database) => database.close()));
      const sql = postgres(created.url, { max: 1, onnotice: () => {} });
      try {
        const applied = await sql<{ hash: string }[]>`select hash from drizzle.__drizzle_migrations`;
        const journal = JSON.parse(readFileSync(path.join(shipped, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] };
        expect(applied).toHaveLength(journal.entries.length);
      } finally {
        await sql.end();
      }
    } finally {
      await created.drop();
    }
  });
});

// PGlite's WebAssembly start and the whole schema's migrations: tens of seconds on a busy machine.
describe('0014 and 0018, on a database with matches made before them', { timeout: 120_000 }, () => {
  let pglite: PGlite;
  let before: string;
  let db: Db;
  /** When the shipped migrations began to run on it. */
  let migratedFrom: Date;

  beforeAll(async () => {
    pglite = new PGlite();
    before = migrationsBefore('0014_matched_events');
    db = drizzle(pglite, { schema }) as unknown as Db;
    await migrate(drizzle(pglite), { migrationsFolder: before });
    // 1 and 2 matched three days ago, 2 and 3 yesterday (since unmatched), 3 and 4 today; 5 never did.
    await pglite.exec(`
      insert into users (id, email, password_hash, first_name, last_name) values
        (1, 'one@example.com', 'hash', 'O', 'Ne'), (2, 'two@example.com', 'hash', 'T', 'Wo'),
        (3, 'three@example.com', 'hash', 'T', 'Hree'), (4, 'four@example.com', 'hash', 'F', 'Our'),
        (5, 'five@example.com', 'hash', 'F', 'Ive');
      insert into analytics_events (user_id, name) values (5, 'app_opened');
      insert into conversations (user_low_id, user_high_id, created_at, ended_at, end_reason) values
        (1, 2, now() - interval '3 days', null, null),
        (2, 3, now() - interval '1 day', now(), 'unmatch'),
        (3, 4, now(), null, null);
      -- Passes of a match before 0018: 2 skipped 1 after their match, 3 disliked 4, and 4's like of 3
      -- was deleted by an undo; 2's dislike of 3 is their unmatch, 5's skip of 1 no match's.
      insert into reactions (from_user_id, to_user_id, kind, updated_at) values
        (1, 2, 'like', '2026-01-01T00:00:00Z'), (2, 1, 'skip', '2026-01-02T00:00:00Z'),
        (3, 4, 'dislike', '2026-01-03T00:00:00Z'), (2, 3, 'dislike', '2026-01-04T00:00:00Z'),
        (3, 2, 'like', '2026-01-05T00:00:00Z'), (5, 1, 'skip', '2026-01-06T00:00:00Z');`);
    migratedFrom = new Date();
    await migrate(drizzle(pglite), { migrationsFolder: shipped });
  }, 120_000);

  afterAll(async () => {
    await pglite.close();
    rmSync(before, { recursive: true, force: true });
  });

  it('records one matched event per conversation, at its time, by the pair’s lower id', async () => {
    const recorded = (
      await pglite.query<{ user_id: number; same_time: boolean }>(`
        select e.user_id, e.created_at = c.created_at as same_time
        from analytics_events e join conversations c on c.user_low_id = e.user_id
        where e.name = 'matched' order by e.id`)
    ).rows;
    expect(recorded).toEqual([
      { user_id: 1, same_time: true },
      { user_id: 2, same_time: true },
      { user_id: 3, same_time: true },
    ]);
    expect((await pglite.query(`select 1 from analytics_events where name = 'matched'`)).rows).toHaveLength(3);
  });

  it('counts the same matches per day as the conversations did, and the same active users', async () => {
    const days = await dailySummary(db, 7);
    expect(days.map((day) => day.matches)).toEqual([0, 0, 0, 1, 0, 1, 1]);
    // The backfilled matches are no one's activity: only 5's app opening (the lower ids were not active).
    expect(days.map((day) => day.active_users)).toEqual([0, 0, 0, 0, 0, 0, 1]);
  });

  it('0018 puts back the likes of the open matches, and leaves every other reaction as it was', async () => {
    const reactions = (
      await pglite.query<{ from_user_id: number; to_user_id: number; kind: string; updated_at: Date }>(
        'select from_user_id, to_user_id, kind, updated_at from reactions order by from_user_id, to_user_id',
      )
    ).rows.map((row) => [
      row.from_user_id,
      row.to_user_id,
      row.kind,
      row.updated_at >= migratedFrom ? 'by the migration' : row.updated_at.toISOString().slice(0, 10),
    ]);
    expect(reactions).toEqual([
      [1, 2, 'like', '2026-01-01'],
      [2, 1, 'like', '2026-01-02'],
      [2, 3, 'dislike', '2026-01-04'],
      [3, 2, 'like', '2026-01-05'],
      [3, 4, 'like', '2026-01-03'],
      [4, 3, 'like', 'by the migration'],
      [5, 1, 'skip', '2026-01-06'],
    ]);
  });

  it('keeps them when the accounts go, and takes the new name from then on', async () => {
    await pglite.exec('delete from users where id in (1, 3)');
    expect((await dailySummary(db, 7)).map((day) => day.matches)).toEqual([0, 0, 0, 1, 0, 1, 1]);
    await pglite.exec(`insert into analytics_events (user_id, name) values (2, 'matched')`);
    await expect(pglite.exec(`insert into analytics_events (user_id, name) values (2, 'unmatched')`)).rejects.toThrow(/analytics_events_name/);
  });

});

// PGlite's WebAssembly start and the whole schema's migrations: tens of seconds on a busy machine.
describe('0019, on a database with likes given at events before it', { timeout: 120_000 }, () => {
  let pglite: PGlite;
  let before: string;

  beforeAll(async () => {
    pglite = new PGlite();
    before = migrationsBefore('0019_likes_keep_their_event');
    await migrate(drizzle(pglite), { migrationsFolder: before });
    // A party on New Year's night and another ten days later. 1 and 2 went to both (1 left the first
    // at 23:00, 2 at 01:00); 4 and 5 stayed at the first one (open, their after-party over on the 3rd
    // at 02:00); 3 went to neither.
    await pglite.exec(`
      insert into users (id, email, password_hash, first_name, last_name)
        select n, 'user' || n || '@example.com', 'hash', 'U', 'Ser' from generate_series(1, 5) n;
      insert into events (id, code, name, starts_at, ends_at, join_mode, organizer_id, qr_secret) values
        (1, 'AAAAAA', 'First', '2026-01-01T20:00Z', '2026-01-02T02:00Z', 'code', 3, 's'),
        (2, 'BBBBBB', 'Next', '2026-01-10T20:00Z', '2026-01-11T02:00Z', 'code', 3, 's');
      insert into attendances (event_id, user_id, checked_in_at, left_at) values
        (1, 1, '2026-01-01T21:00Z', '2026-01-01T23:00Z'), (1, 2, '2026-01-01T21:30Z', '2026-01-02T01:00Z'),
        (1, 4, '2026-01-01T21:00Z', null), (1, 5, '2026-01-01T21:00Z', null),
        (2, 1, '2026-01-10T21:00Z', null), (2, 2, '2026-01-10T21:00Z', null);
      insert into reactions (from_user_id, to_user_id, kind, updated_at) values
        (1, 2, 'like', '2026-01-01T22:00Z'), (2, 1, 'like', '2026-01-10T22:00Z'),
        (1, 3, 'like', '2026-01-01T22:30Z'), (1, 4, 'dislike', '2026-01-01T22:00Z'),
        (4, 1, 'like', '2026-01-01T22:15Z'), (2, 4, 'like', '2026-01-02T00:30Z'),
        (4, 2, 'like', '2026-01-04T00:00Z'), (4, 5, 'like', '2026-01-02T12:00Z'),
        (5, 4, 'like', '2026-01-03T03:00Z');`);
    await migrate(drizzle(pglite), { migrationsFolder: shipped });
  }, 120_000);

  afterAll(async () => {
    await pglite.close();
    rmSync(before, { recursive: true, force: true });
  });

  it('gives each like the event where both were checked in when it was given, and nothing else an event', async () => {
    const rows = (
      await pglite.query<{ from_user_id: number; to_user_id: number; event_id: number | null }>(
        'select from_user_id, to_user_id, event_id from reactions order by from_user_id, to_user_id',
      )
    ).rows.map((row) => [row.from_user_id, row.to_user_id, row.event_id]);
    expect(rows).toEqual([
      [1, 2, 1], // both at the first party
      [1, 3, null], // 3 was never at one
      [1, 4, null], // a dislike
      [2, 1, 2], // at the next party, not the first one they had both been to
      [2, 4, 1], // before 2 left
      [4, 1, 1],
      [4, 2, null], // 2 had left
      [4, 5, 1], // in the after-party
      [5, 4, null], // after it
    ]);
  });
});
