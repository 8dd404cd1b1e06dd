import { and, desc, eq, isNotNull, isNull, lte, type SQL, sql } from 'drizzle-orm';
import Stripe from 'stripe';
import type { Language } from '../../../shared/constants';
import { planPeriod } from '../../../shared/plan-prices';
import type { SubscriptionState } from '../../../shared/schemas/plan';
import type { CheckoutOutcome } from '../../../shared/schemas/payments';
import type { Db, DbOrTx } from '../../db/client';
import { checkoutSessions, users } from '../../db/schema';
import { serverText } from '../../../shared/i18n/server-messages';
import { Conflict, NotFound } from '../../errors';
import { SubscriptionRequired } from '../plan/service';
import { ENDED_STATUSES, monthsLater } from './billing';
import { checkoutStatus, type Payments, stripeFor, subscribeUrl, trialDaysFor, unlinkCustomer } from './checkout';
import type { BillingLog } from './end-billing';
import { callStripe, isMissingCustomer, isTestPlan, keepCustomerLanguage, PaymentsUnavailable } from './stripe-client';
import { handleStripeEvent, LOCAL_BAN_EVENTS, LOCAL_EVENTS, stripeSubscriptionSource } from './webhook';

/** The subscribe page's local stand-in for Stripe's customer portal (no Stripe key). */
export const testPortalUrl = (publicUrl: string) => `${subscribeUrl(publicUrl)}test-portal/`;

export const NO_SUBSCRIPTION = serverText('no_subscription');
export const BILLED_AT_STRIPE = serverText('billed_at_stripe');
export const TEST_PLAN_ELSEWHERE = serverText('test_plan_elsewhere');

async function billingOf(db: DbOrTx, userId: number) {
  const [row] = await db
    .select({
      active: users.hasSubscription,
      customer: users.stripeCustomerId,
      subscription: users.stripeSubscriptionId,
      lookupKey: users.planLookupKey,
      trialEndsAt: users.planTrialEndsAt,
      renewsAt: users.planRenewsAt,
      endsAt: users.planEndsAt,
      status: users.planStatus,
      version: users.billingVersion,
      stoppedByBan: users.planStoppedByBan,
      banned: users.bannedAt,
      language: users.language,
    })
    .from(users)
    .where(eq(users.id, userId));
  return row ?? null;
}

/**
 * Where the user's newest checkout got to. A first payment left incomplete is that checkout's: one begun
 * since (its buyer back on the success page before Stripe's event for it) is not said to have failed.
 */
async function newestCheckoutStatus(db: DbOrTx, userId: number) {
  const [row] = await db
    .select({ status: checkoutSessions.status })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.userId, userId))
    .orderBy(desc(checkoutSessions.createdAt))
    .limit(1);
  return row?.status ?? null;
}

/**
 * The event Stripe would send for the local test plan (CHECKOUT_MODE=test) once it is cancelled at its
 * period's end, or renews again, through the webhook's handler, which changes the plan as it is then
 * (its dates, or its end meanwhile). Its id names the billing it changes: the same click twice changes
 * nothing, and a cancellation after a renewal taken up again is a new one. A ban's stop (`byBan`) is
 * another event than its owner's cancellation read at the same time: each is applied, as the plan is then.
 */
function updateLocalPlan(db: Db, billing: NonNullable<Awaited<ReturnType<typeof billingOf>>>, cancel: boolean, byBan = false) {
  const subscription = billing.subscription ?? '';
  return handleStripeEvent(
    db,
    {
      id: `evt_local_${cancel ? (byBan ? 'ban_stop' : 'cancel') : 'renew'}_${subscription}_${billing.version}`,
      type: 'customer.subscription.updated',
      data: { object: { id: subscription, object: 'subscription', customer: billing.customer ?? '', status: billing.status ?? 'active', cancel_at_period_end: cancel } },
    },
    byBan ? LOCAL_BAN_EVENTS : LOCAL_EVENTS,
  );
}

