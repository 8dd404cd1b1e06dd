/**
 * One build of the client for a whole run of vitest (`buildClient` in helpers.ts makes it when the
 * first end-to-end suite asks, and copies it for each): a folder for it, named to the workers through
 * the environment they inherit, and removed when the run ends. A run with no end-to-end suite builds
 * nothing.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/** Where this run's one build of the client goes, for the workers (they inherit the environment). */
export const RUN_BUILD_DIR = 'EVENTMATCH_E2E_BUILD_DIR';

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-e2e-run-'));
  process.env[RUN_BUILD_DIR] = dir;
  // Watch mode: the client may have changed since; the next suite builds it again.
  project.onTestsRerun(async () => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
  });
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
