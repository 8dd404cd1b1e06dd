import { bannedStillRenewing, stopRenewalOfBanned } from '../features/payments/subscription';
import type { Job } from './job';

/**
 * A ban stops the renewal of its user's plan, as they can no longer sign in to cancel it. One that
 * Stripe did not take (down, or refusing, at the ban) would renew on and on: this tries again until it
 * does (`stopped`: how many now, of `due`), or until Stripe says the plan renews no more, its owner's
 * cancellation or its end there taken up here in place of an event that was lost.
 */
export const bannedPlanStop: Job = {
  name: 'banned-plan-stop',
  everyMs: 10 * 60 * 1000,
  firstAfterMs: 60 * 1000,
  scope: 'cluster',
  // Only plans at Stripe are this job's (the local test checkout's are tried again by test-plan-end, in
  // every mode), and a plan bought there is stopped there whatever the checkout mode now: with a key.
  runsWith: (config) => config.stripe.secretKey !== null,
  async run(app, stopping) {
    const due = await bannedStillRenewing(app.db);
    let stopped = 0;
    for (const userId of due) {
      if (stopping.aborted) break;
      if (await stopRenewalOfBanned(app.db, app.stripe, userId, app.log, app.config.stripe.lookupKeys.yearly)) stopped += 1;
    }
    return { due: due.length, stopped };
  },
};
