import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_TRIAL_DAYS } from '../../shared/constants';
import { ConfigError, loadConfig } from '../../server/config';
import { SHUTDOWN_DEADLINE_MS } from '../../server/process';
import { checkoutSessions, stripeEvents, users } from '../../server/db/schema';
import {
  completedCheckout,
  deliverStripeEvent,
  type FakeStripe,
  signEvent,
  startFakeStripe,
  startStripeCheckout,
  stripeConfigFor,
  stripeEvent,
  TEST_STRIPE,
} from '../fakes/stripe';
import { makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { boughtAtStripeBefore, cancelThroughTestPortal, endThroughTestPortal, subscribeThroughTestCheckout } from '../helpers/plan';
import { backends, serverPerSuite, startServer, type TestServer } from '../helpers/server';
import { connect, waitFor, waitUntil } from '../helpers/socket';
import { runJob } from '../../server/jobs';
import { testPlanEnd } from '../../server/jobs/test-plan-end';
import { rowsOf } from '../../server/db/client';
import { liveTestPlans } from '../../server/features/payments/subscription';
import { monthsLater } from '../../server/features/payments/billing';
import { databaseBackends, openTestDatabase } from '../helpers/database';

const { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, prices: PRICES } = TEST_STRIPE;
const CHECKOUT = '/api/payments/stripe/create-checkout-session/';
const WEBHOOK = '/api/payments/stripe/webhook/';

const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

async function subscriptionState(server: TestServer, userId: number) {
  const [row] = await server.app.db
    .select({
      hasSubscription: users.hasSubscription,
      customer: users.stripeCustomerId,
      subscription: users.stripeSubscriptionId,
    })
    .from(users)
    .where(eq(users.id, userId));
  return row!;
}

const sessionsOf = (server: TestServer, userId: number) =>
  server.app.db.select().from(checkoutSessions).where(eq(checkoutSessions.userId, userId));

describe.each(backends)('Stripe checkout and webhook against a local fake of Stripe, on %s', (backend) => {
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe(TEST_STRIPE);
  });
  afterAll(() => fake?.close());
  const server = serverPerSuite(() => ({ backend, config: { checkoutMode: 'stripe', stripe: stripeConfigFor(fake) } }));

  const deliver = (event: unknown, secret: string = WEBHOOK_SECRET) => deliverStripeEvent(server, event, secret);

  /** A user who went through the JSON checkout, so that they have a Stripe customer. */
  async function checkedOutUser(): Promise<{ user: TestUser; customer: string; sessionId: string }> {
    const user = await makeUser(server);
    return { user, ...(await startStripeCheckout(server, user)) };
  }

  it('tells the client that payments go through Stripe', async () => {
    const response = await client(server.url).get('/api/config/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      google_client_id: null,
      payments: 'stripe',
      lookup_keys: { monthly: 'basic_monthly', yearly: 'basic_yearly' },
    });
  });

  it('JSON call: finds the price by lookup key and opens a subscription checkout with the trial, URLs and linkage', async () => {
    const user = await makeUser(server);
    const before = fake.requests.length;
    const response = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_yearly' } });

    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const calls = fake.requests.slice(before);
    for (const call of calls) expect(call.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);

    const priceLookup = calls.find((c) => c.method === 'GET' && c.path === '/v1/prices');
    expect(priceLookup?.query['lookup_keys[0]']).toBe('basic_yearly');

    const customerCall = calls.find((c) => c.method === 'POST' && c.path === '/v1/customers');
    expect(customerCall?.form).toMatchObject({ email: user.email, 'metadata[user_id]': String(user.id), 'metadata[app]': 'eventmatch' });

    const sessionCall = calls.find((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions');
    expect(sessionCall?.form).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': PRICES.basic_yearly,
      'line_items[0][quantity]': '1',
      'subscription_data[trial_period_days]': String(FREE_TRIAL_DAYS),
      // "No credit card required!": no card asked for the trial, and the plan ends if none is added.
      payment_method_collection: 'if_required',
      'subscription_data[trial_settings][end_behavior][missing_payment_method]': 'cancel',
      client_reference_id: String(user.id),
      success_url: `${server.publicUrl}/app/subscribe/?success=true&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${server.publicUrl}/app/subscribe/?canceled=true`,
    });

    const state = await subscriptionState(server, user.id);
    expect(state.customer).toMatch(/^cus_fake/);
    expect(sessionCall?.form.customer).toBe(state.customer);

    const [session] = [...fake.sessions.values()].filter((s) => s.client_reference_id === String(user.id));
    expect(response.body).toEqual({ url: session!.url });
    expect(await sessionsOf(server, user.id)).toMatchObject([
      { id: session!.id, lookupKey: 'basic_yearly', provider: 'stripe', status: 'open' },
    ]);
    expect(state.hasSubscription).toBe(false);

    // A second checkout reuses the same Stripe customer.
    const customersBefore = fake.requestsTo('POST', '/v1/customers').length;
    const again = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(again.status).toBe(200);
    expect(fake.requestsTo('POST', '/v1/customers')).toHaveLength(customersBefore);
    expect(fake.requestsTo('POST', '/v1/checkout/sessions').at(-1)?.form.customer).toBe(state.customer);
  });

  it('opens Stripe’s checkout and portal in the app’s language, not the browser’s, and has Stripe e-mail the customer in it', async () => {
    // Spanish (the default) on the account; the app switched to English asks in English.
    const user = await makeUser(server);
    const started = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' }, headers: { 'accept-language': 'en' } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(fake.requestsTo('POST', '/v1/checkout/sessions').at(-1)?.form.locale).toBe('en');
    expect(fake.requestsTo('POST', '/v1/customers').at(-1)?.form).toMatchObject({ email: user.email, 'preferred_locales[0]': 'en' });

    // Without a language of ours in the request (a browser's own header), the account's.
    const other = await makeUser(server);
    expect((await client(server.url).post(CHECKOUT, { token: other.token, json: { lookup_key: 'basic_monthly' }, headers: { 'accept-language': 'fr-FR' } })).status).toBe(200);
    expect(fake.requestsTo('POST', '/v1/checkout/sessions').at(-1)?.form.locale).toBe('es');

    const customer = fake.requestsTo('POST', '/v1/checkout/sessions').at(-2)!.form.customer!;
    for (const language of ['es', 'en'] as const) {
      const portal = await client(server.url).post('/api/payments/stripe/create-portal-session/', { token: user.token, json: {}, headers: { 'accept-language': language } });
      expect(portal.status, JSON.stringify(portal.body)).toBe(200);
      expect(fake.requestsTo('POST', '/v1/billing_portal/sessions').at(-1)?.form).toEqual({ customer, return_url: `${server.url}/app/subscribe/`, locale: language });
      // Stripe's e-mails and receipts follow a later switch of the app's language, not the first one.
      expect(fake.customers.get(customer)?.preferred_locales).toEqual([language]);
    }
    // A checkout in the language the customer already has changes nothing at Stripe.
    const updates = fake.requestsTo('POST', `/v1/customers/${customer}`).length;
    expect((await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_yearly' }, headers: { 'accept-language': 'en' } })).status).toBe(200);
    expect(fake.requestsTo('POST', `/v1/customers/${customer}`)).toHaveLength(updates);
    // One in another language has Stripe write to them in it from then on.
    expect((await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_yearly' }, headers: { 'accept-language': 'es' } })).status).toBe(200);
    expect(fake.customers.get(customer)?.preferred_locales).toEqual(['es']);

    // Switched in the app, with no checkout nor portal after it: the renewals' receipts follow too.
    const switched = await client(server.url).put('/api/users/me/language/', { token: user.token, json: { language: 'en' } });
    expect(switched.status, JSON.stringify(switched.body)).toBe(204);
    await waitUntil(() => fake.customers.get(customer)?.preferred_locales?.[0] === 'en', undefined, 'the customer’s language at Stripe');
    // Stripe down: the switch is saved all the same; the customer is put right at the next checkout or portal.
    const reads = () => fake.requestsTo('GET', `/v1/customers/${customer}`).length;
    const readBefore = reads();
    fake.outage = true;
    try {
      expect((await client(server.url).put('/api/users/me/language/', { token: user.token, json: { language: 'es' } })).status).toBe(204);
      await waitUntil(() => reads() > readBefore, undefined, 'the customer read at Stripe');
    } finally {
      fake.outage = false;
    }
    const [saved] = await server.app.db.select({ language: users.language }).from(users).where(eq(users.id, user.id));
    expect(saved?.language).toBe('es');
  });

  it('saves a language switch without waiting for Stripe; the customer follows once Stripe answers', { timeout: 10_000 }, async () => {
    const user = await makeUser(server);
    const started = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' }, headers: { 'accept-language': 'en' } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const customer = fake.requestsTo('POST', '/v1/checkout/sessions').at(-1)!.form.customer!;
    expect(fake.customers.get(customer)?.preferred_locales).toEqual(['en']);
    // Stripe slow to answer: the switch is answered, and saved, all the same.
    const held = fake.holdCustomerReads();
    try {
      const switched = await client(server.url).put('/api/users/me/language/', { token: user.token, json: { language: 'es' } });
      expect(switched.status, JSON.stringify(switched.body)).toBe(204);
      const [row] = await server.app.db.select({ language: users.language }).from(users).where(eq(users.id, user.id));
      expect(row?.language).toBe('es');
      await held.reading;
      expect(fake.customers.get(customer)?.preferred_locales).toEqual(['en']);
    } finally {
      held.release();
    }
    await waitUntil(() => fake.customers.get(customer)?.preferred_locales?.[0] === 'es', undefined, 'the customer’s language at Stripe');
  });

  it('does not hold its close for a language switch Stripe is slow to take', async () => {
    const own = await startServer({ backend, config: { checkoutMode: 'stripe', stripe: stripeConfigFor(fake) } });
    let held: ReturnType<FakeStripe['holdCustomerReads']> | undefined;
    try {
      const user = await makeUser(own);
      const started = await client(own.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' }, headers: { 'accept-language': 'en' } });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      held = fake.holdCustomerReads();
      expect((await client(own.url).put('/api/users/me/language/', { token: user.token, json: { language: 'es' } })).status).toBe(204);
      await held.reading;
      // Stripe holds the customer's read (its client waits 15 s a try, three tries): the close goes on
      // without it, well before the process's own deadline would exit it with its database open.
      const closing = Date.now();
      await own.close();
      expect(Date.now() - closing).toBeLessThan(SHUTDOWN_DEADLINE_MS);
    } finally {
      held?.release();
    }
  });

  it('plain form post: answers 303 to the subscribe page the same way for any e-mail, and starts nothing', async () => {
    const user = await makeUser(server);
    const before = fake.requests.length;
    const api = client(server.url);
    // Someone else's e-mail, an e-mail nobody uses, none at all: one answer, nothing started or stored.
    const answers = [];
    for (const fields of [{ email: user.email.toUpperCase() }, { email: 'nobody-here@example.com' }, {}] as Record<string, string>[]) {
      const response = await api.post(CHECKOUT, form({ lookup_key: 'basic_monthly', ...fields }));
      answers.push({ status: response.status, location: response.headers.get('location'), body: response.body });
    }
    expect(answers).toEqual(Array(3).fill({ status: 303, location: `${server.publicUrl}/app/subscribe/`, body: '' }));
    expect(fake.requests.length).toBe(before);
    expect(await sessionsOf(server, user.id)).toEqual([]);
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: false, customer: null, subscription: null });
  });

  it('refuses a lookup key that is not a plan (400) without calling Stripe or storing anything', async () => {
    const user = await makeUser(server);
    const before = fake.requests.length;

    const json = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'gold_forever' } });
    expect(json.status).toBe(400);
    expect(json.body).toEqual({ lookup_key: ['This plan does not exist.'] });

    const posted = await client(server.url).post(CHECKOUT, form({ lookup_key: 'gold_forever', email: user.email }));
    expect(posted.status).toBe(400);
    expect(posted.body).toEqual({ lookup_key: ['This plan does not exist.'] });

    expect(fake.requests.length).toBe(before);
    expect(await sessionsOf(server, user.id)).toEqual([]);
    expect((await subscriptionState(server, user.id)).customer).toBeNull();
  });

  it('names every bad field of a checkout at once: a plan that does not exist beside a bad e-mail', async () => {
    const user = await makeUser(server);
    const before = fake.requests.length;
    const expected = { lookup_key: ['This plan does not exist.'], email: ['Enter a valid e-mail address.'] };
    const posted = await client(server.url).post(CHECKOUT, form({ lookup_key: 'gold_forever', email: 'not-an-email' }));
    expect([posted.status, posted.body]).toEqual([400, expected]);
    const json = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'gold_forever', email: 'not-an-email' } });
    expect([json.status, json.body]).toEqual([400, expected]);
    expect(fake.requests.length).toBe(before);
    expect(await sessionsOf(server, user.id)).toEqual([]);
  });

  it('refuses a configured plan that Stripe has no price for (400)', async () => {
    const user = await makeUser(server);
    fake.prices.delete('basic_yearly');
    try {
      const response = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_yearly' } });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ lookup_key: ['This plan is not available right now.'] });
      expect(await sessionsOf(server, user.id)).toEqual([]);
    } finally {
      fake.prices.set('basic_yearly', PRICES.basic_yearly);
    }
  });

  it('sends no one to pay a Stripe price that charges other than the app shows (400)', async () => {
    const user = await makeUser(server);
    const shown = TEST_STRIPE.charges.basic_monthly!;
    // In euros; 20 a month; every three months; once a year for the monthly plan.
    const others = [
      { ...shown, currency: 'eur' },
      { ...shown, unit_amount: 2000 },
      { ...shown, recurring: { interval: 'month' as const, interval_count: 3 } },
      { ...shown, recurring: { interval: 'year' as const, interval_count: 1 } },
    ];
    try {
      for (const charge of others) {
        fake.charges.set('basic_monthly', charge);
        const response = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
        expect(response.status, JSON.stringify(charge)).toBe(400);
        expect(response.body).toEqual({ lookup_key: ['This plan is not available right now.'] });
      }
    } finally {
      fake.charges.set('basic_monthly', shown);
    }
    expect(await sessionsOf(server, user.id)).toEqual([]);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions' && r.form.client_reference_id === String(user.id))).toEqual([]);
    // As the app shows it, it sells.
    const response = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it('answers 503, not 500, while Stripe is down, and stores nothing', async () => {
    const user = await makeUser(server);
    fake.outage = true;
    try {
      const response = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ detail: 'Payments are unavailable right now. Please try again later.', code: 'payments_unavailable' });
    } finally {
      fake.outage = false;
    }
    expect(await sessionsOf(server, user.id)).toEqual([]);
  });

  it('answers bad checkout input with a 4xx in the envelope', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const noToken = await api.post(CHECKOUT, { json: { lookup_key: 'basic_monthly', email: user.email } });
    expect(noToken.status).toBe(401);
    expect(noToken.body).toEqual({ detail: 'Authentication credentials were not provided.' });

    const badToken = await api.post(CHECKOUT, { token: 'not-a-token', json: { lookup_key: 'basic_monthly' } });
    expect(badToken.status).toBe(401);

    const missing = await api.post(CHECKOUT, { token: user.token, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ lookup_key: ['This field is required.'] });

    const malformed = await api.post(CHECKOUT, {
      token: user.token,
      body: '{"lookup_key":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);

    const notAnObject = await api.post(CHECKOUT, { token: user.token, body: 'lookup_key', headers: { 'content-type': 'text/plain' } });
    expect(notAnObject.status).toBe(415);
    expect(notAnObject.body).toEqual({ detail: expect.any(String) });

    const wrongType = await api.post(CHECKOUT, { token: user.token, body: '<x/>', headers: { 'content-type': 'application/xml' } });
    expect(wrongType.status).toBe(415);
  });

  it('answers hostile checkout and webhook input with a 4xx, never a 5xx', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const bodies: unknown[] = [null, [], 'basic_monthly', { lookup_key: ['basic_monthly'] }, { lookup_key: 'x'.repeat(10_000) }, { lookup_key: { $ne: '' } }];
    for (const json of bodies) {
      const response = await api.post(CHECKOUT, { token: user.token, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
    }
    const repeated = await api.post(CHECKOUT, {
      body: 'lookup_key=basic_monthly&lookup_key=basic_yearly&email=' + encodeURIComponent(user.email),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(repeated.status).toBe(400);
    const badEmail = await api.post(CHECKOUT, form({ lookup_key: 'basic_monthly', email: `${'a'.repeat(300)}@example.com` }));
    expect(badEmail.status).toBe(400);
    expect(await sessionsOf(server, user.id)).toEqual([]);

    const huge = await api.post(WEBHOOK, {
      body: JSON.stringify({ id: 'evt_huge', padding: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
    });
    expect(huge.status).toBe(413);
    const notJson = signEvent('not json', WEBHOOK_SECRET);
    const garbage = await api.post(WEBHOOK, {
      body: '{"id": "evt_x", "type":',
      headers: { 'content-type': 'application/json', 'stripe-signature': notJson.signature },
    });
    expect(garbage.status).toBe(400);
  });

  it('refuses a bad webhook signature (400) and changes nothing', async () => {
    const { user, customer, sessionId } = await checkedOutUser();
    const event = completedCheckout({ user, customer, sessionId }, 'sub_forged');

    const wrongSecret = await deliver(event, 'whsec_someone_else');
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.body).toEqual({ non_field_errors: ['Invalid Stripe signature.'] });

    // A genuine signature over a different body.
    const { signature } = signEvent(stripeEvent('ping', {}), WEBHOOK_SECRET);
    const tampered = await client(server.url).post(WEBHOOK, {
      body: JSON.stringify(event),
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    });
    expect(tampered.status).toBe(400);

    const unsigned = await client(server.url).post(WEBHOOK, { json: event });
    expect(unsigned.status).toBe(400);

    expect(await subscriptionState(server, user.id)).toMatchObject({ hasSubscription: false, subscription: null });
    expect(await server.app.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toEqual([]);
    expect((await client(server.url).get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);
  });

  it('tells the success page what became of its checkout: paid and on its way, active, ended since, never paid, or not the user’s', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const outcome = async (id = sessionId, token = user.token) => {
      const response = await api.get(`/api/payments/checkout/${id}/`, { token });
      return response.status === 200 ? response.body.outcome : [response.status, response.body];
    };
    // Back on the success page by hand, before paying: Stripe says the checkout is still open.
    expect(await outcome()).toBe('not_paid');
    // Paid on Stripe's page; its events not here yet.
    const paid = fake.payCheckout(sessionId)!;
    expect(await outcome()).toBe('confirming');
    for (const event of paid.events) expect((await deliver(event)).status).toBe(200);
    expect(await outcome()).toBe('active');
    // The plan ends; the success page opened again (a bookmark, the browser's history) says so.
    fake.subscriptions.set(paid.subscription, { customer, status: 'canceled' });
    await deliver(stripeEvent('customer.subscription.deleted', { id: paid.subscription, object: 'subscription', customer, status: 'canceled' }));
    expect(await outcome()).toBe('ended');

    // Expired at Stripe, never paid.
    const other = await checkedOutUser();
    fake.sessions.get(other.sessionId)!.status = 'expired';
    expect(await outcome(other.sessionId, other.user.token)).toBe('not_paid');
    // Another account's checkout is as unknown as one that never existed, and so is an id of no checkout's shape.
    expect(await outcome(sessionId, other.user.token)).toEqual([404, { detail: 'Not found.' }]);
    expect(await outcome('cs_test_never_made', user.token)).toEqual([404, { detail: 'Not found.' }]);
    expect(await outcome('not-a-session', user.token)).toEqual([404, { detail: 'Not found.' }]);
    expect((await api.get(`/api/payments/checkout/${sessionId}/`)).status).toBe(401);
  });

  it('completion sets has_subscription, deletion clears it, and the same event twice changes nothing', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const me = async () => (await api.get('/api/users/me/', { token: user.token })).body.has_subscription;

    fake.subscriptions.set('sub_first', { customer, status: 'trialing' });
    const completed = completedCheckout({ user, customer, sessionId }, 'sub_first');
    const first = await deliver(completed);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ received: true });
    expect(await me()).toBe(true);
    expect(await subscriptionState(server, user.id)).toMatchObject({ subscription: 'sub_first' });
    expect(await sessionsOf(server, user.id)).toMatchObject([{ id: sessionId, status: 'complete' }]);

    const deleted = stripeEvent('customer.subscription.deleted', {
      id: 'sub_first',
      object: 'subscription',
      customer,
      status: 'canceled',
    });
    expect((await deliver(deleted)).status).toBe(200);
    expect(await me()).toBe(false);
    expect(await subscriptionState(server, user.id)).toMatchObject({ subscription: null });

    // Stripe redelivers the completion (same event id, fresh signature): nothing changes.
    const replay = await deliver(completed);
    expect(replay.status).toBe(200);
    expect(await me()).toBe(false);
    expect(await subscriptionState(server, user.id)).toMatchObject({ subscription: null });

    // Two deliveries of one new event at the same instant are recorded once.
    const updated = stripeEvent('customer.subscription.updated', {
      id: 'sub_second',
      object: 'subscription',
      customer,
      status: 'active',
    });
    const both = await Promise.all([deliver(updated), deliver(updated)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(await server.app.db.select().from(stripeEvents).where(eq(stripeEvents.id, updated.id))).toHaveLength(1);
    expect(await me()).toBe(true);
  });

  it('follows customer.subscription.updated, and ignores the end of a subscription that is not the current one', async () => {
    const api = client(server.url);
    const { user, customer } = await checkedOutUser();
    const me = async () => (await api.get('/api/users/me/', { token: user.token })).body.has_subscription;
    const subscription = (id: string, status: string) => ({ id, object: 'subscription', customer, status });

    await deliver(stripeEvent('customer.subscription.updated', subscription('sub_current', 'trialing')));
    expect(await me()).toBe(true);

    await deliver(stripeEvent('customer.subscription.deleted', subscription('sub_old', 'canceled')));
    expect(await me()).toBe(true);

    await deliver(stripeEvent('customer.subscription.updated', subscription('sub_current', 'unpaid')));
    expect(await me()).toBe(false);

    await deliver(stripeEvent('customer.subscription.updated', subscription('sub_current', 'active')));
    expect(await me()).toBe(true);

    // A subscriber is not sent to a second checkout.
    const second = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ detail: 'You already have a subscription.', code: 'already_subscribed' });
  });

  it('says the plan’s dates as the subscription has them: the trial’s end, the renewal, the end of a plan canceled at the end of its period', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const plan = async () => (await api.get('/api/payments/subscription/', { token: user.token })).body;
    const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

    // Paid on Stripe's page: the subscription starts in its trial, whose end is its first renewal.
    const paid = fake.payCheckout(sessionId)!;
    for (const event of paid.events) expect((await deliver(event)).status).toBe(200);
    const trialEnd = fake.subscriptions.get(paid.subscription)!.trial_end!;
    expect(await plan()).toMatchObject({ active: true, trial_ends_at: iso(trialEnd), renews_at: iso(trialEnd), ends_at: null });

    // The trial over, the first month paid: no trial any more, and the next renewal a month on.
    const periodEnd = trialEnd + 30 * 86_400;
    const item = { price: { lookup_key: 'basic_monthly' }, current_period_end: periodEnd };
    const current = { customer, status: 'active', items: { object: 'list', data: [item] }, trial_end: trialEnd };
    fake.subscriptions.set(paid.subscription, current);
    const event = (type: string) => stripeEvent(type, { id: paid.subscription, object: 'subscription', customer, status: 'active' });
    expect((await deliver(event('customer.subscription.updated'))).status).toBe(200);
    expect(await plan()).toMatchObject({ active: true, period: 'monthly', trial_ends_at: null, renews_at: iso(periodEnd), ends_at: null });

    // Canceled in the customer portal, at the end of the period: it ends then, and does not renew.
    fake.subscriptions.set(paid.subscription, { ...current, cancel_at_period_end: true });
    expect((await deliver(event('customer.subscription.updated'))).status).toBe(200);
    expect(await plan()).toMatchObject({ active: true, trial_ends_at: null, renews_at: null, ends_at: iso(periodEnd) });

    // Ended: no dates.
    fake.subscriptions.set(paid.subscription, { ...current, status: 'canceled' });
    expect((await deliver(stripeEvent('customer.subscription.deleted', { id: paid.subscription, object: 'subscription', customer, status: 'canceled' }))).status).toBe(200);
    expect(await plan()).toMatchObject({ active: false, trial_ends_at: null, renews_at: null, ends_at: null });
    const [row] = await server.app.db.select({ trial: users.planTrialEndsAt, renews: users.planRenewsAt, ends: users.planEndsAt }).from(users).where(eq(users.id, user.id));
    expect(row).toEqual({ trial: null, renews: null, ends: null });
  });

  it('reads the subscription fresh from Stripe, so a late event cannot undo a newer state', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const me = async () => (await api.get('/api/users/me/', { token: user.token })).body.has_subscription;

    // The event still says "incomplete", but Stripe already has the trial running.
    fake.subscriptions.set('sub_fresh', { customer, status: 'trialing' });
    const stale = stripeEvent('customer.subscription.updated', { id: 'sub_fresh', object: 'subscription', customer, status: 'incomplete' });
    expect((await deliver(stale)).status).toBe(200);
    expect(await me()).toBe(true);
    expect(fake.requestsTo('GET', '/v1/subscriptions/sub_fresh').length).toBeGreaterThan(0);

    // Canceled at Stripe; the "active" update that was sent earlier arrives only now.
    fake.subscriptions.set('sub_fresh', { customer, status: 'canceled' });
    const late = stripeEvent('customer.subscription.updated', { id: 'sub_fresh', object: 'subscription', customer, status: 'active' });
    expect((await deliver(late)).status).toBe(200);
    expect(await me()).toBe(false);

    // Likewise a completion delivered after its subscription already ended grants nothing.
    const completed = completedCheckout({ user, customer, sessionId }, 'sub_fresh');
    expect((await deliver(completed)).status).toBe(200);
    expect(await me()).toBe(false);
  });

  it('grants nothing for a completion this server did not start, or that starts no subscription, whoever it names', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const me = async () => (await api.get('/api/users/me/', { token: user.token })).body.has_subscription;
    const completion = (session: Record<string, unknown>) =>
      stripeEvent('checkout.session.completed', {
        object: 'checkout.session',
        mode: 'subscription',
        status: 'complete',
        client_reference_id: String(user.id),
        customer,
        ...session,
      });

    // A Payment Link on the same Stripe account, opened with `?client_reference_id=<their id>`: Stripe
    // signs its completion like any other, for a session (and a subscription) of its own.
    fake.subscriptions.set('sub_payment_link', { customer: 'cus_payment_link_buyer', status: 'active' });
    const ignored = [
      completion({ id: 'cs_test_payment_link_1', customer: 'cus_payment_link_buyer', subscription: 'sub_payment_link' }),
      completion({ id: 'cs_test_payment_link_2', mode: 'payment', customer: null, subscription: null }),
      // The user's own customer, on a session we did not start.
      completion({ id: 'cs_test_payment_link_3', subscription: 'sub_payment_link' }),
      // Our session, but not the subscription checkout we started, or a subscription Stripe never had.
      completion({ id: sessionId, mode: 'payment', subscription: null }),
      completion({ id: sessionId, subscription: null }),
      completion({ id: sessionId, subscription: 'sub_nobody_has' }),
    ];
    for (const event of ignored) {
      const response = await deliver(event);
      expect(response.status, JSON.stringify(event.data.object)).toBe(200);
      expect(response.body).toEqual({ received: true });
      expect(await me(), JSON.stringify(event.data.object)).toBe(false);
    }
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: false, customer, subscription: null });
    expect(await sessionsOf(server, user.id)).toMatchObject([{ id: sessionId, status: 'open' }]);
    // Each was taken in (Stripe stops sending it) and changed nothing.
    const recorded = await server.app.db.select().from(stripeEvents).where(eq(stripeEvents.type, 'checkout.session.completed'));
    expect(recorded.map((e) => e.id)).toEqual(expect.arrayContaining(ignored.map((e) => e.id)));

    // The session we started grants the plan to the account that started it, whomever else it names.
    const other = await makeUser(server);
    fake.subscriptions.set('sub_ours', { customer, status: 'trialing' });
    const ours = await deliver(completion({ id: sessionId, client_reference_id: String(other.id), subscription: 'sub_ours' }));
    expect(ours.status).toBe(200);
    expect(await me()).toBe(true);
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: true, customer, subscription: 'sub_ours' });
    expect(await sessionsOf(server, user.id)).toMatchObject([{ id: sessionId, status: 'complete' }]);
    expect((await api.get('/api/users/me/', { token: other.token })).body.has_subscription).toBe(false);
  });

  it('offers the free trial with a first subscription only, not again after a cancellation', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const me = async () => (await api.get('/api/users/me/', { token: user.token })).body.has_subscription;
    const lastCheckout = () => fake.requestsTo('POST', '/v1/checkout/sessions').at(-1)!.form;
    expect(lastCheckout()['subscription_data[trial_period_days]']).toBe(String(FREE_TRIAL_DAYS));

    fake.subscriptions.set('sub_trial', { customer, status: 'trialing' });
    const completed = completedCheckout({ user, customer, sessionId }, 'sub_trial');
    expect((await deliver(completed)).status).toBe(200);
    expect(await me()).toBe(true);
    // Cancelled in Stripe's customer portal.
    fake.subscriptions.set('sub_trial', { customer, status: 'canceled' });
    await deliver(stripeEvent('customer.subscription.deleted', { id: 'sub_trial', object: 'subscription', customer, status: 'canceled' }));
    expect(await me()).toBe(false);

    // Back on the subscribe page: a checkout again, for the same customer, with no trial this time.
    const again = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(lastCheckout()).toMatchObject({ mode: 'subscription', customer, 'subscription_data[metadata][user_id]': String(user.id) });
    expect(lastCheckout()).not.toHaveProperty(['subscription_data[trial_period_days]']);
    // No trial, so the card is asked for as Stripe asks by default.
    expect(lastCheckout()).not.toHaveProperty(['payment_method_collection']);

    // Stripe keeps ended subscriptions: a customer who had one whose events never reached us has had the trial too.
    const { user: unseen, customer: unseenCustomer } = await checkedOutUser();
    fake.subscriptions.set('sub_unseen', { customer: unseenCustomer, status: 'canceled' });
    const unseenAgain = await api.post(CHECKOUT, { token: unseen.token, json: { lookup_key: 'basic_yearly' } });
    expect(unseenAgain.status, JSON.stringify(unseenAgain.body)).toBe(200);
    expect(lastCheckout()).toMatchObject({ customer: unseenCustomer });
    expect(lastCheckout()).not.toHaveProperty(['subscription_data[trial_period_days]']);
  });

  it('applies a customer’s events as if one at a time: an update read from Stripe before a cancellation cannot restore the plan after it', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const me = async () => (await api.get('/api/users/me/', { token: user.token })).body.has_subscription;
    const subscription = (status: string) => ({ id: 'sub_race', object: 'subscription', customer, status });

    fake.subscriptions.set('sub_race', { customer, status: 'active' });
    const completed = completedCheckout({ user, customer, sessionId }, 'sub_race');
    expect((await deliver(completed)).status).toBe(200);
    expect(await me()).toBe(true);

    // An update's handler has read "active" from Stripe, and that answer is still on its way…
    const hold = fake.holdSubscriptionReads();
    const update = deliver(stripeEvent('customer.subscription.updated', subscription('active')));
    await hold.reading;
    // …when the subscription is cancelled and its deletion delivered: applied at once.
    fake.subscriptions.set('sub_race', { customer, status: 'canceled' });
    expect((await deliver(stripeEvent('customer.subscription.deleted', subscription('canceled')))).status).toBe(200);
    expect(await me()).toBe(false);
    hold.release();

    // The update's read predates the deletion's commit: it reads Stripe again, and restores nothing.
    expect((await update).status).toBe(200);
    expect(fake.requestsTo('GET', '/v1/subscriptions/sub_race').length).toBeGreaterThanOrEqual(2);
    expect(await me()).toBe(false);
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: false, customer, subscription: null });
  });

  it('reads Stripe outside the database transaction: while Stripe is slow to answer, everyone else is served', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const someoneElse = await makeUser(server);
    fake.subscriptions.set('sub_slow', { customer, status: 'active' });
    const reads = () => fake.requestsTo('GET', '/v1/subscriptions/sub_slow').length;

    // The completion's handler has asked Stripe for the subscription, and Stripe has not answered yet…
    const hold = fake.holdSubscriptionReads();
    const completion = deliver(completedCheckout({ user, customer, sessionId }, 'sub_slow'));
    await hold.reading;
    try {
      // …while someone else's requests are served, before the SDK has given up on that read and tried
      // again (on PGlite's one connection, a transaction open across the read held them until then).
      expect((await api.get('/api/users/me/profile/', { token: someoneElse.token })).status).toBe(200);
      expect((await api.get('/api/payments/subscription/', { token: user.token })).status).toBe(200);
      expect(reads()).toBe(1);
    } finally {
      hold.release();
    }
    expect((await completion).status).toBe(200);
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);
  });

  it('starts a checkout on a new customer for someone whose Stripe customer was deleted in Stripe; the portal says there is nothing to manage', async () => {
    const { user, customer, sessionId } = await checkedOutUser();
    fake.subscriptions.set('sub_customer_deleted', { customer, status: 'active' });
    expect((await deliver(completedCheckout({ user, customer, sessionId }, 'sub_customer_deleted'))).status).toBe(200);
    expect((await subscriptionState(server, user.id)).hasSubscription).toBe(true);
    const other = await connect(server.url, user.token);
    const told = waitFor(other, 'account:changed');
    // Deleted in Stripe's dashboard (its subscriptions with it; their events not here yet): Stripe starts
    // nothing new on it, a portal session included.
    fake.customers.get(customer)!.deleted = true;
    const portal = await client(server.url).post('/api/payments/stripe/create-portal-session/', { token: user.token });
    expect([portal.status, portal.body.code], JSON.stringify(portal.body)).toEqual([403, 'subscription_required']);
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: false, customer: null, subscription: null });
    await told;
    other.disconnect();

    const started = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const linked = (await subscriptionState(server, user.id)).customer;
    expect(linked).toMatch(/^cus_/);
    expect(linked).not.toBe(customer);
    expect(fake.customers.get(linked!)?.metadata).toMatchObject({ user_id: String(user.id) });
    expect(fake.sessions.get(String(started.body.url).split('/').pop()!)?.customer).toBe(linked);
  });

  it('starts a checkout on a new customer when the deleted one is still linked here', async () => {
    const { user, customer } = await checkedOutUser();
    fake.customers.get(customer)!.deleted = true;
    const started = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const linked = (await subscriptionState(server, user.id)).customer;
    expect(linked).not.toBe(customer);
    expect(fake.sessions.get(String(started.body.url).split('/').pop()!)?.customer).toBe(linked);
  });

  it('cancels at Stripe a subscription that a deleted account left behind, when its events arrive', async () => {
    const { user, customer, sessionId } = await checkedOutUser();
    // The account went without its billing ended at Stripe (as deletions did before they deleted the
    // customer): its checkout rows went with it, its customer and open checkout stayed at Stripe.
    await server.app.db.delete(users).where(eq(users.id, user.id));
    expect(await sessionsOf(server, user.id)).toEqual([]);

    // The person pays in the tab still open: Stripe starts the subscription and sends its events.
    const paid = fake.payCheckout(sessionId, { status: 'active' })!;
    expect(paid).not.toBeNull();
    for (const event of paid.events) {
      const response = await deliver(event);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    }
    expect(fake.subscriptions.get(paid.subscription)?.status).toBe('canceled');
    expect(fake.requestsTo('DELETE', `/v1/subscriptions/${paid.subscription}`)).toHaveLength(1);
    // Each event was taken in (Stripe stops sending it); nothing of the account came back.
    const recorded = await server.app.db.select().from(stripeEvents);
    expect(recorded.map((e) => e.id)).toEqual(expect.arrayContaining(paid.events.map((e) => e.id)));
    expect(await server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    expect(await server.app.db.select().from(users).where(eq(users.stripeCustomerId, customer))).toEqual([]);

    // An update sent after the cancellation, read fresh from Stripe: nothing more to do.
    const late = stripeEvent('customer.subscription.updated', { id: paid.subscription, object: 'subscription', customer, status: 'active' });
    expect((await deliver(late)).status).toBe(200);
    expect(fake.requestsTo('DELETE', `/v1/subscriptions/${paid.subscription}`)).toHaveLength(1);
  });

  it('expires a checkout left open in another tab when a new one starts; none starts once Stripe says one was paid', async () => {
    const api = client(server.url);
    const { user, customer, sessionId: first } = await checkedOutUser();
    const second = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_yearly' } });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const latest = String(second.body.url).split('/').pop()!;

    // The first tab's checkout can be paid no more; only the plan chosen last can.
    expect(fake.sessions.get(first)?.status).toBe('expired');
    expect(fake.payCheckout(first)).toBeNull();
    expect(await sessionsOf(server, user.id)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: first, status: 'canceled' }), expect.objectContaining({ id: latest, status: 'open' })]),
    );

    // Paid on Stripe's page, its events not here yet: a third checkout is not started beside it.
    const paid = fake.payCheckout(latest)!;
    const created = fake.requestsTo('POST', '/v1/checkout/sessions').length;
    const third = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(third.status).toBe(409);
    expect(third.body).toEqual({ detail: 'You already have a subscription.', code: 'already_subscribed' });
    expect(fake.requestsTo('POST', '/v1/checkout/sessions')).toHaveLength(created);

    for (const event of paid.events) expect((await deliver(event)).status).toBe(200);
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: true, customer, subscription: paid.subscription });
  });

  it('leaves one of two checkouts started at the same instant open at Stripe, not both', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    // Two tabs: each reads the user's open checkouts (none) before Stripe has made either.
    fake.holdCheckoutCreates(2);
    const started = await Promise.all([0, 1].map(() => api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } })));
    expect(started.map((r) => r.status)).toEqual([200, 200]);
    const ids = started.map((r) => String(r.body.url).split('/').pop()!);

    // The one stored first can be paid no more: two subscriptions cannot both be bought.
    const atStripe = ids.map((id) => fake.sessions.get(id)?.status).sort();
    expect(atStripe).toEqual(['expired', 'open']);
    const stored = await sessionsOf(server, user.id);
    expect(stored.map((row) => row.status).sort()).toEqual(['canceled', 'open']);
    const open = stored.find((row) => row.status === 'open')!;
    expect(fake.sessions.get(open.id)?.status).toBe('open');
  });

  it('cancels at Stripe a second subscription paid beside the live one, and keeps the plan the first one gave', async () => {
    const api = client(server.url);
    const { user, customer, sessionId: first } = await checkedOutUser();
    const second = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    const other = String(second.body.url).split('/').pop()!;
    // Two tabs started their checkouts at the same instant, so neither expired the other's.
    fake.sessions.get(first)!.status = 'open';

    const kept = fake.payCheckout(first, { status: 'active' })!;
    const extra = fake.payCheckout(other, { status: 'active' })!;
    for (const event of [...kept.events, ...extra.events]) {
      const response = await deliver(event);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    }
    expect(fake.subscriptions.get(extra.subscription)?.status).toBe('canceled');
    expect(fake.requestsTo('DELETE', `/v1/subscriptions/${extra.subscription}`)).toHaveLength(1);
    expect(fake.subscriptions.get(kept.subscription)?.status).toBe('active');
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: true, customer, subscription: kept.subscription });

    // Its end, sent by Stripe after the cancellation, does not end the plan the first one gives.
    const ended = stripeEvent('customer.subscription.deleted', { id: extra.subscription, object: 'subscription', customer, status: 'canceled' });
    expect((await deliver(ended)).status).toBe(200);
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);

    // Once the first has ended at Stripe (its own events still on their way), another is not a second one.
    fake.subscriptions.get(kept.subscription)!.status = 'canceled';
    fake.subscriptions.set('sub_after', { customer, status: 'active' });
    await deliver(stripeEvent('customer.subscription.updated', { id: 'sub_after', object: 'subscription', customer, status: 'active' }));
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: true, customer, subscription: 'sub_after' });
    expect(fake.subscriptions.get('sub_after')?.status).toBe('active');
  });

  it('takes up a subscription started beside the held one in Stripe’s dashboard once the held one ends', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const paid = fake.payCheckout(sessionId, { status: 'active' })!;
    for (const event of paid.events) expect((await deliver(event)).status).toBe(200);

    // Someone at the company starts another for this customer by hand, to replace the first: it is not
    // cancelled (no checkout of ours started it), and the plan stays the first one's while that lives.
    fake.subscriptions.set('sub_by_hand', { customer, status: 'active' });
    await deliver(stripeEvent('customer.subscription.created', { id: 'sub_by_hand', object: 'subscription', customer, status: 'active' }));
    expect(fake.subscriptions.get('sub_by_hand')?.status).toBe('active');
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: true, customer, subscription: paid.subscription });

    fake.subscriptions.get(paid.subscription)!.status = 'canceled';
    await deliver(stripeEvent('customer.subscription.deleted', { id: paid.subscription, object: 'subscription', customer, status: 'canceled' }));
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: true, customer, subscription: 'sub_by_hand' });
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);

    // And when that one ends too, with nothing else live, the plan ends.
    fake.subscriptions.get('sub_by_hand')!.status = 'canceled';
    await deliver(stripeEvent('customer.subscription.deleted', { id: 'sub_by_hand', object: 'subscription', customer, status: 'canceled' }));
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: false, customer, subscription: null });
  });

  it('cancels at Stripe an unpaid subscription once the plan is bought again, so that paying its invoice later bills nothing beside', async () => {
    const api = client(server.url);
    const { user, customer, sessionId } = await checkedOutUser();
    const first = fake.payCheckout(sessionId, { status: 'active' })!;
    for (const event of first.events) expect((await deliver(event)).status).toBe(200);

    // Every retry of the card failed: Stripe leaves the subscription unpaid, and the plan ends here.
    fake.subscriptions.get(first.subscription)!.status = 'unpaid';
    await deliver(stripeEvent('customer.subscription.updated', { id: first.subscription, object: 'subscription', customer, status: 'unpaid' }));
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);

    // They subscribe again, with another card.
    const again = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const second = fake.payCheckout(String(again.body.url).split('/').pop()!, { status: 'active' })!;
    for (const event of second.events) expect((await deliver(event)).status).toBe(200);
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: true, customer, subscription: second.subscription });

    // The unpaid one is over at Stripe: the old invoice paid from Stripe's e-mail cannot bring it back
    // to bill beside the new one.
    expect(fake.subscriptions.get(first.subscription)?.status).toBe('canceled');
    expect(fake.requestsTo('DELETE', `/v1/subscriptions/${first.subscription}`)).toHaveLength(1);
    expect(fake.subscriptions.get(second.subscription)?.status).toBe('active');
    // Its end, when Stripe sends it, leaves the new plan alone.
    await deliver(stripeEvent('customer.subscription.deleted', { id: first.subscription, object: 'subscription', customer, status: 'canceled' }));
    expect(await subscriptionState(server, user.id)).toEqual({ hasSubscription: true, customer, subscription: second.subscription });
  });

  it('leaves alone a subscription whose customer is not one a deleted account of ours left', async () => {
    const living = await makeUser(server);
    // Another product's customers on the same Stripe account (some name a user id of their own), one
    // of ours that a live account has (a second customer made by two checkouts racing), one with no id.
    const strangers: Record<string, Record<string, string>> = {
      cus_other_product: { user_id: '987654' },
      cus_other_app: { app: 'someone-else', user_id: '987655' },
      cus_ours_live_account: { app: 'eventmatch', user_id: String(living.id) },
      cus_ours_no_id: { app: 'eventmatch', user_id: 'abc' },
      cus_no_metadata: {},
    };
    for (const [customer, metadata] of Object.entries(strangers)) {
      fake.customers.set(customer, { email: null, name: null, metadata, preferred_locales: [] });
      const subscription = `sub_of_${customer}`;
      fake.subscriptions.set(subscription, { customer, status: 'active' });
      const events = [
        stripeEvent('customer.subscription.created', { id: subscription, object: 'subscription', customer, status: 'active' }),
        stripeEvent('checkout.session.completed', {
          id: `cs_test_of_${customer}`,
          object: 'checkout.session',
          mode: 'subscription',
          status: 'complete',
          customer,
          subscription,
        }),
      ];
      for (const event of events) {
        const response = await deliver(event);
        expect(response.status, `${customer}: ${JSON.stringify(response.body)}`).toBe(200);
      }
      // Looked at, and found not to be ours.
      expect(fake.requestsTo('GET', `/v1/customers/${customer}`).length, customer).toBeGreaterThan(0);
      expect(fake.subscriptions.get(subscription)?.status, customer).toBe('active');
      expect(fake.requestsTo('DELETE', `/v1/subscriptions/${subscription}`), customer).toEqual([]);
    }
    expect((await client(server.url).get('/api/users/me/', { token: living.token })).body.has_subscription).toBe(false);
  });

  it('refuses a signed event whose object is not what its type promises (400) and records nothing', async () => {
    const event = stripeEvent('customer.subscription.deleted', { id: 42, object: 'subscription' });
    const response = await deliver(event);
    expect(response.status).toBe(400);
    expect(await server.app.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toEqual([]);

    const other = stripeEvent('invoice.paid', { id: 'in_1', object: 'invoice' });
    expect((await deliver(other)).status).toBe(200);
  });

  it('offers no local test checkout when Stripe is configured', async () => {
    const response = await client(server.url).get('/api/payments/test-checkout/cs_local_aaaaaaaaaaaaaaaaaaaaaaaa');
    expect(response.status).toBe(404);
  });
});

