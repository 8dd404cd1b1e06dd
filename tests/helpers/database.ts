import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { type Database, migratedMemorySnapshot, openDatabase } from '../../server/db/client';
import { RUN_SNAPSHOT_DIR } from './memory-snapshot-setup';
import { hasPostgres, POSTGRES_ADMIN_URL } from './services';

/**
 * The databases a database-level test runs on, each with whether this machine has it: PGlite always;
 * PostgreSQL's tests are skipped, loudly, on a machine without it (`hasPostgres`).
 */
export async function databaseBackends(): Promise<Array<['pglite' | 'postgres', boolean]>> {
  return [
    ['pglite', true],
    ['postgres', await hasPostgres()],
  ];
}

/**
 * A fresh PostgreSQL database for one test file: empty, or `migrated` (a copy of the run's migrated
 * template, `migratedTemplate`), owned by `owner` if given (an empty one only: a copy's tables belong
 * to the template's owner). `drop()` removes it.
 */
export async function createPostgresDatabase({ owner, migrated = false }: { owner?: string; migrated?: boolean } = {}) {
  if (owner && migrated) throw new Error('a migrated database is a copy of the template, owned as it is');
  const template = migrated ? await migratedTemplate() : null;
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}${owner ? ` owner "${owner}"` : ''}`);
  await admin.end();
  return {
    url: postgresUrl(name),
    async drop() {
      const sql = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists "${name}" with (force)`);
      await sql.end();
    },
  };
}

/** The URL of the database `name` on the test server. */
function postgresUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The migrations folder's files, hashed: a template made by other migrations is another template. */
function migrationsHash(): string {
  const folder = path.resolve(import.meta.dirname, '../../drizzle');
  const hash = createHash('sha256');
  for (const file of readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())) {
    const full = path.join(file.parentPath, file.name);
    hash.update(path.relative(folder, full)).update(readFileSync(full));
  }
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A database the app's migrations were applied to, as the server applies them, copied by `create
 * database … template` for each server test on PostgreSQL: a copy costs PostgreSQL a fraction of the
 * CPU of the whole schema's migrations, which each of these tests paid anew. Made once per
 * migrations folder, and kept: the first to ask makes it under an advisory lock (both workers of a
 * run, and any other run on this PostgreSQL, ask at once), under a name of its own until it is done,
 * so that none copies it half-made. The migrations' own tests start from an empty database.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `test_template_${migrationsHash()}`;
    const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      await admin`select pg_advisory_lock(hashtextextended('eventmatch:test-template', 0))`;
      const [made] = await admin`select 1 from pg_database where datname = ${name}`;
      if (!made) {
        const building = `${name}_building`;
        // Left by a run stopped half-way through making it.
        await admin.unsafe(`drop database if exists "${building}" with (force)`);
        await admin.unsafe(`create database "${building}"`);
        await (await openDatabase({ databaseUrl: postgresUrl(building), dataDir: '', maxConnections: 1 })).close();
        await admin.unsafe(`alter database "${building}" rename to "${name}"`);
      }
      return name;
    } finally {
      // Its lock with it.
      await admin.end();
    }
  })();
  // A failure is the caller's; the next to ask tries again.
  template.catch(() => (template = undefined));
  return template;
}

/**
 * This worker's one migrated in-memory database, copied for each one a test opens (the server suites
 * share their worker's modules, this one among them).
 */
let snapshot: Promise<Blob> | undefined;

/** A fresh in-memory database (PGlite), migrated. */
export async function openMemoryDatabase(): Promise<Database> {
  snapshot ??= runSnapshot();
  return openDatabase({ databaseUrl: null, dataDir: '', inMemory: true, from: await snapshot });
}

/**
 * The run's migrated in-memory database (tests/helpers/memory-snapshot-setup.ts): read if a process
 * of the run saved it already, else made and saved (under a name of its own until it is whole, so
 * that none reads it half-written). Two processes that ask at once both make it; outside a run of
 * vitest, each process makes its own.
 */
async function runSnapshot(): Promise<Blob> {
  const dir = process.env[RUN_SNAPSHOT_DIR];
  if (!dir) return migratedMemorySnapshot();
  const file = path.join(dir, 'migrated.tar');
  const saved = await readFile(file).catch(() => null);
  if (saved) return new Blob([saved]);
  const made = await migratedMemorySnapshot();
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(partial, Buffer.from(await made.arrayBuffer()));
  await rename(partial, file);
  return made;
}

/**
 * The app's database on one backend, migrated, for a test file that runs its tests on each:
 * PGlite in memory, or a fresh migrated PostgreSQL database on one connection (so that whatever a statement
 * leaves on the connection, the next one meets). `close()` closes it and drops the PostgreSQL database.
 */
export async function openTestDatabase(backend: 'pglite' | 'postgres'): Promise<{ database: Database; url: string | null; close(): Promise<void> }> {
  if (backend === 'pglite') {
    const database = await openMemoryDatabase();
    return { database, url: null, close: () => database.close() };
  }
  const created = await createPostgresDatabase({ migrated: true });
  const database = await openDatabase({ databaseUrl: created.url, dataDir: '', maxConnections: 1 });
  return {
    database,
    url: created.url,
    async close() {
      await database.close();
      await created.drop();
    },
  };
}