/**
 * The plan as the subscribe page shows it: whether it is active (Stripe's events decide), its billing
 * period (the price of the checkout that started it, or the one Stripe's events have named since: a
 * switch in the customer portal), whether "Manage subscription" leads anywhere, the free trial a
 * checkout would come with, and the plan's dates as its subscription last said them (from the
 * database alone: no call to Stripe).
 */
export async function subscriptionState(
  db: Db,
  payments: Payments,
  userId: number,
): Promise<SubscriptionState> {
  const [billing, trialDays, newestCheckout] = await Promise.all([billingOf(db, userId), trialDaysFor(db, userId), newestCheckoutStatus(db, userId)]);
  const active = billing?.active ?? false;
  const period = active ? planPeriod(billing?.lookupKey, payments.plans) : null;
  // At Stripe, a customer may see invoices and resubscribe after an end; the local stand-in only cancels.
  // A customer made for a checkout never paid has nothing there: no subscription, no invoice.
  const subscribed = active || Boolean(billing?.subscription) || trialDays === 0;
  // A test plan outside the test checkout's mode renews no more: it ends at the end of the period it is
  // in (the job test-plan-end ends it then), and neither portal has it to manage.
  const lapsing = active && payments.mode !== 'test' && isTestPlan(billing?.subscription);
  const manageable = lapsing
    ? false
    : stripeFor(payments, billing?.customer)
      ? Boolean(billing?.customer) && subscribed
      : payments.mode === 'test' && active;
  // A subscription of theirs known here, even one not started by a checkout of ours: the trial is had.
  // The plan's dates while it is active, each while it is ahead (a trial over, a renewal gone by).
  const now = new Date();
  const ahead = (date: Date | null | undefined) => (active && date && date > now ? date.toISOString() : null);
  const paymentFailed = billing?.status === 'past_due' || billing?.status === 'unpaid';
  return {
    active,
    period,
    manageable,
    trial_days: billing?.subscription ? 0 : trialDays,
    trial_ends_at: ahead(billing?.trialEndsAt),
    // Past due, the period has moved on unpaid: the plan renews once the payment is made, not on a date.
    renews_at: paymentFailed || lapsing ? null : ahead(billing?.renewsAt),
    ends_at: ahead(lapsing ? (billing?.endsAt ?? billing?.renewsAt) : billing?.endsAt),
    payment_failed: paymentFailed,
    payment_incomplete: (billing?.status === 'incomplete' || billing?.status === 'incomplete_expired') && newestCheckout === 'complete',
  };
}

/**
 * What became of one of the user's checkouts, for the page its success address opens, whenever it is
 * opened: null for one that is not theirs (or never was). A plan they have now is `active`; else a
 * checkout completed here either left its first payment unmade (the newest one, as `subscriptionState`
 * says it) or started a plan that has ended since; one still open here may have been paid at Stripe,
 * its event on its way (Stripe is asked), or not; one cancelled or expired was never paid.
 */
export async function checkoutOutcome(db: Db, payments: Payments, userId: number, id: string): Promise<CheckoutOutcome['outcome'] | null> {
  const [checkout] = await db
    .select({ status: checkoutSessions.status, provider: checkoutSessions.provider })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.userId, userId)));
  if (!checkout) return null;
  const billing = await billingOf(db, userId);
  if (billing?.active) return 'active';
  if (checkout.status === 'complete') {
    const incomplete = billing?.status === 'incomplete' || billing?.status === 'incomplete_expired';
    return incomplete && (await newestCheckoutStatus(db, userId)) === 'complete' ? 'incomplete' : 'ended';
  }
  if (checkout.status === 'canceled' || checkout.provider === 'local') return 'not_paid';
  // Stripe sends the buyer back before its event: whether it was paid is Stripe's to say. Without a key
  // (switched to the test checkout, or off, since) it cannot be asked: its event may still come.
  const stripe = payments.stripeBilling;
  if (!stripe) return 'confirming';
  return (await checkoutStatus(stripe, id)) === 'complete' ? 'confirming' : 'not_paid';
}

