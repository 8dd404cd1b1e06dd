import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite, type PGliteInterface, parse as pgliteParse, protocol as pgliteProtocol } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { fillPlaceholders, is, Placeholder, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { ConfigError, DEFAULT_POOL_SIZE } from '../config';
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
 * send the values), parsed once per connection, its generic plan reused. On PGlite too it runs as a
 * named statement (`runOnPglite`). Not for the deck, whose best plan depends on the viewer's values:
 * `runWithCustomPlan`.
 */
export class PreparedStatement<Values extends Record<string, unknown>> {
  /** The statement as PostgreSQL receives it, with `$1`… for the values. */
  readonly text: string;
  readonly #params: unknown[];

  constructor(query: SQL) {
    const { text, params } = onePerPlaceholder(dialect.sqlToQuery(query));
    this.text = text;
    this.#params = params;
  }

  /** The parameters in order, for these values. */
  params(values: Values): unknown[] {
    return fillPlaceholders(this.#params, values);
  }

  run<Row>(db: Db, values: Values): Promise<Row[]> {
    return runNamed<Row>(clientOf(db), this.text, this.params(values));
  }

  /** The statement with these values, for `transactionInOneRoundTrip`. */
  with(values: Values): BoundStatement {
    return { text: this.text, params: this.params(values) };
  }

  /**
   * For a statement whose best plan depends on its values (the deck): the same named statement, on a
   * pool of its own whose connections force a custom plan at every execution (`CUSTOM_PLAN_SESSION`),
   * so the planner still sees the values while the text is parsed and analysed once per connection.
   * The setting is that pool's alone: on the main pool the other statements keep reusing their generic
   * plans (PostgreSQL's default would also switch the deck to a generic plan after five executions,
   * once it estimates it no dearer). PGlite, one session, runs it unnamed: planned at every call.
   * Not inside a transaction.
   */
  async runWithCustomPlan<Row>(db: Db, values: Values): Promise<Row[]> {
    const custom = ownPools.get(db)?.custom;
    if (custom) return runNamed<Row>(custom, this.text, this.params(values));
    return (await (clientOf(db) as PGlite).query<Row>(this.text, this.params(values))).rows;
  }

  /**
   * For a statement whose text fixes its plan, but which PostgreSQL's own choice would plan again at
   * every execution (its generic plan's estimate looks dearer than a custom plan's, though it runs as
   * fast): on a pool of its own whose connections always use the generic plan (`GENERIC_PLAN_SESSION`),
   * made once per connection and again whenever ANALYZE changes a table it reads. The event deck:
   * planning it had cost more than running it. Also for a short statement sent just before the event
   * deck, so that it finds the same few backends at work instead of waking another: the viewer's fit.
   * PGlite runs it as `run` does. Not inside a transaction.
   */
  runWithGenericPlan<Row>(db: Db, values: Values): Promise<Row[]> {
    return runNamed<Row>(ownPools.get(db)?.generic ?? clientOf(db), this.text, this.params(values));
  }

  /**
   * For a write that no request waits for and that a crash may lose (the activity and token use that
   * `auth` batches): on a connection of its own, with the generic plan and a commit that does not wait
   * for the disk (`WRITE_BEHIND_SESSION`). postgres.js sends a busy connection's statements in turn,
   * so a write on a pool of reads holds every read sent after it: on the event deck's pool, a write
   * waiting for the disk, or for a row's lock, held the decks behind it. PGlite runs it as `run` does.
   * Not inside a transaction.
   */
  async writeBehind(db: Db, values: Values): Promise<void> {
    await runNamed(ownPools.get(db)?.behind ?? clientOf(db), this.text, this.params(values));
  }

  /**
   * For a statement that waits for a row another transaction holds (a send's conversation, while a ban
   * ends it): on a connection of its own, where such waits go one after the other. On the main pool,
   * each took a connection for as long as the holder held on (a ban ends every conversation of the
   * banned one at once, and a send into each of them waited), and postgres.js sends a statement to a
   * busy connection when none is free: the pool's other requests then waited behind the rows too.
   * PGlite, one session that runs one transaction at a time, never holds a row: it runs it as `run` does.
   * Not inside a transaction.
   */
  runApart<Row>(db: Db, values: Values): Promise<Row[]> {
    return runNamed<Row>(ownPools.get(db)?.apart ?? clientOf(db), this.text, this.params(values));
  }
}

/**
 * The statement with one parameter for each named value, however often its text uses it: drizzle
 * writes a parameter at every use, and the event deck, which uses the viewer's id and fit in each of
 * its branches, went out with 48 values for its 8. Each is serialized into every execution's message
 * and parsed again by PostgreSQL. A value written in (not a placeholder) keeps a parameter of its own.
 * One parameter has one type, so a name must be used as one type throughout (PostgreSQL refuses the
 * statement otherwise). drizzle writes a parameter as `$` and its number, and nothing else in a
 * statement's text does.
 */
function onePerPlaceholder(query: { sql: string; params: unknown[] }): { text: string; params: unknown[] } {
  const numberOf = new Map<string, number>();
  const params: unknown[] = [];
  const renumbered = query.params.map((param) => {
    if (!is(param, Placeholder)) return params.push(param);
    const known = numberOf.get(param.name);
    if (known !== undefined) return known;
    numberOf.set(param.name, params.push(param));
    return params.length;
  });
  const text = query.sql.replace(/\$(\d+)\b/g, (_, number: string) => `$${renumbered[Number(number) - 1]}`);
  return { text, params };
}

/**
 * The session settings of the connections that run `PreparedStatement.runWithCustomPlan`: a custom
 * plan at every execution, so that a prepared statement is still planned for its values.
 */
export const CUSTOM_PLAN_SESSION = { plan_cache_mode: 'force_custom_plan' } as const;

/** The session settings of the connections that run `PreparedStatement.runWithGenericPlan`. */
export const GENERIC_PLAN_SESSION = { plan_cache_mode: 'force_generic_plan' } as const;

/**
 * The session settings of the connection that runs `PreparedStatement.writeBehind`: the generic plan,
 * and commits that return before the WAL reaches the disk. A crash may lose the last few hundred
 * milliseconds of these writes and nothing else: every other session still waits for its own commits.
 */
export const WRITE_BEHIND_SESSION = { ...GENERIC_PLAN_SESSION, synchronous_commit: 'off' } as const;

/**
 * The pools beside the main pool of each postgres.js database: the deck's two, the write-behind
 * connection, and the one where statements wait for held rows (`runApart`).
 */
const ownPools = new WeakMap<object, { custom: postgres.Sql; generic: postgres.Sql; behind: postgres.Sql; apart: postgres.Sql }>();

/** What a statement runs on: a postgres.js pool, or PGlite. */
type DriverClient = postgres.Sql | PGlite;

// drizzle keeps the driver's client on every database it makes; the shared Db type leaves it out.
const clientOf = (db: Db) => (db as Db & { $client: DriverClient }).$client;

/** A named prepared statement, parsed once per connection (per PGlite). Not inside a transaction. */
async function runNamed<Row>(client: DriverClient, text: string, params: unknown[]): Promise<Row[]> {
  if ('unsafe' in client) return client.unsafe<Row[]>(text, params as postgres.ParameterOrJSON<never>[], { prepare: true });
  // As PGlite's own query(): after any transaction in flight, and written through to the filesystem.
  const rows = await client._runExclusiveTransaction(() => runOnPglite<Row>(client, text, params));
  await client.syncToFs();
  return rows;
}

/** A statement text parsed on a PGlite under a name: the name, and the parameter types it was given. */
interface PgliteStatement {
  name: string;
  types: number[];
}

/** Each PGlite's named statements by their text, and how many names it has handed out. */
const pgliteStatements = new WeakMap<PGlite, { byText: Map<string, PgliteStatement>; named: number }>();

/**
 * A prepared statement on PGlite, named as on PostgreSQL. PGlite's query() sends each statement
 * unnamed, so its one backend planned the text afresh at every call: a like spent 1.5 ms planning
 * for 0.5 ms running (bench/README.md), and every other request waited behind it. Here the text is
 * parsed once under a name, with its parameter types described, and each call binds the values
 * (serialized for those types, as query() does) and executes it, the plan cached as PostgreSQL
 * caches a named statement's. SQL's own PREPARE cannot serve: EXECUTE takes no bound parameters.
 * PGlite's protocol calls take none of its locks: this holds its query lock, and the caller holds its
 * transaction lock (`runNamed`) or runs inside the transaction (`transactionInOneRoundTrip`), as
 * query() does (`_runExclusiveQuery` and `_runExclusiveTransaction` are PGlite's own, public but
 * marked internal: an upgrade of PGlite should be checked against them; every test runs through here).
 */
function runOnPglite<Row>(client: PGlite, text: string, params: unknown[]): Promise<Row[]> {
  const { serialize } = pgliteProtocol;
  const send = (message: Uint8Array) => client.execProtocolStream(message, { syncToFs: false });
  return client._runExclusiveQuery(async () => {
    let statements = pgliteStatements.get(client);
    if (!statements) {
      statements = { byText: new Map(), named: 0 };
      pgliteStatements.set(client, statements);
    }
    const messages = [];
    try {
      let statement = statements.byText.get(text);
      if (!statement) {
        // A name is never handed out twice, even if this parse or its description fails half-way.
        statements.named += 1;
        const name = `prepared_${statements.named}`;
        await send(serialize.parse({ name, text }));
        statement = { name, types: pgliteParse.parseDescribeStatementResults(await send(serialize.describe({ type: 'S', name }))) };
        statements.byText.set(text, statement);
      }
      const { types } = statement;
      const values = params.map((param, i) => {
        if (param === null || param === undefined) return null;
        const serializer = client.serializers[types[i]!];
        return serializer ? serializer(param) : String(param);
      });
      messages.push(...(await send(serialize.bind({ statement: statement.name, values }))));
      messages.push(...(await send(serialize.describe({ type: 'P' }))));
      messages.push(...(await send(serialize.execute({}))));
    } finally {
      // After an error too: the backend skips every message until it sees Sync.
      messages.push(...(await send(serialize.sync())));
    }
    return pgliteParse.parseResults(messages, client.parsers)[0]!.rows as Row[];
  });
}

/** A prepared statement and its parameters (`PreparedStatement.with`). */
export interface BoundStatement {
  text: string;
  params: unknown[];
}

/**
 * A short transaction of prepared statements in one round trip on postgres.js: BEGIN, the statements
 * and COMMIT leave together on one reserved connection. PostgreSQL runs them one after the other, and
 * (read committed) each with a snapshot taken as it starts, so a statement sees what was committed
 * while an earlier one waited for a lock: a like takes its locks, then counts and stores itself. A
 * failed statement aborts the transaction, those after it fail too, and COMMIT then rolls it back, so
 * the connection goes back to the pool outside any transaction either way. Answers each
 * statement's rows, in order (`Rows` names their types). PGlite runs a plain transaction of the
 * named statements.
 */
export async function transactionInOneRoundTrip<Rows extends unknown[][]>(db: Db, statements: BoundStatement[]): Promise<Rows> {
  const client = clientOf(db);
  if (!('reserve' in client)) {
    return client.transaction(async () => {
      const answers: unknown[][] = [];
      for (const { text, params } of statements) answers.push(await runOnPglite(client, text, params));
      return answers as Rows;
    });
  }
  const session = await client.reserve();
  try {
    const answers = await Promise.allSettled([
      session.unsafe('begin'),
      ...statements.map(({ text, params }) => session.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true })),
      session.unsafe('commit'),
    ]);
    // The first failure is the cause; the statements after it only report the aborted transaction.
    const failure = answers.find((answer) => answer.status === 'rejected');
    if (failure) throw failure.reason;
    return answers.slice(1, -1).map((answer) => (answer as PromiseFulfilledResult<unknown[]>).value) as Rows;
  } finally {
    session.release();
  }
}

