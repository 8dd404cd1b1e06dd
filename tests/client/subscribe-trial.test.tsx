// @vitest-environment jsdom
/**
 * The free trial comes with an account's first subscription only: the subscribe page and the local
 * test checkout promise it only while the server says the account still has it (`trial_days`). fetch
 * is faked: the server's answers, or none yet.
 */
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FREE_TRIAL_DAYS, LOOKUP_KEYS } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import type { TestCheckout as Checkout } from '../../shared/schemas/payments';
import type { SubscriptionState } from '../../shared/schemas/plan';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { Subscribe } from '../../client/pages/app/Subscribe';
import { TestCheckout } from '../../client/pages/app/TestCheckout';
import { usePlan } from '../../client/stores/plan';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { noNetwork, stubFetchOffline } from '../helpers/no-network';
import { renderAt } from '../helpers/render-at';

const user = currentUser();
const state = (trialDays: number): SubscriptionState => ({
  active: false,
  period: null,
  manageable: false,
  trial_days: trialDays,
  trial_ends_at: null,
  renews_at: null,
  ends_at: null,
  payment_failed: false,
  payment_incomplete: false,
});
const SESSION = 'cs_local_abcdefghijklmnopqrstuvwx';
const checkout = (trialDays: number): Checkout => ({ id: SESSION, lookup_key: LOOKUP_KEYS.yearly, status: 'open', email: user.email, trial_days: trialDays });

