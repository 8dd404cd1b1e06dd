import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Job } from './job';

/**
 * How long an e-mail written to `DATA_DIR/outbox/` (no SMTP_URL) is kept: each holds an address, a
 * name and a link, and nothing else would ever delete it.
 */
export const OUTBOX_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Deletes the outbox's e-mails older than a week. Each instance writes to its own DATA_DIR (or a shared
 * one, where deleting a file twice is harmless), so each sweeps it. Nothing to do with SMTP_URL set.
 */
export const outboxSweep: Job = {
  name: 'outbox-sweep',
  everyMs: 6 * 60 * 60 * 1000,
  firstAfterMs: 6 * 60 * 1000,
  scope: 'instance',
  async run(app) {
    if (app.config.mail.smtpUrl) return { removed: 0 };
    const outbox = path.join(app.config.dataDir, 'outbox');
    const names = await readdir(outbox).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const before = Date.now() - OUTBOX_KEPT_MS;
    let removed = 0;
    for (const name of names.filter((each) => each.endsWith('.eml'))) {
      const file = path.join(outbox, name);
      const written = await stat(file).then((info) => info.mtimeMs, () => null);
      if (written === null || written >= before) continue;
      await rm(file, { force: true });
      removed++;
    }
    return { removed };
  },
};