describe.each(backends)('the local test checkout (no Stripe key, lookup keys set by environment), on %s', (backend) => {
  // STRIPE_LOOKUP_KEY_MONTHLY / _YEARLY as an operator would set them.
  const lookupKeys = { monthly: 'party_monthly_2027', yearly: 'party_yearly_2027' };
  const server = serverPerSuite({
    backend,
    config: { checkoutMode: 'test', stripe: { secretKey: null, webhookSecret: null, apiBase: null, lookupKeys } },
  });

  const testCheckout = (id: string, action = '') => `/api/payments/test-checkout/${id}/${action}`;
  /** A checkout started by the signed-in client: the id of the session its URL names. */
  async function startCheckout(user: TestUser, lookupKey = lookupKeys.monthly) {
    const started = await client(server.url).post(CHECKOUT, { token: user.token, json: { lookup_key: lookupKey } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const url = String(started.body.url);
    expect(url).toMatch(new RegExp(`^${server.publicUrl}/app/subscribe/test-checkout/cs_local_[\\w-]{24}$`));
    return url.split('/').pop()!;
  }

  it('tells the client that payments go through the test checkout, and which lookup keys to send', async () => {
    expect((await client(server.url).get('/api/config/')).body).toEqual({
      google_client_id: null,
      payments: 'test',
      lookup_keys: lookupKeys,
    });
  });

  it('runs the whole flow for the signed-in account: its session, Complete, subscribed, the success URL', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const sessionId = await startCheckout(user, lookupKeys.yearly);

    const shown = await api.get(testCheckout(sessionId), { token: user.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ id: sessionId, lookup_key: lookupKeys.yearly, status: 'open', email: user.email, trial_days: FREE_TRIAL_DAYS });

    const completed = await api.post(testCheckout(sessionId, 'complete/'), { token: user.token });
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({ url: `${server.publicUrl}/app/subscribe/?success=true&session_id=${sessionId}` });
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);
    expect(await sessionsOf(server, user.id)).toMatchObject([{ id: sessionId, provider: 'local', status: 'complete' }]);
    // The webhook's handler recorded it like any Stripe event.
    const recorded = await server.app.db.select().from(stripeEvents).where(eq(stripeEvents.type, 'checkout.session.completed'));
    expect(recorded.map((e) => e.id)).toContain(`evt_local_${sessionId.slice('cs_local_'.length)}`);

    // A second click changes nothing; a late cancel is refused with its code.
    expect((await api.post(testCheckout(sessionId, 'complete/'), { token: user.token })).status).toBe(200);
    expect((await api.get(testCheckout(sessionId), { token: user.token })).body.status).toBe('complete');
    const cancelAfter = await api.post(testCheckout(sessionId, 'cancel/'), { token: user.token });
    expect(cancelAfter.status).toBe(409);
    expect(cancelAfter.body).toEqual({ detail: 'This checkout is already complete.', code: 'checkout_complete' });
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);
    // Subscribed now: another checkout is refused with its code.
    const again = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: lookupKeys.monthly } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: 'You already have a subscription.', code: 'already_subscribed' });
  });

  it('tells the success page what became of its checkout: active, ended since, or never completed', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const outcome = async (id: string) => (await api.get(`/api/payments/checkout/${id}/`, { token: user.token })).body.outcome;
    const left = await startCheckout(user);
    expect(await outcome(left)).toBe('not_paid');
    expect((await api.post(testCheckout(left, 'cancel/'), { token: user.token })).status).toBe(200);
    expect(await outcome(left)).toBe('not_paid');
    const paid = await startCheckout(user);
    expect((await api.post(testCheckout(paid, 'complete/'), { token: user.token })).status).toBe(200);
    expect(await outcome(paid)).toBe('active');
    await endThroughTestPortal(server, user);
    expect(await outcome(paid)).toBe('ended');
  });

  it('completes one of two checkouts left open in two tabs; the other is refused, the plan and its trial kept', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const monthly = await startCheckout(user, lookupKeys.monthly);
    const yearly = await startCheckout(user, lookupKeys.yearly);
    const plan = async () => (await api.get('/api/payments/subscription/', { token: user.token })).body;

    const complete = (id: string) => api.post(testCheckout(id, 'complete/'), { token: user.token });
    const [first, second] = await Promise.all([complete(monthly), complete(yearly)]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const refused = first.status === 409 ? first : second;
    expect(refused.body).toEqual({ detail: 'You already have a subscription.', code: 'already_subscribed' });
    const kept = await plan();
    expect(kept).toMatchObject({ active: true, period: first.status === 200 ? 'monthly' : 'yearly' });
    expect(kept.trial_ends_at).not.toBeNull();

    // Later, the one left open is refused the same way and changes nothing.
    const late = await complete(first.status === 409 ? monthly : yearly);
    expect(late.body).toEqual({ detail: 'You already have a subscription.', code: 'already_subscribed' });
    expect(await plan()).toEqual(kept);
  });

  it('shows the free trial on a first checkout only, not again after a cancellation', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const first = await startCheckout(user);
    expect((await api.get(testCheckout(first), { token: user.token })).body).toMatchObject({ trial_days: FREE_TRIAL_DAYS });
    // The session itself completing does not take its trial away from it.
    expect((await api.post(testCheckout(first, 'complete/'), { token: user.token })).status).toBe(200);
    expect((await api.get(testCheckout(first), { token: user.token })).body).toMatchObject({ status: 'complete', trial_days: FREE_TRIAL_DAYS });
    await endThroughTestPortal(server, user);

    const again = await startCheckout(user);
    expect((await api.get(testCheckout(again), { token: user.token })).body).toMatchObject({ status: 'open', trial_days: 0 });
    expect((await api.post(testCheckout(again, 'complete/'), { token: user.token })).status).toBe(200);
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);
  });

  it('says when the free trial of a first test checkout ends; a second one renews a month or a year on', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const plan = async () => (await api.get('/api/payments/subscription/', { token: user.token })).body;
    const before = Date.now();
    expect((await api.post(testCheckout(await startCheckout(user), 'complete/'), { token: user.token })).status).toBe(200);
    const first = await plan();
    const trialEnd = Date.parse(first.trial_ends_at);
    expect(trialEnd).toBeGreaterThanOrEqual(before + FREE_TRIAL_DAYS * 86_400_000);
    expect(trialEnd).toBeLessThanOrEqual(Date.now() + FREE_TRIAL_DAYS * 86_400_000);
    expect(first).toMatchObject({ active: true, renews_at: first.trial_ends_at, ends_at: null });
    // Once gone by (and no event since to say what followed), a date is not shown.
    await server.app.db.update(users).set({ planTrialEndsAt: new Date(before - 1000), planRenewsAt: new Date(before - 1000) }).where(eq(users.id, user.id));
    expect(await plan()).toMatchObject({ active: true, trial_ends_at: null, renews_at: null, ends_at: null });

    await endThroughTestPortal(server, user);
    expect(await plan()).toMatchObject({ active: false, trial_ends_at: null, renews_at: null, ends_at: null });
    // Paid at once, on the same day of the next month (or that month's last day): of the UTC day it
    // was paid on, which is the day before the checkout or the day after the answer (they differ only
    // across a midnight).
    const renewal = (monthsOn: number) => {
      const today = new Date();
      const day = Math.min(today.getUTCDate(), new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + monthsOn + 1, 0)).getUTCDate());
      return `${new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + monthsOn, day)).toISOString().slice(0, 10)}`;
    };
    const paidOn = async (monthsOn: number, lookupKey?: string) => {
      const before = renewal(monthsOn);
      expect((await api.post(testCheckout(await startCheckout(user, lookupKey), 'complete/'), { token: user.token })).status).toBe(200);
      const paid = await plan();
      return { paid, renewals: [before, renewal(monthsOn)] };
    };
    const monthly = await paidOn(1);
    expect(monthly.paid).toMatchObject({ active: true, period: 'monthly', trial_ends_at: null, ends_at: null });
    expect(monthly.renewals).toContain(String(monthly.paid.renews_at).slice(0, 10));

    await endThroughTestPortal(server, user);
    const yearly = await paidOn(12, lookupKeys.yearly);
    expect(yearly.paid).toMatchObject({ active: true, period: 'yearly', trial_ends_at: null, ends_at: null });
    expect(yearly.renewals).toContain(String(yearly.paid.renews_at).slice(0, 10));
  });

  it('Cancel: back on the cancel URL, not subscribed, and the session cannot be completed', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const sessionId = await startCheckout(user);

    const canceled = await api.post(testCheckout(sessionId, 'cancel/'), { token: user.token });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toEqual({ url: `${server.publicUrl}/app/subscribe/?canceled=true` });
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);

    const late = await api.post(testCheckout(sessionId, 'complete/'), { token: user.token });
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ detail: 'This checkout was canceled; start a new one from the subscribe page.', code: 'checkout_canceled' });
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);
    expect((await api.get(testCheckout(sessionId), { token: user.token })).body.status).toBe('canceled');
  });

  it('lets nobody but its own signed-in account see, complete or cancel a session', async () => {
    const api = client(server.url);
    const owner = await makeUser(server);
    const stranger = await makeUser(server);
    const sessionId = await startCheckout(owner);

    for (const [method, action] of [['get', ''], ['post', 'complete/'], ['post', 'cancel/']] as const) {
      // Anonymous: as a browser's plain form post would be.
      const anonymous = await api[method](testCheckout(sessionId, action), method === 'post' ? form({}) : {});
      expect(anonymous.status, `${method} ${action} anonymous`).toBe(401);
      // Another account: the session is as unknown to it as one that never existed.
      const other = await api[method](testCheckout(sessionId, action), { token: stranger.token });
      expect(other.status, `${method} ${action} by another account`).toBe(404);
      expect(other.body).toEqual({ detail: 'Not found.' });
    }
    expect((await api.get('/api/users/me/', { token: owner.token })).body.has_subscription).toBe(false);
    expect(await sessionsOf(server, owner.id)).toMatchObject([{ id: sessionId, status: 'open' }]);

    // The form post of someone's e-mail starts nothing for them: it is sent to the subscribe page.
    const posted = await api.post(CHECKOUT, form({ lookup_key: lookupKeys.yearly, email: owner.email }));
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(`${server.publicUrl}/app/subscribe/`);
    expect(await sessionsOf(server, owner.id)).toHaveLength(1);
    expect((await api.get('/api/users/me/', { token: owner.token })).body.has_subscription).toBe(false);
  });

  it('refuses unknown plans, unknown sessions and webhooks it cannot verify', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const unknownPlan = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'gold_forever' } });
    expect(unknownPlan.status).toBe(400);
    // The default keys are not plans once the environment names others.
    const defaultKey = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect(defaultKey.status).toBe(400);
    expect(defaultKey.body).toEqual({ lookup_key: ['This plan does not exist.'] });
    expect(await sessionsOf(server, user.id)).toEqual([]);

    expect((await api.get(testCheckout('cs_local_nosuchsessionxxxxxxxxxx'), { token: user.token })).status).toBe(404);
    expect((await api.post(testCheckout('cs_local_nosuchsessionxxxxxxxxxx', 'complete/'), { token: user.token })).status).toBe(404);
    expect((await api.get(testCheckout('<script>'), { token: user.token })).status).toBe(404);

    const webhook = await api.post(WEBHOOK, {
      json: stripeEvent('checkout.session.completed', { id: 'cs_x', client_reference_id: String(user.id) }),
      headers: { 'stripe-signature': 't=1,v1=00' },
    });
    expect(webhook.status).toBe(400);
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);
  });
});

