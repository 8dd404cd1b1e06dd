import { randomBytes } from 'node:crypto';
import { and, eq, isNull, ne, or, sql } from 'drizzle-orm';
import Stripe from 'stripe';
import type { CheckoutMode } from '../../config';
import { FREE_TRIAL_DAYS } from '../../../shared/constants';
import {
  StripeCheckoutSession,
  type StripeEvent,
  StripeSubscription,
} from '../../../shared/schemas/payments';
import { z } from '../../../shared/schemas/zod';
import type { Db, DbOrTx, Tx } from '../../db/client';
import { checkoutSessions, stripeEvents, users } from '../../db/schema';
import { Conflict, ValidationError } from '../../errors';
import { callStripe } from './stripe-client';
import { serverText } from '../../../shared/i18n/server-messages';

export const UNKNOWN_PLAN = serverText('unknown_plan');
export const NO_PRICE = serverText('no_price');
export const ALREADY_SUBSCRIBED = serverText('already_subscribed');

/** Subscription states that keep the plan's features; the others (canceled, unpaid, …) end them. */
const ACTIVE_STATUSES = new Set(['active', 'trialing', 'past_due']);

export interface Payments {
  mode: CheckoutMode;
  /** null: the local test checkout (CHECKOUT_MODE=test) stands in for Stripe, or (off) nothing does. */
  stripe: Stripe | null;
  /** The lookup keys of the plans that may be bought (overridable by environment). */
  lookupKeys: readonly string[];
}

export interface CheckoutUser {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  hasSubscription: boolean;
  stripeCustomerId: string | null;
}

const checkoutUserColumns = {
  id: users.id,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  hasSubscription: users.hasSubscription,
  stripeCustomerId: users.stripeCustomerId,
};

export async function findCheckoutUserById(db: DbOrTx, id: number): Promise<CheckoutUser | null> {
  const [user] = await db.select(checkoutUserColumns).from(users).where(eq(users.id, id));
  return user ?? null;
}

export const subscribeUrl = (publicUrl: string) => `${publicUrl}/app/subscribe/`;
/** Stripe fills in `{CHECKOUT_SESSION_ID}`; the local test checkout passes its own id. */
export const successUrl = (publicUrl: string, sessionId = '{CHECKOUT_SESSION_ID}') =>
  `${subscribeUrl(publicUrl)}?success=true&session_id=${sessionId}`;
export const cancelUrl = (publicUrl: string) => `${subscribeUrl(publicUrl)}?canceled=true`;
/** The app's page for a local test checkout: it shows the session to the signed-in account it is for. */
export const testCheckoutUrl = (publicUrl: string, sessionId: string) => `${subscribeUrl(publicUrl)}test-checkout/${sessionId}`;

/** A plan this server sells, or the 400 that says it is not one. */
export function checkPlan(payments: Payments, lookupKey: string) {
  if (!payments.lookupKeys.includes(lookupKey)) throw ValidationError.field('lookup_key', UNKNOWN_PLAN);
}

/** Starts a subscription checkout for `user`; answers the address to send the browser to. */
export async function createCheckout(
  db: Db,
  payments: Payments,
  publicUrl: string,
  user: CheckoutUser,
  lookupKey: string,
): Promise<string> {
  checkPlan(payments, lookupKey);
  if (user.hasSubscription) throw new Conflict(ALREADY_SUBSCRIBED, 'already_subscribed');

  if (!payments.stripe) {
    const id = `cs_local_${randomBytes(18).toString('base64url')}`;
    await db.insert(checkoutSessions).values({ id, userId: user.id, lookupKey, provider: 'local' });
    return testCheckoutUrl(publicUrl, id);
  }

  const stripe = payments.stripe;
  const prices = await callStripe(() => stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 }));
  const price = prices.data[0];
  if (!price) throw ValidationError.field('lookup_key', NO_PRICE);

  const customer = await ensureStripeCustomer(db, stripe, user);
  const trial = !(await hasHadTrial(db, stripe, user.id, customer));
  const session = await callStripe(() =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: price.id, quantity: 1 }],
      customer,
      client_reference_id: String(user.id),
      metadata: { user_id: String(user.id) },
      subscription_data: {
        ...(trial ? { trial_period_days: FREE_TRIAL_DAYS } : {}),
        metadata: { user_id: String(user.id) },
      },
      success_url: successUrl(publicUrl),
      cancel_url: cancelUrl(publicUrl),
    }),
  );
  if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
  await db.insert(checkoutSessions).values({ id: session.id, userId: user.id, lookupKey, provider: 'stripe' });
  return session.url;
}