/**
 * Where "Manage subscription" sends the browser: a session of Stripe's customer portal for the user's
 * customer, returning to the subscribe page; or, without Stripe, the local test portal. Someone with
 * nothing to manage gets `SubscriptionRequired`; `planEnded` is called when that is because Stripe no
 * longer has their customer, whose plan ends here with it.
 */
export async function openPortal(
  db: Db,
  payments: Payments,
  publicUrl: string,
  userId: number,
  planEnded: () => void = () => {},
  log?: BillingLog,
  /** The language the app asked in; else the account's. Stripe's portal is shown in it. */
  language: Language | null = null,
): Promise<string> {
  const billing = await billingOf(db, userId);
  // A test plan is the test portal's, even on a customer made at Stripe before a switch to the test
  // checkout: Stripe's portal knows nothing of it, and could not cancel it.
  const testPlan = payments.mode === 'test' && billing?.active && isTestPlan(billing.subscription);
  // Outside the test checkout's mode, a test plan has no portal: the test one is gone, and Stripe has
  // no such customer (asked, it would say so, and the plan would end here at once). It ends on its own.
  if (payments.mode !== 'test' && billing?.active && isTestPlan(billing.subscription)) throw new Conflict(TEST_PLAN_ELSEWHERE);
  const stripe = testPlan ? null : stripeFor(payments, billing?.customer);
  if (payments.mode === 'off' && !stripe) throw new NotFound(serverText('payments_not_configured'), 'payments_not_configured');
  if (!stripe) {
    if (!billing?.active) throw new SubscriptionRequired();
    return testPortalUrl(publicUrl);
  }
  const customer = billing?.customer;
  if (!customer) throw new SubscriptionRequired();
  try {
    const locale = language ?? billing.language;
    const [session] = await Promise.all([
      callStripe(() => stripe.billingPortal.sessions.create({ customer, return_url: subscribeUrl(publicUrl), locale })),
      keepCustomerLanguage(stripe, customer, locale),
    ]);
    return session.url;
  } catch (error) {
    if (!isMissingCustomer(error)) {
      // Stripe refuses the portal to every customer until its settings are saved in Stripe's dashboard
      // (or refuses it for another reason of the account's): nothing the user did, nor can mend. They
      // are told it is unavailable (503), and the operator what Stripe said.
      if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
      log?.error({ err: error, customer }, 'Stripe refused a customer portal session: check the customer portal settings in Stripe');
      throw new PaymentsUnavailable();
    }
    // Deleted in Stripe's dashboard, with every subscription of it: nothing is left to manage, and the
    // next checkout makes a new customer.
    if (await unlinkCustomer(db, userId, customer)) planEnded();
    throw new SubscriptionRequired();
  }
}

/**
 * The local test portal's "Cancel subscription", as Stripe's portal cancels: at the end of the period
 * paid for (or of the free trial). Stripe would send `customer.subscription.updated` with
 * `cancel_at_period_end`, and this sends the same event through the webhook's handler: the plan stays,
 * with its end date, until `endTestPlans` sends the deletion once that date has passed. A
 * second click changes nothing (`updateLocalPlan`). A ban's stop cancels through here too (`byBan`).
 * Answers whether the plan was cancelled now.
 */
export async function cancelLocalSubscription(db: Db, userId: number, yearlyLookupKey: string, byBan = false): Promise<boolean> {
  const billing = await billingOf(db, userId);
  if (!billing?.active || !billing.customer || !billing.subscription) throw new Conflict(NO_SUBSCRIPTION);
  // A plan bought at Stripe before a switch to the test checkout is billed there: cancelled here, the
  // app would say it ends while Stripe renews it. Its owner cancels it in Stripe's portal (`openPortal`).
  if (!isTestPlan(billing.subscription)) throw new Conflict(BILLED_AT_STRIPE);
  // Cancelled already: it ends when it said it would.
  if (billing.endsAt) return false;
  // Bought before the plan's dates were kept, and not dated by the job yet (or being dated by it now):
  // cancelled as it is, it would say no end, and the job would then date it and renew it on. It is
  // dated first, as the job does, and cancelled as it is then.
  if (!billing.trialEndsAt && !billing.renewsAt) {
    await dateTestPlan(db, { id: userId, subscription: billing.subscription, lookupKey: billing.lookupKey }, yearlyLookupKey, new Date());
    return cancelLocalSubscription(db, userId, yearlyLookupKey, byBan);
  }
  return (await updateLocalPlan(db, billing, true, byBan)).outcome === 'handled';
}

