import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import type { CheckoutMode } from '../../config';
import { FREE_TRIAL_DAYS, type Language, PLAN_CURRENCY } from '../../../shared/constants';
import { type BillingPeriod, chargedPrice, planPeriod } from '../../../shared/plan-prices';
import { serverText } from '../../../shared/i18n/server-messages';
import type { Db, DbOrTx } from '../../db/client';
import { checkoutSessions, users } from '../../db/schema';
import { Conflict, SessionEnded, ValidationError } from '../../errors';
import { isForeignKeyViolation } from '../../lib/pg-errors';
import { inFlight, settledWithin, turnsByKey } from '../../lib/turns';
import { billingLock, NO_PLAN_DATES } from './billing';
import { callStripe, expireCheckout, isMissing, isMissingCustomer, isStripeCustomer, keepCustomerLanguage } from './stripe-client';

export const UNKNOWN_PLAN = serverText('unknown_plan');
export const NO_PRICE = serverText('no_price');
export const ALREADY_SUBSCRIBED = serverText('already_subscribed');

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
  /**
   * Stripe whenever there is a key, in any mode: a plan bought there before a switch to the test
   * checkout, or off, is still billed there, and its owner must still be able to manage and cancel it.
   */
  stripeBilling: Stripe | null;
  /**
   * The lookup keys of the plans that may be bought (overridable by environment), by period: the price
   * each must charge.
   */
  plans: Record<BillingPeriod, string>;
}

export interface CheckoutUser {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  hasSubscription: boolean;
  stripeCustomerId: string | null;
  /** The language the account reads the app in: Stripe's pages and e-mails are written in it. */
  language: Language;
}

