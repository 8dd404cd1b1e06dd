import { type Language, LOOKUP_KEYS, PLAN_CURRENCY, PLAN_MONTHLY_PRICES, YEARLY_PRICE_FACTOR } from '../../shared/constants';
import { localeOf } from './locale';

export type Plan = keyof typeof PLAN_MONTHLY_PRICES;
export type BillingPeriod = keyof typeof LOOKUP_KEYS;

export const PLANS = Object.keys(PLAN_MONTHLY_PRICES) as Plan[];
/** Only Starter can be bought; the others show "COMING SOON!". */
export const PURCHASABLE_PLANS: readonly Plan[] = ['starter'];
export const DEFAULT_PERIOD: BillingPeriod = 'yearly';

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

export function lookupKeyFor(period: BillingPeriod): string {
  return LOOKUP_KEYS[period];
}

/**
 * A price as the reader's locale writes it ("10 US$" in Spain, "$10" in the US, "US$10" in Britain):
 * a whole amount without its cents, as price lists print it.
 */
export function formatPrice(amount: number, language: Language): string {
  return new Intl.NumberFormat(localeOf(language), { style: 'currency', currency: PLAN_CURRENCY, minimumFractionDigits: amount % 1 ? 2 : 0 }).format(amount);
}
