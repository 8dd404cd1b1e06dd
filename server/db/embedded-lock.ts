import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config';

/** The embedded database is held by a process that is still running: `main.ts` says so in one line, and exits. */
export class EmbeddedDatabaseBusy extends ConfigError {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`the embedded database in ${dir} is in use by another process (pid ${pid}): stop it, or give this one another DATA_DIR.`);
  }
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One process at a time opens the embedded database: PGlite is PostgreSQL in one process, and two of
 * them writing the same folder would corrupt it. A lock file names the holder; one left by a process
 * that is gone is taken over. Returns the release.
 */
export function lockEmbeddedDatabase(dir: string): () => void {
  const file = path.join(dir, 'eventmatch.lock');
  const mine = String(process.pid);
  try {
    writeFileSync(file, mine, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
    // This process too: a second handle in one process would write the same files behind the first's back.
    if (Number.isInteger(holder) && isRunning(holder)) throw new EmbeddedDatabaseBusy(dir, holder);
    writeFileSync(file, mine);
  }
  return () => {
    try {
      if (readFileSync(file, 'utf8') === mine) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
  };
}