/**
 * At a party every phone is behind the venue's one address: checkouts and portal sessions count per
 * person signed in, and only a request without a good token per address (both cut to 3 a minute here).
 */
describe('checkout limits behind one address', () => {
  const three = { max: 3, windowMs: 60_000 };
  const server = serverPerSuite({ config: { checkoutMode: 'test', limits: { checkout: three, 'checkout:ip': three } } });

  const venue = { 'x-forwarded-for': '203.0.113.40' };
  const checkout = (token?: string) =>
    client(server.url).post(CHECKOUT, { token, json: { lookup_key: server.config.stripe.lookupKeys.monthly }, headers: venue });
  const throttled = (reply: { status: number; body: unknown; headers: Headers }) => {
    expect(reply.status).toBe(429);
    expect(reply.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds\.$/) });
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
  };

  it('counts signed-in checkouts per person, and the rest per address', async () => {
    const people = await Promise.all(Array.from({ length: 4 }, () => makeUser(server)));
    // 9 checkouts from one address, 3 each: none refused.
    for (const person of people.slice(0, 3)) for (let i = 0; i < 3; i++) expect((await checkout(person.token)).status).toBe(200);
    // One person past their own 3 (checkout and portal together), and no one else.
    const portal = (person: TestUser) => client(server.url).post('/api/payments/stripe/create-portal-session/', { token: person.token, headers: venue });
    throttled(await checkout(people[0]!.token));
    throttled(await portal(people[0]!));
    expect((await portal(people[3]!)).status).not.toBe(429);
    expect((await checkout(people[3]!.token)).status).toBe(200);
    // Without a good token, per address: a plain form post (the subscribe page), a token that is no good (401).
    const post = () => client(server.url).post(CHECKOUT, { ...form({ lookup_key: server.config.stripe.lookupKeys.monthly }), headers: { ...form({}).headers, ...venue } });
    expect((await post()).status).toBe(303);
    expect((await checkout('not-a-token')).status).toBe(401);
    expect((await post()).status).toBe(303);
    throttled(await checkout('not-a-token'));
    throttled(await post());
    expect((await checkout(people[2]!.token)).status).toBe(429);
    expect((await checkout((await makeUser(server)).token)).status).toBe(200);
  });
});

