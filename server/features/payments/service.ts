import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, ne, or, sql } from 'drizzle-orm';
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
import { Conflict, ServiceUnavailable, SessionEnded, ValidationError } from '../../errors';
import { isForeignKeyViolation } from '../../lib/pg-errors';
import { callStripe } from './stripe-client';
import { serverText } from '../../../shared/i18n/server-messages';

export const UNKNOWN_PLAN = serverText('unknown_plan');
export const NO_PRICE = serverText('no_price');
export const ALREADY_SUBSCRIBED = serverText('already_subscribed');

/** Subscription states that keep the plan's features; the others (canceled, unpaid, …) end them. */
const ACTIVE_STATUSES = new Set(['active', 'trialing', 'past_due']);
/** Subscription states in which Stripe will never bill again; from any other, it may (an incomplete one once paid). */
const ENDED_STATUSES = new Set(['canceled', 'incomplete_expired']);

/**
 * What this app writes in the metadata of each Stripe customer it creates: the user's id, and `app`,
 * which tells its customers from another product's on the same Stripe account (many write a `user_id`
 * of their own). The webhook ends a subscription left behind by a deleted account only for a customer
 * that carries both (`leftBehind`).
 */
export const CUSTOMER_APP = 'eventmatch';

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
    await db.insert(checkoutSessions).values({ id, userId: user.id, lookupKey, provider: 'local' }).catch(sessionEnded);
    return testCheckoutUrl(publicUrl, id);
  }

  const stripe = payments.stripe;
  const prices = await callStripe(() => stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 }));
  const price = prices.data[0];
  if (!price) throw ValidationError.field('lookup_key', NO_PRICE);

  await expireEarlierCheckouts(db, stripe, user.id);
  const session = await withLiveCustomer(db, stripe, user, (customer) => openStripeCheckout(db, stripe, publicUrl, user.id, price.id, customer));
  if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
  // Deleted meanwhile, the session at Stripe is left to expire; one paid all the same is cancelled by
  // the webhook as one a deleted account left behind (`leftBehind`).
  // Two started at the same instant (two tabs) each found none of the other's open above. Stored
  // under the user's billing lock, with the open ones read there, the one stored second sees the
  // first's and ends it: one of the two can be paid, not both into two subscriptions.
  const others = await db
    .transaction(async (tx) => {
      await tx.execute(billingLock(user.id));
      await tx.insert(checkoutSessions).values({ id: session.id, userId: user.id, lookupKey, provider: 'stripe' });
      return openStripeCheckouts(tx, user.id, session.id);
    })
    .catch(sessionEnded);
  await expireCheckouts(db, stripe, others);
  return session.url;
}

/** A Stripe Checkout Session for the plan's price, on `customer`, with the free trial if they have not had it. */
async function openStripeCheckout(db: Db, stripe: Stripe, publicUrl: string, userId: number, price: string, customer: string) {
  const trial = !(await hasHadTrial(db, stripe, userId, customer));
  return callStripe(() =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price, quantity: 1 }],
      customer,
      client_reference_id: String(userId),
      metadata: { user_id: String(userId) },
      // The trial is sold as needing no card: Stripe's checkout asks for one unless told it is only
      // needed when something is due now, and a trial that ends with no card on file is cancelled
      // (the plan ends through `customer.subscription.deleted`) rather than left unpaid.
      ...(trial ? { payment_method_collection: 'if_required' as const } : {}),
      subscription_data: {
        ...(trial
          ? { trial_period_days: FREE_TRIAL_DAYS, trial_settings: { end_behavior: { missing_payment_method: 'cancel' as const } } }
          : {}),
        metadata: { user_id: String(userId) },
      },
      success_url: successUrl(publicUrl),
      cancel_url: cancelUrl(publicUrl),
    }),
  );
}

/** Stripe refused a call for naming a customer it does not have: one deleted in Stripe's dashboard, say. */
export const isMissingCustomer = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing' && error.param === 'customer';

/**
 * `call` on the user's Stripe customer, made if they have none. One Stripe has deleted (by hand in its
 * dashboard; it cancelled their subscriptions then) can start nothing new: every checkout was refused,
 * and the user could never subscribe again. It is unlinked, and the call made once more on a new one.
 */
