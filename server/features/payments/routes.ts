import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import Stripe from 'stripe';
import {
  CheckoutInput,
  CheckoutResponse,
  StripeEvent,
  TestCheckoutParams,
  WebhookHeaders,
  WebhookResponse,
} from '../../../shared/schemas/payments';
import type { Config } from '../../config';
import { NotAuthenticated, NotFound, ValidationError } from '../../errors';
import { currentUser } from '../../plugins/auth';
import {
  cancelLocalCheckout,
  type CheckoutUser,
  completeLocalCheckout,
  createCheckout,
  findCheckoutUserByEmail,
  findCheckoutUserById,
  findLocalCheckout,
  handleStripeEvent,
  type Payments,
  stripeSubscriptionSource,
  subscribeUrl,
  UNKNOWN_EMAIL,
} from './service';
import { PortalResponse, SubscriptionState } from '../../../shared/schemas/plan';
import { cancelLocalSubscription, openPortal, subscriptionState } from './subscription';
import { renderTestCheckout } from './test-checkout-page';

export const INVALID_SIGNATURE = 'Invalid Stripe signature.';
export const WEBHOOK_NOT_CONFIGURED = 'Stripe webhooks are not configured on this server.';

const isFormPost = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');

const paymentRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const payments: Payments = {
    stripe: app.stripe,
    lookupKeys: Object.values(config.stripe.lookupKeys),
    publicUrl: () => app.config.publicUrl,
  };
  const latestSubscription = payments.stripe ? stripeSubscriptionSource(payments.stripe) : null;
  if (payments.stripe && !config.stripe.webhookSecret) {
    app.log.warn('STRIPE_SECRET_KEY is set but STRIPE_WEBHOOK_SECRET is not: paid checkouts will never activate a subscription');
  }

  /** The token's user when one is sent; otherwise the form post's e-mail names the account. */
  async function checkoutUser(request: FastifyRequest, reply: FastifyReply, email: string | undefined) {
    if (request.headers.authorization !== undefined) {
      await app.authenticate(request, reply);
      return findCheckoutUserById(app.db, currentUser(request).id);
    }
    if (!isFormPost(request)) throw new NotAuthenticated();
    if (!email) throw ValidationError.field('email', 'This field is required.');
    const user = await findCheckoutUserByEmail(app.db, email);
    if (!user) throw ValidationError.field('email', UNKNOWN_EMAIL);
    return user;
  }

  app.post('/api/payments/stripe/create-checkout-session/', {
    schema: { body: CheckoutInput, response: { 200: CheckoutResponse } },
    // Each call creates objects at Stripe: bounded per address.
    onRequest: app.limits.hook('checkout:ip', (request) => request.ip),
    handler: async (request, reply) => {
      const user: CheckoutUser | null = await checkoutUser(request, reply, request.body.email);
      if (!user) throw new NotAuthenticated('Invalid token.');
      const url = await createCheckout(app.db, payments, user, request.body.lookup_key);
      // The plain form post is a browser navigation: send it on to Checkout.
      if (isFormPost(request)) return reply.redirect(url, 303);
      return { url };
    },
  });

  app.get('/api/payments/subscription/', {
    schema: { response: { 200: SubscriptionState } },
    onRequest: app.authenticate,
    handler: async (request) => subscriptionState(app.db, payments, config.stripe.lookupKeys, currentUser(request).id),
  });

  // "Manage subscription": Stripe's customer portal (each call creates a session at Stripe), or the local one.
  app.post('/api/payments/stripe/create-portal-session/', {
    schema: { response: { 200: PortalResponse } },
    onRequest: [app.authenticate, app.limits.hook('checkout:ip', (request) => request.ip)],
    handler: async (request) => ({ url: await openPortal(app.db, payments, currentUser(request).id) }),
  });

  // Stripe signs the exact bytes it sent: this context alone reads bodies raw.
  await app.register(async (webhook) => {
    webhook.removeAllContentTypeParsers();
    webhook.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    webhook.post('/api/payments/stripe/webhook/', {
      // Stripe's events carry whole objects: more than the API's JSON cap, far less than this.
      bodyLimit: 1024 * 1024,
      schema: {
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
        const outcome = await handleStripeEvent(app.db, event.data, latestSubscription);
        request.log.info({ eventId: event.data.id, type: event.data.type, outcome }, 'stripe event');
        return { received: true as const };
      },
    });
  });

  // Without a Stripe key, a labelled local stand-in for Checkout: same session rows, same event handler.
  if (payments.stripe) return;

  const pageHeaders = (reply: FastifyReply) => {
    const publicOrigin = new URL(app.config.publicUrl).origin;
    return reply
      .header('Cache-Control', 'no-store')
      // The buttons post here and are then redirected to the app, which may live on another origin.
      .header(
        'Content-Security-Policy',
        `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${publicOrigin}; frame-ancestors 'none'; base-uri 'none'`,
      );
  };

  // The local test portal (the app's /app/subscribe/test-portal/): cancelling sends Stripe's event through the handler.
  app.post('/api/payments/test-portal/cancel/', {
    schema: { response: { 200: PortalResponse } },
    onRequest: app.authenticate,
    handler: async (request) => {
      await cancelLocalSubscription(app.db, currentUser(request).id);
      return { url: subscribeUrl(app.config.publicUrl) };
    },
  });

  app.get('/api/payments/test-checkout/:id', { schema: { params: TestCheckoutParams } }, async (request, reply) => {
    const checkout = await findLocalCheckout(app.db, request.params.id);
    if (!checkout) throw new NotFound();
    return pageHeaders(reply)
      .type('text/html; charset=utf-8')
      .send(renderTestCheckout(checkout, subscribeUrl(app.config.publicUrl)));
  });

  app.post('/api/payments/test-checkout/:id/complete', { schema: { params: TestCheckoutParams } }, async (request, reply) => {
    const url = await completeLocalCheckout(app.db, app.config.publicUrl, request.params.id);
    if (!url) throw new NotFound();
    return reply.redirect(url, 303);
  });

  app.post('/api/payments/test-checkout/:id/cancel', { schema: { params: TestCheckoutParams } }, async (request, reply) => {
    const url = await cancelLocalCheckout(app.db, app.config.publicUrl, request.params.id);
    if (!url) throw new NotFound();
    return reply.redirect(url, 303);
  });
};

export default paymentRoutes;