describe('checkout off (production without Stripe)', () => {
  const server = serverPerSuite({ config: { checkoutMode: loadConfig({ NODE_ENV: 'production' }).checkoutMode } });

  it('tells the client, refuses every checkout with its code, and has no test checkout', async () => {
    const api = client(server.url);
    expect((await api.get('/api/config/')).body.payments).toBe('off');
    const user = await makeUser(server);
    const refused = { detail: 'Payments are not configured on this server.', code: 'payments_not_configured' };
    const json = await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } });
    expect([json.status, json.body]).toEqual([404, refused]);
    const posted = await api.post(CHECKOUT, form({ lookup_key: 'basic_monthly', email: user.email }));
    expect([posted.status, posted.body]).toEqual([404, refused]);
    expect(await sessionsOf(server, user.id)).toEqual([]);
    expect((await api.get('/api/payments/test-checkout/cs_local_aaaaaaaaaaaaaaaaaaaaaaaa/', { token: user.token })).status).toBe(404);
  });
});

describe('checkout off with a Stripe key still set (sales stopped, subscribers still billed at Stripe)', () => {
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe(TEST_STRIPE);
  });
  afterAll(() => fake?.close());
  const server = serverPerSuite(() => ({ config: { checkoutMode: 'off', stripe: stripeConfigFor(fake) } }));

  it('sells nothing, but lets someone who bought at Stripe manage, and so cancel, their plan in Stripe’s portal', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    await boughtAtStripeBefore(server, fake, user, 'cus_bought_before', 'sub_bought_before');

    expect((await api.post(CHECKOUT, { token: user.token, json: { lookup_key: 'basic_monthly' } })).status).toBe(404);
    expect((await api.get('/api/payments/subscription/', { token: user.token })).body).toMatchObject({ active: true, manageable: true });
    const portal = await api.post('/api/payments/stripe/create-portal-session/', { token: user.token, json: {} });
    expect(portal.status, JSON.stringify(portal.body)).toBe(200);
    expect(portal.body.url).toMatch(/^https:\/\/billing\.stripe\.test\//);
    expect(fake.requestsTo('POST', '/v1/billing_portal/sessions').at(-1)?.form.customer).toBe('cus_bought_before');

    // Someone with nothing bought has nothing to manage: payments are off.
    const other = await makeUser(server);
    expect((await api.get('/api/payments/subscription/', { token: other.token })).body).toMatchObject({ active: false, manageable: false });
    expect((await api.post('/api/payments/stripe/create-portal-session/', { token: other.token, json: {} })).status).toBe(404);
  });
});

