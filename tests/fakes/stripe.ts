/**
 * A small local fake of the parts of Stripe's HTTP API the server calls, for the real `stripe`
 * SDK pointed at it through STRIPE_API_BASE. It checks the API key, records every request so that
 * tests can assert the parameters, and answers in Stripe's shapes (lists, objects, error envelope).
 */
import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { expect } from 'vitest';
import { FREE_TRIAL_DAYS } from '../../shared/constants';
import type { Config } from '../../server/config';
import { users } from '../../server/db/schema';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';
import { type FakeServer, type RecordedRequest, startFakeServer } from './http';

export interface FakeStripe extends FakeServer {
  secretKey: string;
  /** lookup_key → price id; tests may add or remove prices. */
  prices: Map<string, string>;
  /** lookup_key → what the price charges (by default what the app shows: `TEST_STRIPE.charges`); tests may change it. */
  charges: Map<string, FakeCharge>;
  /**
   * Subscriptions as Stripe holds them now, by id (customer and status; tests may add `items`, the
   * trial's end and a cancellation), as `GET /v1/subscriptions/:id` and `GET /v1/subscriptions?customer=`
   * answer them. Tests set them.
   */
  subscriptions: Map<string, FakeSubscription>;
  /** Checkout sessions created so far, by id (`status` open, complete or expired). */
  sessions: Map<string, Record<string, unknown>>;
  /**
   * Customers as Stripe holds them, by id: those the server created, and any a test adds (another
   * product's on the same account). A deleted one stays, marked, as Stripe keeps it.
   */
  customers: Map<string, FakeCustomer>;
  /**
   * The buyer pays an open checkout session on Stripe's page: Stripe starts its subscription (status
   * `trialing` by default) and answers the events it would send, to deliver. Null when Stripe would
   * refuse the payment: a session no longer open (expired, complete), or its customer deleted.
   */
  payCheckout(sessionId: string, options?: { subscription?: string; status?: string }): PaidCheckout | null;
  /** Customer portal sessions created so far, by id. */
  portalSessions: Map<string, Record<string, unknown>>;
  requestsTo(method: string, path: string): RecordedRequest[];
  /** While true, every call answers Stripe's 500 with `Stripe-Should-Retry: false` (no SDK retries). */
  outage: boolean;
  /**
   * Whether the account has saved its customer portal settings (true by default). Until it has, Stripe
   * refuses every portal session with a 400 that says to save them in its dashboard.
   */
  portalConfigured: boolean;
  /**
   * Holds back the answers to `GET /v1/subscriptions/:id` until `release()`: each is made as Stripe's
   * state is when the call arrives, and is still on its way while the test changes that state and
   * delivers other events. `reading` settles when the first held call has arrived.
   */
  holdSubscriptionReads(): { reading: Promise<void>; release(): void };
  /** As `holdSubscriptionReads`, for `GET /v1/customers/:id`: a Stripe that is slow to answer. */
  holdCustomerReads(): { reading: Promise<void>; release(): void };
  /**
   * Holds back the answers to `POST /v1/checkout/sessions` until `count` of them have arrived: that
   * many checkouts started at the same instant have each read what they read before it.
   */
  holdCheckoutCreates(count: number): void;
}

export interface FakeSubscription {
  customer: string;
  status: string;
  items?: unknown;
  /** Seconds since the epoch, as Stripe gives them. */
  trial_end?: number | null;
  cancel_at?: number | null;
  cancel_at_period_end?: boolean;
  metadata?: Record<string, string>;
}

/** What one payment of a price charges, as Stripe's price says it. */
export interface FakeCharge {
  currency: string;
  /** In the currency's smallest unit (cents). */
  unit_amount: number;
  recurring: { interval: 'day' | 'week' | 'month' | 'year'; interval_count: number };
}

export interface FakeCustomer {
  email: string | null;
  name: string | null;
  metadata: Record<string, string>;
  /** The languages Stripe writes the customer's e-mails, receipts and invoices in. */
  preferred_locales: string[];
  deleted?: true;
}

