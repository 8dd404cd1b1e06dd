import { mkdir, readFile, writeFile } from 'node:fs/promises';

/**
 * What one process of a test run makes for all of them (the client's build, the migrated database):
 * the first to ask makes it, its `mkdir` of `lock` the lock across the run's processes, and then says
 * in `marker` that it is made ("ok") or why not; the others wait for the marker, and a failure fails
 * each of them with it.
 */
export async function makeOncePerRun(lock: string, marker: string, what: string, make: () => Promise<void>): Promise<void> {
  try {
    await mkdir(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    for (;;) {
      const said = await readFile(marker, 'utf8').catch(() => null);
      if (said === 'ok') return;
      if (said !== null) throw new Error(`${what} failed: ${said}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await make();
  } catch (error) {
    await writeFile(marker, String(error));
    throw error;
  }
  await writeFile(marker, 'ok');
}