/**
 * A banned account can no longer sign in, so no longer cancel its plan: it would be billed on and on
 * for an app it cannot use. Its subscription is set to end at the end of the period paid for, as the
 * customer portal's cancellation does (Stripe's `customer.subscription.updated` then gives the plan its
 * end date here); the local test plan's through the test portal's own cancellation. Once unbanned, it
 * renews again (`resumeRenewalOfUnbanned`). Called after the ban has committed: a Stripe
 * that cannot be reached, or refuses, leaves the ban as it is, and the job `banned-plan-stop` tries
 * again until it takes, or until Stripe says it renews no more. Answers whether the renewal was stopped now.
 */
export async function stopRenewalOfBanned(db: Db, stripe: Stripe | null, userId: number, log: BillingLog, yearlyLookupKey: string): Promise<boolean> {
  const billing = await billingOf(db, userId);
  if (!billing?.active || !billing.subscription || billing.endsAt) return false;
  const subscription = billing.subscription;
  try {
    // Stopped, and marked the ban's, as the plan is under the user's lock (`changeLocalPlan`): its
    // owner's cancellation in just before stays theirs.
    if (isTestPlan(subscription)) return await cancelLocalSubscription(db, userId, yearlyLookupKey, true);
    if (!stripe) throw new Error('no Stripe client (STRIPE_SECRET_KEY)');
    if (await endingAtStripe(stripe, subscription)) {
      await takePlanFromStripe(db, stripe, userId, billing, log);
      return false;
    }
    // Marked the ban's in the same change, anew each time: Stripe's event for it says whose the
    // cancellation is (`cancelledByBan`), even with an old mark left on the subscription.
    const metadata = { stopped_by: 'ban', stopped_at: new Date().toISOString() };
    await callStripe(() => stripe.subscriptions.update(subscription, { cancel_at_period_end: true, metadata }));
  } catch (error) {
    // Refused: Stripe no longer has the subscription, or it ended between the read and the update.
    if (stripe && error instanceof Stripe.errors.StripeInvalidRequestError && (await takePlanFromStripe(db, stripe, userId, billing, log))) return false;
    // The test checkout's plans are tried again by the job that renews them, in every mode; Stripe's by its own.
    const job = isTestPlan(subscription) ? 'test-plan-end' : 'banned-plan-stop';
    log.error({ err: error, userId, subscription, job }, `a banned account’s subscription still renews: tried again by the job ${job}`);
    return false;
  }
  // Not marked the ban's here: its owner may have cancelled in the portal between the read and the
  // update, and an unban would then undo their cancellation. Stripe's event for the change says whose
  // it is (`cancelledByBan`); an unban before it comes renews the plan once it has (`followBan`).
  return true;
}

/**
 * Whether the subscription renews no more at Stripe already: its owner cancelled it in Stripe's portal
 * just before the ban, its event not in yet. The cancellation is theirs, not the ban's: flagged as the
 * ban's, an unban would renew it (`resumeRenewalOfUnbanned`). Its event gives the plan its end here, or,
 * lost, Stripe read now does (`takePlanFromStripe`).
 */
async function endingAtStripe(stripe: Stripe, subscription: string): Promise<boolean> {
  const current = await callStripe(() => stripe.subscriptions.retrieve(subscription));
  return current.cancel_at_period_end || Boolean(current.cancel_at) || ENDED_STATUSES.has(current.status);
}

