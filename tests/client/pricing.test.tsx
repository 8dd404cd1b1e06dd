// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOOKUP_KEYS, PLAN_MONTHLY_PRICES } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { DEFAULT_PERIOD, displayPrice, formatPrice, lookupKeyFor } from '../../client/lib/pricing';
import { outcomeFor, Subscribe } from '../../client/pages/app/Subscribe';
import { useConfig } from '../../client/stores/config';
import { usePlan } from '../../client/stores/plan';
import { useSession } from '../../client/stores/session';
import { useConnection } from '../../client/lib/socket';

describe('pricing arithmetic', () => {
  it('shows monthly prices 15, 30, 60 and yearly as two thirds of them', () => {
    expect(PLAN_MONTHLY_PRICES).toEqual({ starter: 15, pro: 30, enterprise: 60 });
    expect(displayPrice('starter', 'monthly')).toBe(15);
    expect(displayPrice('starter', 'yearly')).toBe(10);
    expect(displayPrice('pro', 'yearly')).toBe(20);
    expect(displayPrice('enterprise', 'yearly')).toBe(40);
  });

  it('defaults to yearly and maps the toggle to the lookup keys', () => {
    expect(DEFAULT_PERIOD).toBe('yearly');
    expect(lookupKeyFor('yearly')).toBe(LOOKUP_KEYS.yearly);
    expect(lookupKeyFor('monthly')).toBe(LOOKUP_KEYS.monthly);
  });

  it('reads the outcome from the query string', () => {
    expect(outcomeFor('')).toBe('plans');
    expect(outcomeFor('success=true&session_id=cs_123')).toBe('success');
    expect(outcomeFor('success=true')).toBe('error');
    expect(outcomeFor('canceled=true')).toBe('error');
  });
});

describe('formatPrice', () => {
  afterEach(() => vi.unstubAllGlobals());
  const inBrowser = (...languages: string[]) => vi.stubGlobal('navigator', { ...navigator, languages });

  it('writes a price in dollars as the reader’s locale does, without cents on a whole amount', () => {
    inBrowser('es-ES');
    expect(formatPrice(10, 'es')).toBe('10\u00a0US$');
    inBrowser('en-US');
    expect(formatPrice(10, 'en')).toBe('$10');
    expect(formatPrice(120, 'en')).toBe('$120');
    inBrowser('en-GB');
    expect(formatPrice(10, 'en')).toBe('US$10');
    // Cents when there are any.
    expect(formatPrice(9.5, 'en')).toBe('US$9.50');
  });

  it('writes the app’s language when the browser names no variant of it', () => {
    inBrowser('fr-FR');
    expect(formatPrice(15, 'es')).toBe('15\u00a0US$');
    expect(formatPrice(15, 'en')).toBe('US$15');
  });
});