/**
 * The free trial comes with someone's first subscription only. They have had it once a checkout of
 * theirs has completed here, or once their Stripe customer has had any subscription: Stripe keeps
 * ended ones, so it knows even of a subscription whose events never reached us.
 */
async function hasHadTrial(db: Db, stripe: Stripe, userId: number, customer: string): Promise<boolean> {
  if (await hasCompletedCheckout(db, userId)) return true;
  const subscriptions = await callStripe(() => stripe.subscriptions.list({ customer, status: 'all', limit: 1 }));
  return subscriptions.data.length > 0;
}

/** Whether a checkout of the user's has completed (`other` than the one named, if one is). */
async function hasCompletedCheckout(db: DbOrTx, userId: number, other?: string): Promise<boolean> {
  const [row] = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.userId, userId),
        eq(checkoutSessions.status, 'complete'),
        other === undefined ? undefined : ne(checkoutSessions.id, other),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * The trial a checkout started now would come with, as far as this server knows without asking
 * Stripe: none once a checkout of the user's has completed. (A Stripe customer's subscription whose
 * events never reached us is the rare case only the checkout itself catches: `hasHadTrial`.)
 */
export async function trialDaysFor(db: DbOrTx, userId: number): Promise<number> {
  return (await hasCompletedCheckout(db, userId)) ? 0 : FREE_TRIAL_DAYS;
}

/** The trial a local test checkout shows: none for someone whose earlier checkout has completed. */
export async function localCheckoutTrialDays(db: DbOrTx, checkout: LocalCheckout): Promise<number> {
  return (await hasCompletedCheckout(db, checkout.userId, checkout.id)) ? 0 : FREE_TRIAL_DAYS;
}

/** The user's Stripe customer, created once: later checkouts and webhooks find the user by it. */
async function ensureStripeCustomer(db: Db, stripe: Stripe, user: CheckoutUser): Promise<string> {
  if (user.stripeCustomerId) return user.stripeCustomerId;
  const customer = await callStripe(() =>
    stripe.customers.create({
      email: user.email,
      name: `${user.firstName} ${user.lastName}`.trim(),
      metadata: { user_id: String(user.id) },
    }),
  );
  // Two checkouts racing each create a customer; the first one stored wins, the other is left unused.
  const [stored] = await db
    .update(users)
    .set({ stripeCustomerId: customer.id })
    .where(and(eq(users.id, user.id), isNull(users.stripeCustomerId)))
    .returning({ id: users.stripeCustomerId });
  if (stored?.id) return stored.id;
  const current = await findCheckoutUserById(db, user.id);
  if (!current?.stripeCustomerId) throw new Error(`user ${user.id} has no Stripe customer after linking`);
  return current.stripeCustomerId;
}

export type EventOutcome = 'handled' | 'duplicate' | 'ignored';

/** What became of an event; for one that changed no one's plan, why (for the log). */
export interface EventResult {
  outcome: EventOutcome;
  reason?: string;
}

/**
 * Stripe's current state of a subscription, or null if Stripe does not know it. Events can arrive
 * late and out of order; reading the state fresh means an old event cannot undo a newer one.
 */
export type SubscriptionSource = (id: string) => Promise<StripeSubscription | null>;

/**
 * Read while the user's billing lock (and a database connection) is held (`handleStripeEvent`), so a
 * slow Stripe is given less time than elsewhere. A read that fails answers 503, and Stripe delivers
 * the event again later.
 */
const LOCKED_READ = { timeout: 5_000, maxNetworkRetries: 1 };

