import { LOOKUP_KEYS, PLAN_MONTHLY_PRICES, YEARLY_PRICE_FACTOR } from './constants';

/*
 * The plans' prices as the app shows them, and so as each payment must charge them: the pricing page
 * and the test checkout write them, and the server checks Stripe's price against them before it sends
 * anyone to pay.
 */

export type Plan = keyof typeof PLAN_MONTHLY_PRICES;
export type BillingPeriod = keyof typeof LOOKUP_KEYS;

/** The billing period a plan's price names (by its lookup key), or null for a price that is not one of the two plans'. */
export function planPeriod(lookupKey: string | null | undefined, lookupKeys: Record<BillingPeriod, string>): BillingPeriod | null {
  if (lookupKey === lookupKeys.monthly) return 'monthly';
  return lookupKey === lookupKeys.yearly ? 'yearly' : null;
}

/** The per-month figure shown: yearly is two thirds of monthly, rounded to cents. */
export function displayPrice(plan: Plan, period: BillingPeriod): number {
  const monthly = PLAN_MONTHLY_PRICES[plan];
  if (period === 'monthly') return monthly;
  return Math.round(monthly * YEARLY_PRICE_FACTOR * 100) / 100;
}

/** What one payment of the period charges: a month's price, or the year's (twelve of the per-month figure shown). */
export function chargedPrice(plan: Plan, period: BillingPeriod): number {
  const perMonth = displayPrice(plan, period);
  return period === 'monthly' ? perMonth : Math.round(perMonth * 12 * 100) / 100;
}
