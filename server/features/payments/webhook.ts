import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import { serverText } from '../../../shared/i18n/server-messages';
import { StripeCheckoutSession, type StripeEvent, StripeSubscription } from '../../../shared/schemas/payments';
import { z } from '../../../shared/schemas/zod';
import type { Db, DbOrTx, Tx } from '../../db/client';
import { checkoutSessions, stripeEvents, users } from '../../db/schema';
import { Conflict, ServiceUnavailable, ValidationError } from '../../errors';
import { ACTIVE_STATUSES, billingLock, ENDED_STATUSES, localPlanDates, NO_PLAN_DATES, planDates } from './billing';
import { ALREADY_SUBSCRIBED, CUSTOMER_APP, localCheckoutTrialDays } from './checkout';
import { callStripe, cancelAtStripe, isMissing } from './stripe-client';

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
  /**
   * The local test plan's cancellation is a ban's stop (`stopRenewalOfBanned`), not its owner's: it
   * stops only a plan that still renews, and marks it the ban's, for an unban to renew.
   */
  byBan?: boolean;
}

export const LOCAL_EVENTS: EventOrigin = { provider: 'local', latest: null };
export const LOCAL_BAN_EVENTS: EventOrigin = { ...LOCAL_EVENTS, byBan: true };

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
          if (origin.provider === 'local') return (tx) => changeLocalPlan(tx, userId, sent, origin.byBan === true);
          const held = origin.latest && (await otherLiveSubscription(origin.latest, billing, sent.id));
          if (held) return async () => ignored(`a second subscription of the customer's, beside the live ${held}`);
          const current = (origin.latest && (await origin.latest(sent.id))) || sent;
          if (origin.latest && ACTIVE_STATUSES.has(current.status)) await endReplaced(origin.latest, billing, current.id, log);
          const byBan = cancelledByBan(event, sent);
          return async (tx) => {
            const result = await applySubscription(tx, userId, current);
            if (byBan !== null && current.cancel_at_period_end && result.outcome === 'handled') await markStoppedByBan(tx, userId, current.id, byBan);
            return result;
          };
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
      // The local test plan's, as Stripe says of one in its free trial: `trialing` until it renews.
      planStatus: current ? status : dates.planTrialEndsAt ? 'trialing' : status,
      ...dates,
      // The local test plan renews on its first renewal's day of the month, as Stripe's keep their anchor.
      ...(current ? {} : { planAnchorAt: dates.planRenewsAt }),
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

const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

/**
 * The local test plan exists only here, as Stripe's subscriptions exist at Stripe: its event (the test
 * portal's cancellation, or an unban's renewal) says what was asked, and the plan it changes is read
 * now, under the user's lock, as Stripe's are read fresh. Made from a read taken before, it would
 * bring back a plan the job test-plan-end ended meanwhile, or end one it renewed at the period gone by.
 * The row stays locked until the change commits: the job's renewal and dating wait for it.
 *
 * A cancellation says whose it is as it is written (`byBan`), so that an owner's and a ban's, each
 * read while the plan renewed, cannot both take it: the ban's stops only a plan that still renews;
 * the owner's, in after the ban's, makes the cancellation theirs. Only one the ban's is renewed by an
 * unban (`resumeRenewalOfUnbanned`).
 */
async function changeLocalPlan(tx: Tx, userId: number, sent: StripeSubscription, byBan: boolean): Promise<EventResult> {
  const [plan] = await tx
    .select({ lookupKey: users.planLookupKey, trialEndsAt: users.planTrialEndsAt, renewsAt: users.planRenewsAt, endsAt: users.planEndsAt })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.hasSubscription, true), eq(users.stripeSubscriptionId, sent.id)))
    .for('update');
  if (!plan) return ignored('a test plan that has ended');
  if (byBan && plan.endsAt) return ignored('a test plan that renews no more');
  const trialing = plan.trialEndsAt !== null && plan.trialEndsAt > new Date();
  const result = await applySubscription(tx, userId, {
    id: sent.id,
    customer: sent.customer,
    status: trialing ? 'trialing' : 'active',
    items: { data: [{ price: { lookup_key: plan.lookupKey }, current_period_end: seconds(plan.renewsAt ?? plan.endsAt) }] },
    trial_end: seconds(plan.trialEndsAt),
    cancel_at: null,
    cancel_at_period_end: sent.cancel_at_period_end,
  });
  if (sent.cancel_at_period_end && result.outcome === 'handled') await markStoppedByBan(tx, userId, sent.id, byBan);
  return result;
}

/**
 * Whose cancellation an update at Stripe is, when it is one (its renewal stopped at the period's end):
 * the ban's when Stripe marked it the ban's in the very change (`stopRenewalOfBanned` sends the mark
 * with it), its owner's otherwise. Stripe cannot be asked to stop a renewal only if it still renews, so
 * an owner's cancellation in the portal just before the ban's update is told apart only here: the
 * event of the change that stopped it says what the subscription was then. Null for any other update.
 */
function cancelledByBan(event: StripeEvent, sent: StripeSubscription): boolean | null {
  const previous = event.data.previous_attributes;
  if (previous?.cancel_at_period_end !== false || sent.cancel_at_period_end !== true) return null;
  const mark = sent.metadata;
  if (mark?.stopped_by !== 'ban') return false;
  // Marked in the very change: each of the ban's stops marks it anew (`stopped_at`). A mark left on the
  // subscription from before (an unban that could not take it back, the renewal then given back by
  // hand in Stripe's dashboard) does not make its owner's own cancellation since the ban's.
  const before = previous.metadata;
  if (typeof before !== 'object' || before === null) return false;
  const { stopped_by: byBefore, stopped_at: atBefore } = before as Record<string, unknown>;
  return byBefore !== 'ban' || atBefore !== mark.stopped_at;
}

/** Whose the plan's cancellation is, for an unban to renew only the ban's (`resumeRenewalOfUnbanned`). */
async function markStoppedByBan(tx: Tx, userId: number, subscription: string, byBan: boolean): Promise<void> {
  await tx
    .update(users)
    .set({ planStoppedByBan: byBan })
    .where(and(eq(users.id, userId), eq(users.stripeSubscriptionId, subscription)));
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
