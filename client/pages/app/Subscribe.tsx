import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { Link, useSearch } from 'wouter';
import { FREE_TRIAL_DAYS } from '../../../shared/constants';
import type { MessageKey } from '../../../shared/i18n/en';
import type { CheckoutOutcome } from '../../../shared/schemas/payments';
import type { SubscriptionState } from '../../../shared/schemas/plan';
import { PlanCards } from '../../components/PlanCards';
import { ConfirmSheet } from '../../components/Sheet';
import { Offline, TryAgain, Waiting } from '../../components/Waiting';
import { NotFound } from '../../lib/api';
import { api } from '../../lib/api-app';
import { type LoadFailure, useRetryWhenBackOnline } from '../../lib/socket';
import { formatDate } from '../../lib/format';
import { useLanguage, useMessages, useT } from '../../lib/i18n';
import { plansMessages } from '../../lib/messages-plans';
import { useRedirectCall } from '../../lib/use-redirect-call';
import { type BillingPeriod, lookupKeyFor } from '../../lib/pricing';
import { useConfig } from '../../stores/config';
import { keptTrialDays, nextPlanDate, usePlan } from '../../stores/plan';
import { Charge, TestPage } from './TestCheckout';
import { useSession } from '../../stores/session';
import { BusyButton } from '../../components/BusyButton';
import '../../perks.css';

export type SubscribeOutcome = 'success' | 'error' | 'plans';

/** From the query string: success needs a session id; canceled, or a bare success, is an error. */
export function outcomeFor(search: string): SubscribeOutcome {
  const params = new URLSearchParams(search);
  if (params.has('success') && params.get('session_id')) return 'success';
  if (params.has('canceled') || params.has('success')) return 'error';
  return 'plans';
}

/** Starter's perks, as a subscriber's page lists them: what they have, not what the free plan lacks. */
const PERKS: MessageKey[] = ['subscribe.starter.1', 'subscribe.starter.2', 'subscribe.current.unlimitedLikes'];

/**
 * The plan as the server has it now (it may have changed at Stripe since the page was last open);
 * `failed` while it could not be had (no answer, or the server's error), asked again once the
 * network is back, or by `load`.
 */
function useSubscription() {
  const subscription = usePlan((state) => state.subscription);
  const loadSubscription = usePlan((state) => state.loadSubscription);
  const [failed, setFailed] = useState<LoadFailure | null>(null);
  const load = useCallback(() => {
    void loadSubscription().then(setFailed);
  }, [loadSubscription]);
  useEffect(load, [load]);
  useRetryWhenBackOnline(failed !== null, load);
  return { subscription, failed, load };
}