/** The server's answers, by path; a path given no answer is never answered (still loading). */
function serverAnswers(answers: Record<string, unknown>) {
  const config = { google_client_id: null, payments: 'test', lookup_keys: LOOKUP_KEYS };
  const fetch = vi.fn((path: string) => {
    const body = { '/api/config/': config, ...answers }[path];
    return body === undefined ? new Promise<Response>(() => {}) : Promise.resolve(Response.json(body));
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

async function inLanguage(language: 'en' | 'es') {
  localStorage.setItem('language_code', language);
  await initLanguage();
}

/** The Starter plan's button, once the plans' copy is there. */
const starterButton = async () => within(await screen.findByTestId('plan-starter')).getByRole('button');

beforeEach(async () => {
  await inLanguage('en');
  // The session this tab stored: what the device keeps of the plan is its own.
  localStorage.setItem('auth_token', 'token');
  useSession.setState({ token: 'token', user });
});
afterEach(() => {
  cleanup();
  usePlan.getState().reset();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('the subscribe page', () => {
  it('promises no trial to someone who has had it: "Subscribe", and a subtitle without the trial', async () => {
    const fetch = serverAnswers({ '/api/payments/subscription/': state(0) });
    renderAt('/app/subscribe/', <Subscribe />);
    expect(await screen.findByText(en['subscribe.subtitleNoTrial'])).toBeTruthy();
    expect((await starterButton()).textContent).toBe('Subscribe');
    expect(screen.queryByRole('button', { name: en['subscribe.choose'] })).toBeNull();
    expect(document.body.textContent).not.toMatch(/free trial/i);
    expect(fetch).toHaveBeenCalledWith('/api/payments/subscription/', expect.anything());
  });

  it('says so in Spanish, the default language', async () => {
    await inLanguage('es');
    serverAnswers({ '/api/payments/subscription/': state(0) });
    renderAt('/app/subscribe/', <Subscribe />);
    expect(await screen.findByText(es['subscribe.subtitleNoTrial'])).toBeTruthy();
    expect((await starterButton()).textContent).toBe('Suscribirme');
    expect(screen.queryByRole('button', { name: es['subscribe.choose'] })).toBeNull();
    expect(document.body.textContent).not.toMatch(/prueba gratis/i);
  });

  it('offers the trial to someone who still has it, and while the server has not said: the copy never changes for them', async () => {
    serverAnswers({});
    renderAt('/app/subscribe/', <Subscribe />);
    expect((await starterButton()).textContent).toBe(en['subscribe.choose']);
    expect(screen.getByText(en['subscribe.subtitle'].replace('{days}', String(FREE_TRIAL_DAYS)))).toBeTruthy();
    cleanup();

    serverAnswers({ '/api/payments/subscription/': state(FREE_TRIAL_DAYS) });
    renderAt('/app/subscribe/', <Subscribe />);
    await vi.waitFor(() => expect(usePlan.getState().subscription).not.toBeNull());
    expect((await starterButton()).textContent).toBe(en['subscribe.choose']);
    expect(screen.getByText(en['subscribe.subtitle'].replace('{days}', String(FREE_TRIAL_DAYS)))).toBeTruthy();
    expect(screen.queryByText(en['subscribe.subtitleNoTrial'])).toBeNull();
  });

  /** The page seen once with the server saying `trialDays`, then opened again with no network (nothing in memory). */
  async function offlineAfterServerSaid(trialDays: number) {
    serverAnswers({ '/api/payments/subscription/': state(trialDays) });
    renderAt('/app/subscribe/', <Subscribe />);
    await vi.waitFor(() => expect(usePlan.getState().subscription).not.toBeNull());
    cleanup();
    usePlan.getState().reset();

    stubFetchOffline();
    renderAt('/app/subscribe/', <Subscribe />);
  }

  it('says what the server said last on this phone when it cannot be asked (offline): no trial for who has had it', async () => {
    await offlineAfterServerSaid(0);
    expect((await starterButton()).textContent).toBe(en['subscribe.chooseNoTrial']);
    expect(screen.getByText(en['subscribe.subtitleNoTrial'])).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/free trial/i);
  });

  it('offers the trial there to who still had it when the server last said', async () => {
    await offlineAfterServerSaid(FREE_TRIAL_DAYS);
    expect((await starterButton()).textContent).toBe(en['subscribe.choose']);
    expect(screen.getByText(en['subscribe.subtitle'].replace('{days}', String(FREE_TRIAL_DAYS)))).toBeTruthy();
  });

  it.each([
    ['offline', noNetwork],
    ['a server error', async () => Response.json({ detail: 'Internal server error.' }, { status: 500 })],
  ])('promises no trial nor rules it out when the state cannot be had and this phone never heard it (%s)', async (_, answer) => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const fetch = vi.fn(answer);
    vi.stubGlobal('fetch', fetch);
    renderAt('/app/subscribe/', <Subscribe />);
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledWith('/api/payments/subscription/', expect.anything()));
    await vi.waitFor(async () => expect((await starterButton()).textContent).toBe(en['subscribe.chooseNoTrial']));
    expect(screen.getByText(en['subscribe.subtitleNoTrial'])).toBeTruthy();
  });
});

describe('the local test checkout', () => {
  it('shows no "0-day free trial" line when the trial has been had', async () => {
    serverAnswers({ [`/api/payments/test-checkout/${SESSION}/`]: checkout(0) });
    renderAt(`/app/subscribe/test-checkout/${SESSION}`, <TestCheckout id={SESSION} />);
    await screen.findByText(user.email);
    expect(screen.queryByText(en['checkout.trial'])).toBeNull();
    expect(document.body.textContent).not.toMatch(/0-day|free trial/i);
    expect(screen.getByRole('button', { name: en['checkout.complete.button'] })).toBeTruthy();
  });

  it('shows the trial on a first checkout, and no "0 días" in Spanish', async () => {
    serverAnswers({ [`/api/payments/test-checkout/${SESSION}/`]: checkout(FREE_TRIAL_DAYS) });
    renderAt(`/app/subscribe/test-checkout/${SESSION}`, <TestCheckout id={SESSION} />);
    expect(await screen.findByText(`${FREE_TRIAL_DAYS}-day free trial`)).toBeTruthy();
    cleanup();

    await inLanguage('es');
    serverAnswers({ [`/api/payments/test-checkout/${SESSION}/`]: checkout(0) });
    renderAt(`/app/subscribe/test-checkout/${SESSION}`, <TestCheckout id={SESSION} />);
    await screen.findByText(user.email);
    expect(screen.queryByText(es['checkout.trial'])).toBeNull();
    expect(document.body.textContent).not.toMatch(/0 días|prueba gratis/i);
  });
});
