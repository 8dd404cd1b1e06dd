import Stripe from 'stripe';
import type { Config } from '../../config';
import { ServiceUnavailable } from '../../errors';
import { serverText } from '../../../shared/i18n/server-messages';

/** The Stripe SDK, or null when no key is configured (the local test checkout runs instead). */
export function createStripeClient(config: Pick<Config['stripe'], 'secretKey' | 'apiBase'>): Stripe | null {
  if (!config.secretKey) return null;
  if (!config.apiBase) return new Stripe(config.secretKey, { maxNetworkRetries: 2, timeout: 15_000 });
  // STRIPE_API_BASE: tests point the real SDK at a local fake of Stripe's HTTP API.
  const base = new URL(config.apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(config.secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    maxNetworkRetries: 2,
    timeout: 15_000,
  });
}

export class PaymentsUnavailable extends ServiceUnavailable {
  constructor() {
    super(serverText('payments_unavailable'), 'payments_unavailable');
  }
}

/**
 * Stripe being down, throttling us or refusing our key is not the user's mistake and not a bug in
 * this request: a 503 they can retry. Anything else (our params rejected) stays a 500.
 */
export async function callStripe<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (
      error instanceof Stripe.errors.StripeConnectionError ||
      error instanceof Stripe.errors.StripeAPIError ||
      error instanceof Stripe.errors.StripeRateLimitError ||
      error instanceof Stripe.errors.StripeAuthenticationError
    ) {
      throw new PaymentsUnavailable();
    }
    throw error;
  }
}

/** Stripe answered that it has no such object (404). */
export const isMissing = (error: unknown) => error instanceof Error && 'statusCode' in error && error.statusCode === 404;

/** Stripe refused a call for naming a customer it does not have: one deleted in Stripe's dashboard, say. */
export const isMissingCustomer = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing' && error.param === 'customer';

/** Cancels a subscription at once; one Stripe has already ended, or does not have, needs nothing. */
export async function cancelAtStripe(stripe: Stripe, subscriptionId: string): Promise<'canceled' | 'none'> {
  try {
    await callStripe(() => stripe.subscriptions.cancel(subscriptionId));
    return 'canceled';
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError) return 'none';
    throw error;
  }
}

/** Whether it was open and is expired now; one already complete or expired can be paid no more (false). */
export async function expireCheckout(stripe: Stripe, id: string): Promise<boolean> {
  try {
    await callStripe(() => stripe.checkout.sessions.expire(id));
    return true;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError) return false;
    throw error;
  }
}

/**
 * Has Stripe write the customer's e-mails, receipts and invoices in `language` from now on, when it
 * has another: the one the customer was made with is the app's language of that day, and someone who
 * has switched since would otherwise keep getting them in the old one. A deleted customer is left as
 * it is (whatever is started on it next is refused, and a new one made in the right language).
 */
export async function keepCustomerLanguage(stripe: Stripe, customer: string, language: string): Promise<void> {
  const current = await callStripe(() => stripe.customers.retrieve(customer));
  if (current.deleted || current.preferred_locales?.[0] === language) return;
  await callStripe(() => stripe.customers.update(customer, { preferred_locales: [language] }));
}

/** A customer made at Stripe, not by the local test checkout (whose ids are `cus_local_…`). */
export const isStripeCustomer = (customer: string) => !customer.startsWith('cus_local_');

/** A plan the local test checkout gave (CHECKOUT_MODE=test, ids `sub_local_…`): its subscription exists only here. */
export const isTestPlan = (subscription: string | null | undefined) => subscription?.startsWith('sub_local_') ?? false;