export interface Database {
  db: Db;
  driver: 'pglite' | 'postgres';
  /**
   * Runs `work` unless another holder (in this process or any other on the same database) has the
   * lock `key`; answers whether it ran. On PostgreSQL a session advisory lock on a connection of its
   * own, so a process that dies releases it with its connection. PGlite belongs to one process, so a
   * lock in memory is the same promise there.
   */
  withLock<T>(key: bigint, work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }>;
  close(): Promise<void>;
}

function inProcessLocks(): Database['withLock'] {
  const held = new Set<bigint>();
  return async (key, work) => {
    if (held.has(key)) return { ran: false };
    held.add(key);
    try {
      return { ran: true, result: await work() };
    } finally {
      held.delete(key);
    }
  };
}

function advisoryLocks(client: postgres.Sql): Database['withLock'] {
  return async (key, work) => {
    const session = await client.reserve();
    try {
      const [row] = await session<[{ locked: boolean }]>`select pg_try_advisory_lock(${String(key)}::bigint) as locked`;
      if (!row?.locked) return { ran: false };
      try {
        return { ran: true, result: await work() };
      } finally {
        await session`select pg_advisory_unlock(${String(key)}::bigint)`;
      }
    } finally {
      session.release();
    }
  };
}

/** The advisory lock the instances take in turn to migrate the database (`migrateInTurn`). */
const MIGRATION_LOCK = createHash('sha256').update('eventmatch:migrations').digest().readBigInt64BE(0);