async function withLiveCustomer<T>(db: Db, stripe: Stripe, user: CheckoutUser, call: (customer: string) => Promise<T>): Promise<T> {
  const customer = await ensureStripeCustomer(db, stripe, user);
  try {
    return await call(customer);
  } catch (error) {
    if (!isMissingCustomer(error)) throw error;
    await unlinkCustomer(db, user.id, customer);
    return call(await ensureStripeCustomer(db, stripe, { ...user, stripeCustomerId: null }));
  }
}

/**
 * Forgets a customer Stripe no longer has (unless another has been linked meanwhile), and the plan its
 * subscription gave: Stripe cancelled every subscription of it with it, and their events, should they
 * come later, name a customer no account has. Answers whether a plan ended here.
 */
export async function unlinkCustomer(db: Db, userId: number, customer: string): Promise<boolean> {
  const linked = and(eq(users.id, userId), eq(users.stripeCustomerId, customer));
  const [before] = await db.select({ active: users.hasSubscription }).from(users).where(linked);
  if (!before) return false;
  await db
    .update(users)
    .set({ stripeCustomerId: null, hasSubscription: false, stripeSubscriptionId: null, planLookupKey: null, planStatus: null, ...NO_PLAN_DATES })
    .where(linked);
  return before.active;
}

/**
 * The account was deleted while its checkout started (the request had passed sign-in before the
 * deletion committed): its row is gone, which the checkout's foreign key refuses. The session has
 * ended with it, as the next request would be told.
 */
function sessionEnded(error: unknown): never {
  if (isForeignKeyViolation(error)) throw new SessionEnded();
  throw error;
}

/**
 * One checkout open at a time: the user's earlier ones that Stripe may still let someone pay (left
 * open in another tab, or a plan changed on the way) are expired before a new one starts, so that two
 * cannot both be paid into two subscriptions. One that Stripe says was paid already (its completion
 * not here yet) means the user is subscribed: no new checkout.
 */
async function expireEarlierCheckouts(db: Db, stripe: Stripe, userId: number): Promise<void> {
  await expireCheckouts(db, stripe, await openStripeCheckouts(db, userId));
}

/** Expires these checkouts at Stripe; 409 when one of them was paid already. */
async function expireCheckouts(db: Db, stripe: Stripe, ids: string[]): Promise<void> {
  for (const id of ids) {
    if (!(await expireCheckout(stripe, id)) && (await checkoutStatus(stripe, id)) === 'complete') {
      throw new Conflict(ALREADY_SUBSCRIBED, 'already_subscribed');
    }
    await db
      .update(checkoutSessions)
      .set({ status: 'canceled' })
      .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.status, 'open')));
  }
}

