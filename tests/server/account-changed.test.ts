/**
 * `account:changed`: the user's own sockets hear it once their plan, their e-mail's confirmation or
 * their language has changed and committed (the local test checkout and portal, Stripe's webhook, the
 * e-mail link, a Google sign-in that vouches for the address, the app's language switch, a new
 * verification link asked for in another language), so that their other phones and tabs read them again.
 * Nobody else hears it, and an event that changed nothing tells no one.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../server/db/schema';
import type { CurrentUser } from '../../shared/schemas/users';
import { type FakeGoogle, startFakeGoogle } from '../fakes/google';
import { completedCheckout, deliverStripeEvent, type FakeStripe, startFakeStripe, startStripeCheckout, stripeConfigFor, stripeEvent, TEST_STRIPE } from '../fakes/stripe';
import { makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { linkToken, startSmtpServer, type TestSmtpServer } from '../helpers/mail';
import { cancelThroughTestPortal, endCancelledTestPlan, subscribeThroughTestCheckout } from '../helpers/plan';
import { backends, serverPerSuite, startTwoInstances, type TestServer, type TwoInstances } from '../helpers/server';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';
import { type ClientSocket, connect, record, socketsClosedAfterEach, waitFor, waitForDisconnect } from '../helpers/socket';

const CLIENT_ID = 'eventmatch-test.apps.googleusercontent.com';

/**
 * The next `account:changed` on this socket, and the user as `GET /api/users/me/` answers the moment it
 * arrives, as the app asks: the change has committed by then.
 */
const nextChange = (server: TestServer, socket: ClientSocket, token: string) =>
  waitFor(socket, 'account:changed').then(async () => (await client(server.url).get<CurrentUser>('/api/users/me/', { token })).body);

const changesIn = (events: Array<{ event: string }>) => events.filter(({ event }) => event === 'account:changed').length;