/**
 * Applies the migrations not applied yet. Instances started together take turns: drizzle's migrator
 * reads what was applied, then applies the rest, and two at once would both apply the same. The lock
 * is a session's, so the migrations run on one connection of their own, closed (and the lock let go)
 * when they are done or failed.
 */
async function migrateInTurn(databaseUrl: string): Promise<void> {
  const session = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    try {
      await session`select pg_advisory_lock(${String(MIGRATION_LOCK)}::bigint)`;
    } catch (error) {
      // The process's first statement: what fails here is the connection (refused, no such host or
      // database, a password refused), which the operator fixes in DATABASE_URL.
      throw new ConfigError(`DATABASE_URL: the database cannot be reached (${(error as Error).message}).`);
    }
    await migratePostgres(drizzlePostgres(session), { migrationsFolder });
  } finally {
    await session.end({ timeout: 5 });
  }
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

/**
 * The data directory of a migrated, empty in-memory database, as PGlite dumps it: an in-memory
 * database opened `from` it skips PostgreSQL's initdb and the migrations, seconds of a core each time.
 * Every database opened from it reads the whole dump into memory and writes each of its files into
 * PGlite's file system, so it is kept small (32 MB → 14 MB; a test server's start ~450 → ~300 ms of
 * CPU, measured on a 2-core machine):
 * - WAL segments of 1 MB, not 16, and no more kept ahead than two (`min_wal_size`; initdb's default
 *   of 80 MB kept five);
 * - no template databases: two copies of the system catalogs (7 MB each) that only `CREATE DATABASE`
 *   reads, and an in-memory database is never asked to create one.
 */