function TestModeAndError({ error }: { error: string | null }) {
  const t = useT();
  const config = useConfig((state) => state.config);
  const errorLine = useRef<HTMLParagraphElement>(null);
  // Above the plans: on a small phone the button pressed is a screen below, where nothing would change.
  // To the middle of the screen, clear of the top bar and of the banner under it ("Reconnecting…").
  useEffect(() => {
    if (error) errorLine.current?.scrollIntoView?.({ block: 'center' });
  }, [error]);
  return (
    <>
      {config?.payments === 'test' && <p className="notice">{t('subscribe.testMode')}</p>}
      {config?.payments === 'off' && (
        <p className="notice" role="status">
          {t('subscribe.notConfigured')}
        </p>
      )}
      {error && (
        <p ref={errorLine} className="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** What comes next for the plan (`nextPlanDate`), and while the trial runs, what its end charges. */
function PlanDates({ subscription }: { subscription: SubscriptionState }) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const next = nextPlanDate(subscription);
  if (!next) return null;
  const [key, iso] = next;
  return (
    <>
      <p className="muted plan-dates">{t(key, { date: formatDate(iso, language) })}</p>
      {/* The trial's end is when the first payment is taken: what it will be, while it can still be avoided. */}
      {key === 'subscribe.current.trialUntil' && subscription.period && (
        <p className="muted plan-dates">
          <Charge period={subscription.period} at={iso} />
        </p>
      )}
    </>
  );
}

/** A payment of the plan's failed (Stripe is trying again, or the plan ended unpaid): how to mend it comes first. */
function PaymentFailed() {
  const t = useT();
  return (
    <p className="form-error" role="alert">
      {t('subscribe.paymentFailed')}
    </p>
  );
}

/**
 * A subscriber's page: their plan, what it gives them, and "Manage subscription" (Stripe's customer
 * portal, or the local test portal).
 */
function CurrentPlan() {
  const t = useT();
  const { subscription, failed, load } = useSubscription();
  const { busy, error, go } = useRedirectCall();

  return (
    <section className="page subscribe current-plan">
      <h1>{t('subscribe.current.title')}</h1>
      {subscription?.payment_failed && <PaymentFailed />}
      <div className="plan plan-featured" data-testid="current-plan">
        <h2>
          {t('subscribe.plan.starter')} <span className="badge-active">{t('subscribe.current.active')}</span>
        </h2>
        {subscription?.period && <p className="muted">{t(`subscribe.current.period.${subscription.period}`)}</p>}
        {subscription && <PlanDates subscription={subscription} />}
        <h3>{t('subscribe.current.perks')}</h3>
        <ul className="plan-features">
          {PERKS.map((key) => (
            <li key={key}>{t(key)}</li>
          ))}
        </ul>
        <Link href="/app/likes/" className="btn btn-primary btn-block">
          {t('subscribe.current.likes')}
        </Link>
      </div>
      <TestModeAndError error={error} />
      {!subscription && failed && (
        <p className="muted" role="status">
          {t(failed === 'offline' ? 'subscribe.current.offline' : 'error.generic')}
        </p>
      )}
      {!subscription && failed === 'server' && <TryAgain onRetry={load} />}
      {subscription?.manageable && (
        <BusyButton type="button" className="btn btn-ghost btn-block" busy={busy} onClick={() => void go(api.portal)}>
          {t('subscribe.manage')}
        </BusyButton>
      )}
    </section>
  );
}

/**
 * The plans for sale. The free trial comes with an account's first subscription only, and the server
 * says whether this one still has it (`trial_days`). Until it has said, what it said last on this
 * device; else, while it is being asked, the trial (someone new, who has it, never sees the copy
 * change), and when it cannot be asked (offline), words that promise no trial nor rule it out.
 */
function PlansForSale() {
  const t = useT();
  const config = useConfig((state) => state.config);
  const { subscription, failed } = useSubscription();
  const { busy, error, go } = useRedirectCall();
  const trialDays = subscription?.trial_days ?? keptTrialDays() ?? (failed ? 0 : FREE_TRIAL_DAYS);

  // The server's keys when it says them (they can be overridden by its environment).
  const checkout = (period: BillingPeriod) => go(() => api.checkout(config?.lookup_keys[period] ?? lookupKeyFor(period)));

  return (
    <section className="page subscribe">
      <h1>{t('subscribe.title')}</h1>
      <p className="muted">{trialDays > 0 ? t('subscribe.subtitle', { days: trialDays }) : t('subscribe.subtitleNoTrial')}</p>
      {/* Ended unpaid: paying its invoice in the portal brings the plan back. Ended otherwise, nothing is
          left to manage: the portal only holds its invoices, and the button says so. */}
      {subscription?.payment_failed && <PaymentFailed />}
      {subscription?.manageable && (
        <BusyButton type="button" className={`btn btn-block btn-${subscription.payment_failed ? 'primary' : 'ghost'}`} busy={busy} onClick={() => void go(api.portal)}>
          {t(subscription.payment_failed ? 'subscribe.manage' : 'subscribe.invoices')}
        </BusyButton>
      )}
      <TestModeAndError error={error} />
      <PlanCards
        headingLevel={2}
        action={(_plan, period) => (
          <BusyButton type="button" className="btn btn-primary btn-block" busy={busy} disabled={config?.payments === 'off'} onClick={() => void checkout(period)}>
            {t(trialDays > 0 ? 'subscribe.choose' : 'subscribe.chooseNoTrial')}
          </BusyButton>
        )}
      />
    </section>
  );
}

/** Where a checkout comes back to: what became of it, in a line or two, and the one way on. */
function CheckoutResult({ title, children, link }: { title: string; children?: ReactNode; link: { href: string; label: string } }) {
  return (
    <section className="page result-page">
      <h1>{title}</h1>
      {children}
      <Link href={link.href} className="btn btn-primary">
        {link.label}
      </Link>
    </section>
  );
}

function PaymentError({ text }: { text: 'subscribe.canceled' | 'subscribe.error.text' | 'subscribe.incomplete' | 'subscribe.notPaid' | 'subscribe.unknownCheckout' }) {
  const t = useT();
  return (
    <CheckoutResult title={t('subscribe.error.title')} link={{ href: '/subscribe/', label: t('subscribe.retry') }}>
      <p>{t(text)}</p>
    </CheckoutResult>
  );
}

/**
 * Back from a checkout, and the user has no plan. Whenever the page is opened (at once, or again much
 * later: an old tab, a bookmark, the history), the server says what became of this checkout: paid, its
 * event on its way (the user is read again when it comes); its first payment left incomplete (declined,
 * or awaiting the bank's confirmation, 3-D Secure); a plan that has ended since; never paid; or not the
 * user's at all. Only the first waits. Until the server has answered (or while it cannot be asked), it
 * is said to be confirming, as it most often is.
 */
function Confirming({ sessionId }: { sessionId: string }) {
  const t = useT();
  const { subscription } = useSubscription();
  const loadUser = useSession((state) => state.loadUser);
  const [outcome, setOutcome] = useState<CheckoutOutcome['outcome'] | 'unknown' | null>(null);
  const [failed, setFailed] = useState(false);
  const load = useCallback(() => {
    api.checkoutOutcome(sessionId).then(
      (answer) => {
        setFailed(false);
        setOutcome(answer.outcome);
        // Active since the user was read: read it again, and the page says so.
        if (answer.outcome === 'active') void loadUser();
      },
      (error: unknown) => (error instanceof NotFound ? setOutcome('unknown') : setFailed(true)),
    );
  }, [sessionId, loadUser]);
  useEffect(load, [load]);
  useRetryWhenBackOnline(failed, load);
  if (subscription?.payment_incomplete || outcome === 'incomplete') return <PaymentError text="subscribe.incomplete" />;
  if (outcome === 'not_paid') return <PaymentError text="subscribe.notPaid" />;
  if (outcome === 'unknown') return <PaymentError text="subscribe.unknownCheckout" />;
  if (outcome === 'ended') {
    return (
      <CheckoutResult title={t('subscribe.ended.title')} link={{ href: '/app/subscribe/', label: t('subscribe.ended.link') }}>
        <p>{t('subscribe.ended.text')}</p>
      </CheckoutResult>
    );
  }
  return (
    <CheckoutResult title={t('subscribe.confirming.title')} link={{ href: '/app/home/', label: t('subscribe.success.link') }}>
      <p className="muted" role="status">
        {t('subscribe.confirming.text')}
      </p>
    </CheckoutResult>
  );
}

export function Subscribe() {
  // The subtitle and CurrentPlan's plan name are the plans' copy, shown outside PlanCards: wait for it
  // here, before any branch (a hook cannot follow the early returns).
  useMessages(plansMessages);
  const t = useT();
  const search = useSearch();
  const user = useSession((state) => state.user);
  // The user the phone kept while the server could not be asked: it may predate a checkout just paid.
  const fromDevice = useSession((state) => state.fromDevice);
  const loadConfig = useConfig((state) => state.load);
  const loadUser = useSession((state) => state.loadUser);
  const outcome = outcomeFor(search);

  useEffect(() => {
    void loadConfig();
    // The plan may have changed elsewhere (another phone, Stripe): the page follows the server.
    void loadUser();
  }, [loadConfig, loadUser]);
  // The plan may start before the socket is up to hear it: read the user again once it is.
  useRetryWhenBackOnline(outcome === 'success' && user?.has_subscription === false, loadUser);
  const canceled = new URLSearchParams(search).has('canceled');

  if (outcome === 'success') {
    // Stripe sends the buyer back before its webhook may have reached the server: the plan is said to
    // be active once the server says so (its `account:changed` reads the user again), not before.
    if (!user || (!user.has_subscription && fromDevice)) return <Waiting offline="subscribe.offline" />;
    if (!user.has_subscription) return <Confirming sessionId={new URLSearchParams(search).get('session_id')!} />;
    return <CheckoutResult title={t('subscribe.success.title')} link={{ href: '/app/home/', label: t('subscribe.success.link') }} />;
  }
  // The checkout's error screen; a checkout left on purpose says so, not that a payment failed.
  if (outcome === 'error') return <PaymentError text={canceled ? 'subscribe.canceled' : 'subscribe.error.text'} />;
  // Until the user is known (loaded again once the network is back), the plan is not: no plans to buy
  // for someone who may have one.
  if (!user) return <Waiting offline="subscribe.offline" />;
  return user.has_subscription ? <CurrentPlan /> : <PlansForSale />;
}

/**
 * The local stand-in for Stripe's customer portal (no Stripe key), clearly labelled: the signed-in
 * account's plan, and a cancellation that goes through the same event handler as Stripe's.
 */
export function TestPortal() {
  const t = useT();
  const user = useSession((state) => state.user);
  const { subscription, failed, load } = useSubscription();
  // A full load after the cancellation: the whole app reads the plan afresh.
  const { busy, error, go } = useRedirectCall();
  // Ending the plan is asked first, as Stripe's portal does.
  const [asking, setAsking] = useState(false);

  if (!subscription && failed === 'server') return <Offline text={t('error.generic')} onRetry={load} />;
  if (!subscription || !user) return <Waiting offline="subscribe.offline" />;
  return (
    <TestPage name="portal">
      <p className="muted portal-email">{user.email}</p>
      <p>{subscription.active ? t('portal.text') : t('portal.none')}</p>
      {/* While the sheet that asked is up, the refusal is said there, not twice. */}
      <TestModeAndError error={asking ? null : error} />
      {/* Cancelled already: it ends at the period's end, as at Stripe, and says when. */}
      {subscription.ends_at ? (
        <PlanDates subscription={subscription} />
      ) : (
        subscription.active && (
          <BusyButton type="button" className="btn btn-block btn-cancel-outline" busy={busy} onClick={() => setAsking(true)}>
            {t('portal.cancel')}
          </BusyButton>
        )
      )}
      {asking && (
        <ConfirmSheet
          title={t('portal.confirm.title')}
          confirmLabel={t('portal.confirm.yes')}
          cancelLabel={t('portal.confirm.keep')}
          busy={busy}
          error={error}
          onConfirm={() => void go(api.cancelTestSubscription)}
          onClose={() => setAsking(false)}
        >
          <p>{t('portal.confirm.text')}</p>
        </ConfirmSheet>
      )}
      <Link href="/app/subscribe/" className="btn btn-primary btn-block">
        {t('portal.back')}
      </Link>
    </TestPage>
  );
}
