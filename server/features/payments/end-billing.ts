import { eq } from 'drizzle-orm';
import type Stripe from 'stripe';
import type { Db } from '../../db/client';
import { users } from '../../db/schema';
import { openStripeCheckouts } from './checkout';
import { callStripe, cancelAtStripe, expireCheckout, isMissing, isStripeCustomer, isTestPlan } from './stripe-client';

export interface BillingLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/**
 * Ends, at Stripe, everything the user could still be billed for, as account deletion needs before
 * the account goes:
 * - each of their checkouts Stripe may still have open (for 24 hours) is expired: none can be paid
 *   once the account is gone;
 * - their Stripe customer is deleted (`DELETE /v1/customers/{id}`): Stripe cancels every
 *   subscription of it at once (not only the one stored here, the last one started) and lets nothing
 *   new start on it.
 * Their billing is then cleared here as well: if the deletion fails after this, the account is a
 * plain free one, whose next checkout makes a new customer. Stripe being unreachable throws
 * `PaymentsUnavailable` (503) before the account is touched, so that the deletion can be tried again.
 * The local test checkout's customers and subscriptions (CHECKOUT_MODE=test) are not Stripe's: no call.
 */
export async function endStripeBilling(db: Db, stripe: Stripe | null, userId: number, log: BillingLog): Promise<'ended' | 'none'> {
  const [billing] = await db
    .select({ customer: users.stripeCustomerId, subscription: users.stripeSubscriptionId })
    .from(users)
    .where(eq(users.id, userId));
  const customer = billing?.customer && isStripeCustomer(billing.customer) ? billing.customer : null;
  const subscription = isTestPlan(billing?.subscription) ? null : (billing?.subscription ?? null);
  const checkouts = await openStripeCheckouts(db, userId);
  if (!customer && !subscription && checkouts.length === 0) return 'none';
  if (!stripe) {
    log.error(
      { userId, customer, subscription, checkouts },
      'Stripe billing cannot be ended: no Stripe client (CHECKOUT_MODE=stripe and STRIPE_SECRET_KEY); delete the customer in Stripe by hand',
    );
    return 'none';
  }
  for (const id of checkouts) await expireCheckout(stripe, id);
  if (customer) await deleteCustomer(stripe, customer, log);
  // Every checkout of this app's names the customer; a subscription without one would be an old row's.
  else if (subscription && (await cancelAtStripe(stripe, subscription)) === 'none') {
    log.warn({ userId, subscription }, 'Stripe had no subscription to cancel');
  }
  await db
    .update(users)
    .set({ hasSubscription: false, stripeCustomerId: null, stripeSubscriptionId: null, planLookupKey: null, planStatus: null })
    .where(eq(users.id, userId));
  return 'ended';
}

async function deleteCustomer(stripe: Stripe, customer: string, log: BillingLog): Promise<void> {
  try {
    await callStripe(() => stripe.customers.del(customer));
  } catch (error) {
    // Deleted already (by hand, or by an earlier try of this deletion that stopped before clearing it here).
    if (isMissing(error)) {
      log.warn({ customer, err: error }, 'Stripe had no customer to delete');
      return;
    }
    throw error;
  }
}
