import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, rowsOf } from '../../server/db/client';
import { writeMigratedDataDir } from '../helpers/database';

const root = path.resolve(import.meta.dirname, '../..');

// The run's migrated database copied under DATA_DIR, opened as the server opens it on a restart, and
// again by a process that is killed: what is under test is how each opening runs PostgreSQL, not a
// first start (tests/server/process.test.ts starts from nothing). Made here by initdb and every
// migration with fsync on, it took 10–13 s of the suite's CI time; copied, a fraction of a second.
describe('the embedded database on disk (PGlite under DATA_DIR)', { timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-durability-'));
    await writeMigratedDataDir(path.join(dataDir, 'db'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const setting = async (database: Database, name: string) =>
    rowsOf<Record<string, string>>(await database.db.execute(sql.raw(`show ${name}`)))[0]![name];

  it('runs PostgreSQL with fsync on and the WAL flushed at every commit', async () => {
    const database = await openDatabase({ databaseUrl: null, dataDir });
    try {
      // PGlite ships with fsync off; the server turns it on and flushes the WAL with fsync(), the
      // one sync call its WebAssembly runtime carries to the disk (server/db/client.ts).
      expect(await setting(database, 'fsync')).toBe('on');
      expect(await setting(database, 'wal_sync_method')).toBe('fsync');
      expect(await setting(database, 'synchronous_commit')).toBe('on');
      expect(await setting(database, 'full_page_writes')).toBe('on');
    } finally {
      await database.close();
    }
  });

  it('keeps a committed row when the process is killed right after the commit', async () => {
    const note = `committed before SIGKILL ${Date.now()}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/fixtures/commit-then-hang.ts'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, NOTE: note },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('committed')) resolve();
      });
      child.once('exit', () => reject(new Error(`exited before committing: ${stderr.slice(-2000)}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // The next start recovers from the WAL: the acknowledged row is there.
    const database = await openDatabase({ databaseUrl: null, dataDir });
    try {
      const rows = rowsOf<{ note: string }>(await database.db.execute(sql`select note from durability_probe`));
      expect(rows.map((row) => row.note)).toContain(note);
    } finally {
      await database.close();
    }
  });
});
