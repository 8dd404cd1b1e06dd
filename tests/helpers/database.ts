import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { type Database, migratedMemorySnapshot, openDatabase } from '../../server/db/client';
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

/** A fresh, empty PostgreSQL database for one test file (owned by `owner`, if given); `drop()` removes it. */
export async function createPostgresDatabase({ owner }: { owner?: string } = {}) {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"${owner ? ` owner "${owner}"` : ''}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const sql = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists "${name}" with (force)`);
      await sql.end();
    },
  };
}

/**
 * This worker's one migrated in-memory database, copied for each one a test opens (the server suites
 * share their worker's modules, this one among them).
 */
let snapshot: Promise<Blob> | undefined;

/** A fresh in-memory database (PGlite), migrated. */
export async function openMemoryDatabase(): Promise<Database> {
  snapshot ??= migratedMemorySnapshot();
  return openDatabase({ databaseUrl: null, dataDir: '', inMemory: true, from: await snapshot });
}

/**
 * The app's database on one backend, migrated, for a test file that runs its tests on each:
 * PGlite in memory, or a fresh PostgreSQL database on one connection (so that whatever a statement
 * leaves on the connection, the next one meets). `close()` closes it and drops the PostgreSQL database.
 */
export async function openTestDatabase(backend: 'pglite' | 'postgres'): Promise<{ database: Database; url: string | null; close(): Promise<void> }> {
  if (backend === 'pglite') {
    const database = await openMemoryDatabase();
    return { database, url: null, close: () => database.close() };
  }
  const created = await createPostgresDatabase();
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