describe('the test checkout with a Stripe key still set (plans bought at Stripe before the switch)', () => {
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe(TEST_STRIPE);
  });
  afterAll(() => fake?.close());
  const server = serverPerSuite(() => ({ config: { checkoutMode: 'test', stripe: stripeConfigFor(fake) } }));

  it('leaves a plan billed at Stripe to Stripe’s portal: the test portal does not say it ends while Stripe bills on', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    await boughtAtStripeBefore(server, fake, user, 'cus_before_test', 'sub_before_test');
    const renewsAt = new Date(Math.floor(Date.now() / 1000 + 20 * 86_400) * 1000);
    await server.app.db.update(users).set({ planRenewsAt: renewsAt }).where(eq(users.id, user.id));
    const portal = await api.post('/api/payments/stripe/create-portal-session/', { token: user.token, json: {} });
    expect(portal.body.url).toMatch(/^https:\/\/billing\.stripe\.test\//);

    // The test portal's page opened by its address all the same: it cancels only the local test plan.
    const canceled = await api.post('/api/payments/test-portal/cancel/', { token: user.token, json: {} });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(409);
    expect(canceled.body).toEqual({ detail: 'This subscription is billed by Stripe: cancel it with “Manage subscription”.' });
    expect((await api.get('/api/payments/subscription/', { token: user.token })).body).toMatchObject({ active: true, renews_at: renewsAt.toISOString(), ends_at: null });
    expect(fake.subscriptions.get('sub_before_test')).toMatchObject({ status: 'active' });
  });

  it('sends someone whose Stripe plan ended, and who took a test plan since, to the test portal to cancel it', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    await boughtAtStripeBefore(server, fake, user, 'cus_ended_before_test', 'sub_ended_before_test');
    fake.subscriptions.set('sub_ended_before_test', { customer: 'cus_ended_before_test', status: 'canceled' });
    const ended = stripeEvent('customer.subscription.deleted', { id: 'sub_ended_before_test', object: 'subscription', customer: 'cus_ended_before_test', status: 'canceled' });
    expect((await deliverStripeEvent(server, ended, WEBHOOK_SECRET)).status).toBe(200);
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);

    await subscribeThroughTestCheckout(server, user);
    expect((await api.get('/api/payments/subscription/', { token: user.token })).body).toMatchObject({ active: true, manageable: true });
    // Stripe's portal knows nothing of the test plan: "Manage subscription" is the test portal's, which cancels it.
    const portal = await api.post('/api/payments/stripe/create-portal-session/', { token: user.token, json: {} });
    expect(portal.body.url).toBe(`${server.publicUrl}/app/subscribe/test-portal/`);
    await cancelThroughTestPortal(server, user);
  });
});

