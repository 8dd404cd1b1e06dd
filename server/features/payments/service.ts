import { randomBytes } from 'node:crypto';
import { and, eq, isNull, or, sql } from 'drizzle-orm';
import Stripe from 'stripe';
import type { CheckoutMode } from '../../config';
import { FREE_TRIAL_DAYS } from '../../../shared/constants';
import {
  StripeCheckoutSession,
  type StripeEvent,
  StripeSubscription,
} from '../../../shared/schemas/payments';
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
  const session = await callStripe(() =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: price.id, quantity: 1 }],
      customer,
      client_reference_id: String(user.id),
      metadata: { user_id: String(user.id) },
      subscription_data: { trial_period_days: FREE_TRIAL_DAYS, metadata: { user_id: String(user.id) } },
      success_url: successUrl(publicUrl),
      cancel_url: cancelUrl(publicUrl),
    }),
  );
  if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
  await db.insert(checkoutSessions).values({ id: session.id, userId: user.id, lookupKey, provider: 'stripe' });
  return session.url;
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

/**
 * Stripe's current state of a subscription, or null if Stripe does not know it. Events can arrive
 * late and out of order; reading the state fresh means an old event cannot undo a newer one.
 */
export type SubscriptionSource = (id: string) => Promise<StripeSubscription | null>;

export function stripeSubscriptionSource(stripe: Stripe): SubscriptionSource {
  return async (id) => {
    try {
      const subscription = await callStripe(() => stripe.subscriptions.retrieve(id));
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
 * One Stripe event, applied at most once: its id is recorded in the same transaction as its
 * effect, so a redelivery changes nothing and a failure leaves it to be retried. The webhook and
 * the local test checkout both come through here.
 */
export async function handleStripeEvent(
  db: Db,
  event: StripeEvent,
  latest: SubscriptionSource | null = null,
): Promise<EventOutcome> {
  if (await alreadyHandled(db, event.id)) return 'duplicate';
  // Parsed, and Stripe asked, before anything is written: a payload we cannot read is refused whole.
  const apply = await parseEventEffect(event, latest);
  return db.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(stripeEvents)
      .values({ id: event.id, type: event.type })
      .onConflictDoNothing()
      .returning({ id: stripeEvents.id });
    if (!fresh) return 'duplicate';
    if (!apply) return 'ignored';
    return (await apply(tx)) ? 'handled' : 'ignored';
  });
}

function parseOrReject<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw ValidationError.field('non_field_errors', 'Unexpected Stripe event payload.');
  return parsed.data;
}

async function alreadyHandled(db: Db, id: string): Promise<boolean> {
  const [row] = await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, id));
  return row !== undefined;
}

/** What an event does, as a function of a transaction; null for event types we do not act on. */
async function parseEventEffect(
  event: StripeEvent,
  latest: SubscriptionSource | null,
): Promise<((tx: Tx) => Promise<boolean>) | null> {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = parseOrReject(StripeCheckoutSession, event.data.object);
      const current = latest && session.subscription ? await latest(session.subscription) : null;
      // Completion grants the plan unless Stripe says that subscription has already ended.
      const active = current ? ACTIVE_STATUSES.has(current.status) : true;
      return (tx) => completeCheckout(tx, session, active);
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.resumed':
    case 'customer.subscription.paused': {
      const sent = parseOrReject(StripeSubscription, event.data.object);
      const current = (latest && (await latest(sent.id))) || sent;
      return (tx) => applySubscription(tx, current);
    }
    case 'customer.subscription.deleted': {
      const subscription = parseOrReject(StripeSubscription, event.data.object);
      return (tx) => endSubscription(tx, subscription);
    }
    default:
      return null;
  }
}

async function completeCheckout(tx: Tx, session: StripeCheckoutSession, active: boolean): Promise<boolean> {
  const referencedId = /^\d{1,10}$/.test(session.client_reference_id ?? '') ? Number(session.client_reference_id) : null;
  const owner =
    referencedId !== null
      ? eq(users.id, referencedId)
      : session.customer
        ? eq(users.stripeCustomerId, session.customer)
        : null;
  if (!owner) return false;

  const updated = await tx
    .update(users)
    .set({
      hasSubscription: active,
      ...(session.subscription ? { stripeSubscriptionId: session.subscription } : {}),
      // The plan bought is the checkout's, until the subscription's own events name another.
      planLookupKey: sql`coalesce((select ${checkoutSessions.lookupKey} from ${checkoutSessions} where ${checkoutSessions.id} = ${session.id}), ${users.planLookupKey})`,
      // The customer was linked when the checkout started; keep that link if it exists.
      ...(session.customer ? { stripeCustomerId: sql`coalesce(${users.stripeCustomerId}, ${session.customer})` } : {}),
    })
    .where(owner)
    .returning({ id: users.id });
  await tx.update(checkoutSessions).set({ status: 'complete' }).where(eq(checkoutSessions.id, session.id));
  return updated.length > 0;
}

async function applySubscription(tx: Tx, subscription: StripeSubscription): Promise<boolean> {
  const ofCustomer = eq(users.stripeCustomerId, subscription.customer);
  if (ACTIVE_STATUSES.has(subscription.status)) {
    const lookupKey = subscription.items?.data[0]?.price.lookup_key;
    const updated = await tx
      .update(users)
      .set({ hasSubscription: true, stripeSubscriptionId: subscription.id, ...(lookupKey ? { planLookupKey: lookupKey } : {}) })
      .where(ofCustomer)
      .returning({ id: users.id });
    return updated.length > 0;
  }
  return clearSubscription(tx, subscription, false);
}

async function endSubscription(tx: Tx, subscription: StripeSubscription): Promise<boolean> {
  return clearSubscription(tx, subscription, true);
}

/** Only the user's current subscription can end their plan: an old one ending changes nothing. */
async function clearSubscription(tx: Tx, subscription: StripeSubscription, forget: boolean): Promise<boolean> {
  const updated = await tx
    .update(users)
    .set({ hasSubscription: false, ...(forget ? { stripeSubscriptionId: null, planLookupKey: null } : {}) })
    .where(
      and(
        eq(users.stripeCustomerId, subscription.customer),
        or(eq(users.stripeSubscriptionId, subscription.id), isNull(users.stripeSubscriptionId)),
      ),
    )
    .returning({ id: users.id });
  return updated.length > 0;
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
  await handleStripeEvent(db, {
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
  });
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
