import cookie from '@fastify/cookie';
import Fastify, { type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type Stripe from 'stripe';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { MAX_JSON_BODY_BYTES } from '../shared/constants';
import { GOOGLE_USERINFO_URL } from '../shared/schemas/google';
import type { Config } from './config';
import type { Database } from './db/client';
import {
  answerRouterRefusal,
  answerUnmetExpectation,
  clientErrorHandler,
  refuseWhileClosing,
  registerErrorHandler,
  rejectMissingHost,
  rememberConnectionLanguage,
} from './errors';
import accountRoutes from './features/account/routes';
import analyticsRoutes from './features/analytics/routes';
import authRoutes from './features/auth/routes';
import clientConfigRoutes from './features/client-config/routes';
import conversationRoutes from './features/conversations/routes';
import deckRoutes from './features/deck/routes';
import eventRoutes from './features/events/routes';
import googleAuthRoutes from './features/google-auth/routes';
import healthRoutes from './features/health/routes';
import likesRoutes from './features/likes/routes';
import matchingRoutes from './features/matching/routes';
import mediaRoutes from './features/media/routes';
import type { MediaStore } from './features/media/store';
import { openMediaStores } from './features/media/stores';
import moderationRoutes from './features/moderation/routes';
import paymentRoutes from './features/payments/routes';
import { createStripeClient } from './features/payments/stripe-client';
import safetyRoutes from './features/safety/routes';
import userRoutes from './features/users/routes';
import { answerSerializer } from './lib/answer-serializer';
import { acceptEmptyJsonBodies } from './lib/empty-json-body';
import { requestOrigin } from './lib/public-url';
import { sharedGrace, type SharedGrace } from './lib/turns';
import { rejectMalformedJson, rejectNullCharacters } from './lib/null-characters';
import { withRequestForLog } from './lib/request-log';
import analyticsPlugin from './plugins/analytics';
import apiDocs from './plugins/api-docs';
import authPlugin from './plugins/auth';
import clientPlugin, { inlineScriptSources, readIndexHtml } from './plugins/client';
import databasePlugin from './plugins/database';
import limitsPlugin from './plugins/limits';
import mailPlugin from './plugins/mail';
import redisPlugin from './plugins/redis';
import secretsPlugin from './plugins/secrets';
import securityHeaders, { helmetHeaders } from './plugins/security-headers';
import realtimePlugin from './realtime/plugin';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    media: MediaStore;
    /** The Stripe SDK, or null without STRIPE_SECRET_KEY (the local test checkout stands in). */
    stripe: Stripe | null;
    /** The address users reach (links, checkout returns): `PUBLIC_URL`, or this server's own once it listens. */
    readonly publicUrl: string;
    /** Where a request's links point: `PUBLIC_URL`, else the address the request came to when it names this machine. */
    publicUrlFor(request: FastifyRequest): string;
    /** Copies of reported profiles' photos, kept with a report while it is open; never served as /media/. */
    evidence: MediaStore;
    /**
     * The one grace the close's waits share (`CLOSE_GRACE_MS`, from the close's start): each wait for
     * work it would rather not cut (e-mails, sockets, PostHog, Stripe, the jobs) takes `closeGrace.left(its own bound)`.
     */
    closeGrace: SharedGrace;
  }
}

/**
 * How long all the waits of a close may take together, whatever stalls (a mail server, PostHog, Stripe,
 * a client that reads no more, a job): each alone is bounded, but their bounds added up (3 + 1 + 3 + 2 s,
 * and a job without any) went past the process's 10 s deadline (`SHUTDOWN_DEADLINE_MS`), which exits
 * with the database still open. What is left of the deadline is the database's to close (`DATABASE_END_S`).
 */
export const CLOSE_GRACE_MS = 5_000;

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** A database already open (tests: a memory PGlite of their own) instead of the configured one. */
  database?: Database;
}

