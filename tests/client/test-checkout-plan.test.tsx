// @vitest-environment jsdom
/**
 * The local test checkout names the plan as the rest of the app does ("Starter", and its billing
 * period), in the reader's language: never the raw Stripe lookup key ("basic_yearly"). fetch is faked.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOOKUP_KEYS } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import type { TestCheckout as Checkout } from '../../shared/schemas/payments';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { TestCheckout } from '../../client/pages/app/TestCheckout';
import { useConfig } from '../../client/stores/config';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

const user = currentUser();
const SESSION = 'cs_local_abcdefghijklmnopqrstuvwx';

function serverAnswers(lookupKey: string, lookupKeys: Record<'monthly' | 'yearly', string> = LOOKUP_KEYS, trialDays = 0) {
  const checkout: Checkout = { id: SESSION, lookup_key: lookupKey, status: 'open', email: user.email, trial_days: trialDays };
  const answers: Record<string, unknown> = {
    '/api/config/': { google_client_id: null, payments: 'test', lookup_keys: lookupKeys },
    [`/api/payments/test-checkout/${SESSION}/`]: checkout,
  };
  vi.stubGlobal(
    'fetch',
    vi.fn((path: string) => (answers[path] === undefined ? new Promise<Response>(() => {}) : Promise.resolve(Response.json(answers[path])))),
  );
}

const renderCheckout = () => {
  const { hook, searchHook } = memoryLocation({ path: `/app/subscribe/test-checkout/${SESSION}` });
  return render(
    <Router hook={hook} searchHook={searchHook}>
      <TestCheckout id={SESSION} />
    </Router>,
  );
};

/** The details list as label → value pairs. */
async function details() {
  await screen.findByText(user.email);
  const list = document.querySelector('.test-checkout-details')!;
  const labels = [...list.querySelectorAll('dt')].map((each) => each.textContent);
  const values = [...list.querySelectorAll('dd')].map((each) => each.textContent);
  return Object.fromEntries(labels.map((label, index) => [label, values[index]]));
}

async function inLanguage(language: 'en' | 'es') {
  localStorage.setItem('language_code', language);
  await initLanguage();
}