export function stripeSubscriptionSource(stripe: Stripe): SubscriptionSource {
  return async (id) => {
    try {
      const subscription = await callStripe(() => stripe.subscriptions.retrieve(id, {}, LOCKED_READ));
      const customer = typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id;
      const items = subscription.items.data.map((item) => ({ price: { lookup_key: item.price.lookup_key } }));
      return { id: subscription.id, customer, status: subscription.status, items: { data: items } };
    } catch (error) {
      if (error instanceof Error && 'statusCode' in error && error.statusCode === 404) return null;
      throw error;
    }
  };
}

/**
 * Where events come from, and so which checkout sessions their completions may complete: Stripe's
 * webhook completes the Stripe checkouts this server started, and reads subscriptions fresh from
 * Stripe (`latest`; null only without a Stripe key); the local test checkout and portal complete
 * local sessions, whose subscriptions exist only here.
 */
export interface EventOrigin {
  provider: 'stripe' | 'local';
  latest: SubscriptionSource | null;
}

export const LOCAL_EVENTS: EventOrigin = { provider: 'local', latest: null };

/**
 * One Stripe event, applied at most once: its id is recorded in the same transaction as its
 * effect, so a redelivery changes nothing and a failure leaves it to be retried. The webhook and
 * the local test checkout both come through here.
 *
 * A user's events are applied one at a time, under a lock of theirs taken before Stripe is asked
 * for the subscription's state: each reads that state only once the event before it has committed,
 * so the state committed last is never older than one committed before it.
 */
export async function handleStripeEvent(db: Db, event: StripeEvent, origin: EventOrigin): Promise<EventResult> {
  if (await alreadyHandled(db, event.id)) return { outcome: 'duplicate' };
  // Parsed, and its account found, before anything is written: a payload we cannot read is refused whole.
  const effect = await eventEffect(db, event, origin);
  return db.transaction(async (tx) => {
    if ('userId' in effect) await tx.execute(billingLock(effect.userId));
    const [fresh] = await tx
      .insert(stripeEvents)
      .values({ id: event.id, type: event.type })
      .onConflictDoNothing()
      .returning({ id: stripeEvents.id });
    if (!fresh) return { outcome: 'duplicate' };
    if ('ignore' in effect) return ignored(effect.ignore);
    return effect.apply(tx);
  });
}

/** A lock per user, in a key space of its own (the two-int form never meets the one-bigint locks). */
const BILLING_LOCK_SPACE = 0x42494c4c;
const billingLock = (userId: number) => sql`select pg_advisory_xact_lock(${BILLING_LOCK_SPACE}::int, ${userId}::int)`;

/** What an event does to one user's billing, once their lock is held; or why it does nothing. */
type EventEffect = { userId: number; apply: (tx: Tx) => Promise<EventResult> } | { ignore: string };

const handled: EventResult = { outcome: 'handled' };
const ignored = (reason: string): EventResult => ({ outcome: 'ignored', reason });

function parseOrReject<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw ValidationError.field('non_field_errors', 'Unexpected Stripe event payload.');
  return parsed.data;
}

async function alreadyHandled(db: Db, id: string): Promise<boolean> {
  const [row] = await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, id));
  return row !== undefined;
}

/** A completed checkout session, as far as it is read: which session, of which mode, starting which subscription. */
const CompletedCheckout = StripeCheckoutSession.extend({ mode: z.string().max(64).nullish() });