/**
 * A ban's stop found the subscription renewing no more at Stripe, or was refused: the event that would
 * have said so here was lost (or is late). The plan is written as Stripe has it now, through the
 * webhook's handler as that event would be (read fresh, under the user's lock): it ends at its
 * period's end, or has ended. Else it would say it renews, and the job banned-plan-stop would ask
 * Stripe again at every run, for ever. A subscription Stripe does not have is ended: it bills no one.
 * Answers whether the plan renews no more here (the job's work is done); a Stripe that cannot be read
 * leaves it to the job.
 */
async function takePlanFromStripe(
  db: Db,
  stripe: Stripe,
  userId: number,
  billing: NonNullable<Awaited<ReturnType<typeof billingOf>>>,
  log: BillingLog,
): Promise<boolean> {
  const { customer, subscription } = billing;
  if (!customer || !subscription) return false;
  try {
    await handleStripeEvent(
      db,
      {
        id: `evt_ban_read_${subscription}_${billing.version}`,
        type: 'customer.subscription.updated',
        // The handler reads it fresh from Stripe: only one Stripe does not have is taken as sent here.
        data: { object: { id: subscription, object: 'subscription', customer, status: 'canceled' } },
      },
      { provider: 'stripe', latest: stripeSubscriptionSource(stripe) },
      log,
    );
  } catch (error) {
    log.warn({ err: error, customer, subscription }, 'could not read a banned account’s subscription from Stripe');
    return false;
  }
  const [renewing] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.hasSubscription, true), isNull(users.planEndsAt)));
  return !renewing;
}

/**
 * Banned accounts whose plan at Stripe still renews here: a ban whose stop Stripe did not take
 * (`stopRenewalOfBanned`), or one whose event from Stripe is not in yet (the stop then finds the plan
 * ending there, and takes it as Stripe has it). The test checkout's are `stopBannedTestPlans`'s.
 */
export async function bannedStillRenewing(db: Db): Promise<number[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        isNotNull(users.bannedAt),
        eq(users.hasSubscription, true),
        isNotNull(users.stripeSubscriptionId),
        sql`${users.stripeSubscriptionId} not like 'sub_local_%'`,
        isNull(users.planEndsAt),
        eq(users.planStoppedByBan, false),
      ),
    );
  return rows.map((row) => row.id);
}

/**
 * A webhook's event changed the billing of `userId`. Were they banned meanwhile (a checkout paid on
 * Stripe's page after the ban, opened before it), the plan it started must not renew either, as
 * `stopRenewalOfBanned` does at the ban for a plan there already. Were they unbanned before Stripe's
 * event for the ban's stop came in, that event has now said the stop was the ban's: the plan renews
 * again (`resumeRenewalOfUnbanned`). Each reads the account after its own change committed, so a ban
 * or an unban committed meanwhile is seen by one of the two.
 */
export async function followBan(db: Db, stripe: Stripe | null, userId: number, log: BillingLog, yearlyLookupKey: string): Promise<void> {
  const [user] = await db.select({ bannedAt: users.bannedAt }).from(users).where(eq(users.id, userId));
  if (!user) return;
  if (user.bannedAt) await stopRenewalOfBanned(db, stripe, userId, log, yearlyLookupKey);
  else await resumeRenewalOfUnbanned(db, stripe, userId, log);
}

/**
 * Once a ban is lifted, the plan it set to end at its period's end (`stopRenewalOfBanned`) renews again,
 * as it did before the ban: the user did not cancel it. A plan that has ended meanwhile stays ended (the
 * user may buy it again), and one its owner had cancelled before the ban was never the ban's. Called
 * after the ban has been lifted, and after each of Stripe's events for an account not banned
 * (`followBan`): a Stripe that cannot be reached, or refuses, leaves the plan to end, and the operator
 * is told to take the cancellation back by hand.
 */
