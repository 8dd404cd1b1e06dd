import { sql } from 'drizzle-orm';
import type { users } from '../../db/schema';
import type { StripeSubscription } from '../../../shared/schemas/payments';

/*
 * What the checkout, the webhook and the end of an account's billing share: the subscription states
 * that keep a plan, the user's billing lock, and the plan's dates.
 */

/** Subscription states that keep the plan's features; the others (canceled, unpaid, …) end them. */
export const ACTIVE_STATUSES = new Set(['active', 'trialing', 'past_due']);
/** Subscription states in which Stripe will never bill again; from any other, it may (an incomplete one once paid). */
export const ENDED_STATUSES = new Set(['canceled', 'incomplete_expired']);

/** A lock per user, in a key space of its own (the two-int form never meets the one-bigint locks). */
export const BILLING_LOCK_SPACE = 0x42494c4c;
export const billingLock = (userId: number) => sql`select pg_advisory_xact_lock(${BILLING_LOCK_SPACE}::int, ${userId}::int)`;

export type PlanDates = Pick<typeof users.$inferInsert, 'planTrialEndsAt' | 'planRenewsAt' | 'planEndsAt'>;
export const NO_PLAN_DATES: PlanDates = { planTrialEndsAt: null, planRenewsAt: null, planEndsAt: null };

/**
 * The plan's dates as the subscription says them (Stripe's seconds): the trial's end while it is in
 * its trial, the end of its period as its renewal, or as its end when it is canceled at that end.
 */
export function planDates(subscription: StripeSubscription): PlanDates {
  const at = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000) : null);
  const periodEnd = at(subscription.items?.data[0]?.current_period_end);
  const endsAt = at(subscription.cancel_at) ?? (subscription.cancel_at_period_end ? periodEnd : null);
  return {
    planTrialEndsAt: subscription.status === 'trialing' ? at(subscription.trial_end) : null,
    planRenewsAt: endsAt ? null : periodEnd,
    planEndsAt: endsAt,
  };
}

/**
 * A local test checkout's plan: the free trial it came with ends, and the plan renews, that many days on;
 * with no trial (a second checkout), it renews one period (`periodMonths`) on.
 */
export function localPlanDates(trialDays: number, periodMonths: number): PlanDates {
  if (trialDays === 0) return { planTrialEndsAt: null, planRenewsAt: monthsLater(new Date(), periodMonths), planEndsAt: null };
  const trialEnd = new Date(Date.now() + trialDays * 86_400_000);
  return { planTrialEndsAt: trialEnd, planRenewsAt: trialEnd, planEndsAt: null };
}

/** `months` on from `from`, on the same day, or the month's last when it has none (31 January → 28 or 29 February), as Stripe bills. */
export function monthsLater(from: Date, months: number): Date {
  const later = new Date(from);
  later.setUTCDate(1);
  later.setUTCMonth(later.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(later.getUTCFullYear(), later.getUTCMonth() + 1, 0)).getUTCDate();
  later.setUTCDate(Math.min(from.getUTCDate(), lastDay));
  return later;
}
