import { evidenceReferenced, ORPHAN_GRACE_MS, photosReferenced, sweepOrphans } from '../features/media/orphans';
import type { Job } from './job';

/**
 * Files in the media store (photos) and the evidence store (a report's copies of them) that nothing in
 * the database names any more, and that are older than an hour, go: the net for a removal after a
 * commit that failed or never ran (the bucket away, the process killed). Otherwise a deleted account's
 * photo would stay readable at its URL for good.
 */
export const orphanFileSweep: Job = {
  name: 'orphan-file-sweep',
  everyMs: 6 * 60 * 60 * 1000,
  firstAfterMs: 5 * 60 * 1000,
  scope: 'cluster',
  async run(app, stopping) {
    const before = new Date(Date.now() - ORPHAN_GRACE_MS);
    const photos = await sweepOrphans(app.db, app.media, photosReferenced, { before, stopping });
    const evidence = await sweepOrphans(app.db, app.evidence, evidenceReferenced, { before, stopping });
    const failed = photos.failed + evidence.failed;
    if (failed > 0) {
      // Once per run, not per file: a store refusing deletes would refuse every one of them.
      const err = photos.firstFailure ?? evidence.firstFailure;
      app.log.warn({ job: orphanFileSweep.name, failed, err }, 'orphan files not removed');
    }
    return { photos: photos.removed, evidence: evidence.removed, failed };
  },
};