export async function resumeRenewalOfUnbanned(db: Db, stripe: Stripe | null, userId: number, log: BillingLog): Promise<void> {
  const billing = await billingOf(db, userId);
  if (!billing?.stoppedByBan || billing.banned) return;
  await db.update(users).set({ planStoppedByBan: false }).where(eq(users.id, userId));
  if (!billing.active || !billing.subscription || (billing.endsAt && billing.endsAt <= new Date())) return;
  const subscription = billing.subscription;
  try {
    if (isTestPlan(subscription)) await updateLocalPlan(db, billing, false);
    // The ban's mark goes with it: a later cancellation of its owner's is theirs.
    else if (stripe) await callStripe(() => stripe.subscriptions.update(subscription, { cancel_at_period_end: false, metadata: { stopped_by: '', stopped_at: '' } }));
    else throw new Error('no Stripe client (STRIPE_SECRET_KEY)');
  } catch (error) {
    log.error({ err: error, userId, subscription }, 'an unbanned account’s subscription still ends at its period’s end: renew it in Stripe by hand');
  }
}

/**
 * The first renewal of a plan after `now`: a period (`months`) on from `anchor`, two, and so on, as
 * Stripe bills: always on the anchor's day of the month, or the month's last when it has none (31
 * January, 28 February, 31 March), never the day a short month left it on.
 */
function nextRenewal(anchor: Date, months: number, now: Date): Date {
  let periods = 1;
  while (monthsLater(anchor, periods * months) <= now) periods += 1;
  return monthsLater(anchor, periods * months);
}

/**
 * The live local test plans that `which` picks: the job test-plan-end's reads, each minute in every
 * mode. Their predicate is the partial index users_test_plans's, written out as it is there and with
 * no parameter in it: so every plan of the statement (a prepared statement's generic one too) reads
 * that index's few rows rather than scan every account.
 */
export function liveTestPlans(db: DbOrTx, which?: SQL) {
  return db
    .select({
      id: users.id,
      customer: users.stripeCustomerId,
      subscription: users.stripeSubscriptionId,
      lookupKey: users.planLookupKey,
      renewsAt: users.planRenewsAt,
      anchor: users.planAnchorAt,
    })
    .from(users)
    .where(and(sql`${users.hasSubscription} and ${users.stripeSubscriptionId} like 'sub_local_%'`, which));
}

/**
 * Gives their dates to the live local test plans that have none: those bought before the plan's dates
 * were kept, which nothing renewed, a cancellation gave no end, and which outside the test checkout's
 * mode never ended, their perks kept for ever. Each is in a period counted, as Stripe bills, from the
 * checkout that started it (a year at a time for the yearly plan, a month otherwise), or from now when
 * that checkout is gone: it renews, or ends (`endTestPlans`), at that period's end, and on that day of
 * the month from then on (`renewTestPlans`). Answers whose plans got dates, for their apps.
 */
export async function dateTestPlans(db: Db, yearlyLookupKey: string): Promise<number[]> {
  const now = new Date();
  const undated = await liveTestPlans(db, and(isNull(users.planTrialEndsAt), isNull(users.planRenewsAt), isNull(users.planEndsAt)));
  const dated: number[] = [];
  for (const plan of undated) {
    if (plan.subscription && (await dateTestPlan(db, { ...plan, subscription: plan.subscription }, yearlyLookupKey, now))) dated.push(plan.id);
  }
  return dated;
}

/**
 * Dates one live local test plan that has none (`dateTestPlans`), unless it has changed since it was
 * read: dated meanwhile (by the job, or its cancellation), ended, or another one. Answers whether it did.
 */
async function dateTestPlan(
  db: Db,
  plan: { id: number; subscription: string; lookupKey: string | null },
  yearlyLookupKey: string,
  now: Date,
): Promise<boolean> {
  const { id, subscription } = plan;
  // The test checkout names its subscription after its session (`completeLocalCheckout`).
  const [checkout] = await db
    .select({ startedAt: checkoutSessions.createdAt })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, `cs_local_${subscription.slice('sub_local_'.length)}`), eq(checkoutSessions.userId, id)));
  const startedAt = checkout?.startedAt ?? now;
  const months = plan.lookupKey === yearlyLookupKey ? 12 : 1;
  const updated = await db
    .update(users)
    .set({ planRenewsAt: nextRenewal(startedAt, months, now), planAnchorAt: monthsLater(startedAt, months) })
    .where(
      and(
        eq(users.id, id),
        eq(users.hasSubscription, true),
        eq(users.stripeSubscriptionId, subscription),
        isNull(users.planTrialEndsAt),
        isNull(users.planRenewsAt),
        isNull(users.planEndsAt),
      ),
    )
    .returning({ id: users.id });
  return updated.length > 0;
}