/** The whole server, not yet listening: `process.ts` listens, tests build their own on free ports. */
export async function buildApp(config: Config, options: BuildOptions = {}) {
  const indexHtml = readIndexHtml(config.clientDir);
  // helmet's security headers, the same for every response (server/plugins/security-headers.ts).
  const headers = helmetHeaders({
    contentSecurityPolicy: {
      directives: {
        'img-src': ["'self'", 'data:', 'blob:'],
        'script-src': ["'self'", ...inlineScriptSources(indexHtml), 'https://accounts.google.com/gsi/client'],
        'frame-src': ["'self'", 'https://accounts.google.com/gsi/'],
        // The browser asks Google's user-info endpoint for the profile it sends along with the token
        // (the client calls Google's own; the server may be pointed at another for tests).
        'connect-src': [
          ...new Set(["'self'", 'https://accounts.google.com/gsi/', GOOGLE_USERINFO_URL, config.google.userInfoUrl]),
        ],
        'style-src': ["'self'", "'unsafe-inline'", 'https://accounts.google.com/gsi/style'],
        'frame-ancestors': ["'self'", ...config.embedOrigins],
        // helmet's default would send a page at a plain http:// address (a party on one laptop, opened
        // at its Wi-Fi address) to fetch its scripts over https://, which nothing there answers: a blank
        // page on every phone that scans the code. Only an app users reach over https says it.
        'upgrade-insecure-requests': config.publicUrl?.startsWith('https://') ? [] : null,
      },
    },
    // X-Frame-Options can only say "this site": where other sites may frame the app, frame-ancestors says so.
    xFrameOptions: config.embedOrigins.length > 0 ? false : { action: 'sameorigin' },
    // The Google sign-in pop-up talks back to this window.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
  });

  const app = Fastify({
    logger: withRequestForLog(options.logger ?? { level: config.logLevel }),
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // JSON bodies: 64 KB; the profile PUT (images as data: URIs) and Stripe's webhook raise their own.
    bodyLimit: MAX_JSON_BODY_BYTES,
    clientErrorHandler,
    frameworkErrors: answerRouterRefusal(headers),
    // A request that has not arrived whole in this time (a body trickled in, or a phone's upload
    // stalled) is answered 408 in the envelope (`clientErrorHandler`) and its connection closed.
    // Fastify's default, 0, let it hold its connection for ever; a WebSocket, once upgraded, is no
    // longer a request and is not timed.
    requestTimeout: config.requestTimeoutMs,
    http: {
      // A request with no Host is answered in the envelope (`rejectMissingHost`), not by Node bare.
      requireHostHeader: false,
      // The headers' own time, 60 s, within the request's as Node makes it by default (a longer one
      // would stand in for the request's: Node swaps the two).
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      // How often Node looks for requests past their time (its default: 30 s, a tenth of ours).
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(config.requestTimeoutMs / 10)),
    },
    // A request that reaches a closing instance is answered in the envelope (`refuseWhileClosing`).
    return503OnClosing: false,
    // No limit on a plugin's start: the database's applies the migrations, which take what they take
    // (a new embedded database took over Fastify's default 10 s on a busy 2-core machine, and a
    // PostgreSQL instance waits its turn behind another's). Every other wait at start has its own bound.
    pluginTimeout: 0,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(answerSerializer);
  registerErrorHandler(app);
  rememberConnectionLanguage(app);
  app.server.on('checkExpectation', answerUnmetExpectation(headers));
  rejectMissingHost(app);
  rejectNullCharacters(app);
  rejectMalformedJson(app);
  // JSON everywhere: a body of plain text is a wrong content type (415), not an object gone wrong.
  app.removeContentTypeParser('text/plain');
  acceptEmptyJsonBodies(app);

  app.decorate('config', config);
  app.decorate('readinessChecks', new Map());
  app.decorate('closeGrace', sharedGrace(CLOSE_GRACE_MS));
  // The grace starts with the close (the process starts it sooner, as it stops the jobs). The requests
  // still in flight when it ends (stalled on a lock held elsewhere, say) have their connections cut,
  // rather than hold the close past the process's deadline: the database's close then ends their
  // statements, and their clients, never answered, send them again.
  app.addHook('preClose', (done) => {
    const cut = setTimeout(() => app.server.closeAllConnections(), app.closeGrace.left()).unref();
    app.server.once('close', () => clearTimeout(cut));
    done();
  });
  app.decorate('publicUrl', {
    getter() {
      if (config.publicUrl) return config.publicUrl;
      // Unset: this server as it listens: localhost when it listens everywhere, else the address it named.
      const address = app.server.address();
      const port = address && typeof address === 'object' ? address.port : config.port;
      const everywhere = ['0.0.0.0', '::', ''].includes(config.host);
      const host = everywhere ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
      return `http://${host}:${port}`;
    },
  });
  app.decorate('publicUrlFor', (request: FastifyRequest) => config.publicUrl ?? requestOrigin(request, app.publicUrl));

  // Infrastructure.
  await app.register(securityHeaders, { headers });
  // Behind the security headers' hook, so that the refusal carries them.
  refuseWhileClosing(app);
  await app.register(cookie);
  // Redis first: one too old to use stops the start before a database is made or migrated for nothing.
  await app.register(redisPlugin);
  await app.register(databasePlugin, { config, database: options.database });
  await app.register(secretsPlugin);
  await app.register(limitsPlugin);
  await app.register(authPlugin);
  await app.register(realtimePlugin, { headers });
  await app.register(mailPlugin);
  await app.register(analyticsPlugin);
  // The one Stripe client, whenever there is a key: checkout and webhooks sell through it in Stripe's
  // mode alone, but what ends or stops billing (an account's deletion, a ban) needs it in any mode.
  // Someone who paid at Stripe before the operator switched to the test checkout, or off, is still
  // billed there: their deletion must still end that.
  app.decorate('stripe', createStripeClient(config.stripe));

  const stores = await openMediaStores(config);
  app.decorate('media', stores.media);
  app.decorate('evidence', stores.evidence);
  // Reported, not required: without photos the people at a party can still match and chat.
  if (stores.bucketAnswers) app.readinessChecks.set('media', { check: stores.bucketAnswers, required: false });
  app.addHook('onClose', stores.close);

  // Features, each route described in the OpenAPI document as it is added.
  await app.register(apiDocs);
  await app.register(healthRoutes);
  await app.register(authRoutes, { config });
  await app.register(userRoutes);
  await app.register(accountRoutes);
  await app.register(analyticsRoutes);
  await app.register(deckRoutes);
  await app.register(matchingRoutes);
  await app.register(eventRoutes);
  await app.register(likesRoutes);
  await app.register(conversationRoutes);
  await app.register(safetyRoutes);
  await app.register(moderationRoutes);
  await app.register(mediaRoutes);
  await app.register(googleAuthRoutes);
  await app.register(paymentRoutes, { config });
  await app.register(clientConfigRoutes);

  await app.register(clientPlugin, { clientDir: config.clientDir, indexHtml });
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
