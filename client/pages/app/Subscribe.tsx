import { useEffect, useState } from 'react';
import { Link, Redirect, useSearch } from 'wouter';
import { FREE_TRIAL_DAYS } from '../../../shared/constants';
import type { MessageKey } from '../../../shared/i18n/en';
import { Loading } from '../../components/Loading';
import { api } from '../../lib/api';
import { errorMessage } from '../../lib/errors';
import { useT } from '../../lib/i18n';
import { type BillingPeriod, DEFAULT_PERIOD, displayPrice, lookupKeyFor, type Plan, PLANS, PURCHASABLE_PLANS } from '../../lib/pricing';
import { useConfig } from '../../stores/config';
import { useSession } from '../../stores/session';

export type SubscribeOutcome = 'success' | 'error' | 'plans';

/** By query string (PRODUCT.md §4): success needs a session id; canceled, or a bare success, is an error. */
export function outcomeFor(search: string): SubscribeOutcome {
  const params = new URLSearchParams(search);
  if (params.has('success') && params.get('session_id')) return 'success';
  if (params.has('canceled') || params.has('success')) return 'error';
  return 'plans';
}

const FEATURES: Record<Plan, MessageKey[]> = {
  starter: ['subscribe.starter.1', 'subscribe.starter.2', 'subscribe.starter.3'],
  pro: ['subscribe.pro.1', 'subscribe.pro.2', 'subscribe.pro.3'],
  enterprise: ['subscribe.enterprise.1', 'subscribe.enterprise.2', 'subscribe.enterprise.3'],
};

export function Subscribe() {
  const t = useT();
  const search = useSearch();
  const user = useSession((state) => state.user);
  const [period, setPeriod] = useState<BillingPeriod>(DEFAULT_PERIOD);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const config = useConfig((state) => state.config);
  const loadConfig = useConfig((state) => state.load);
  const outcome = outcomeFor(search);

  useEffect(() => {
    void loadConfig();
  }, [loadConfig]);
  const canceled = new URLSearchParams(search).has('canceled');

  if (outcome === 'success') {
    return (
      <section className="page result-page">
        <h1>{t('subscribe.success.title')}</h1>
        <Link href="/app/home/" className="btn btn-primary">
          {t('subscribe.success.link')}
        </Link>
      </section>
    );
  }
  if (outcome === 'error') {
    return (
      <section className="page result-page">
        <h1>{t('subscribe.error.title')}</h1>
        <p>{t('subscribe.error.text')}</p>
        {canceled && <p className="muted">{t('subscribe.canceled')}</p>}
        <Link href="/subscribe/" className="btn btn-primary">
          {t('subscribe.retry')}
        </Link>
      </section>
    );
  }
  if (user === undefined) return <Loading />;
  if (user?.has_subscription) return <Redirect to="/app/home/" replace />;

  async function checkout() {
    setBusy(true);
    setError(null);
    try {
      // The server's keys when it says them (they can be overridden by its environment).
      const { url } = await api.checkout(config?.lookup_keys[period] ?? lookupKeyFor(period));
      window.location.assign(url);
    } catch (failure) {
      setError(errorMessage(failure, t));
      setBusy(false);
    }
  }

  return (
    <section className="page subscribe">
      <h1>{t('subscribe.title')}</h1>
      <p className="muted">{t('subscribe.subtitle', { days: FREE_TRIAL_DAYS })}</p>
      <div className="toggle" role="radiogroup" aria-label={t('subscribe.billing')}>
        {(['monthly', 'yearly'] as const).map((value) => (
          <button key={value} type="button" role="radio" aria-checked={period === value} className={period === value ? 'is-active' : ''} onClick={() => setPeriod(value)}>
            {t(`subscribe.${value}`)}
          </button>
        ))}
      </div>
      {config?.payments === 'test' && <p className="notice">{t('subscribe.testMode')}</p>}
      {config?.payments === 'off' && (
        <p className="notice" role="status">
          {t('subscribe.notConfigured')}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <ul className="plans">
        {PLANS.map((plan) => {
          const available = PURCHASABLE_PLANS.includes(plan);
          return (
            <li key={plan} className={`plan ${available ? 'plan-featured' : 'is-disabled'}`} aria-disabled={!available} data-testid={`plan-${plan}`}>
              <h2>{t(`subscribe.plan.${plan}`)}</h2>
              <p className="price">
                <span className="amount">${displayPrice(plan, period)}</span>
                <span className="per"> / {t(period === 'yearly' ? 'subscribe.perMonthAnnually' : 'subscribe.perMonth')}</span>
              </p>
              <ul className="plan-features">
                {FEATURES[plan].map((key) => (
                  <li key={key}>{t(key)}</li>
                ))}
              </ul>
              <button type="button" className="btn btn-primary btn-block" disabled={!available || busy || config?.payments === 'off'} onClick={() => void checkout()}>
                {available ? t('subscribe.choose') : t('subscribe.comingSoon')}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
