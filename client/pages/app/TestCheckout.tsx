import { type ReactNode, useEffect, useState } from 'react';
import { Link } from 'wouter';
import type { TestCheckout as Checkout } from '../../../shared/schemas/payments';
import { Loading } from '../../components/Loading';
import { ApiError } from '../../lib/api';
import { api } from '../../lib/api-app';
import { errorMessage } from '../../lib/errors';
import { formatDate } from '../../lib/format';
import { useLanguage, useMessages, useT } from '../../lib/i18n';
import { plansMessages } from '../../lib/messages-plans';
import { type BillingPeriod, chargedPrice, displayPrice, formatPrice, lookupKeyFor } from '../../lib/pricing';
import { useRedirectCall } from '../../lib/use-redirect-call';
import { useConfig } from '../../stores/config';
import { BusyButton } from '../../components/BusyButton';

/** A page of the local payment stand-ins (checkout, portal): the banner that says so, then its title. */
export function TestPage({ name, children }: { name: 'checkout' | 'portal'; children: ReactNode }) {
  const t = useT();
  return (
    <section className={`page test-${name}`} aria-labelledby={`test-${name}-title`}>
      <p className="test-banner" role="note">
        {t(`${name}.banner`)}
      </p>
      <h1 id={`test-${name}-title`}>{t(`${name}.title`)}</h1>
      {children}
    </section>
  );
}

/**
 * What Starter charges and when, as someone agreeing to pay expects to read it: the period's whole
 * price, on the day the free trial ends (`at`; today without one), then every period until cancelled.
 */
export function Charge({ period, at }: { period: BillingPeriod; at: string | null }) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const when = at ? t('subscribe.charge.on', { date: formatDate(at, language) }) : t('subscribe.charge.today');
  return <>{t(`subscribe.charge.${period}`, { amount: formatPrice(chargedPrice('starter', period), language), when })}</>;
}

/**
 * The local stand-in for Stripe Checkout (CHECKOUT_MODE=test): the signed-in account's own session,
 * labelled so that nobody mistakes it for a real payment. The server shows it to nobody else.
 */
export function TestCheckout({ id }: { id: string }) {
  // The plan's name and billing period are the plans' copy: wait for it before any early return.
  useMessages(plansMessages);
  const t = useT();
  const language = useLanguage((state) => state.language);
  const lookupKeys = useConfig((state) => state.config?.lookup_keys);
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const { busy, error: finishError, go } = useRedirectCall();
  const open = checkout?.status === 'open';
  // A checkout no longer open says so itself (below): a refusal to finish it would say it twice.
  const error = checkout && !open ? null : (finishError ?? loadError);

  useEffect(() => {
    // Fetched once per session id: `t` is a new function on every render.
    api.testCheckout(id).then(setCheckout, (failure: unknown) => setLoadError(errorMessage(failure, t)));
  }, [id]);
  // The server's lookup keys (overridable by its environment) say which period was chosen.
  useEffect(() => {
    void useConfig.getState().load();
  }, []);

  const finish = (outcome: 'complete' | 'cancel') =>
    go(() =>
      api.finishTestCheckout(id, outcome).catch(async (failure: unknown) => {
        // Finished meanwhile (paid in another tab, or a newer checkout took its place): it shows as it
        // is now, with the way back.
        if (failure instanceof ApiError && failure.status === 409) await api.testCheckout(id).then(setCheckout, () => undefined);
        throw failure;
      }),
    );

  if (!checkout && !error) return <Loading />;
  const period = checkout && periodOf(checkout.lookup_key, lookupKeys);
  return (
    <TestPage name="checkout">
      {checkout && (
        <dl className="test-checkout-details">
          <dt>{t('checkout.plan')}</dt>
          {/* Every lookup key the server sells is Starter's (the only plan for sale), monthly or yearly. */}
          <dd>{t('subscribe.plan.starter')}</dd>
          {period && (
            <>
              <dt>{t('subscribe.billing')}</dt>
              <dd>{t(`subscribe.${period}`)}</dd>
              <dt>{t('checkout.price')}</dt>
              <dd>
                {formatPrice(displayPrice('starter', period), language)} / {t(period === 'yearly' ? 'subscribe.perMonthAnnually' : 'subscribe.perMonth')}
              </dd>
            </>
          )}
          <dt>{t('checkout.account')}</dt>
          <dd>{checkout.email}</dd>
          {checkout.trial_days > 0 && (
            <>
              <dt>{t('checkout.trial')}</dt>
              <dd>{t('checkout.trialDays', { days: checkout.trial_days })}</dd>
            </>
          )}
          {/* Only while it can still be paid: canceled, it charges nothing; paid, the plan's page says its dates. */}
          {period && open && (
            <>
              <dt>{t('checkout.charge')}</dt>
              {/* The trial, when there is one, starts as the checkout completes: it ends that many days from now. */}
              <dd>
                <Charge period={period} at={checkout.trial_days > 0 ? new Date(Date.now() + checkout.trial_days * 86_400_000).toISOString() : null} />
              </dd>
            </>
          )}
        </dl>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {open ? (
        <>
          <p>{t('checkout.text')}</p>
          <BusyButton type="button" className="btn btn-primary btn-block" busy={busy} onClick={() => void finish('complete')}>
            {t('checkout.complete.button')}
          </BusyButton>
          <BusyButton type="button" className="btn btn-block btn-cancel-outline" busy={busy} onClick={() => void finish('cancel')}>
            {t('checkout.cancel.button')}
          </BusyButton>
        </>
      ) : (
        <>
          {checkout && <p>{t(checkout.status === 'complete' ? 'checkout.complete' : 'checkout.canceled')}</p>}
          <Link href="/app/subscribe/" className="btn btn-primary btn-block">
            {t('checkout.back')}
          </Link>
        </>
      )}
    </TestPage>
  );
}

/** Which billing period a checkout's lookup key is, by the server's keys (or the defaults until they are known). */
function periodOf(lookupKey: string, keys: Record<BillingPeriod, string> | undefined): BillingPeriod | null {
  const periods: BillingPeriod[] = ['monthly', 'yearly'];
  return periods.find((period) => (keys?.[period] ?? lookupKeyFor(period)) === lookupKey) ?? null;
}
