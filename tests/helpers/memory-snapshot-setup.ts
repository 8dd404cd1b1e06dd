/**
 * One migrated in-memory database for a whole run of vitest, made here and saved for the workers
 * (`openMemoryDatabase` in database.ts reads it): a folder for it, named to the workers through the
 * environment they inherit, and removed when the run ends. Making it is initdb
 * and the whole schema's migrations in PGlite, about ten seconds of a core, and each process of the
 * run (each server worker, each client file that runs in a process of its own) made its own.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/** Where this run's migrated in-memory database is saved, for the workers (they inherit the environment). */
export const RUN_SNAPSHOT_DIR = 'EVENTMATCH_TEST_SNAPSHOT_DIR';

export default async function setup(project: TestProject) {
  // Both projects that start servers name this setup: the first one's folder serves the run.
  if (process.env[RUN_SNAPSHOT_DIR]) return;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-snapshot-run-'));
  process.env[RUN_SNAPSHOT_DIR] = dir;
  // Made here, before any file starts, not where a test first asks: there it was paid inside that
  // hook's or test's time (~6 s of a core, 35–50 s on a machine shared with other runs, nearly all of a
  // server's 60 s start), and a suite whose start ran out had every test skipped. A single file that
  // opens no database pays it too. Imported here: database.ts imports this module.
  const { memorySnapshot } = await import('./database');
  await memorySnapshot();
  // Watch mode: the migrations may have changed since; the next test makes it again.
  project.onTestsRerun(async () => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
  });
  return async () => {
    await rm(dir, { recursive: true, force: true });
    delete process.env[RUN_SNAPSHOT_DIR];
  };
}