/**
 * Stops the renewal of the local test plans of banned accounts that still have no end: a ban's stop
 * that did not take (logged, naming this job), and one a ban before the plan's dates were kept gave
 * none (it cancelled a plan that had none, which so said no end; the job then dated it and renewed it
 * on, and its stopped-by-the-ban flag kept it from being stopped again). Each is cancelled now, as a
 * ban is (`stopRenewalOfBanned`), to end at the end of the period it is in. Answers whose plans were
 * stopped, for their apps.
 */
export async function stopBannedTestPlans(db: Db, log: BillingLog, yearlyLookupKey: string): Promise<number[]> {
  const unended = await liveTestPlans(db, and(isNotNull(users.bannedAt), isNull(users.planEndsAt)));
  const stopped: number[] = [];
  for (const { id } of unended) {
    if (await stopRenewalOfBanned(db, null, id, log, yearlyLookupKey)) stopped.push(id);
  }
  return stopped;
}

/**
 * Renews the local test plans (CHECKOUT_MODE=test) whose trial or period has passed and that are not
 * cancelled, as Stripe renews a real one: the plan runs on to its next period's end (a year on for the
 * yearly plan, a month otherwise), which the subscribe page says and a cancellation ends it at. Only a
 * plan still as it was read is renewed: a cancellation meanwhile keeps its end. Answers whose plans
 * renewed, for their apps.
 */
export async function renewTestPlans(db: Db, yearlyLookupKey: string): Promise<number[]> {
  const now = new Date();
  const due = await liveTestPlans(db, and(isNull(users.planEndsAt), lte(users.planRenewsAt, now)));
  const renewed: number[] = [];
  for (const { id, lookupKey, renewsAt, anchor } of due) {
    if (!renewsAt) continue;
    // A plan bought before its anchor was kept renews from its last renewal.
    const next = nextRenewal(anchor ?? renewsAt, lookupKey === yearlyLookupKey ? 12 : 1, now);
    const updated = await db
      .update(users)
      // Past its trial, if it had one: `active`, as Stripe says once the first period is paid.
      .set({ planRenewsAt: next, planTrialEndsAt: null, planStatus: 'active' })
      .where(and(eq(users.id, id), eq(users.hasSubscription, true), isNull(users.planEndsAt), eq(users.planRenewsAt, renewsAt)))
      .returning({ id: users.id });
    if (updated.length > 0) renewed.push(id);
  }
  return renewed;
}

/**
 * Ends the local test plans cancelled at a period's end that has passed, with the
 * `customer.subscription.deleted` Stripe would send then. Outside the test checkout's mode (`renewing`
 * false: an operator switched to Stripe, or off), nothing renews a test plan any more: each ends at the
 * end of the period it is in, cancelled or not. Answers whose plans ended, for their apps.
 */
export async function endTestPlans(db: Db, renewing: boolean): Promise<number[]> {
  const passed = renewing ? lte(users.planEndsAt, new Date()) : sql`coalesce(${users.planEndsAt}, ${users.planRenewsAt}) <= now()`;
  const due = await liveTestPlans(db, passed);
  const ended: number[] = [];
  for (const { id, customer, subscription } of due) {
    if (!customer || !subscription) continue;
    const result = await handleStripeEvent(
      db,
      {
        id: `evt_local_end_${subscription}`,
        type: 'customer.subscription.deleted',
        data: { object: { id: subscription, object: 'subscription', customer, status: 'canceled' } },
      },
      LOCAL_EVENTS,
    );
    if (result.userId !== undefined) ended.push(id);
  }
  return ended;
}
