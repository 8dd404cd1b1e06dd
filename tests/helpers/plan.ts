import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { users } from '../../server/db/schema';
import { runJob } from '../../server/jobs';
import { testPlanEnd } from '../../server/jobs/test-plan-end';
import type { FakeStripe } from '../fakes/stripe';
import { client } from './http';
import type { TestServer } from './server';

/**
 * Someone who bought the plan at Stripe (the fake) while the server sold through it, before the operator
 * switched to the test checkout or off: a customer and an active subscription there, and on the account.
 */
export async function boughtAtStripeBefore(server: TestServer, stripe: FakeStripe, user: { id: number; email: string }, customer: string, subscription: string) {
  stripe.customers.set(customer, { email: user.email, name: null, metadata: { user_id: String(user.id), app: 'eventmatch' }, preferred_locales: ['es'] });
  stripe.subscriptions.set(subscription, { customer, status: 'active' });
  await server.app.db
    .update(users)
    .set({ hasSubscription: true, stripeCustomerId: customer, stripeSubscriptionId: subscription, planStatus: 'active' })
    .where(eq(users.id, user.id));
}

/**
 * Subscribes `user` the way a person does on a server without a Stripe key: the JSON checkout, then
 * "Complete" on the local test checkout, whose event goes through the webhook's own handler.
 */
export async function subscribeThroughTestCheckout(
  server: TestServer,
  user: { token: string },
  period: 'monthly' | 'yearly' = 'monthly',
) {
  const api = client(server.url);
  const started = await api.post('/api/payments/stripe/create-checkout-session/', {
    token: user.token,
    json: { lookup_key: server.config.stripe.lookupKeys[period] },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  // The app's test checkout page for this session; only this signed-in account can complete it.
  const sessionId = String(started.body.url).split('/').pop()!;
  const completed = await api.post(`/api/payments/test-checkout/${sessionId}/complete/`, { token: user.token });
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);
  expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);
}

/**
 * Cancels through the local test portal ("Manage subscription" without Stripe), as Stripe's portal
 * cancels: the plan stays, with the date it ends on, until its period is over (`endCancelledTestPlan`).
 */
export async function cancelThroughTestPortal(server: TestServer, user: { token: string }) {
  const api = client(server.url);
  const portal = await api.post('/api/payments/stripe/create-portal-session/', { token: user.token, json: {} });
  expect(portal.status, JSON.stringify(portal.body)).toBe(200);
  expect(portal.body.url).toBe(`${server.publicUrl}/app/subscribe/test-portal/`);
  const canceled = await api.post('/api/payments/test-portal/cancel/', { token: user.token, json: {} });
  expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
  // Back to the subscribe page, which says when the plan ends.
  expect(canceled.body.url).toBe(`${server.publicUrl}/app/subscribe/`);
  expect((await api.get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);
  // It renews no more; the date it ends on is shown while it is ahead.
  const plan = (await api.get('/api/payments/subscription/', { token: user.token })).body as { ends_at: string | null };
  expect(plan).toMatchObject({ active: true, renews_at: null });
  return plan;
}

/**
 * The cancelled test plan's period passes (its end moved to a moment ago), and the job that ends such
 * plans runs, as it does every minute: the plan has ended.
 */
export async function endCancelledTestPlan(server: TestServer, user: { id: number; token: string }) {
  await server.app.db.update(users).set({ planEndsAt: new Date(Date.now() - 1000) }).where(eq(users.id, user.id));
  expect(await runJob(server.app, testPlanEnd)).toMatchObject({ status: 'done' });
  expect((await client(server.url).get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(false);
}

/** Cancels through the test portal and lets the period pass: the plan has ended. */
export async function endThroughTestPortal(server: TestServer, user: { id: number; token: string }) {
  await cancelThroughTestPortal(server, user);
  await endCancelledTestPlan(server, user);
}