describe.each(backends)('account:changed from the test checkout, the e-mail link and Google, on %s', (backend) => {
  let smtp: TestSmtpServer;
  let google: FakeGoogle;
  const sockets = socketsClosedAfterEach();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    google = await startFakeGoogle({ clientId: CLIENT_ID });
  });
  afterAll(async () => {
    await smtp?.close();
    await google?.close();
  });
  const server = serverPerSuite(() => ({
    backend,
    config: {
      mail: { smtpUrl: smtp.url, from: 'Eventmatch <no-reply@eventmatch.test>' },
      google: { clientId: CLIENT_ID, userInfoUrl: google.userInfoUrl, tokenInfoUrl: google.tokenInfoUrl },
    },
  }));

  const socketOf = (user: { token: string }) => sockets.connect(server.url, user.token);

  it('tells every socket of the buyer when the test checkout completes, the test portal cancels and the plan ends; no one else', async () => {
    const me = await makeUser(server);
    const other = await makeUser(server);
    const phone = await socketOf(me);
    const laptop = await socketOf(me);
    const bystander = await socketOf(other);
    const heardByPhone = record(phone);
    const heardByOther = record(bystander);

    const bought = Promise.all([phone, laptop].map((socket) => nextChange(server, socket, me.token)));
    await subscribeThroughTestCheckout(server, me);
    expect((await bought).map((user) => user.has_subscription)).toEqual([true, true]);

    // Cancelled at the period's end: the plan stays, and its end date is read again.
    const canceled = nextChange(server, phone, me.token);
    await cancelThroughTestPortal(server, me);
    expect((await canceled).has_subscription).toBe(true);
    // The period over, the job ends the plan, and says so to every socket of the user's.
    const ended = Promise.all([phone, laptop].map((socket) => nextChange(server, socket, me.token)));
    await endCancelledTestPlan(server, me);
    expect((await ended).map((user) => user.has_subscription)).toEqual([false, false]);
    expect(changesIn(heardByPhone)).toBe(3);

    // The other user's own purchase is the first `account:changed` their socket hears: none of mine reached it.
    const theirs = waitFor(bystander, 'account:changed');
    await subscribeThroughTestCheckout(server, other);
    await theirs;
    expect(changesIn(heardByOther)).toBe(1);
    expect(changesIn(heardByPhone)).toBe(3);
  });

  it('a second "Complete" of the same test checkout changes nothing and tells no one', async () => {
    const me = await makeUser(server);
    const socket = await socketOf(me);
    const heard = record(socket);
    const api = client(server.url);
    const started = await api.post('/api/payments/stripe/create-checkout-session/', {
      token: me.token,
      json: { lookup_key: server.config.stripe.lookupKeys.monthly },
    });
    const sessionId = String(started.body.url).split('/').pop()!;
    const bought = nextChange(server, socket, me.token);
    expect((await api.post(`/api/payments/test-checkout/${sessionId}/complete/`, { token: me.token })).status).toBe(200);
    expect((await bought).has_subscription).toBe(true);
    expect((await api.post(`/api/payments/test-checkout/${sessionId}/complete/`, { token: me.token })).status).toBe(200);

    // The next change is the second one heard: the repeated click told nothing before it.
    const ended = nextChange(server, socket, me.token);
    await cancelThroughTestPortal(server, me);
    await ended;
    expect(changesIn(heard)).toBe(2);
  });

  it('tells the user’s sockets when the e-mail link verifies their address, and no one else', async () => {
    const me = await makeUser(server);
    const other = await makeUser(server);
    const token = linkToken(await smtp.nextMailTo(me.email), '/verify-email');
    const socket = await socketOf(me);
    const bystander = await socketOf(other);
    const heardByOther = record(bystander);

    const verified = nextChange(server, socket, me.token);
    expect((await client(server.url).post('/api/auth/verify-email/', { json: { token } })).status).toBe(200);
    expect((await verified).email_verified).toBe(true);

    const theirs = waitFor(bystander, 'account:changed');
    const otherToken = linkToken(await smtp.nextMailTo(other.email), '/verify-email');
    expect((await client(server.url).post('/api/auth/verify-email/', { json: { token: otherToken } })).status).toBe(200);
    await theirs;
    expect(changesIn(heardByOther)).toBe(1);
  });

  it('tells the user’s sockets when the app’s switch changes the account’s language, not for the language it has', async () => {
    const me = await makeUser(server);
    const phone = await socketOf(me);
    const heard = record(phone);
    const switchTo = (language: string) => client(server.url).put('/api/users/me/language/', { token: me.token, json: { language } });

    // Spanish, the account's already: nothing to read again.
    expect((await switchTo('es')).status).toBe(204);
    const switched = nextChange(server, phone, me.token);
    expect((await switchTo('en')).status).toBe(204);
    expect((await switched).language).toBe('en');
    expect(changesIn(heard)).toBe(1);
  });

  it('tells the user’s sockets when a new verification link asked for in another language changes the account’s', async () => {
    const me = await makeUser(server);
    await smtp.nextMailTo(me.email);
    const phone = await socketOf(me);
    const heard = record(phone);
    const resendIn = async (language: string) => {
      expect((await client(server.url).post('/api/auth/verify-email/resend/', { token: me.token, headers: { 'accept-language': language } })).status).toBe(202);
      await smtp.nextMailTo(me.email);
    };

    // Asked for from a Spanish app, the account's language already: nothing to read again.
    await resendIn('es');
    // Asked for from a laptop switched to English: the phone reads the account, English now, again.
    const switched = nextChange(server, phone, me.token);
    await resendIn('en');
    expect((await switched).language).toBe('en');
    expect(changesIn(heard)).toBe(1);
  });

  it('a first password set in another language ends the user’s other sessions: none is left in the old language', async () => {
    const account = { sub: `2${Date.now()}`, email: `google-first-${Date.now()}@example.com`, email_verified: true };
    const signedIn = await client(server.url).post('/api/auth/google/login/', { json: { access_token: google.issue(account) } });
    expect(signedIn.status).toBe(200);
    const phone = await socketOf({ token: signedIn.body.token });
    const dropped = waitForDisconnect(phone);

    expect((await client(server.url).post('/api/auth/password-reset/', { json: { email: account.email } })).status).toBe(202);
    const token = linkToken(await smtp.nextMailTo(account.email), '/reset-password');
    const password = `Quiet-Harbour-${Date.now()}`;
    const set = await client(server.url).post('/api/auth/password-reset/confirm/', {
      json: { token, password, password2: password },
      headers: { 'accept-language': 'en' },
    });
    expect(set.status).toBe(200);
    await dropped;
    // The phone signs in again and reads the account's language as it is now.
    expect((await client(server.url).get<CurrentUser>('/api/users/me/', { token: set.body.token })).body.language).toBe('en');
  });

  it('tells the user’s sockets when a Google sign-in verifies the address of their account, not when it was verified already', async () => {
    const account = { sub: `1${Date.now()}`, email: `google-${Date.now()}@example.com`, email_verified: true };
    const googleLogin = () => client(server.url).post('/api/auth/google/login/', { json: { access_token: google.issue(account) } });
    const first = await googleLogin();
    expect(first.status).toBe(200);
    const user: Pick<TestUser, 'token'> = { token: first.body.token };
    const socket = await socketOf(user);
    const heard = record(socket);
    // An address not verified (yet), on the account Google signs in to: what that sign-in is for.
    const unverify = () => server.app.db.update(users).set({ emailVerifiedAt: null }).where(eq(users.email, account.email));

    await unverify();
    const verified = nextChange(server, socket, user.token);
    expect((await googleLogin()).status).toBe(200);
    expect((await verified).email_verified).toBe(true);

    // Verified already: nothing changes, nothing is told (the next change heard is only the second).
    expect((await googleLogin()).status).toBe(200);
    await unverify();
    const again = nextChange(server, socket, user.token);
    expect((await googleLogin()).status).toBe(200);
    await again;
    expect(changesIn(heard)).toBe(2);
  });
});