describe.each(['stripe', 'off'] as const)('test plans after a switch from the test checkout to %s', (mode) => {
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe(TEST_STRIPE);
  });
  afterAll(() => fake?.close());
  const server = serverPerSuite(() => ({ config: { checkoutMode: mode, ...(mode === 'stripe' ? { stripe: stripeConfigFor(fake) } : {}) } }));

  /** A plan the test checkout gave before the switch, as it left it: a local customer and subscription, and its dates. */
  async function testPlan(user: TestUser, dates: { planRenewsAt?: Date; planEndsAt?: Date }) {
    const suffix = `${mode}_${user.id}`;
    await server.app.db
      .update(users)
      .set({ hasSubscription: true, stripeCustomerId: `cus_local_${suffix}`, stripeSubscriptionId: `sub_local_${suffix}`, planStatus: 'active', planLookupKey: 'basic_monthly', ...dates })
      .where(eq(users.id, user.id));
  }

  it('ends each at the end of the period it is in, cancelled or not: nothing renews it now, and no perk outlives it', async () => {
    const api = client(server.url);
    const [cancelled, due, later] = await Promise.all([makeUser(server), makeUser(server), makeUser(server)]);
    const endsAt = new Date(Math.floor(Date.now() / 1000 + 10 * 86_400) * 1000);
    await testPlan(cancelled, { planEndsAt: new Date(Date.now() - 1000) });
    await testPlan(due, { planRenewsAt: new Date(Date.now() - 1000) });
    await testPlan(later, { planRenewsAt: endsAt });

    // The job that ends them runs in this mode too.
    expect(testPlanEnd.runsWith?.(server.app.config) ?? true).toBe(true);
    const told = await connect(server.url, cancelled.token);
    try {
      const changed = waitFor(told, 'account:changed');
      expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { renewed: 0, ended: 2 } });
      await changed;
    } finally {
      told.disconnect();
    }
    for (const user of [cancelled, due]) {
      expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);
      expect((await api.get('/api/users/me/likes/', { token: user.token })).body.results).toEqual([]);
    }
    // Its period not over: it keeps the plan until then, and says it ends then rather than renews.
    expect((await api.get('/api/payments/subscription/', { token: later.token })).body).toMatchObject({
      active: true,
      renews_at: null,
      ends_at: endsAt.toISOString(),
      manageable: false,
    });
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { ended: 0 } });
  });

  it('ends one bought before the plan’s dates were kept at the end of its period counted from its checkout, not never', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    await testPlan(user, {});
    // Its checkout, forty days ago: its first month is over, its second ends a month after the first.
    const startedAt = new Date(Math.floor((Date.now() - 40 * 86_400_000) / 1000) * 1000);
    await server.app.db
      .insert(checkoutSessions)
      .values({ id: `cs_local_${mode}_${user.id}`, userId: user.id, lookupKey: 'basic_monthly', provider: 'local', status: 'complete', createdAt: startedAt });
    const endsAt = monthsLater(startedAt, 2);

    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { dated: 1, ended: 0 } });
    expect((await api.get('/api/payments/subscription/', { token: user.token })).body).toMatchObject({ active: true, renews_at: null, ends_at: endsAt.toISOString() });
    // Dated once: the next run leaves it as it is, until that end has passed.
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { dated: 0, ended: 0 } });
    await server.app.db.update(users).set({ planRenewsAt: new Date(Date.now() - 1000) }).where(eq(users.id, user.id));
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { ended: 1 } });
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);
  });

  it('has nothing to manage in either portal: Stripe is not asked about a customer it never had, and the plan stays', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    await testPlan(user, { planRenewsAt: new Date(Date.now() + 86_400_000) });
    const before = fake.requestsTo('POST', '/v1/billing_portal/sessions').length;
    const portal = await api.post('/api/payments/stripe/create-portal-session/', { token: user.token, json: {} });
    expect([portal.status, portal.body]).toEqual([
      409,
      { detail: 'This plan came from a test checkout: nothing is billed, and it ends on its own at the end of its period.' },
    ]);
    expect(fake.requestsTo('POST', '/v1/billing_portal/sessions')).toHaveLength(before);
    expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);
  });

  it('offers no portal once such a plan has ended: Stripe has nothing of its customer, not even an invoice', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    await testPlan(user, { planEndsAt: new Date(Date.now() - 1000) });
    // It was bought through a checkout, which counts the trial as had.
    await server.app.db.insert(checkoutSessions).values({ id: `cs_local_ended_${mode}_${user.id}`, userId: user.id, lookupKey: 'basic_monthly', provider: 'local', status: 'complete' });
    expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done', report: { ended: 1 } });
    expect((await api.get('/api/payments/subscription/', { token: user.token })).body).toMatchObject({ active: false, manageable: false, trial_days: 0 });
    const before = fake.requestsTo('POST', '/v1/billing_portal/sessions').length;
    const portal = await api.post('/api/payments/stripe/create-portal-session/', { token: user.token, json: {} });
    expect(portal.status).toBe(mode === 'stripe' ? 403 : 404);
    expect(fake.requestsTo('POST', '/v1/billing_portal/sessions')).toHaveLength(before);
  });
});

