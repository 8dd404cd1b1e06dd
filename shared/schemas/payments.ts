import { message, z } from './zod';

/** Which plans exist is the server's configuration (overridable by environment), so any short key parses here. */
const LookupKey = z.string().trim().min(1).max(200);

/**
 * Both forms of the checkout call: the JSON call of a signed-in client sends `lookup_key` with its
 * token. A plain browser form post also sends an `email`, which names no account: it is
 * sent on to the subscribe page, where only a signed-in account can start a checkout for itself.
 */
export const CheckoutInput = z.object({
  lookup_key: LookupKey,
  email: z.string().trim().toLowerCase().max(254).pipe(z.email()).optional(),
});
export type CheckoutInput = z.infer<typeof CheckoutInput>;

/**
 * The checkout body as a server checks it, with its configured plans: an unknown plan is named beside
 * any other bad field of the same body, every one at once.
 */
export const checkoutInputFor = (lookupKeys: readonly string[]) =>
  CheckoutInput.extend({ lookup_key: LookupKey.refine((key) => lookupKeys.includes(key), message('unknown_plan')) });

export const CheckoutResponse = z.object({ url: z.string() });
export type CheckoutResponse = z.infer<typeof CheckoutResponse>;

/** A checkout's id, as its success address names it (Stripe's, or the local test checkout's). */
export const CheckoutParams = z.object({ id: z.string().regex(/^cs_[A-Za-z0-9_-]{1,250}$/) });
export type CheckoutParams = z.infer<typeof CheckoutParams>;

/**
 * `GET /api/payments/checkout/{id}/`: what became of one of the user's checkouts, for the page its
 * success address opens (at once, or again much later: an old tab, a bookmark, the history).
 */
export const CheckoutOutcome = z.object({
  outcome: z
    .enum(['active', 'confirming', 'incomplete', 'ended', 'not_paid'])
    .describe(
      '`active`: the user has the plan now. `confirming`: paid, and its event has not reached the server yet (`account:changed` says when it has). ' +
        '`incomplete`: its first payment was not made (declined, or awaiting the bank). `ended`: it started a plan that has ended since. ' +
        '`not_paid`: it was never paid (left open, cancelled or expired): no plan came of it.',
    ),
});
export type CheckoutOutcome = z.infer<typeof CheckoutOutcome>;

/** Stripe signs every webhook delivery; the raw body itself is checked against this signature. */
export const WebhookHeaders = z.object({ 'stripe-signature': z.string().min(1).max(4096) });
export type WebhookHeaders = z.infer<typeof WebhookHeaders>;

export const WebhookResponse = z.object({ received: z.literal(true) });
export type WebhookResponse = z.infer<typeof WebhookResponse>;

export const TestCheckoutParams = z.object({ id: z.string().regex(/^cs_local_[A-Za-z0-9_-]{16,64}$/) });
export type TestCheckoutParams = z.infer<typeof TestCheckoutParams>;

/** A local test checkout (CHECKOUT_MODE=test), as its own account sees it. */
export const TestCheckout = z.object({
  id: z.string(),
  lookup_key: z.string(),
  status: z.enum(['open', 'complete', 'canceled']),
  email: z.string(),
  /** The free trial it comes with, in days: 0 when an earlier checkout of the account's has completed. */
  trial_days: z.number(),
});
export type TestCheckout = z.infer<typeof TestCheckout>;

/**
 * The parts of a Stripe event this server reads. Stripe sends more; unknown keys are dropped.
 * Ids of linked objects arrive as strings unless expanded, and expansion is never asked for.
 */
export const StripeEvent = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  /** An update's: what the fields it changed were before it (`customer.subscription.updated`). */
  data: z.object({ object: z.record(z.string(), z.unknown()), previous_attributes: z.record(z.string(), z.unknown()).optional() }),
});
export type StripeEvent = z.infer<typeof StripeEvent>;

export const StripeCheckoutSession = z.object({
  id: z.string().min(1).max(255),
  client_reference_id: z.string().max(255).nullish(),
  customer: z.string().max(255).nullish(),
  subscription: z.string().max(255).nullish(),
});
export type StripeCheckoutSession = z.infer<typeof StripeCheckoutSession>;

/** A moment as Stripe gives it: seconds since the epoch. */
const StripeTime = z.number().int().min(0).max(253_402_300_799);

export const StripeSubscription = z.object({
  id: z.string().min(1).max(255),
  customer: z.string().min(1).max(255),
  status: z.string().min(1).max(64),
  /**
   * The subscription's prices: a plan has one item, whose price's lookup key names the plan, and whose
   * period ends when the plan renews.
   */
  items: z
    .object({
      data: z
        .array(z.object({ price: z.object({ lookup_key: z.string().max(255).nullish() }), current_period_end: StripeTime.nullish() }))
        .max(20),
    })
    .optional(),
  /** When the free trial ends (past once it has). */
  trial_end: StripeTime.nullish(),
  /** When a cancellation takes effect, or whether it does at the end of the period. */
  cancel_at: StripeTime.nullish(),
  cancel_at_period_end: z.boolean().nullish(),
  /** Our marks on it: `stopped_by: 'ban'` and its `stopped_at` while a ban's stop holds its renewal (`stopRenewalOfBanned`). */
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type StripeSubscription = z.infer<typeof StripeSubscription>;
