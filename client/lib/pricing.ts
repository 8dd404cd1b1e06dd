import { type Language, LOOKUP_KEYS, PLAN_CURRENCY, PLAN_MONTHLY_PRICES } from '../../shared/constants';
import type { BillingPeriod, Plan } from '../../shared/plan-prices';
import { localeOf } from './locale';

export { type BillingPeriod, chargedPrice, displayPrice, type Plan } from '../../shared/plan-prices';

export const PLANS = Object.keys(PLAN_MONTHLY_PRICES) as Plan[];
/** Only Starter can be bought; the others show "COMING SOON!". */
export const PURCHASABLE_PLANS: readonly Plan[] = ['starter'];
export const DEFAULT_PERIOD: BillingPeriod = 'yearly';

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