/** A checkout session's status at Stripe (open, complete, expired), or null for one Stripe does not have. */
async function checkoutStatus(stripe: Stripe, id: string): Promise<string | null> {
  try {
    return (await callStripe(() => stripe.checkout.sessions.retrieve(id))).status;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
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
export async function localCheckoutTrialDays(db: DbOrTx, checkout: Pick<LocalCheckout, 'id' | 'userId'>): Promise<number> {
  return (await hasCompletedCheckout(db, checkout.userId, checkout.id)) ? 0 : FREE_TRIAL_DAYS;
}

/** The user's Stripe customer, created once: later checkouts and webhooks find the user by it. */
async function ensureStripeCustomer(db: Db, stripe: Stripe, user: CheckoutUser): Promise<string> {
  if (user.stripeCustomerId) return user.stripeCustomerId;
  const customer = await callStripe(() =>
    stripe.customers.create({
      email: user.email,
      name: `${user.firstName} ${user.lastName}`.trim(),
      metadata: { user_id: String(user.id), app: CUSTOMER_APP },
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
  // Deleted meanwhile: the customer just made is left unused, as a racing checkout's is.
  if (!current) throw new SessionEnded();
  if (!current.stripeCustomerId) throw new Error(`user ${user.id} has no Stripe customer after linking`);
  return current.stripeCustomerId;
}

export type EventOutcome = 'handled' | 'duplicate' | 'ignored';

/** What became of an event; for one that changed no one's plan, why (for the log). */
export interface EventResult {
  outcome: EventOutcome;
  reason?: string;
  /**
   * Whose billing it changed, once committed (outcome `handled`): the caller tells their open apps.
   * Not set for a subscription cancelled for an account deleted already (`leftBehind`).
   */
  userId?: number;
}

/**
 * Stripe's current state of a subscription, or null if Stripe does not know it. Events can arrive
 * late and out of order; reading the state fresh means an old event cannot undo a newer one.
 */
export interface SubscriptionSource {
  (id: string): Promise<StripeSubscription | null>;
  /**
   * Stripe itself, when the source is Stripe: the webhook also reads there whose a customer no
   * account has was, and cancels a subscription a deleted account left behind (`leftBehind`).
   */
  stripe?: Stripe;
}

/**
 * Read while Stripe waits for the webhook's answer (`handleStripeEvent`), so a slow Stripe is given
 * less time than elsewhere. A read that fails answers 503, and Stripe delivers the event again later.
 */
const LOCKED_READ = { timeout: 5_000, maxNetworkRetries: 1 };

/** Stripe answered that it has no such object (404). */
const isMissing = (error: unknown) => error instanceof Error && 'statusCode' in error && error.statusCode === 404;

/** The part of Stripe's subscription the app reads. */
function subscriptionOf(subscription: Stripe.Subscription): StripeSubscription {
  const customer = typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id;
  const items = subscription.items.data.map((item) => ({ price: { lookup_key: item.price.lookup_key }, current_period_end: item.current_period_end }));
  const { status, trial_end, cancel_at, cancel_at_period_end } = subscription;
  return { id: subscription.id, customer, status, items: { data: items }, trial_end, cancel_at, cancel_at_period_end };
}

export function stripeSubscriptionSource(stripe: Stripe): SubscriptionSource {
  const read = async (id: string): Promise<StripeSubscription | null> => {
    try {
      return subscriptionOf(await callStripe(() => stripe.subscriptions.retrieve(id, {}, LOCKED_READ)));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };
  return Object.assign(read, { stripe });
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
  /**
   * The local stand-in's: the yearly plan's lookup key. A test subscription bought with no trial
   * renews a year on when its checkout was for it, a month on otherwise, as Stripe's would.
   */
  yearlyLookupKey?: string;
}

export const LOCAL_EVENTS: EventOrigin = { provider: 'local', latest: null };

/** Where the webhook's handling says what it did beyond the event's own effect (a request's log). */
export interface EventLog {
  warn(object: object, message: string): void;
}

/** How many times an event's reads from Stripe are made again when other events commit meanwhile. */
const READ_ATTEMPTS = 5;

/**
 * One Stripe event, applied at most once: its id is recorded in the same transaction as its
 * effect, so a redelivery changes nothing and a failure leaves it to be retried. The webhook and
 * the local test checkout both come through here.
 *
 * Stripe is read outside any transaction: a transaction held open while Stripe answers (up to
 * seconds) would hold every other request behind it on PGlite's one connection. A user's events are
 * still applied as if one at a time: each reads Stripe after noting the user's billing as it stands
 * (`billingVersion`, which every applied event moves on), and commits, under a lock of the user's,
 * only if no other event has committed since; else it reads Stripe again. So each state committed
 * was read after the one committed before it, and the state committed last is never older.
 */
export async function handleStripeEvent(db: Db, event: StripeEvent, origin: EventOrigin, log?: EventLog): Promise<EventResult> {
  if (await alreadyHandled(db, event.id)) return { outcome: 'duplicate' };
  // Parsed, and its account found, before anything is written: a payload we cannot read is refused whole.
  const effect = await eventEffect(db, event, origin, log);
  for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
    // What committed meanwhile may have been this very event, delivered twice at once.
    if (attempt > 1 && (await alreadyHandled(db, event.id))) return { outcome: 'duplicate' };
    const before = 'userId' in effect ? await billingStateOf(db, effect.userId) : null;
    const write = 'userId' in effect && before ? await effect.read(before) : null;
    const result = await db.transaction(async (tx): Promise<EventResult | 'stale'> => {
      if ('userId' in effect) {
        await tx.execute(billingLock(effect.userId));
        if (!sameBilling(before, await billingStateOf(tx, effect.userId))) return 'stale';
      }
      const [fresh] = await tx
        .insert(stripeEvents)
        .values({ id: event.id, type: event.type })
        .onConflictDoNothing()
        .returning({ id: stripeEvents.id });
      if (!fresh) return { outcome: 'duplicate' };
      if ('ignore' in effect) return ignored(effect.ignore);
      if ('done' in effect) return effect.done;
      if (!write) return ignored('an account deleted meanwhile');
      const result = await write(tx);
      await tx
        .update(users)
        .set({ billingVersion: sql`${users.billingVersion} + 1` })
        .where(eq(users.id, effect.userId));
      return result.outcome === 'handled' ? { ...result, userId: effect.userId } : result;
    });
    if (result !== 'stale') return result;
  }
  // Other events of the user's kept committing while this one read Stripe: Stripe delivers it again later.
  throw new ServiceUnavailable(serverText('busy_try_again'));
}

/** The user's billing as an event's reads from Stripe were decided by it; null for an account gone. */
interface Billing {
  version: number;
  hasSubscription: boolean;
  held: string | null;
  customer: string | null;
}

async function billingStateOf(db: DbOrTx, userId: number): Promise<Billing | null> {
  const [row] = await db
    .select({
      version: users.billingVersion,
      hasSubscription: users.hasSubscription,
      held: users.stripeSubscriptionId,
      customer: users.stripeCustomerId,
    })
    .from(users)
    .where(eq(users.id, userId));
  return row ?? null;
}

/** No event has committed, nor has the plan or the customer changed otherwise (`unlinkCustomer`), since `before`. */
const sameBilling = (before: Billing | null, now: Billing | null) =>
  before === null || now === null
    ? before === now
    : before.version === now.version &&
      before.hasSubscription === now.hasSubscription &&
      before.held === now.held &&
      before.customer === now.customer;

/** A lock per user, in a key space of its own (the two-int form never meets the one-bigint locks). */
const BILLING_LOCK_SPACE = 0x42494c4c;
const billingLock = (userId: number) => sql`select pg_advisory_xact_lock(${BILLING_LOCK_SPACE}::int, ${userId}::int)`;

/**
 * What an event does to one user's billing: what it reads at Stripe (and cancels there) given their
 * billing as it stands, then what it writes, once their lock is held and nothing has changed since;
 * or why it does nothing; or what was done already, at Stripe, about no one's (`leftBehind`).
 */
type EventEffect =
  | { userId: number; read: (billing: Billing) => Promise<(tx: Tx) => Promise<EventResult>> }
  | { ignore: string }
  | { done: EventResult };

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

async function eventEffect(db: Db, event: StripeEvent, origin: EventOrigin, log: EventLog | undefined): Promise<EventEffect> {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = parseOrReject(CompletedCheckout, event.data.object);
      // Only a checkout this server started grants anything, to the account that started it: Stripe
      // signs every completion on the account (a Payment Link's too, whatever reference it was given).
      const checkout = await findCheckoutSession(db, session.id, origin.provider);
      if (!checkout) {
        // Or one started by an account deleted since (its session went with it), paid in another tab.
        const stray =
          session.mode === 'subscription' && session.customer && session.subscription && (await userOfCustomer(db, session.customer)) === null
            ? await leftBehind(db, origin, session.customer, session.subscription, log)
            : null;
        return stray ?? { ignore: 'a checkout session this server did not start' };
      }
      if (session.mode !== 'subscription') return { ignore: `a checkout session in ${session.mode ?? 'no'} mode` };
      const subscription = session.subscription;
      if (!subscription) return { ignore: 'a checkout session that started no subscription' };
      return { userId: checkout.userId, read: (billing) => completeCheckout(billing, origin, checkout, session, subscription, log) };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.resumed':
    case 'customer.subscription.paused': {
      const sent = parseOrReject(StripeSubscription, event.data.object);
      const userId = await userOfCustomer(db, sent.customer);
      if (userId === null) return (await leftBehind(db, origin, sent.customer, sent.id, log)) ?? { ignore: 'a customer no account has' };
      return {
        userId,
        read: async (billing) => {
          const held = origin.latest && (await otherLiveSubscription(origin.latest, billing, sent.id));
          if (held) return async () => ignored(`a second subscription of the customer's, beside the live ${held}`);
          const current = (origin.latest && (await origin.latest(sent.id))) || sent;
          if (origin.latest && ACTIVE_STATUSES.has(current.status)) await endReplaced(origin.latest, billing, current.id, log);
          return (tx) => applySubscription(tx, userId, current);
        },
      };
    }
    case 'customer.subscription.deleted': {
      const subscription = parseOrReject(StripeSubscription, event.data.object);
      const userId = await userOfCustomer(db, subscription.customer);
      if (userId === null) return { ignore: 'a customer no account has' };
      return {
        userId,
        read: async (billing) => {
          // The plan ends only when it is this subscription's (`clearSubscription`): then another live
          // one of the customer's takes its place.
          const ends = billing.customer === subscription.customer && (billing.held === subscription.id || billing.held === null);
          const next = ends && origin.latest?.stripe ? await liveSubscriptionBeside(origin.latest.stripe, subscription) : null;
          return async (tx) => {
            const cleared = await clearSubscription(tx, userId, subscription, true);
            return next && cleared.outcome === 'handled' ? applySubscription(tx, userId, next) : cleared;
          };
        },
      };
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
 * A live subscription of a customer no account has may have been left behind by an account deleted
 * here: its checkout paid in another tab after the deletion, say. `endStripeBilling` ends everything
 * of an account's at Stripe before it goes, so this catches what slipped past it (an account deleted
 * before it did, a checkout started while the deletion ran). The customer's metadata tells whose it
 * was (`CUSTOMER_APP`): when it names this app and a user id no account has any more, the
 * subscription is cancelled at Stripe, so that no one is billed without an account. Another
 * product's customer on the same Stripe account, a Payment Link's buyer, or one Stripe has deleted
 * (it ended their subscriptions itself) is left alone: null, and the event is ignored as before.
 * A Stripe that cannot be reached throws (503), and Stripe delivers the event again.
 */
async function leftBehind(
  db: Db,
  origin: EventOrigin,
  customer: string,
  subscriptionId: string,
  log: EventLog | undefined,
): Promise<EventEffect | null> {
  const latest = origin.latest;
  const stripe = latest?.stripe;
  if (origin.provider !== 'stripe' || !latest || !stripe) return null;
  const formerUser = await formerUserOf(db, stripe, customer);
  if (formerUser === null) return null;
  const subscription = await latest(subscriptionId);
  if (!subscription || subscription.customer !== customer) return null;
  if (ENDED_STATUSES.has(subscription.status)) return { ignore: `a subscription of a deleted account, already ${subscription.status}` };
  // Cancelling twice changes nothing: a redelivery, or two deliveries at once, are harmless.
  if ((await cancelAtStripe(stripe, subscriptionId)) === 'none') return { ignore: 'a subscription of a deleted account, already ended' };
  log?.warn({ subscriptionId, customer, formerUserId: formerUser }, 'cancelled a Stripe subscription left behind by a deleted account');
  return { done: { outcome: 'handled', reason: `cancelled ${subscriptionId}, left behind by deleted account ${formerUser}` } };
}

/** The largest id a serial column holds. */
const MAX_USER_ID = 2_147_483_647;

/** The user id a customer of this app's was made for, when no account has it any more; else null. */
async function formerUserOf(db: Db, stripe: Stripe, customerId: string): Promise<number | null> {
  let customer: Stripe.Customer | Stripe.DeletedCustomer;
  try {
    // Read as briefly as a subscription (`LOCKED_READ`): Stripe is waiting for the webhook's answer.
    customer = await callStripe(() => stripe.customers.retrieve(customerId, {}, LOCKED_READ));
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  if ('deleted' in customer && customer.deleted) return null;
  const { app, user_id: userId } = (customer as Stripe.Customer).metadata ?? {};
  if (app !== CUSTOMER_APP || !userId || !/^[1-9]\d{0,9}$/.test(userId) || Number(userId) > MAX_USER_ID) return null;
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.id, Number(userId)));
  return row ? null : Number(userId);
}

/**
 * The checkout is complete, and with it the user's trial (`hasHadTrial`). It grants the plan while
 * its subscription is live; one that has already ended grants nothing. Answers what it writes, once
 * Stripe has been read (and a second or replaced subscription cancelled there).
 */
async function completeCheckout(
  billing: Billing,
  origin: EventOrigin,
  checkout: StartedCheckout,
  session: z.infer<typeof CompletedCheckout>,
  subscription: string,
  log: EventLog | undefined,
): Promise<(tx: Tx) => Promise<EventResult>> {
  // The local test checkout's subscriptions exist only here; Stripe's are as Stripe has them now.
  const current = origin.latest ? await origin.latest(subscription) : null;
  if (origin.latest && !current) return async () => ignored('a subscription Stripe does not have');
  const status = current?.status ?? 'active';
  const complete = (tx: Tx) => tx.update(checkoutSessions).set({ status: 'complete' }).where(eq(checkoutSessions.id, checkout.id));
  // Its first payment awaits the buyer's bank (3-D Secure) or was declined: no plan yet, but the page
  // they were sent back to says so rather than wait (`payment_incomplete`), unless a plan is live.
  if (status === 'incomplete' && !billing.hasSubscription) {
    return async (tx) => {
      await complete(tx);
      const updated = await tx
        .update(users)
        .set({ stripeSubscriptionId: subscription, planLookupKey: checkout.lookupKey, planStatus: status, ...NO_PLAN_DATES })
        .where(and(eq(users.id, checkout.userId), eq(users.hasSubscription, false)))
        .returning({ id: users.id });
      return updated.length > 0 ? handled : ignored('a subscription whose first payment is incomplete');
    };
  }
  if (!ACTIVE_STATUSES.has(status)) {
    return async (tx) => {
      await complete(tx);
      return ignored(`a subscription already ${status}`);
    };
  }
  const held = origin.latest && (await otherLiveSubscription(origin.latest, billing, subscription));
  if (held) {
    const cancelled = await cancelSecondSubscription(origin.latest?.stripe, subscription, status, held, log);
    return async (tx) => {
      await complete(tx);
      return cancelled;
    };
  }
  if (origin.latest) await endReplaced(origin.latest, billing, subscription, log);
  return (tx) => grantCheckout(tx, origin, checkout, session, subscription, current, status);
}

async function grantCheckout(
  tx: Tx,
  origin: EventOrigin,
  checkout: StartedCheckout,
  session: z.infer<typeof CompletedCheckout>,
  subscription: string,
  current: StripeSubscription | null,
  status: string,
): Promise<EventResult> {
  if (origin.provider === 'local') {
    // A second test checkout left open in another tab is not paid on top of the plan it would replace
    // (its free trial lost): the user's billing lock is held, so of two completed at once one is refused.
    const [user] = await tx.select({ hasSubscription: users.hasSubscription }).from(users).where(eq(users.id, checkout.userId));
    if (user?.hasSubscription) throw new Conflict(ALREADY_SUBSCRIBED, 'already_subscribed');
  }
  const dates = current
    ? planDates(current)
    : localPlanDates(await localCheckoutTrialDays(tx, checkout), checkout.lookupKey === origin.yearlyLookupKey ? 12 : 1);
  await tx.update(checkoutSessions).set({ status: 'complete' }).where(eq(checkoutSessions.id, checkout.id));
  await tx
    .update(users)
    .set({
      hasSubscription: true,
      stripeSubscriptionId: subscription,
      // The plan bought is the checkout's, until the subscription's own events name another.
      planLookupKey: checkout.lookupKey,
      planStatus: status,
      ...dates,
      // The customer was linked when the checkout started; keep that link if it exists.
      ...(session.customer ? { stripeCustomerId: sql`coalesce(${users.stripeCustomerId}, ${session.customer})` } : {}),
    })
    .where(eq(users.id, checkout.userId));
  return handled;
}

/**
 * The live subscription the user holds other than this one, if any: the one stored here, as Stripe
 * has it now (one that has ended, its events still on their way, is not held).
 */
async function otherLiveSubscription(latest: SubscriptionSource, billing: Billing, subscription: string): Promise<string | null> {
  if (!billing.hasSubscription || !billing.held || billing.held === subscription) return null;
  const held = await latest(billing.held);
  return held && ACTIVE_STATUSES.has(held.status) ? billing.held : null;
}

/**
 * The subscription the user held before the live one now taking its place, when it has not ended at
 * Stripe: one left unpaid, say, after which the plan ended here and they bought it again. Stripe brings
 * it back the day its open invoice is paid (a link in Stripe's e-mail, the customer portal), and it was
 * billed beside the new one from then on, its events ignored as a second subscription's. It is
 * cancelled at Stripe: the new one replaces it.
 */
async function endReplaced(latest: SubscriptionSource, billing: Billing, replacing: string, log: EventLog | undefined): Promise<void> {
  const stripe = latest.stripe;
  if (!stripe) return;
  const before = billing.held;
  if (!before || before === replacing) return;
  const old = await latest(before);
  if (!old || ENDED_STATUSES.has(old.status)) return;
  if ((await cancelAtStripe(stripe, before)) === 'canceled') {
    log?.warn({ subscription: before, status: old.status, replacedBy: replacing }, 'cancelled a subscription replaced by a new one');
  }
}

/**
 * A live subscription of the customer's at Stripe, if one is left once the one held here has ended: one
 * started beside it in Stripe's dashboard, say, whose own events were not taken while the first held.
 */
async function liveSubscriptionBeside(stripe: Stripe, ended: StripeSubscription): Promise<StripeSubscription | null> {
  const listed = await callStripe(() => stripe.subscriptions.list({ customer: ended.customer, status: 'all', limit: 10 }, LOCKED_READ));
  const live = listed.data.find((subscription) => subscription.id !== ended.id && ACTIVE_STATUSES.has(subscription.status));
  return live ? subscriptionOf(live) : null;
}

/**
 * A second subscription paid beside the live one (two checkouts paid at once, in two tabs, before
 * either's completion came in) is cancelled at Stripe rather than billed beside it; the plan stays
 * the first one's. One that has charged already (it had no trial) is logged, to be refunded by hand.
 */
async function cancelSecondSubscription(
  stripe: Stripe | undefined,
  subscription: string,
  status: string,
  held: string,
  log: EventLog | undefined,
): Promise<EventResult> {
  if (!stripe) return ignored(`a second subscription beside the live ${held}`);
  await cancelAtStripe(stripe, subscription);
  if (status !== 'trialing') {
    log?.warn({ subscription, held }, 'cancelled a second subscription that had charged the customer: refund it in Stripe');
  }
  return { outcome: 'handled', reason: `cancelled ${subscription}, a second subscription beside the live ${held}` };
}

type PlanDates = Pick<typeof users.$inferInsert, 'planTrialEndsAt' | 'planRenewsAt' | 'planEndsAt'>;
const NO_PLAN_DATES: PlanDates = { planTrialEndsAt: null, planRenewsAt: null, planEndsAt: null };

/**
 * The plan's dates as the subscription says them (Stripe's seconds): the trial's end while it is in
 * its trial, the end of its period as its renewal, or as its end when it is canceled at that end.
 */
function planDates(subscription: StripeSubscription): PlanDates {
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
function localPlanDates(trialDays: number, periodMonths: number): PlanDates {
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

async function applySubscription(tx: Tx, userId: number, subscription: StripeSubscription): Promise<EventResult> {
  if (!ACTIVE_STATUSES.has(subscription.status)) return clearSubscription(tx, userId, subscription, false);
  const lookupKey = subscription.items?.data[0]?.price.lookup_key;
  const updated = await tx
    .update(users)
    .set({
      hasSubscription: true,
      stripeSubscriptionId: subscription.id,
      planStatus: subscription.status,
      ...(lookupKey ? { planLookupKey: lookupKey } : {}),
      ...planDates(subscription),
    })
    .where(and(eq(users.id, userId), eq(users.stripeCustomerId, subscription.customer)))
    .returning({ id: users.id });
  return updated.length > 0 ? handled : ignored('a customer no account has');
}

/**
 * Only the user's current subscription can end their plan: an old one ending changes nothing. Its
 * status is kept while Stripe keeps it (`unpaid`: paying its invoice brings it back), forgotten with it.
 */
async function clearSubscription(tx: Tx, userId: number, subscription: StripeSubscription, forget: boolean): Promise<EventResult> {
  const updated = await tx
    .update(users)
    .set({
      hasSubscription: false,
      ...NO_PLAN_DATES,
      ...(forget ? { stripeSubscriptionId: null, planLookupKey: null, planStatus: null } : { planStatus: subscription.status }),
    })
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

/** Where the browser goes after a local test checkout, and what its event did (none for a cancel). */
export interface FinishedCheckout {
  url: string;
  event?: EventResult;
}

/**
 * "Pays" a local test checkout of the signed-in user's: the event Stripe would send for it goes
 * through the webhook's own handler. Its id is derived from the session's, so a second click changes
 * nothing. Answers the success address and what the event did, or null for a session that is not theirs.
 */
export async function completeLocalCheckout(
  db: Db,
  publicUrl: string,
  id: string,
  userId: number,
  lookupKeys: { yearly: string },
): Promise<FinishedCheckout | null> {
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
  const event = await handleStripeEvent(db, completed, { ...LOCAL_EVENTS, yearlyLookupKey: lookupKeys.yearly });
  return { url: successUrl(publicUrl, id), event };
}

/** Answers the cancel address, or null for a session that is not theirs. A completed checkout stays complete. */
export async function cancelLocalCheckout(db: Db, publicUrl: string, id: string, userId: number): Promise<FinishedCheckout | null> {
  const checkout = await findLocalCheckout(db, id, userId);
  if (!checkout) return null;
  if (checkout.status === 'complete') throw new Conflict(CHECKOUT_DONE, 'checkout_complete');
  await db
    .update(checkoutSessions)
    .set({ status: 'canceled' })
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.status, 'open')));
  return { url: cancelUrl(publicUrl) };
}

/** Cancels a subscription at once; one Stripe has already ended, or does not have, needs nothing. */
async function cancelAtStripe(stripe: Stripe, subscriptionId: string): Promise<'canceled' | 'none'> {
  try {
    await callStripe(() => stripe.subscriptions.cancel(subscriptionId));
    return 'canceled';
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError) return 'none';
    throw error;
  }
}

export interface BillingLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** How long Stripe keeps a Checkout Session open (its default `expires_at`, which this app never sets). */
const CHECKOUT_OPEN_FOR = sql`interval '24 hours'`;

/** Ids of the user's Stripe checkouts that Stripe may still let someone pay, but for `except`. */
async function openStripeCheckouts(db: DbOrTx, userId: number, except?: string): Promise<string[]> {
  const rows = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.userId, userId),
        eq(checkoutSessions.provider, 'stripe'),
        eq(checkoutSessions.status, 'open'),
        gt(checkoutSessions.createdAt, sql`now() - ${CHECKOUT_OPEN_FOR}`),
        except === undefined ? undefined : ne(checkoutSessions.id, except),
      ),
    );
  return rows.map((row) => row.id);
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
  const customer = billing?.customer?.startsWith('cus_local_') ? null : (billing?.customer ?? null);
  const subscription = billing?.subscription?.startsWith('sub_local_') ? null : (billing?.subscription ?? null);
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

/** Whether it was open and is expired now; one already complete or expired can be paid no more (false). */
async function expireCheckout(stripe: Stripe, id: string): Promise<boolean> {
  try {
    await callStripe(() => stripe.checkout.sessions.expire(id));
    return true;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError) return false;
    throw error;
  }
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