export async function migratedMemorySnapshot(): Promise<Blob> {
  const client = new PGlite({ initDbStartParams: ['--wal-segsize=1', '-c', 'min_wal_size=2MB', '-c', 'max_wal_size=4MB'] });
  try {
    await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder });
    await client.exec(`update pg_database set datistemplate = false where datname in ('template0', 'template1')`);
    // One statement a call: DROP DATABASE refuses to run inside a multi-statement string's transaction.
    await client.exec('drop database template0');
    await client.exec('drop database template1');
    await client.exec('checkpoint');
    return await client.dumpDataDir('none');
  } finally {
    await client.close();
  }
}

/**
 * How long closing PostgreSQL's pools waits for the statements still running (seconds), then ends their
 * connections (what was committed stays). A close comes to it once the waits for the work in flight are
 * over (`CLOSE_GRACE_MS`), so a statement still running is one stalled: ended within the process's
 * deadline, never the reason it exits with the database open.
 */
export const DATABASE_END_S = 3;

/**
 * The connections of each of the deck's two pools (`runWithCustomPlan`, `runWithGenericPlan`) for a
 * main pool of `max`: a fifth of it, rounded up (2 of the default 10). Each runs the dearest
 * statement the app sends, and when more are asked for than it has connections, postgres.js sends the
 * next on a connection already at work: its backend reads it as it finishes the one before, where an
 * idle backend is put to sleep and woken for each, and pays for the waking in CPU. A request reaches
 * its deck only after its own steps, so the app's decks come spread out where a benchmark's loop sends
 * them back to back: the fewer the connections, the more of them find their backend at work. On a
 * database server of two cores, with these pools at 2 and the viewer's fit read on the event deck's
 * pool (`getDeck`), the event deck's endpoint served 1,388–1,451 requests a second against 926–1,029
 * with pools of 4, and PostgreSQL spent 650–675 µs a request on it against 1,078–1,203; the town deck
 * served 707–787 against 567–701 (`bench/README.md`). The main pool stays larger: its statements
 * include slow ones (the table upkeep's VACUUM, an export) that a statement sent behind them would
 * wait for. A database server of more cores is given more with a larger `DATABASE_POOL_SIZE`.
 */
export const deckPoolSize = (max: number) => Math.ceil(max / 5);

/**
 * A database in memory: its pages are in memory already, so its buffer pool is kept small. PGlite's
 * 128 MB (PostgreSQL's default) is zeroed at every start: half of a test server's second of CPU.
 */
function openMemoryPglite(from: Blob | undefined): PGlite {
  return new PGlite({ ...(from ? { loadDataDir: from } : {}), startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] });
}