async function eventEffect(db: Db, event: StripeEvent, origin: EventOrigin): Promise<EventEffect> {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = parseOrReject(CompletedCheckout, event.data.object);
      // Only a checkout this server started grants anything, to the account that started it: Stripe
      // signs every completion on the account (a Payment Link's too, whatever reference it was given).
      const checkout = await findCheckoutSession(db, session.id, origin.provider);
      if (!checkout) return { ignore: 'a checkout session this server did not start' };
      if (session.mode !== 'subscription') return { ignore: `a checkout session in ${session.mode ?? 'no'} mode` };
      const subscription = session.subscription;
      if (!subscription) return { ignore: 'a checkout session that started no subscription' };
      return { userId: checkout.userId, apply: (tx) => completeCheckout(tx, origin, checkout, session, subscription) };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.resumed':
    case 'customer.subscription.paused': {
      const sent = parseOrReject(StripeSubscription, event.data.object);
      const userId = await userOfCustomer(db, sent.customer);
      if (userId === null) return { ignore: 'a customer no account has' };
      return {
        userId,
        apply: async (tx) => applySubscription(tx, userId, (origin.latest && (await origin.latest(sent.id))) || sent),
      };
    }
    case 'customer.subscription.deleted': {
      const subscription = parseOrReject(StripeSubscription, event.data.object);
      const userId = await userOfCustomer(db, subscription.customer);
      if (userId === null) return { ignore: 'a customer no account has' };
      return { userId, apply: (tx) => clearSubscription(tx, userId, subscription, true) };
    }
    default:
      return { ignore: 'an event type this server does not act on' };
  }
}

interface StartedCheckout {
  id: string;
  userId: number;
  lookupKey: string;
}

async function findCheckoutSession(db: Db, id: string, provider: EventOrigin['provider']): Promise<StartedCheckout | null> {
  const [row] = await db
    .select({ id: checkoutSessions.id, userId: checkoutSessions.userId, lookupKey: checkoutSessions.lookupKey })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.provider, provider)));
  return row ?? null;
}

/** The account a Stripe customer is linked to (once linked, it stays). */
async function userOfCustomer(db: Db, customer: string): Promise<number | null> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.stripeCustomerId, customer));
  return row?.id ?? null;
}

/**
 * The checkout is complete, and with it the user's trial (`hasHadTrial`). It grants the plan while
 * its subscription is live; one that has already ended grants nothing.
 */
async function completeCheckout(
  tx: Tx,
  origin: EventOrigin,
  checkout: StartedCheckout,
  session: z.infer<typeof CompletedCheckout>,
  subscription: string,
): Promise<EventResult> {
  // The local test checkout's subscriptions exist only here; Stripe's are as Stripe has them now.
  const status = origin.latest ? (await origin.latest(subscription))?.status : 'active';
  if (!status) return ignored('a subscription Stripe does not have');

  await tx.update(checkoutSessions).set({ status: 'complete' }).where(eq(checkoutSessions.id, checkout.id));
  if (!ACTIVE_STATUSES.has(status)) return ignored(`a subscription already ${status}`);
  await tx
    .update(users)
    .set({
      hasSubscription: true,
      stripeSubscriptionId: subscription,
      // The plan bought is the checkout's, until the subscription's own events name another.
      planLookupKey: checkout.lookupKey,
      // The customer was linked when the checkout started; keep that link if it exists.
      ...(session.customer ? { stripeCustomerId: sql`coalesce(${users.stripeCustomerId}, ${session.customer})` } : {}),
    })
    .where(eq(users.id, checkout.userId));
  return handled;
}

async function applySubscription(tx: Tx, userId: number, subscription: StripeSubscription): Promise<EventResult> {
  if (!ACTIVE_STATUSES.has(subscription.status)) return clearSubscription(tx, userId, subscription, false);
  const lookupKey = subscription.items?.data[0]?.price.lookup_key;
  const updated = await tx
    .update(users)
    .set({ hasSubscription: true, stripeSubscriptionId: subscription.id, ...(lookupKey ? { planLookupKey: lookupKey } : {}) })
    .where(and(eq(users.id, userId), eq(users.stripeCustomerId, subscription.customer)))
    .returning({ id: users.id });
  return updated.length > 0 ? handled : ignored('a customer no account has');
}

/** Only the user's current subscription can end their plan: an old one ending changes nothing. */
async function clearSubscription(tx: Tx, userId: number, subscription: StripeSubscription, forget: boolean): Promise<EventResult> {
  const updated = await tx
    .update(users)
    .set({ hasSubscription: false, ...(forget ? { stripeSubscriptionId: null, planLookupKey: null } : {}) })
    .where(
      and(
        eq(users.id, userId),
        eq(users.stripeCustomerId, subscription.customer),
        or(eq(users.stripeSubscriptionId, subscription.id), isNull(users.stripeSubscriptionId)),
      ),
    )
    .returning({ id: users.id });
  return updated.length > 0 ? handled : ignored('a subscription that is not the current one');
}