describe.each(backends)('account:changed from Stripe’s webhook, on %s', (backend) => {
  let fake: FakeStripe;
  const sockets = socketsClosedAfterEach();

  beforeAll(async () => {
    fake = await startFakeStripe(TEST_STRIPE);
  });
  afterAll(() => fake?.close());
  const server = serverPerSuite(() => ({ backend, config: { stripe: stripeConfigFor(fake) } }));

  const deliver = async (event: unknown) => expect((await deliverStripeEvent(server, event, TEST_STRIPE.webhookSecret)).status).toBe(200);

  const socketOf = (user: TestUser) => sockets.connect(server.url, user.token);

  /** A completed Stripe checkout of `user`'s, on Stripe's side; answers the completion to deliver. */
  async function paidCheckout(user: TestUser, subscription: string) {
    const { customer, sessionId } = await startStripeCheckout(server, user);
    fake.subscriptions.set(subscription, { customer, status: 'trialing' });
    return { customer, completed: completedCheckout({ user, customer, sessionId }, subscription) };
  }

  it('tells the user’s sockets when an event changes their plan; not for a redelivery, nor an event that changes nothing', async () => {
    const me = await makeUser(server);
    const other = await makeUser(server);
    const socket = await socketOf(me);
    const bystander = await socketOf(other);
    const heard = record(socket);
    const heardByOther = record(bystander);
    const subscription = `sub_told_${me.id}`;
    const { customer, completed } = await paidCheckout(me, subscription);

    const started = nextChange(server, socket, me.token);
    await deliver(completed);
    expect((await started).has_subscription).toBe(true);

    // Stripe delivers the same event again: a duplicate.
    await deliver(completed);
    // An old subscription of theirs ends: not the current one, so nothing changes.
    await deliver(stripeEvent('customer.subscription.deleted', { id: `sub_old_${me.id}`, object: 'subscription', customer, status: 'canceled' }));

    fake.subscriptions.set(subscription, { customer, status: 'canceled' });
    const ended = nextChange(server, socket, me.token);
    await deliver(stripeEvent('customer.subscription.deleted', { id: subscription, object: 'subscription', customer, status: 'canceled' }));
    expect((await ended).has_subscription).toBe(false);
    // Two changes, two events: the redelivery and the old subscription's end told nothing in between.
    expect(changesIn(heard)).toBe(2);

    // The other user's own purchase is the first `account:changed` their socket hears.
    const theirs = waitFor(bystander, 'account:changed');
    await deliver((await paidCheckout(other, `sub_other_${other.id}`)).completed);
    await theirs;
    expect(changesIn(heardByOther)).toBe(1);
  });
});

const clustered = (await hasPostgres()) && (await hasRedis());

describe.skipIf(!clustered)('account:changed across two instances over Redis', () => {
  let cluster: TwoInstances;
  const sockets = socketsClosedAfterEach();

  beforeAll(async () => {
    cluster = await startTwoInstances({ redisUrl: REDIS_URL });
  });
  afterAll(() => cluster?.close());

  it('a plan bought through one instance reaches the user’s socket on the other', async () => {
    const me = await makeUser(cluster.one);
    const socket = await sockets.connect(cluster.two.url, me.token);
    const bought = nextChange(cluster.two, socket, me.token);
    await subscribeThroughTestCheckout(cluster.one, me);
    expect((await bought).has_subscription).toBe(true);
  });
});