export interface PaidCheckout {
  subscription: string;
  /** `customer.subscription.created`, then `checkout.session.completed`, as Stripe sends them. */
  events: ReturnType<typeof stripeEvent>[];
}

/** The key, webhook secret and prices the tests' fake Stripe and server share. */
export const TEST_STRIPE = {
  secretKey: 'sk_test_fake_eventmatch',
  webhookSecret: 'whsec_test_eventmatch',
  prices: { basic_monthly: 'price_monthly_1', basic_yearly: 'price_yearly_1' },
  /** What the app shows: 15 US$ a month, or 120 US$ a year. */
  charges: {
    basic_monthly: { currency: 'usd', unit_amount: 1500, recurring: { interval: 'month', interval_count: 1 } },
    basic_yearly: { currency: 'usd', unit_amount: 12000, recurring: { interval: 'year', interval_count: 1 } },
  } as Record<string, FakeCharge>,
} as const;

/** The server's Stripe settings for the real SDK pointed at this fake. */
export const stripeConfigFor = (fake: FakeStripe): Config['stripe'] => ({
  secretKey: fake.secretKey,
  webhookSecret: TEST_STRIPE.webhookSecret,
  apiBase: fake.url,
  lookupKeys: { monthly: 'basic_monthly', yearly: 'basic_yearly' },
});

const stripeError = (status: number, message: string, type = 'invalid_request_error') => ({
  status,
  body: { error: { type, message } },
});

/** Stripe's refusal of a call naming a customer it does not have, or has deleted: `resource_missing` on `customer`. */
const noSuchCustomer = (id: string) => ({
  status: 400,
  body: { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'customer', message: `No such customer: '${id}'` } },
});

/** `preferred_locales[0]`, `preferred_locales[1]`… of a form, in order (an empty string clears them). */
function localesIn(form: Record<string, string>): string[] {
  return Object.entries(form)
    .filter(([field, value]) => /^preferred_locales\[\d+\]$/.test(field) && value !== '')
    .sort(([a], [b]) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]))
    .map(([, value]) => value);
}

/**
 * One kind of read held back while a test wants it (`hold`): each read waits at `pass` until
 * `release()`; `reading` settles when the first held one has arrived.
 */
function heldReads() {
  let held: { arrived(): void; released: Promise<void> } | null = null;
  return {
    async pass() {
      if (!held) return;
      held.arrived();
      await held.released;
    },
    hold() {
      let arrived = () => {};
      let release = () => {};
      const reading = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      held = { arrived, released };
      return {
        reading,
        release() {
          held = null;
          release();
        },
      };
    },
  };
}