beforeEach(async () => {
  await inLanguage('en');
  useSession.setState({ token: 'token', user });
  useConfig.setState({ config: null });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('the local test checkout’s plan', () => {
  it('says "Starter", billed yearly, not the lookup key', async () => {
    serverAnswers(LOOKUP_KEYS.yearly);
    renderCheckout();
    expect(await details()).toEqual({
      [en['checkout.plan']]: en['subscribe.plan.starter'],
      [en['subscribe.billing']]: en['subscribe.yearly'],
      [en['checkout.price']]: `$10 / ${en['subscribe.perMonthAnnually']}`,
      [en['checkout.account']]: user.email,
      // What is charged, and when: the year's whole price, at once without a trial.
      [en['checkout.charge']]: '$120 today, then every year, unless you cancel',
    });
    expect(document.body.textContent).not.toContain(LOOKUP_KEYS.yearly);
  });

  it('says the yearly total is charged when the free trial ends, then every year', async () => {
    // The trial starts as the checkout completes: 30 days from Dec 3 is Jan 2.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-03T12:00:00Z'));
    serverAnswers(LOOKUP_KEYS.yearly, LOOKUP_KEYS, 30);
    renderCheckout();
    const shown = await details();
    expect(shown[en['checkout.trial']]).toBe('30-day free trial');
    expect(shown[en['checkout.charge']]).toBe('$120 on Jan 2, 2027, then every year, unless you cancel');
  });

  it('says the monthly period, in Spanish', async () => {
    await inLanguage('es');
    serverAnswers(LOOKUP_KEYS.monthly);
    renderCheckout();
    const shown = await details();
    expect(shown[es['checkout.plan']]).toBe(es['subscribe.plan.starter']);
    expect(shown[es['subscribe.billing']]).toBe(es['subscribe.monthly']);
    expect(shown[es['checkout.charge']]).toBe('15\u00a0US$ hoy y después cada mes, salvo que canceles');
    expect(document.body.textContent).not.toContain(LOOKUP_KEYS.monthly);
  });

  it('reads the period from the server’s own lookup keys when its environment overrides them', async () => {
    serverAnswers('starter_annual', { monthly: 'starter_month', yearly: 'starter_annual' });
    useConfig.setState({ config: { google_client_id: null, payments: 'test', lookup_keys: { monthly: 'starter_month', yearly: 'starter_annual' } } });
    renderCheckout();
    const shown = await details();
    expect(shown[en['checkout.plan']]).toBe(en['subscribe.plan.starter']);
    expect(shown[en['subscribe.billing']]).toBe(en['subscribe.yearly']);
    expect(document.body.textContent).not.toContain('starter_annual');
  });
});

describe('a test checkout finished elsewhere', () => {
  it('promises no charge once it is no longer open: opened again by Back after a cancel or a payment', async () => {
    for (const status of ['canceled', 'complete'] as const) {
      const checkout: Checkout = { id: SESSION, lookup_key: LOOKUP_KEYS.monthly, status, email: user.email, trial_days: 30 };
      vi.stubGlobal(
        'fetch',
        vi.fn((path: string) => {
          if (path === '/api/config/') return Promise.resolve(Response.json({ google_client_id: null, payments: 'test', lookup_keys: LOOKUP_KEYS }));
          if (path === `/api/payments/test-checkout/${SESSION}/`) return Promise.resolve(Response.json(checkout));
          return new Promise<Response>(() => {});
        }),
      );
      renderCheckout();
      await screen.findByText(en[status === 'canceled' ? 'checkout.canceled' : 'checkout.complete']);
      const shown = await details();
      expect(shown[en['subscribe.billing']]).toBe(en['subscribe.monthly']);
      // A canceled checkout charges nothing; a paid one's plan says its own dates, which a cancellation changes.
      expect(shown).not.toHaveProperty(en['checkout.charge']);
      expect(document.body.textContent).not.toContain('then every month');
      cleanup();
    }
  });

  it('shows it as it is now, with the way back, when Complete finds it no longer open', async () => {
    const checkout: Checkout = { id: SESSION, lookup_key: LOOKUP_KEYS.monthly, status: 'open', email: user.email, trial_days: 0 };
    const refusal = { detail: 'This checkout was canceled.', code: 'checkout_canceled' };
    // A newer checkout, opened in another tab, took this one's place: the server has it canceled.
    let reads = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn((path: string, init?: RequestInit) => {
        if (path === '/api/config/') return Promise.resolve(Response.json({ google_client_id: null, payments: 'test', lookup_keys: LOOKUP_KEYS }));
        if (path === `/api/payments/test-checkout/${SESSION}/complete/` && init?.method === 'POST') return Promise.resolve(Response.json(refusal, { status: 409 }));
        if (path === `/api/payments/test-checkout/${SESSION}/`) {
          reads += 1;
          return Promise.resolve(Response.json(reads === 1 ? checkout : { ...checkout, status: 'canceled' }));
        }
        return new Promise<Response>(() => {});
      }),
    );
    renderCheckout();
    fireEvent.click(await screen.findByRole('button', { name: en['checkout.complete.button'] }));
    expect(await screen.findByRole('link', { name: en['checkout.back'] })).toHaveProperty('href', expect.stringContaining('/app/subscribe/'));
    // The refusal's own handling over (its message set, had it been shown):
    await act(async () => {});
    // Said once: the page's own line, not the refusal's too.
    expect(screen.getAllByText(en['checkout.canceled'])).toHaveLength(1);
    expect(screen.queryByRole('button', { name: en['checkout.complete.button'] })).toBeNull();
  });
});