describe('CHECKOUT_MODE', () => {
  const mode = (env: Record<string, string>) => loadConfig(env).checkoutMode;

  it('is Stripe with a key, the test checkout without, and off in production unless test is named', () => {
    expect(mode({})).toBe('test');
    expect(mode({ STRIPE_SECRET_KEY: 'sk_live_x' })).toBe('stripe');
    expect(mode({ NODE_ENV: 'production' })).toBe('off');
    expect(mode({ NODE_ENV: 'production', STRIPE_SECRET_KEY: 'sk_live_x' })).toBe('stripe');
    expect(mode({ NODE_ENV: 'production', CHECKOUT_MODE: 'test' })).toBe('test');
    expect(mode({ STRIPE_SECRET_KEY: 'sk_live_x', CHECKOUT_MODE: 'off' })).toBe('off');
    expect(mode({ STRIPE_SECRET_KEY: 'sk_live_x', CHECKOUT_MODE: 'test' })).toBe('test');
  });

  it('refuses to start with a mode it cannot run', () => {
    expect(() => mode({ CHECKOUT_MODE: 'stripe' })).toThrow(new ConfigError('CHECKOUT_MODE=stripe needs STRIPE_SECRET_KEY.'));
    expect(() => mode({ CHECKOUT_MODE: 'free' })).toThrow(ConfigError);
  });
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * The job test-plan-end reads `users` every minute in every mode: among many accounts, it reads the
 * few live test plans through their partial index, in a custom plan or a prepared statement's generic
 * one alike (its predicate has no parameter that would keep the planner from proving it).
 */
describe.each(await databaseBackends())('the test-plan job’s read of users, on %s', (backend, available) => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  beforeAll(async () => {
    if (!available) return;
    opened = await openTestDatabase(backend);
    const { db } = opened.database;
    // 20,000 accounts: one in fifty subscribed at Stripe, one in five hundred on a test plan.
    await db.execute(sql`insert into users (email, first_name, last_name, has_subscription, stripe_customer_id, stripe_subscription_id, plan_renews_at)
      select 'plans-' || g || '@example.com', 'P', 'J', g % 50 = 0,
        case when g % 50 = 0 then 'cus_' || g end,
        case when g % 500 = 0 then 'sub_local_' || g when g % 50 = 0 then 'sub_' || g end,
        case when g % 50 = 0 then now() + interval '10 days' end
      from generate_series(1, 20000) g`);
    await db.execute(sql`analyze users`);
  });
  afterAll(() => opened?.close());

  it.skipIf(!available)('reads the live test plans through users_test_plans, not a scan of every account', async () => {
    const query = liveTestPlans(opened!.database.db);
    expect(query.toSQL().params).toEqual([]);
    const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(await opened!.database.db.execute(sql`explain (format json) ${query}`));
    const plan = typeof row!['QUERY PLAN'] === 'string' ? JSON.parse(row!['QUERY PLAN']) : row!['QUERY PLAN'];
    const nodes = nodesOf((plan as Array<{ Plan: PlanNode }>)[0]!.Plan);
    expect(nodes.map((node) => node['Index Name']), JSON.stringify(plan)).toContain('users_test_plans');
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    expect(await query).toHaveLength(40);
  });
});
