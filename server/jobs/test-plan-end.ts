import { endCancelledTestPlans } from '../features/payments/subscription';
import type { Job } from './job';

/**
 * The local test checkout's plans (CHECKOUT_MODE=test) cancelled in the test portal end when their
 * period does, as Stripe ends a real one: this sends the deletion Stripe would send then, and tells the
 * owner's open apps. Real subscriptions are Stripe's to end: the job does not run with any other mode.
 */
export const testPlanEnd: Job = {
  name: 'test-plan-end',
  everyMs: 60 * 1000,
  scope: 'cluster',
  runsWith: (config) => config.checkoutMode === 'test',
  async run(app) {
    const ended = await endCancelledTestPlans(app.db);
    for (const userId of ended) app.publish([userId], 'account:changed');
    return { ended: ended.length };
  },
};
