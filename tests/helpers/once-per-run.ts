import { randomUUID } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';

/**
 * What one process of a test run makes for all of them (the client's build, the migrated database):
 * the first to ask makes it, `lock` (a file created whole, holding its pid) the lock across the run's
 * processes, and then says in `marker` that it is made ("ok") or why not; the others wait for the
 * marker, and a failure fails each of them with it. A maker that dies first (a worker killed) would
 * leave them waiting until the hook's timeout: the first waiter to find its pid gone makes it instead.
 */
export async function makeOncePerRun(lock: string, marker: string, what: string, make: () => Promise<void>): Promise<void> {
  if (!(await createWhole(lock, String(process.pid)))) {
    for (;;) {
      const maker = Number(await readFile(lock, 'utf8'));
      // Judged before the marker is read: a maker that said its word and then ended is not dead here.
      const died = !isRunning(maker);
      const said = await readFile(marker, 'utf8').catch(() => null);
      if (said === 'ok') return;
      if (said !== null) throw new Error(`${what} failed: ${said}`);
      // One waiter takes each dead maker's place: the one that creates its successor's file.
      if (died && (await createWhole(`${lock}.after-${maker}`, String(process.pid)))) {
        await replaceWhole(lock, String(process.pid));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await make();
  } catch (error) {
    await replaceWhole(marker, String(error));
    throw error;
  }
  await replaceWhole(marker, 'ok');
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Whether this process created `file`, with `text` in it: a file another made first is left as it is. */
async function createWhole(file: string, text: string): Promise<boolean> {
  const own = `${file}.${randomUUID()}`;
  await writeFile(own, text);
  try {
    // A link's name is taken whole or not at all: no other process reads it half-written.
    await link(own, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await unlink(own);
  }
}

/** `text` in `file` at once: a reader finds the old text or the new one, never an empty file. */
async function replaceWhole(file: string, text: string): Promise<void> {
  const own = `${file}.${randomUUID()}`;
  await writeFile(own, text);
  await rename(own, file);
}
