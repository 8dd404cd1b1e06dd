import { sweepUnusedUploads, UNUSED_UPLOAD_TTL_MS } from '../features/media/service';
import type { Job } from './job';

/** Uploads no profile took up go after a day: rows and files. */
export const uploadSweep: Job = {
  name: 'upload-sweep',
  everyMs: 60 * 60 * 1000,
  firstAfterMs: 60 * 1000,
  scope: 'cluster',
  async run(app) {
    const keys = await sweepUnusedUploads(app.db, app.media, new Date(Date.now() - UNUSED_UPLOAD_TTL_MS));
    return { swept: keys.length };
  },
};