export interface LocalCheckout {
  id: string;
  lookupKey: string;
  status: 'open' | 'complete' | 'canceled';
  userId: number;
  email: string;
}

/** A local test checkout of this user's; another account's is as unknown as one that never existed. */
export async function findLocalCheckout(db: DbOrTx, id: string, userId: number): Promise<LocalCheckout | null> {
  const [row] = await db
    .select({
      id: checkoutSessions.id,
      lookupKey: checkoutSessions.lookupKey,
      status: checkoutSessions.status,
      userId: checkoutSessions.userId,
      email: users.email,
    })
    .from(checkoutSessions)
    .innerJoin(users, eq(users.id, checkoutSessions.userId))
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.userId, userId), eq(checkoutSessions.provider, 'local')));
  return row ?? null;
}

export const CHECKOUT_CANCELED = serverText('checkout_canceled');
export const CHECKOUT_DONE = serverText('checkout_complete');

/**
 * "Pays" a local test checkout of the signed-in user's: the event Stripe would send for it goes
 * through the webhook's own handler. Its id is derived from the session's, so a second click changes
 * nothing. Answers the success address, or null for a session that is not theirs.
 */
export async function completeLocalCheckout(db: Db, publicUrl: string, id: string, userId: number): Promise<string | null> {
  const checkout = await findLocalCheckout(db, id, userId);
  if (!checkout) return null;
  if (checkout.status === 'canceled') throw new Conflict(CHECKOUT_CANCELED, 'checkout_canceled');
  const suffix = id.slice('cs_local_'.length);
  const completed: StripeEvent = {
    id: `evt_local_${suffix}`,
    type: 'checkout.session.completed',
    data: {
      object: {
        id,
        object: 'checkout.session',
        mode: 'subscription',
        status: 'complete',
        client_reference_id: String(checkout.userId),
        // A customer of its own, as Stripe would make: the local portal's cancellation names it.
        customer: `cus_local_${suffix}`,
        subscription: `sub_local_${suffix}`,
      },
    },
  };
  await handleStripeEvent(db, completed, LOCAL_EVENTS);
  return successUrl(publicUrl, id);
}

/** Answers the cancel address, or null for a session that is not theirs. A completed checkout stays complete. */
export async function cancelLocalCheckout(db: Db, publicUrl: string, id: string, userId: number): Promise<string | null> {
  const checkout = await findLocalCheckout(db, id, userId);
  if (!checkout) return null;
  if (checkout.status === 'complete') throw new Conflict(CHECKOUT_DONE, 'checkout_complete');
  await db
    .update(checkoutSessions)
    .set({ status: 'canceled' })
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.status, 'open')));
  return cancelUrl(publicUrl);
}

/**
 * Ends a user's Stripe subscription at once (`DELETE /v1/subscriptions/{id}`), as account deletion
 * needs: no charge after the account is gone. The local test checkout's subscriptions are not
 * Stripe's. A subscription Stripe no longer has, or has already ended, needs nothing. Stripe being
 * unreachable throws `PaymentsUnavailable` (503), so that the deletion can be tried again.
 */
export async function cancelStripeSubscription(
  stripe: Stripe | null,
  subscriptionId: string | null,
  log: { warn: (object: object, message: string) => void; error: (object: object, message: string) => void },
): Promise<'canceled' | 'none'> {
  if (!subscriptionId || subscriptionId.startsWith('sub_local_')) return 'none';
  if (!stripe) {
    log.error({ subscriptionId }, 'a Stripe subscription cannot be cancelled: no STRIPE_SECRET_KEY; cancel it in Stripe by hand');
    return 'none';
  }
  try {
    await callStripe(() => stripe.subscriptions.cancel(subscriptionId));
    return 'canceled';
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError) {
      log.warn({ subscriptionId, err: error }, 'Stripe had nothing to cancel');
      return 'none';
    }
    throw error;
  }
}
