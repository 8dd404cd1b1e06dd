import { purgeSpentLikes } from '../features/plan/service';
import type { Job } from './job';

/** Likes given more than 24 hours ago no longer count against the free plan's daily likes: they go. */
export const spentLikesPurge: Job = {
  name: 'spent-likes-purge',
  everyMs: 60 * 60 * 1000,
  firstAfterMs: 4 * 60 * 1000,
  scope: 'cluster',
  async run(app) {
    return { likes: await purgeSpentLikes(app.db) };
  },
};
