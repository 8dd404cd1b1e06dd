import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { fillPlaceholders, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { lockEmbeddedDatabase } from './embedded-lock';
import * as schema from './schema';

/**
 * Both drivers run the same drizzle queries. The handle is typed as the postgres.js database;
 * PGlite's has the same query surface (both are drizzle's PgDatabase).
 */
export type Db = PostgresJsDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** A function that writes takes the db or a transaction it should join. */
export type DbOrTx = Db | Tx;

/** The rows of `db.execute(sql)`: drizzle gives an array on postgres.js and `{ rows }` on PGlite. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

const dialect = new PgDialect();

/**
 * A hot statement whose plan does not depend on its values, written once as drizzle `sql` with
 * `sql.placeholder(name)` for each value: its text is built when the module loads, not per call. On
 * postgres.js it runs as a named prepared statement: one round trip per call instead of two (drizzle
 * sends raw SQL unnamed, and postgres.js then asks the server for the parameter types before it can
 * send the values), parsed once per connection, its generic plan reused. PGlite runs it as
 * `db.execute` does. Not for the deck, whose best plan depends on the viewer's values.
 */
export class PreparedStatement<Values extends Record<string, unknown>> {
  /** The statement as PostgreSQL receives it, with `$1`… for the values. */
  readonly text: string;
  readonly #params: unknown[];

  constructor(query: SQL) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    this.text = text;
    this.#params = params;
  }

  /** The parameters in order, for these values. */
  params(values: Values): unknown[] {
    return fillPlaceholders(this.#params, values);
  }

  async run<Row>(db: Db, values: Values): Promise<Row[]> {
    // drizzle keeps the driver's client on every database it makes; the shared Db type leaves it out.
    const client = (db as Db & { $client: unknown }).$client;
    const params = this.params(values);
    if (client instanceof PGlite) return (await client.query<Row>(this.text, params)).rows;
    return (client as postgres.Sql).unsafe<Row[]>(this.text, params as postgres.ParameterOrJSON<never>[], { prepare: true });
  }
}

export interface Database {
  db: Db;
  driver: 'pglite' | 'postgres';
  close(): Promise<void>;
}

/**
 * The repository's `drizzle/` folder, found upwards from this module: it runs from server/db/ as
 * TypeScript and from dist/server/ as the production bundle (scripts/build-server.mjs).
 */
function findMigrationsFolder(): string {
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    const folder = path.join(dir, 'drizzle');
    if (existsSync(path.join(folder, 'meta', '_journal.json'))) return folder;
    if (path.dirname(dir) === dir) throw new Error(`no drizzle/ migrations folder above ${start}`);
  }
}

const migrationsFolder = findMigrationsFolder();

export async function openDatabase(options: {
  databaseUrl: string | null;
  dataDir: string;
  inMemory?: boolean;
  maxConnections?: number;
}): Promise<Database> {
  if (options.databaseUrl) {
    const client = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
    });
    const db = drizzlePostgres(client, { schema });
    await migratePostgres(db, { migrationsFolder });
    return { db, driver: 'postgres', close: () => client.end({ timeout: 5 }) };
  }

  let dataDir: string | undefined;
  let unlock = () => {};
  if (!options.inMemory) {
    dataDir = path.join(options.dataDir, 'db');
    await mkdir(dataDir, { recursive: true });
    unlock = lockEmbeddedDatabase(dataDir);
  }
  try {
    const client = new PGlite(dataDir);
    const db = drizzlePglite(client, { schema });
    await migratePglite(db, { migrationsFolder });
    return {
      db: db as unknown as Db,
      driver: 'pglite',
      close: async () => {
        await client.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