export async function openDatabase(options: {
  databaseUrl: string | null;
  dataDir: string;
  inMemory?: boolean;
  /** An in-memory database's starting data (`migratedMemorySnapshot`); migrated further if it is behind. */
  from?: Blob;
  /** The main pool's connections on PostgreSQL (`DATABASE_POOL_SIZE`); the deck's pools take `deckPoolSize` of it. */
  maxConnections?: number;
}): Promise<Database> {
  if (options.databaseUrl) {
    const url = options.databaseUrl;
    const pool = (max: number, session?: Record<string, string>) => postgres(url, { max, onnotice: () => {}, connection: session });
    const max = options.maxConnections ?? DEFAULT_POOL_SIZE;
    const client = pool(max);
    // These connect on first use: a process that never reads a deck, or notes no activity, opens none of them.
    const deckMax = deckPoolSize(max);
    const custom = pool(deckMax, CUSTOM_PLAN_SESSION);
    const generic = pool(deckMax, GENERIC_PLAN_SESSION);
    const behind = pool(1, WRITE_BEHIND_SESSION);
    const apart = pool(1);
    const db = drizzlePostgres(client, { schema });
    ownPools.set(db, { custom, generic, behind, apart });
    await migrateInTurn(options.databaseUrl);
    return {
      db,
      driver: 'postgres',
      withLock: advisoryLocks(client),
      close: async () => {
        await Promise.all([client, custom, generic, behind, apart].map((pool) => pool.end({ timeout: DATABASE_END_S })));
      },
    };
  }

  let dataDir: string | undefined;
  let unlock = () => {};
  if (!options.inMemory) {
    dataDir = path.join(options.dataDir, 'db');
    await mkdir(dataDir, { recursive: true });
    unlock = lockEmbeddedDatabase(dataDir);
  }
  try {
    const client = dataDir ? await openDurablePglite(dataDir) : openMemoryPglite(options.from);
    const db = drizzlePglite(client, { schema });
    await migratePglite(db, { migrationsFolder });
    return {
      db: db as unknown as Db,
      driver: 'pglite',
      withLock: inProcessLocks(),
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

/** Opens a file for reading, fsyncs it (a directory's entries too), and closes it. */
function fsyncPath(target: string) {
  const fd = openSync(target, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every file and directory under `dir`, on disk. */
function fsyncTree(dir: string) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) fsyncTree(full);
    else if (entry.isFile()) fsyncPath(full);
  }
  fsyncPath(dir);
}

/**
 * The Node filesystem of PGlite, with an fsync that reaches the disk. Emscripten's NODEFS writes
 * straight to host files but has no fsync of its own, so PostgreSQL's fsync() returned at once without
 * calling the host's; here it does (a directory, which NODEFS opens without a host descriptor, by path).
 */
class DurableNodeFS extends NodeFS {
  override async init(pg: PGliteInterface, options: Parameters<NodeFS['init']>[1]) {
    const result = await super.init(pg as never, options);
    interface Stream {
      nfd?: number;
      node: unknown;
    }
    interface Module {
      NODEFS: { stream_ops: { fsync?: (stream: Stream) => void }; realPath: (node: unknown) => string };
    }
    const preRun = (result.emscriptenOpts.preRun ?? []) as Array<(module: Module) => void>;
    preRun.unshift((module) => {
      module.NODEFS.stream_ops.fsync = (stream) => {
        if (stream.nfd !== undefined) fsyncSync(stream.nfd);
        else fsyncPath(module.NODEFS.realPath(stream.node));
      };
    });
    result.emscriptenOpts.preRun = preRun as never;
    return result;
  }
}

/**
 * PGlite in `dir`, as durable as it can be made (docs/operations.md, "Durability of the embedded
 * database"). PGlite promises nothing across an OS crash out of the box: it starts PostgreSQL with
 * fsync off (`-F`), and its filesystem drops every fsync. Here PostgreSQL runs with fsync on, flushes
 * its WAL with fsync() (the WASM runtime's fdatasync does nothing) and DurableNodeFS carries each to
 * the disk: a commit is acknowledged once its WAL is on disk, as with PostgreSQL itself. A database
 * made on this start (written by initdb without any fsync) is flushed to disk whole before use.
 */
async function openDurablePglite(dir: string): Promise<PGlite> {
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  const startParams = [...PGlite.defaultStartParams.filter((param) => param !== '-F'), '-c', 'wal_sync_method=fsync'];
  const client = new PGlite({ fs: new DurableNodeFS(dir), startParams });
  await client.waitReady;
  if (fresh) {
    fsyncTree(dir);
    fsyncPath(path.dirname(dir));
  }
  return client;
}
