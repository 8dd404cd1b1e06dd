import { dateTestPlans, endTestPlans, renewTestPlans, stopBannedTestPlans } from '../features/payments/subscription';
import type { Job } from './job';

/**
 * The local test checkout's plans (CHECKOUT_MODE=test) cancelled in the test portal end when their
 * period does, as Stripe ends a real one: this sends the deletion Stripe would send then, and tells the
 * owner's open apps. The others renew when their trial or period ends, as Stripe renews a real one, so
 * that a cancellation later ends them at the end of the period they are in. Real subscriptions are
 * Stripe's to renew and end, and the job leaves them alone.
 *
 * It runs in every mode: after a switch to Stripe, or off, the test plans given before are still here,
 * and nothing renews them any more (no test checkout stands in for Stripe): each ends at the end of the
 * period it is in, cancelled or not, rather than keep its perks for ever.
 *
 * A test plan bought before the plan's dates were kept has none to renew or end on: it is given those
 * of the period it is in first (`dateTestPlans`), in every mode. A banned account's that still renews
 * (a ban's stop that did not take, or one that stopped it while it had no dates) is stopped once dated,
 * before anything renews it (`stopBannedTestPlans`).
 */
export const testPlanEnd: Job = {
  name: 'test-plan-end',
  everyMs: 60 * 1000,
  scope: 'cluster',
  async run(app) {
    const renewing = app.config.checkoutMode === 'test';
    const yearly = app.config.stripe.lookupKeys.yearly;
    const dated = await dateTestPlans(app.db, yearly);
    const stopped = await stopBannedTestPlans(app.db, app.log, yearly);
    const renewed = renewing ? await renewTestPlans(app.db, yearly) : [];
    const ended = await endTestPlans(app.db, renewing);
    for (const userId of new Set([...dated, ...stopped, ...renewed, ...ended])) app.publish([userId], 'account:changed');
    return { dated: dated.length, stopped: stopped.length, renewed: renewed.length, ended: ended.length };
  },
};