export async function startFakeStripe(options: {
  secretKey: string;
  prices: Record<string, string>;
  charges?: Record<string, FakeCharge>;
}): Promise<FakeStripe> {
  const prices = new Map(Object.entries(options.prices));
  const charges = new Map(Object.entries(options.charges ?? {}));
  const sessions = new Map<string, Record<string, unknown>>();
  const portalSessions = new Map<string, Record<string, unknown>>();
  const subscriptions = new Map<string, FakeSubscription>();
  const customers = new Map<string, FakeCustomer>();
  let counter = 0;
  const nextId = (prefix: string) => `${prefix}_fake${(++counter).toString().padStart(6, '0')}`;

  const state = { outage: false, portalConfigured: true };
  const subscriptionReads = heldReads();
  const customerReads = heldReads();
  let createsHeld: { waiting: number; all: Promise<void>; arrived(): void } | null = null;
  const server = await startFakeServer(async (request) => {
    if (state.outage) return { ...stripeError(500, 'An unknown error occurred.', 'api_error'), headers: { 'stripe-should-retry': 'false' } };
    if (request.headers.authorization !== `Bearer ${options.secretKey}`) {
      return stripeError(401, 'Invalid API Key provided.', 'authentication_error');
    }

    if (request.method === 'GET' && request.path === '/v1/prices') {
      const keys = Object.entries(request.query)
        .filter(([name]) => /^lookup_keys\[\d+\]$/.test(name))
        .map(([, value]) => value);
      const data = keys
        .filter((key) => prices.has(key))
        .map((key) => ({ id: prices.get(key), object: 'price', active: true, lookup_key: key, type: 'recurring', ...charges.get(key) }));
      return { status: 200, body: { object: 'list', url: '/v1/prices', has_more: false, data } };
    }

    if (request.method === 'POST' && request.path === '/v1/customers') {
      const { email, name } = request.form;
      const metadata = Object.fromEntries(
        Object.entries(request.form).flatMap(([field, value]) => {
          const key = /^metadata\[(.+)\]$/.exec(field)?.[1];
          return key ? [[key, value]] : [];
        }),
      );
      const id = nextId('cus');
      customers.set(id, { email: email ?? null, name: name ?? null, metadata, preferred_locales: localesIn(request.form) });
      return { status: 200, body: { id, object: 'customer', ...customers.get(id) } };
    }

    // A deleted customer can still be read, as Stripe keeps it: its id and `deleted`, nothing else.
    const customerPath = /^\/v1\/customers\/([^/]+)$/.exec(request.path);
    // An update (here, of its languages): a deleted customer can no longer be changed.
    if (customerPath && request.method === 'POST') {
      const id = decodeURIComponent(customerPath[1]!);
      const customer = customers.get(id);
      if (!customer || customer.deleted) return noSuchCustomer(id);
      if (Object.keys(request.form).some((field) => field.startsWith('preferred_locales'))) customer.preferred_locales = localesIn(request.form);
      return { status: 200, body: { id, object: 'customer', ...customer } };
    }
    if (customerPath && (request.method === 'GET' || request.method === 'DELETE')) {
      const id = decodeURIComponent(customerPath[1]!);
      const customer = customers.get(id);
      if (!customer || (customer.deleted && request.method === 'DELETE')) return stripeError(404, `No such customer: '${id}'`);
      if (request.method === 'GET') {
        await customerReads.pass();
        return { status: 200, body: customer.deleted ? { id, object: 'customer', deleted: true } : { id, object: 'customer', ...customer } };
      }
      // Deleting a customer cancels each of its subscriptions at once.
      customer.deleted = true;
      for (const subscription of subscriptions.values()) {
        if (subscription.customer === id && subscription.status !== 'canceled') subscription.status = 'canceled';
      }
      return { status: 200, body: { id, object: 'customer', deleted: true } };
    }

    if (request.method === 'POST' && request.path === '/v1/checkout/sessions') {
      const form = request.form;
      const price = form['line_items[0][price]'];
      if (!price || ![...prices.values()].includes(price)) return stripeError(400, `No such price: '${price}'`);
      if (!form.success_url || !form.cancel_url) return stripeError(400, 'Missing success_url or cancel_url.');
      // A deleted customer can be read, but nothing new starts on it.
      if (form.customer && customers.get(form.customer)?.deleted) return noSuchCustomer(form.customer);
      const id = nextId('cs_test');
      const session = {
        id,
        object: 'checkout.session',
        mode: form.mode,
        status: 'open',
        customer: form.customer ?? null,
        client_reference_id: form.client_reference_id ?? null,
        success_url: form.success_url,
        cancel_url: form.cancel_url,
        url: `https://checkout.stripe.test/c/pay/${id}`,
      };
      sessions.set(id, session);
      if (createsHeld) {
        const gate = createsHeld;
        gate.arrived();
        await gate.all;
      }
      return { status: 200, body: session };
    }

    const sessionPath = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(request.path);
    if (request.method === 'GET' && sessionPath) {
      const id = decodeURIComponent(sessionPath[1]!);
      const session = sessions.get(id);
      return session ? { status: 200, body: session } : stripeError(404, `No such checkout.session: '${id}'`);
    }

    // Only an open session can be expired; once expired, it cannot be paid.
    const expirePath = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(request.path);
    if (request.method === 'POST' && expirePath) {
      const id = decodeURIComponent(expirePath[1]!);
      const session = sessions.get(id);
      if (!session) return stripeError(404, `No such checkout.session: '${id}'`);
      if (session.status !== 'open') return stripeError(400, 'Only Checkout Sessions with a status in ["open"] can be expired.');
      session.status = 'expired';
      return { status: 200, body: session };
    }

    // The customer portal: a one-time address for one customer's billing, returning to `return_url`.
    if (request.method === 'POST' && request.path === '/v1/billing_portal/sessions') {
      const { customer, return_url: returnUrl } = request.form;
      if (!customer) return stripeError(400, 'Missing required param: customer.');
      if (customers.get(customer)?.deleted) return noSuchCustomer(customer);
      if (!state.portalConfigured) {
        return stripeError(
          400,
          'No configuration provided and your test mode default configuration has not been created. Provide a configuration or create your default by saving your customer portal settings in test mode at https://dashboard.stripe.com/test/settings/billing/portal.',
        );
      }
      const id = nextId('bps');
      const session = {
        id,
        object: 'billing_portal.session',
        customer,
        return_url: returnUrl ?? null,
        url: `https://billing.stripe.test/p/session/${id}`,
      };
      portalSessions.set(id, session);
      return { status: 200, body: session };
    }

    // A customer's subscriptions: without `status`, the ones not canceled; `status=all`, every one Stripe keeps.
    if (request.method === 'GET' && request.path === '/v1/subscriptions') {
      const { customer, status } = request.query;
      const data = [...subscriptions]
        .filter(([, s]) => (!customer || s.customer === customer) && (status === 'all' || (status ? s.status === status : s.status !== 'canceled')))
        .slice(0, Number(request.query.limit ?? 10))
        .map(([id, s]) => ({ id, object: 'subscription', items: { object: 'list', data: [] }, ...s }));
      return { status: 200, body: { object: 'list', url: '/v1/subscriptions', has_more: false, data } };
    }

    const subscriptionPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(request.path);
    if (request.method === 'GET' && subscriptionPath) {
      const id = decodeURIComponent(subscriptionPath[1]!);
      const subscription = subscriptions.get(id);
      const answer = subscription
        ? { status: 200, body: { id, object: 'subscription', items: { object: 'list', data: [] }, ...subscription } }
        : stripeError(404, `No such subscription: '${id}'`);
      await subscriptionReads.pass();
      return answer;
    }

    // An update: only whether it ends at the end of its period is read here.
    if (request.method === 'POST' && subscriptionPath) {
      const id = decodeURIComponent(subscriptionPath[1]!);
      const subscription = subscriptions.get(id);
      if (!subscription) return stripeError(404, `No such subscription: '${id}'`);
      if (subscription.status === 'canceled') {
        return stripeError(400, 'A canceled subscription can only update its cancellation_details and metadata.');
      }
      const cancelAtPeriodEnd = request.form.cancel_at_period_end;
      if (cancelAtPeriodEnd !== undefined) subscription.cancel_at_period_end = cancelAtPeriodEnd === 'true';
      // Metadata is merged key by key; an empty value removes its key, as Stripe does.
      for (const [field, value] of Object.entries(request.form)) {
        const key = /^metadata\[(.+)\]$/.exec(field)?.[1];
        if (!key) continue;
        const { [key]: _old, ...rest } = subscription.metadata ?? {};
        subscription.metadata = value === '' ? rest : { ...rest, [key]: value };
      }
      return { status: 200, body: { id, object: 'subscription', items: { object: 'list', data: [] }, ...subscription } };
    }

    // Cancel at once, as Stripe does: the subscription stays readable with status "canceled".
    if (request.method === 'DELETE' && subscriptionPath) {
      const id = decodeURIComponent(subscriptionPath[1]!);
      const subscription = subscriptions.get(id);
      if (!subscription) return stripeError(404, `No such subscription: '${id}'`);
      if (subscription.status === 'canceled') {
        return stripeError(400, 'A canceled subscription can only update its cancellation_details and metadata.');
      }
      subscription.status = 'canceled';
      return { status: 200, body: { id, object: 'subscription', ...subscription, canceled_at: Math.floor(Date.now() / 1000) } };
    }

    return stripeError(404, `Unrecognized request URL (${request.method}: ${request.path}).`);
  });

  return {
    ...server,
    secretKey: options.secretKey,
    prices,
    charges,
    sessions,
    portalSessions,
    subscriptions,
    customers,
    payCheckout(sessionId, { subscription = nextId('sub'), status = 'trialing' } = {}) {
      const session = sessions.get(sessionId);
      const customer = typeof session?.customer === 'string' ? session.customer : null;
      if (!session || session.status !== 'open' || !customer || customers.get(customer)?.deleted) return null;
      // The trial the server asks for (FREE_TRIAL_DAYS); its end is the end of the first period too.
      const trialEnd = Math.floor(Date.now() / 1000) + FREE_TRIAL_DAYS * 86_400;
      const item = { object: 'subscription_item', price: { lookup_key: null }, current_period_end: trialEnd };
      subscriptions.set(subscription, {
        customer,
        status,
        items: { object: 'list', data: [item] },
        trial_end: status === 'trialing' ? trialEnd : null,
        cancel_at: null,
        cancel_at_period_end: false,
      });
      Object.assign(session, { status: 'complete', subscription });
      return {
        subscription,
        events: [
          stripeEvent('customer.subscription.created', { id: subscription, object: 'subscription', customer, status }),
          stripeEvent('checkout.session.completed', { ...session }),
        ],
      };
    },
    requestsTo: (method, path) => server.requests.filter((r) => r.method === method && r.path === path),
    get outage() {
      return state.outage;
    },
    set outage(value: boolean) {
      state.outage = value;
    },
    get portalConfigured() {
      return state.portalConfigured;
    },
    set portalConfigured(value: boolean) {
      state.portalConfigured = value;
    },
    holdCheckoutCreates(count) {
      let open = () => {};
      const all = new Promise<void>((resolve) => (open = resolve));
      const gate = {
        waiting: count,
        all,
        arrived() {
          gate.waiting -= 1;
          if (gate.waiting > 0) return;
          createsHeld = null;
          open();
        },
      };
      createsHeld = gate;
    },
    holdSubscriptionReads: subscriptionReads.hold,
    holdCustomerReads: customerReads.hold,
  };
}

