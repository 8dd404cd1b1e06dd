import { type ReactNode, useId, useState } from 'react';
import { Link } from 'wouter';
import { FREE_DAILY_LIKES, FREE_TRIAL_DAYS } from '../../shared/constants';
import type { MessageKey } from '../../shared/i18n/en';
import { useLanguage, useMessages, useT } from '../lib/i18n';
import { type BillingPeriod, chargedPrice, DEFAULT_PERIOD, displayPrice, formatPrice, type Plan, PLANS, PURCHASABLE_PLANS } from '../lib/pricing';
import { plansMessages } from '../lib/messages-plans';
import '../plans.css';

/** What each plan buys, as the server gives it: Starter's three perks are real; the others are not for sale yet. */
const FEATURES: Record<Plan, MessageKey[]> = {
  starter: ['subscribe.starter.1', 'subscribe.starter.2', 'subscribe.starter.3'],
  pro: ['subscribe.pro.1', 'subscribe.pro.2'],
  enterprise: ['subscribe.enterprise.1', 'subscribe.enterprise.2'],
};

interface Props {
  /** The button of a plan that can be bought, for the period shown. */
  action: (plan: Plan, period: BillingPeriod) => ReactNode;
  /** The level of each plan's name: one below the heading the cards sit under. */
  headingLevel: 2 | 3;
}

/**
 * Starter, Pro and Enterprise with the monthly / yearly toggle (yearly by default), on the landing
 * page and the subscribe page alike. Only Starter can be bought; the others say "COMING SOON!".
 */
export function PlanCards({ action, headingLevel }: Props) {
  const PlanName = headingLevel === 2 ? 'h2' : 'h3';
  useMessages(plansMessages);
  const t = useT();
  const language = useLanguage((state) => state.language);
  const [period, setPeriod] = useState<BillingPeriod>(DEFAULT_PERIOD);
  const name = useId();
  return (
    <div className="plan-cards">
      {/* Native radios: the arrows move between them, and a screen reader says "1 of 2, selected". */}
      <fieldset className="toggle">
        <legend className="sr-only">{t('subscribe.billing')}</legend>
        {(['monthly', 'yearly'] as const).map((value) => (
          <label key={value}>
            <input type="radio" name={name} checked={period === value} onChange={() => setPeriod(value)} />
            {t(`subscribe.${value}`)}
          </label>
        ))}
      </fieldset>
      <ul className="plans">
        {PLANS.map((plan) => {
          const available = PURCHASABLE_PLANS.includes(plan);
          return (
            <li key={plan} className={`plan ${available ? 'plan-featured' : 'is-disabled'}`} aria-disabled={!available} data-testid={`plan-${plan}`}>
              <PlanName className="plan-name">{t(`subscribe.plan.${plan}`)}</PlanName>
              <p className="price">
                <span className="amount">{formatPrice(displayPrice(plan, period), language)}</span>
                <span className="per"> / {t(period === 'yearly' ? 'subscribe.perMonthAnnually' : 'subscribe.perMonth')}</span>
              </p>
              {/* What a yearly plan actually charges, said before anyone agrees to pay it. */}
              {period === 'yearly' && <p className="price-total muted">{t('subscribe.billedYearly', { amount: formatPrice(chargedPrice(plan, period), language) })}</p>}
              <ul className="plan-features">
                {FEATURES[plan].map((key) => (
                  <li key={key}>{t(key, { likes: FREE_DAILY_LIKES })}</li>
                ))}
              </ul>
              {available ? (
                action(plan, period)
              ) : (
                <button type="button" className="btn btn-block btn-soon" disabled>
                  {t('subscribe.comingSoon')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <p className="plan-free muted">{t('subscribe.free', { likes: FREE_DAILY_LIKES })}</p>
    </div>
  );
}

/** The landing page's plans: fetched after its first paint, with their own copy (the landing's budget). */
export default function PricingSection() {
  // Its own heading is the plans' copy too: it waits for it here, not only inside PlanCards, or React
  // can keep this heading as first rendered (the keys) when only PlanCards is retried.
  useMessages(plansMessages);
  const t = useT();
  return (
    <section id="pricing" className="section pricing">
      <h2>{t('subscribe.plansTitle')}</h2>
      <p className="muted">{t('subscribe.subtitle', { days: FREE_TRIAL_DAYS })}</p>
      <PlanCards
        headingLevel={3}
        action={() => (
          <Link href="/login/" className="btn btn-primary btn-block">
            {t('landing.getStarted')}
          </Link>
        )}
      />
    </section>
  );
}