const checkoutUserColumns = {
  id: users.id,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  hasSubscription: users.hasSubscription,
  stripeCustomerId: users.stripeCustomerId,
  language: users.language,
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

/**
 * Whether one payment of Stripe's price is what the app shows for the plan: the same currency and
 * sum (Stripe's smallest unit, cents), once a month or once a year.
 */
function chargesAsShown(price: Stripe.Price, period: BillingPeriod): boolean {
  const recurring = price.recurring;
  return (
    price.currency.toUpperCase() === PLAN_CURRENCY &&
    price.unit_amount === Math.round(chargedPrice('starter', period) * 100) &&
    recurring?.interval === (period === 'monthly' ? 'month' : 'year') &&
    recurring.interval_count === 1
  );
}

/**
 * Where a customer's billing is managed: Stripe when it sells, or, when it no longer does (the test
 * checkout, or off), still for a customer made there before the switch; null for the local test's own,
 * whatever the mode.
 */
export function stripeFor(payments: Payments, customer: string | null | undefined): Stripe | null {
  // The local test checkout's own customer (kept after a switch to Stripe) is none of Stripe's: asked
  // about it, Stripe would answer that it has no such customer. It has no invoices there to see.
  if (customer && !isStripeCustomer(customer)) return null;
  if (payments.stripe) return payments.stripe;
  return customer && isStripeCustomer(customer) ? payments.stripeBilling : null;
}

/** The period of a plan this server sells, or the 400 that says it is not one. */
export function checkPlan(payments: Payments, lookupKey: string): BillingPeriod {
  const period = planPeriod(lookupKey, payments.plans);
  if (!period) throw ValidationError.field('lookup_key', UNKNOWN_PLAN);
  return period;
}

/** Starts a subscription checkout for `user`; answers the address to send the browser to. */
export async function createCheckout(
  db: Db,
  payments: Payments,
  publicUrl: string,
  user: CheckoutUser,
  lookupKey: string,
  log?: { error(object: object, message: string): void },
): Promise<string> {
  const period = checkPlan(payments, lookupKey);
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
  if (!chargesAsShown(price, period)) {
    // Stripe's page would ask for another sum (a price set up in euros, or before a change of price)
    // than the one the app promised on its way there: the plan is not sold until the two agree.
    log?.error(
      { lookupKey, price: price.id, currency: price.currency, unitAmount: price.unit_amount, recurring: price.recurring, shown: { currency: PLAN_CURRENCY, amount: chargedPrice('starter', period), period } },
      'the Stripe price charges other than the app shows: fix the price in Stripe, or its lookup key',
    );
    throw ValidationError.field('lookup_key', NO_PRICE);
  }

  await expireEarlierCheckouts(db, stripe, user.id);
  const session = await withLiveCustomer(db, stripe, user, (customer) => openStripeCheckout(db, stripe, publicUrl, user, price.id, customer));
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

/**
 * A Stripe Checkout Session for the plan's price, on `customer`, with the free trial if they have not
 * had it: in the app's language (`locale`), not the browser's, as the rest of the way to the plan is.
 */
async function openStripeCheckout(db: Db, stripe: Stripe, publicUrl: string, user: CheckoutUser, price: string, customer: string) {
  const userId = user.id;
  // A customer made before now may have been made in the language the app had then.
  const [hadTrial] = await Promise.all([
    hasHadTrial(db, stripe, userId, customer),
    user.stripeCustomerId === customer ? keepCustomerLanguage(stripe, customer, user.language) : undefined,
  ]);
  const trial = !hadTrial;
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
      locale: user.language,
    }),
  );
}

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
export async function checkoutStatus(stripe: Stripe, id: string): Promise<string | null> {
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
export async function localCheckoutTrialDays(db: DbOrTx, checkout: { id: string; userId: number }): Promise<number> {
  return (await hasCompletedCheckout(db, checkout.userId, checkout.id)) ? 0 : FREE_TRIAL_DAYS;
}

/** The user's Stripe customer, created once: later checkouts and webhooks find the user by it. */
async function ensureStripeCustomer(db: Db, stripe: Stripe, user: CheckoutUser): Promise<string> {
  if (user.stripeCustomerId) return user.stripeCustomerId;
  const customer = await callStripe(() =>
    stripe.customers.create({
      email: user.email,
      name: `${user.firstName} ${user.lastName}`.trim(),
      // Stripe's receipts and invoices are written in the account's language, as ours are.
      preferred_locales: [user.language],
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

/**
 * A language switched in the app reaches the user's Stripe customer too (if they have one): a
 * subscriber who never opens the checkout or portal again gets their renewal receipts in the new
 * language. Behind the switch's answer (`follow`), which waits for none of it: a slow Stripe (its client
 * waits 15 s, and tries again twice) neither slows the switch nor fails it. One at a time per user, each
 * with the language the account has when it runs, so that Stripe ends with the last switch however
 * their calls go. Best effort: Stripe failing is logged, the switch stays saved here, and the next
 * checkout or portal session puts the customer right. `close` for the server's close.
 */
export function languageFollower(db: Db, stripe: Stripe) {
  const inTurn = turnsByKey<number>();
  const running = inFlight();
  let closed = false;
  return {
    follow(userId: number, log: { warn(object: object, message: string): void }) {
      const work = inTurn(userId, async () => {
        // Given up at the close: the next checkout or portal session puts the customer right.
        if (!closed) await followLanguage(db, stripe, userId);
      }).catch((error: unknown) => log.warn({ err: error, userId }, 'could not update a Stripe customer’s language'));
      running.track(work);
    },
    /**
     * Waits for the updates under way, at most `LANGUAGE_FOLLOW_GRACE_MS` (or less: `grace` gives what is
     * left of the close's), and starts none after it: a
     * stalled Stripe (its client waits 15 s a try, and tries three times) would otherwise hold the
     * close past the process's deadline, which exits without closing the database.
     */
    async close(grace = (ms: number) => ms) {
      await settledWithin(running.settled(), grace(LANGUAGE_FOLLOW_GRACE_MS));
      closed = true;
    },
  };
}

/** How long the close waits for the Stripe customers' language updates under way: Stripe answers in well under a second. */
const LANGUAGE_FOLLOW_GRACE_MS = 2_000;

async function followLanguage(db: Db, stripe: Stripe, userId: number) {
  const [user] = await db.select({ customer: users.stripeCustomerId, language: users.language }).from(users).where(eq(users.id, userId));
  // The local test checkout's customers are not Stripe's.
  if (!user?.customer || !isStripeCustomer(user.customer)) return;
  await keepCustomerLanguage(stripe, user.customer, user.language);
}

/** How long Stripe keeps a Checkout Session open (its default `expires_at`, which this app never sets). */
const CHECKOUT_OPEN_FOR = sql`interval '24 hours'`;

/** Ids of the user's Stripe checkouts that Stripe may still let someone pay, but for `except`. */
export async function openStripeCheckouts(db: DbOrTx, userId: number, except?: string): Promise<string[]> {
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
