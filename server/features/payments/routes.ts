import type { FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import Stripe from 'stripe';
import { serverText } from '../../../shared/i18n/server-messages';
import { NoBody } from '../../../shared/schemas/common';
import { ErrorDetail } from '../../../shared/schemas/errors';
import {
  CheckoutOutcome,
  CheckoutParams,
  CheckoutResponse,
  checkoutInputFor,
  StripeEvent,
  TestCheckout,
  TestCheckoutParams,
  WebhookHeaders,
  WebhookResponse,
} from '../../../shared/schemas/payments';
import type { Config } from '../../config';
import { NotAuthenticated, NotFound, ValidationError } from '../../errors';
import { requestLanguage } from '../../lib/language';
import { currentUser, personOrAddressLimit } from '../../plugins/auth';
import { createCheckout, findCheckoutUserById, localCheckoutTrialDays, type Payments, subscribeUrl } from './checkout';
import { cancelLocalCheckout, completeLocalCheckout, findLocalCheckout } from './local-checkout';
import { type EventOrigin, type EventResult, handleStripeEvent, stripeSubscriptionSource } from './webhook';
import { PortalResponse, SubscriptionState } from '../../../shared/schemas/plan';
import { documentedBody, noBody, withoutToken } from '../../plugins/api-docs';
import { cancelLocalSubscription, checkoutOutcome, followBan, openPortal, subscriptionState } from './subscription';

export const INVALID_SIGNATURE = 'Invalid Stripe signature.';
export const WEBHOOK_NOT_CONFIGURED = 'Stripe webhooks are not configured on this server.';
export const PAYMENTS_NOT_CONFIGURED = serverText('payments_not_configured');

const isFormPost = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');

const paymentRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const mode = config.checkoutMode;
  const payments: Payments = {
    mode,
    // Sold through only in Stripe's mode: the test checkout stands in otherwise, even with a key set.
    stripe: mode === 'stripe' ? app.stripe : null,
    stripeBilling: app.stripe,
    plans: config.stripe.lookupKeys,
  };
  const webhookEvents: EventOrigin = {
    provider: 'stripe',
    // Stripe's own events, in any mode: read fresh there whenever a key is set (a plan bought before a switch).
    latest: app.stripe ? stripeSubscriptionSource(app.stripe) : null,
  };

  /**
   * Checkout's limit: per person signed in, per address otherwise (a plain form post, answered with the
   * subscribe page) or when its token is no good (answered 401).
   */
  const checkoutLimit = personOrAddressLimit(app, 'checkout', 'checkout:ip');

  /** An event changed someone's plan, and has committed: their other phones and tabs read them again. */
  const tellOwner = ({ userId }: EventResult) => {
    if (userId !== undefined) app.publish([userId], 'account:changed');
  };

  // Off by name, or by default in production with no Stripe key: the line says both, not a setting nobody made.
  if (mode === 'off') {
    app.log.warn('checkout: off (CHECKOUT_MODE=off, or production without STRIPE_SECRET_KEY) — payments are not configured, the subscribe page says so');
  }
  else if (mode === 'test' && process.env.NODE_ENV === 'production') {
    app.log.warn('checkout: test (CHECKOUT_MODE=test) in production — subscriptions are granted without payment');
  } else app.log.info({ checkoutMode: mode }, `checkout: ${mode}`);
  if (mode === 'stripe' && !config.stripe.webhookSecret) {
    app.log.warn('STRIPE_SECRET_KEY is set but STRIPE_WEBHOOK_SECRET is not: paid checkouts will never activate a subscription');
  }

  // A plain form post (the pricing page's form) may start a checkout: form bodies are parsed for this
  // route alone. Parsed everywhere, they made every JSON route a cross-site "simple" POST that any web
  // page could send from its visitors' browsers (a registration, a reset e-mail) with no preflight.
  await app.register(async (scope) => {
    await scope.register(formbody);
    const checkout = scope.withTypeProvider<ZodTypeProvider>();
    checkout.post('/api/payments/stripe/create-checkout-session/', {
      schema: {
        // With the token, or (a plain form post) without it: then the answer is the subscribe page.
        security: [{ token: [] }, {}],
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: checkoutInputFor(Object.values(payments.plans)),
        response: { 200: CheckoutResponse, 303: NoBody, 404: ErrorDetail },
      },
      // Each call creates objects at Stripe: bounded per person, or per address without a good token.
      onRequest: checkoutLimit,
      handler: async (request, reply) => {
        if (mode === 'off') throw new NotFound(PAYMENTS_NOT_CONFIGURED, 'payments_not_configured');
        if (request.headers.authorization === undefined) {
          if (!isFormPost(request)) throw new NotAuthenticated();
          // A plain form post (no token) names an account by e-mail, which proves nothing: it would let
          // anyone start (and, in test mode, complete) a checkout for someone else, and its answer would
          // tell whether an account exists. It goes on to the subscribe page instead, the same way for
          // any e-mail, where a signed-in account starts a checkout for itself.
          return reply.redirect(subscribeUrl(app.publicUrlFor(request)), 303);
        }
        await app.authenticate(request, reply);
        const user = await findCheckoutUserById(app.db, currentUser(request).id);
        if (!user) throw new NotAuthenticated(serverText('invalid_token'));
        // In the language the app asks in (the account's may lag a switch that could not be saved).
        const language = requestLanguage(request) ?? user.language;
        return { url: await createCheckout(app.db, payments, app.publicUrlFor(request), { ...user, language }, request.body.lookup_key, request.log) };
      },
    });
  });

  app.get('/api/payments/subscription/', {
    schema: { response: { 200: SubscriptionState } },
    onRequest: app.authenticate,
    handler: async (request) => subscriptionState(app.db, payments, currentUser(request).id),
  });

  // The checkout's success page: what became of its checkout, whenever it is opened. One still open may
  // be asked of Stripe: bounded as the checkout is.
  app.get('/api/payments/checkout/:id/', {
    schema: { params: CheckoutParams, response: { 200: CheckoutOutcome, 404: ErrorDetail } },
    onRequest: [app.authenticate, app.limits.hook('checkout')],
    handler: async (request) => {
      const outcome = await checkoutOutcome(app.db, payments, currentUser(request).id, request.params.id);
      if (!outcome) throw new NotFound();
      return { outcome };
    },
  });

  // "Manage subscription": Stripe's customer portal (each call creates a session at Stripe), or the local one.
  app.post('/api/payments/stripe/create-portal-session/', {
    schema: { ...noBody, response: { 200: PortalResponse } },
    onRequest: [app.authenticate, app.limits.hook('checkout')],
    handler: async (request) => {
      const { id } = currentUser(request);
      // A customer Stripe no longer has ends the plan here: the user's other phones and tabs are told.
      const planEnded = () => app.publish([id], 'account:changed');
      return { url: await openPortal(app.db, payments, app.publicUrlFor(request), id, planEnded, request.log, requestLanguage(request)) };
    },
  });

  // Stripe signs the exact bytes it sent: this context alone reads bodies raw.
  await app.register(async (webhook) => {
    webhook.removeAllContentTypeParsers();
    webhook.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    webhook.post('/api/payments/stripe/webhook/', {
      // Stripe's events carry whole objects: more than the API's JSON cap, far less than this.
      bodyLimit: 1024 * 1024,
      schema: {
        ...withoutToken,
        // The raw bytes, checked against their signature before they are read as an event.
        ...documentedBody('application/json', StripeEvent),
        headers: WebhookHeaders,
        response: { 200: WebhookResponse },
      },
      handler: async (request) => {
        const secret = config.stripe.webhookSecret;
        if (!secret) throw ValidationError.field('non_field_errors', WEBHOOK_NOT_CONFIGURED);
        const body: unknown = request.body;
        const signature = request.headers['stripe-signature'];
        if (!Buffer.isBuffer(body) || typeof signature !== 'string') {
          throw ValidationError.field('non_field_errors', INVALID_SIGNATURE);
        }
        let verified: unknown;
        try {
          verified = Stripe.webhooks.constructEvent(body, signature, secret);
        } catch {
          throw ValidationError.field('non_field_errors', INVALID_SIGNATURE);
        }
        const event = StripeEvent.safeParse(verified);
        if (!event.success) throw ValidationError.field('non_field_errors', 'Unexpected Stripe event payload.');
        const result = await handleStripeEvent(app.db, event.data, webhookEvents, request.log);
        request.log.info({ eventId: event.data.id, type: event.data.type, outcome: result.outcome, reason: result.reason }, 'stripe event');
        if (result.outcome === 'handled' && result.userId !== undefined) await followBan(app.db, app.stripe, result.userId, request.log, app.config.stripe.lookupKeys.yearly);
        tellOwner(result);
        return { received: true as const };
      },
    });
  });

  // CHECKOUT_MODE=test: a labelled local stand-in for Checkout (the app's page
  // /app/subscribe/test-checkout/<id>), with the same session rows and the webhook's event handler.
  // Only the signed-in account a session is for can see, complete or cancel it.
  if (mode !== 'test') return;

  const testCheckout = { params: TestCheckoutParams, response: { 404: ErrorDetail, 409: ErrorDetail } };
  const finish = { ...testCheckout, ...noBody, response: { ...testCheckout.response, 200: CheckoutResponse } };

  // The local test portal (the app's /app/subscribe/test-portal/): cancelling sends Stripe's event through
  // the handler; the plan stays until its period ends (the job test-plan-end ends it then).
  app.post('/api/payments/test-portal/cancel/', {
    schema: { ...noBody, response: { 200: PortalResponse } },
    onRequest: app.authenticate,
    handler: async (request) => {
      const { id } = currentUser(request);
      // Back to the subscribe page, which says when the plan ends: with no plan to cancel, it is a 409.
      await cancelLocalSubscription(app.db, id, app.config.stripe.lookupKeys.yearly);
      app.publish([id], 'account:changed');
      return { url: subscribeUrl(app.publicUrlFor(request)) };
    },
  });

  app.get('/api/payments/test-checkout/:id/', {
    schema: { ...testCheckout, response: { ...testCheckout.response, 200: TestCheckout } },
    onRequest: app.authenticate,
    handler: async (request) => {
      const checkout = await findLocalCheckout(app.db, request.params.id, currentUser(request).id);
      if (!checkout) throw new NotFound();
      const trialDays = await localCheckoutTrialDays(app.db, checkout);
      return { id: checkout.id, lookup_key: checkout.lookupKey, status: checkout.status, email: checkout.email, trial_days: trialDays };
    },
  });

  // Complete ("pay", through the webhook's own handler) or cancel: each answers where the browser goes next.
  for (const [outcome, finishCheckout] of [
    ['complete', completeLocalCheckout],
    ['cancel', cancelLocalCheckout],
  ] as const) {
    app.post(`/api/payments/test-checkout/:id/${outcome}/`, {
      schema: finish,
      onRequest: app.authenticate,
      handler: async (request) => {
        const finished = await finishCheckout(app.db, app.publicUrlFor(request), request.params.id, currentUser(request).id, config.stripe.lookupKeys);
        if (!finished) throw new NotFound();
        if (finished.event) tellOwner(finished.event);
        return { url: finished.url };
      },
    });
  }
};

export default paymentRoutes;