let eventCounter = 0;

/** A Stripe event as Stripe would send it, with its id; sign it with `signEvent`. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_test_${Date.now()}_${++eventCounter}`) {
  return {
    id,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  };
}

/** Stripe's `checkout.session.completed` for a checkout a user started here (`startStripeCheckout`), as Stripe sends it. */
export const completedCheckout = (checkout: { user: { id: number }; customer: string; sessionId: string }, subscription: string) =>
  stripeEvent('checkout.session.completed', {
    id: checkout.sessionId,
    object: 'checkout.session',
    mode: 'subscription',
    client_reference_id: String(checkout.user.id),
    customer: checkout.customer,
    subscription,
  });

/** The raw body and the `Stripe-Signature` header for it, made by the SDK's own test helper. */
export function signEvent(event: unknown, secret: string) {
  const payload = JSON.stringify(event);
  return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
}

/** Delivers a signed Stripe event to the server's webhook, as Stripe would. */
export function deliverStripeEvent(server: { url: string }, event: unknown, secret: string) {
  const { payload, signature } = signEvent(event, secret);
  return client(server.url).post('/api/payments/stripe/webhook/', {
    body: payload,
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
  });
}

/** The user starts the JSON checkout (so that they get a Stripe customer); answers the customer and session ids. */
export async function startStripeCheckout(server: TestServer, user: { id: number; token: string }) {
  const response = await client(server.url).post('/api/payments/stripe/create-checkout-session/', {
    token: user.token,
    json: { lookup_key: 'basic_monthly' },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const sessionId = String(response.body.url).split('/').pop()!;
  const [row] = await server.app.db.select({ customer: users.stripeCustomerId }).from(users).where(eq(users.id, user.id));
  return { customer: row!.customer!, sessionId };
}
