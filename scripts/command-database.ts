/**
 * The database a command works on (`npm run admin`, `npm run seed`): DATABASE_URL's, or the embedded
 * one in DATA_DIR (default ./data), which one process holds at a time.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, databaseUrl } from '../server/config';
import { type Database, openDatabase } from '../server/db/client';
import { EmbeddedDatabaseBusy } from '../server/db/embedded-lock';

/**
 * The command's database, opened on one connection; or, when it cannot be opened, the reason said in
 * one line on `out` (as the server says it) and the exit status to end with. `again` finishes the
 * advice for an embedded database a running server holds: "Stop the server first, then <again>".
 * `existing`: an embedded database the server has not made yet is not made here either (a DATA_DIR
 * mistyped would get an empty one, where an account would then be said not to exist).
 */
export async function openCommandDatabase(
  env: NodeJS.ProcessEnv,
  out: Pick<Console, 'error'>,
  options: { again: string; existing?: boolean },
): Promise<{ database: Database; dataDir: string } | number> {
  const dataDir = path.resolve(env.DATA_DIR ?? './data');
  try {
    const url = databaseUrl(env);
    if (options.existing && !url && !existsSync(path.join(dataDir, 'db', 'PG_VERSION'))) {
      out.error(`No database in ${dataDir}: set DATA_DIR to the server's data folder, or DATABASE_URL to its PostgreSQL database.`);
      return 1;
    }
    return { database: await openDatabase({ databaseUrl: url, dataDir, maxConnections: 1 }), dataDir };
  } catch (error) {
    if (error instanceof EmbeddedDatabaseBusy) {
      out.error(`The embedded database in ${error.dir} is in use by a running server (pid ${error.pid}).\nStop the server first, then ${options.again}.`);
      return 1;
    }
    // A DATABASE_URL that is not a PostgreSQL address, or a database that cannot be reached.
    if (!(error instanceof ConfigError)) throw error;
    out.error(`Configuration error: ${error.message}`);
    return 1;
  }
}