describe('<Subscribe>', () => {
  beforeEach(async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    useSession.setState({
      token: 't',
      fromDevice: false,
      user: { id: 1, email: 'a@b.c', first_name: 'A', last_name: 'B', image: null, is_profile_completed: true, has_subscription: false, email_verified: true, has_password: true, is_moderator: false, language: 'es' },
    });
  });
  afterEach(() => {
    cleanup();
    localStorage.clear();
  });

  const renderAt = (path: string) => {
    const { hook, searchHook } = memoryLocation({ path });
    return render(
      <Router hook={hook} searchHook={searchHook}>
        <Subscribe />
      </Router>,
    );
  };

  it('shows yearly prices by default, "month (paid annually)", and only Starter can be bought', () => {
    renderAt('/app/subscribe/');
    const starter = screen.getByTestId('plan-starter');
    expect(starter.textContent).toContain('$10');
    expect(starter.textContent).toContain(en['subscribe.perMonthAnnually']);
    expect(within(starter).getByRole('button').hasAttribute('disabled')).toBe(false);
    for (const plan of ['pro', 'enterprise']) {
      const button = within(screen.getByTestId(`plan-${plan}`)).getByRole('button');
      expect(button.textContent).toBe('COMING SOON!');
      expect(button.hasAttribute('disabled')).toBe(true);
    }
    expect(screen.getByTestId('plan-pro').textContent).toContain('$20');
    expect(screen.getByTestId('plan-enterprise').textContent).toContain('$40');

    fireEvent.click(screen.getByRole('radio', { name: en['subscribe.monthly'] }));
    expect(screen.getByTestId('plan-starter').textContent).toContain('$15');
    expect(screen.getByTestId('plan-starter').textContent).not.toContain(en['subscribe.perMonthAnnually']);
  });

  it('writes the prices in Spanish as Spain does: the amount, then "US$"', async () => {
    localStorage.setItem('language_code', 'es');
    await initLanguage();
    renderAt('/app/subscribe/');
    const starter = await screen.findByTestId('plan-starter');
    expect(starter.querySelector('.amount')?.textContent).toBe('10\u00a0US$');
    expect(starter.querySelector('.price-total')?.textContent).toBe(`120\u00a0US$ facturados al año`);
    expect(starter.textContent).not.toContain('$1');
  });

  it('chooses the billing period with two native radios in a fieldset its legend names', () => {
    renderAt('/app/subscribe/');
    const group = screen.getByRole('group', { name: en['subscribe.billing'] });
    expect(group.tagName).toBe('FIELDSET');
    const radios = within(group).getAllByRole<HTMLInputElement>('radio');
    // Inputs of one name: the browser moves between them with the arrows and counts them "1 of 2".
    expect(radios.map((radio) => [radio.tagName, radio.type, radio.checked])).toEqual([
      ['INPUT', 'radio', false],
      ['INPUT', 'radio', true],
    ]);
    expect(radios[0]!.name).not.toBe('');
    expect(radios[1]!.name).toBe(radios[0]!.name);
    expect(radios.map((radio) => radio.labels?.[0]?.textContent)).toEqual([en['subscribe.monthly'], en['subscribe.yearly']]);
    fireEvent.click(radios[0]!);
    expect(radios.map((radio) => radio.checked)).toEqual([true, false]);
    expect(screen.getByTestId('plan-starter').textContent).toContain('$15');
  });

  it('says payments are not configured, and sells nothing, when the server has no checkout (CHECKOUT_MODE=off)', () => {
    useConfig.setState({ config: { google_client_id: null, payments: 'off', lookup_keys: LOOKUP_KEYS } });
    renderAt('/app/subscribe/');
    expect(screen.getByRole('status').textContent).toBe(en['subscribe.notConfigured']);
    expect(within(screen.getByTestId('plan-starter')).getByRole('button').hasAttribute('disabled')).toBe(true);
    expect(screen.queryByText(en['subscribe.testMode'])).toBeNull();
    cleanup();
    useConfig.setState({ config: { google_client_id: null, payments: 'test', lookup_keys: LOOKUP_KEYS } });
    renderAt('/app/subscribe/');
    expect(screen.getByText(en['subscribe.testMode'])).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();
    expect(within(screen.getByTestId('plan-starter')).getByRole('button').hasAttribute('disabled')).toBe(false);
  });

  it('says the payment is being confirmed until the server says the plan is active', async () => {
    // Back from Stripe's checkout before its webhook reached the server: the user is read first (the
    // one the phone kept may predate the checkout), then the page says it waits for the payment's confirmation.
    useSession.setState({ fromDevice: true });
    renderAt('/app/subscribe/?success=true&session_id=cs_1');
    expect(screen.getByRole('status').textContent).toBe(en['app.loading']);
    expect(screen.queryByRole('heading')).toBeNull();
    // The server's answer: no plan yet.
    act(() => useSession.setState({ fromDevice: false }));
    expect((await screen.findByRole('heading')).textContent).toBe(en['subscribe.confirming.title']);
    expect(screen.getByRole('status').textContent).toBe(en['subscribe.confirming.text']);
    // It names no Stripe: the local test checkout (npm start's) comes back here the same way.
    expect([en['subscribe.confirming.text'], es['subscribe.confirming.text']].join(' ')).not.toMatch(/Stripe/);
    expect(screen.getByRole('link', { name: en['subscribe.success.link'] }).getAttribute('href')).toBe('/app/home/');
    // The webhook's `account:changed`, and the user read again.
    act(() => useSession.setState({ user: { ...useSession.getState().user!, has_subscription: true } }));
    expect(screen.getByRole('heading').textContent).toBe(en['subscribe.success.title']);
    expect(screen.queryByText(en['subscribe.confirming.text'])).toBeNull();
  });

  it('reads the user again once the socket is up: a plan started before it could hear so is not missed', async () => {
    let subscribed = false;
    const fetch = vi.fn(async (input: RequestInfo | URL) =>
      String(input).includes('/api/users/me/')
        ? Response.json({ ...useSession.getState().user!, has_subscription: subscribed })
        : Response.json({ detail: 'Not found.' }, { status: 404 }),
    );
    vi.stubGlobal('fetch', fetch);
    try {
      useConnection.setState({ connected: false });
      renderAt('/app/subscribe/?success=true&session_id=cs_1');
      await vi.waitFor(() => expect(fetch.mock.calls.some(([url]) => String(url).includes('/api/users/me/'))).toBe(true));
      expect((await screen.findByRole('heading')).textContent).toBe(en['subscribe.confirming.title']);
      // Stripe's webhook lands while the socket is still connecting: its `account:changed` reaches no one.
      subscribed = true;
      act(() => useConnection.setState({ connected: true }));
      expect((await screen.findByRole('heading', { name: en['subscribe.success.title'] })).textContent).toBe(en['subscribe.success.title']);
    } finally {
      vi.unstubAllGlobals();
      useConnection.setState({ connected: false });
    }
  });

  it('says a first payment left incomplete (declined, or awaiting the bank) failed, rather than wait for it', async () => {
    const subscription = { active: false, period: null, manageable: false, trial_days: 0, trial_ends_at: null, renews_at: null, ends_at: null, payment_failed: false };
    let incomplete = false;
    const fetch = vi.fn(async (input: RequestInfo | URL) =>
      String(input).includes('/api/payments/subscription/')
        ? Response.json({ ...subscription, payment_incomplete: incomplete })
        : Response.json({ ...useSession.getState().user!, has_subscription: false }),
    );
    vi.stubGlobal('fetch', fetch);
    try {
      renderAt('/app/subscribe/?success=true&session_id=cs_1');
      await vi.waitFor(() => expect(fetch.mock.calls.some(([url]) => String(url).includes('/api/payments/subscription/'))).toBe(true));
      expect((await screen.findByRole('heading')).textContent).toBe(en['subscribe.confirming.title']);
      // Stripe's event for the checkout, and the plan read again (`account:changed`).
      incomplete = true;
      await act(() => usePlan.getState().loadSubscription());
      expect(screen.getByRole('heading').textContent).toBe(en['subscribe.error.title']);
      expect(screen.getByText(en['subscribe.incomplete'])).toBeTruthy();
      expect(screen.getByRole('link', { name: en['subscribe.retry'] }).getAttribute('href')).toBe('/subscribe/');
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('settles when opened again after the plan has ended, or for a checkout never paid or not the user’s', async () => {
    // A bookmark, an old tab, the browser's history: the user has no plan, and no event is on its way.
    const subscription = { active: false, period: null, manageable: false, trial_days: 0, trial_ends_at: null, renews_at: null, ends_at: null, payment_failed: false, payment_incomplete: false };
    let outcome: Response = Response.json({ outcome: 'ended' });
    let subscribed = false;
    const fetch = vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      if (url.includes('/api/payments/checkout/cs_1/')) return outcome.clone();
      if (url.includes('/api/payments/subscription/')) return Response.json(subscription);
      return Response.json({ ...useSession.getState().user!, has_subscription: subscribed });
    });
    vi.stubGlobal('fetch', fetch);
    try {
      renderAt('/app/subscribe/?success=true&session_id=cs_1');
      expect((await screen.findByRole('heading', { name: en['subscribe.ended.title'] })).textContent).toBe(en['subscribe.ended.title']);
      expect(screen.getByText(en['subscribe.ended.text'])).toBeTruthy();
      expect(screen.queryByText(en['subscribe.confirming.text'])).toBeNull();
      expect(screen.getByRole('link', { name: en['subscribe.ended.link'] }).getAttribute('href')).toBe('/app/subscribe/');
      cleanup();

      outcome = Response.json({ outcome: 'not_paid' });
      renderAt('/app/subscribe/?success=true&session_id=cs_1');
      expect(await screen.findByText(en['subscribe.notPaid'])).toBeTruthy();
      expect(screen.getByRole('heading').textContent).toBe(en['subscribe.error.title']);
      expect(screen.getByRole('link', { name: en['subscribe.retry'] }).getAttribute('href')).toBe('/subscribe/');
      cleanup();

      // Another account's checkout, or none at all.
      outcome = Response.json({ detail: 'Not found.' }, { status: 404 });
      renderAt('/app/subscribe/?success=true&session_id=cs_1');
      expect(await screen.findByText(en['subscribe.unknownCheckout'])).toBeTruthy();
      expect(screen.getByRole('heading').textContent).toBe(en['subscribe.error.title']);
      cleanup();

      // The plan became active after the user was read: read again, and the page says so.
      outcome = Response.json({ outcome: 'active' });
      subscribed = true;
      act(() => useSession.setState({ user: { ...useSession.getState().user!, has_subscription: false } }));
      renderAt('/app/subscribe/?success=true&session_id=cs_1');
      expect((await screen.findByRole('heading', { name: en['subscribe.success.title'] })).textContent).toBe(en['subscribe.success.title']);
    } finally {
      vi.unstubAllGlobals();
    }
    for (const key of ['subscribe.ended.title', 'subscribe.ended.text', 'subscribe.ended.link', 'subscribe.notPaid', 'subscribe.unknownCheckout'] as const) {
      expect(es[key], key).toBeTruthy();
      expect(es[key], key).not.toBe(en[key]);
    }
  });

  it('shows the success screen for ?success&session_id and the error screen when canceled', () => {
    useSession.setState({ user: { ...useSession.getState().user!, has_subscription: true } });
    renderAt('/app/subscribe/?success=true&session_id=cs_1');
    expect(screen.getByRole('heading').textContent).toBe('Congratulations! Your subscription is now active.');
    cleanup();
    renderAt('/app/subscribe/?canceled=true');
    expect(screen.getByRole('heading').textContent).toBe('Error Processing Payment');
    // Cancelled on purpose: it says nothing was charged, not that a payment failed.
    expect(screen.getByText(en['subscribe.canceled'])).toBeTruthy();
    expect(screen.queryByText(en['subscribe.error.text'])).toBeNull();
    expect(screen.getByRole('link', { name: 'Retry' }).getAttribute('href')).toBe('/subscribe/');
    cleanup();
    renderAt('/app/subscribe/?success=true');
    expect(screen.getByText(en['subscribe.error.text'])).toBeTruthy();
    // The app has no support desk to contact: the way on is the link under it, which shows the plan, or the plans.
    for (const messages of [en, es]) expect(messages['subscribe.error.text']).not.toMatch(/support|soporte/i);
  });
});
