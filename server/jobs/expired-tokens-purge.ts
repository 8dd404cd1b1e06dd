import { purgeExpiredTokens } from '../features/account/service';
import type { Job } from './job';

/**
 * Sessions unused for 60 days and e-mailed links past their expiry go. Both are refused
 * already where they are read; this keeps the tables to what can still open something.
 */
export const expiredTokensPurge: Job = {
  name: 'expired-tokens-purge',
  everyMs: 60 * 60 * 1000,
  firstAfterMs: 3 * 60 * 1000,
  scope: 'cluster',
  async run(app) {
    return purgeExpiredTokens(app.db);
  },
};
