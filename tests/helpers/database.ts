import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import postgres from 'postgres';
import { type Database, migratedMemorySnapshot, openDatabase } from '../../server/db/client';
import { RUN_SNAPSHOT_DIR } from './memory-snapshot-setup';
import { makeOncePerRun } from './once-per-run';
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
 * to the template's owner). `drop()` removes it. `template`: another template's name than this
 * migrations folder's (the tests of this helper).
 */
export async function createPostgresDatabase({
  owner,
  migrated = false,
  template: templateName = `${TEMPLATE_PREFIX}${migrationsHash()}`,
}: { owner?: string; migrated?: boolean; template?: string } = {}) {
  if (owner && migrated) throw new Error('a migrated database is a copy of the template, owned as it is');
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 1; ; attempt += 1) {
      const template = migrated ? await migratedTemplate(templateName) : null;
      try {
        await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}${owner ? ` owner "${owner}"` : ''}`);
        break;
      } catch (error) {
        // The template dropped under this process as another run's went unused for long (a run of
        // vitest's watch mode, say, left open past TEMPLATE_KEPT_MS): made again.
        if (!template || attempt > 1 || (error as { code?: string }).code !== INVALID_CATALOG_NAME) throw error;
        templates.delete(templateName);
      }
    }
  } finally {
    await admin.end();
  }
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

const TEMPLATE_PREFIX = 'test_template_';
/** The advisory lock under which a template is made, and the stale ones dropped. */
export const TEMPLATE_LOCK = 'eventmatch:test-template';
/** PostgreSQL's error for a database that does not exist (a template among them). */
const INVALID_CATALOG_NAME = '3D000';
/** PostgreSQL's error for a database dropped while others are connected to it. */
const OBJECT_IN_USE = '55006';
/**
 * How long a template of other migrations is kept since a run last started on it: far longer than any
 * run of the suite (CI stops one at 90 minutes), so that a run still copying from it is left alone.
 */
export const TEMPLATE_KEPT_MS = 6 * 60 * 60 * 1000;

/** This process's templates, by name: made (or found) once each. */
const templates = new Map<string, Promise<string>>();

/**
 * A database the app's migrations were applied to, as the server applies them, copied by `create
 * database … template` for each server test on PostgreSQL: a copy costs PostgreSQL a fraction of the
 * CPU of the whole schema's migrations, which each of these tests paid anew. Made once per
 * migrations folder, and kept: the first to ask makes it under an advisory lock (both workers of a
 * run, and any other run on this PostgreSQL, ask at once), under a name of its own until it is done,
 * so that none copies it half-made. Each process that starts on it writes so on it (its comment, `used
 * <time>`), and under the same lock drops the other migrations' templates no run has started on for
 * TEMPLATE_KEPT_MS (`dropStaleTemplates`): a new migration no longer leaves the old one behind for
 * good. The migrations' own tests start from an empty database.
 */
function migratedTemplate(name: string): Promise<string> {
  let template = templates.get(name);
  if (template) return template;
  template = (async () => {
    const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      await admin`select pg_advisory_lock(hashtextextended(${TEMPLATE_LOCK}, 0))`;
      const [made] = await admin`select 1 from pg_database where datname = ${name}`;
      if (!made) {
        const building = `${name}_building`;
        // Left by a run stopped half-way through making it.
        await admin.unsafe(`drop database if exists "${building}" with (force)`);
        await admin.unsafe(`create database "${building}"`);
        await (await openDatabase({ databaseUrl: postgresUrl(building), dataDir: '', maxConnections: 1 })).close();
        await admin.unsafe(`alter database "${building}" rename to "${name}"`);
      }
      await admin.unsafe(`comment on database "${name}" is 'used ${new Date().toISOString()}'`);
      await dropStaleTemplates(admin, name);
      return name;
    } finally {
      // Its lock with it.
      await admin.end();
    }
  })();
  templates.set(name, template);
  // A failure is the caller's; the next to ask tries again.
  template.catch(() => templates.delete(name));
  return template;
}

/**
 * Under the template lock (`migratedTemplate`, whose `admin` holds it): drops the templates named
 * `prefix…` but `keep` that no run has started on for TEMPLATE_KEPT_MS, by the time in their comment
 * (one made before runs wrote it: the time it was made, where this role may read it, else it is kept),
 * and any left half-made (none is being made while the lock is held). A template someone is connected
 * to is skipped (PostgreSQL refuses to drop it); a copy from it in progress finishes first (the drop
 * waits for it). Answers the names dropped.
 */
export async function dropStaleTemplates(
  admin: postgres.Sql,
  keep: string,
  { prefix = TEMPLATE_PREFIX, now = Date.now() }: { prefix?: string; now?: number } = {},
): Promise<string[]> {
  const found = await admin<Array<{ name: string; oid: number; comment: string | null }>>`
    select datname as name, oid::int as oid, shobj_description(oid, 'pg_database') as comment
    from pg_database where starts_with(datname, ${prefix}) and datname <> ${keep} order by datname`;
  const dropped: string[] = [];
  for (const { name, oid, comment } of found) {
    const halfMade = name.endsWith('_building');
    if (!halfMade) {
      const used = Date.parse(/^used (.+)$/.exec(comment ?? '')?.[1] ?? '') || (await madeAt(admin, oid));
      if (used === null || now - used < TEMPLATE_KEPT_MS) continue;
    }
    try {
      await admin.unsafe(`drop database if exists "${name}"${halfMade ? ' with (force)' : ''}`);
      dropped.push(name);
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE) throw error;
    }
  }
  return dropped;
}

/** When a database was made (its PG_VERSION file's time), or null where this role may not read it. */
async function madeAt(admin: postgres.Sql, oid: number): Promise<number | null> {
  try {
    const [row] = await admin<Array<{ made: Date }>>`select (pg_stat_file(${`base/${oid}/PG_VERSION`})).modification as made`;
    return row ? row.made.getTime() : null;
  } catch {
    return null;
  }
}

/**
 * This worker's one migrated in-memory database, copied for each one a test opens (the server suites
 * share their worker's modules, this one among them).
 */
let snapshot: Promise<Blob> | undefined;

/**
 * This worker's migrated in-memory database, made or read once. A suite may ask for it early, to have
 * it made while it does something else (builds the client, say) before its server opens one.
 */
export function memorySnapshot(): Promise<Blob> {
  snapshot ??= runSnapshot();
  return snapshot;
}

/** A fresh in-memory database (PGlite), migrated. */
export async function openMemoryDatabase(): Promise<Database> {
  return openDatabase({ databaseUrl: null, dataDir: '', inMemory: true, from: await memorySnapshot() });
}

/** This worker's migrated database on disk, in the run's folder (`writeMigratedDataDir`). */
let migratedOnDisk: Promise<string> | undefined;

/**
 * The run's migrated database written into `dir`, an embedded database's folder (DATA_DIR/db) with
 * none in it yet: a server started on it opens it as on a restart. A first start's initdb and
 * migrations on disk took a test ~10 s of a core on a loaded machine; a first start is what
 * tests/server/process.test.ts is about, and starts from nothing there. Each worker writes it once
 * (PGlite loading the migrated in-memory database, a start of PostgreSQL) and copies its files for
 * each test, which costs a fraction of that start.
 */
export async function writeMigratedDataDir(dir: string): Promise<void> {
  const runDir = process.env[RUN_SNAPSHOT_DIR];
  if (!runDir) return loadMigratedDataDir(dir);
  // Watch mode empties the run's folder before a rerun.
  if (migratedOnDisk && !existsSync(await migratedOnDisk)) migratedOnDisk = undefined;
  if (!migratedOnDisk) {
    const made = (async () => {
      const source = await mkdtemp(path.join(runDir, 'migrated-db-'));
      await loadMigratedDataDir(source);
      return source;
    })();
    migratedOnDisk = made;
    // A failure is the caller's; the next to ask tries again.
    made.catch(() => {
      if (migratedOnDisk === made) migratedOnDisk = undefined;
    });
  }
  await cp(await migratedOnDisk, dir, { recursive: true });
}

/** The migrated in-memory database loaded into `dir` by PGlite, as its own files on disk. */
async function loadMigratedDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const client = await PGlite.create({ fs: new NodeFS(dir), loadDataDir: await memorySnapshot() });
  await client.close();
}

/**
 * The run's migrated in-memory database (tests/helpers/memory-snapshot-setup.ts): the first process
 * of the run to ask makes it and saves it, the others wait for it and read it (`makeOncePerRun`). Two
 * server workers that asked at once both made it, each ~25 s of a loaded core. Outside a run of
 * vitest, each process makes its own.
 */
async function runSnapshot(): Promise<Blob> {
  const dir = process.env[RUN_SNAPSHOT_DIR];
  if (!dir) return migratedMemorySnapshot();
  const file = path.join(dir, 'migrated.tar');
  let made: Blob | undefined;
  await makeOncePerRun(path.join(dir, 'making'), path.join(dir, 'made'), "the run's migrated database", async () => {
    made = await migratedMemorySnapshot();
    await writeFile(file, Buffer.from(await made.arrayBuffer()));
  });
  return made ?? new Blob([await readFile(file)]);
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
