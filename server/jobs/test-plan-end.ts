import { endCancelledTestPlans, renewTestPlans } from '../features/payments/subscription';
import type { Job } from './job';

/**
 * The local test checkout's plans (CHECKOUT_MODE=test) cancelled in the test portal end when their
 * period does, as Stripe ends a real one: this sends the deletion Stripe would send then, and tells the
 * owner's open apps. The others renew when their trial or period ends, as Stripe renews a real one, so
 * that a cancellation later ends them at the end of the period they are in. Real subscriptions are
 * Stripe's to renew and end: the job does not run with any other mode.
 */
export const testPlanEnd: Job = {
  name: 'test-plan-end',
  everyMs: 60 * 1000,
  scope: 'cluster',
  runsWith: (config) => config.checkoutMode === 'test',
  async run(app) {
    const renewed = await renewTestPlans(app.db, app.config.stripe.lookupKeys.yearly);
    const ended = await endCancelledTestPlans(app.db);
    for (const userId of [...renewed, ...ended]) app.publish([userId], 'account:changed');
    return { renewed: renewed.length, ended: ended.length };
  },
};
