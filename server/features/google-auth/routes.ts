import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { GoogleLoginInput, TokenResponse } from '../../../shared/schemas/auth';
import type { Config } from '../../config';
import { Throttled, ValidationError } from '../../errors';
import { GOOGLE_DISABLED, googleLogin } from './service';

const googleAuthRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const { perIp, windowMs } = config.loginThrottle;

  app.post('/api/auth/google/login/', {
    schema: { body: GoogleLoginInput, response: { 200: TokenResponse } },
    onRequest: app.rateLimit({
      max: perIp,
      timeWindow: windowMs,
      keyGenerator: (request) => `google-login-ip:${request.ip}`,
      errorResponseBuilder: (_request, context) => new Throttled(context.ttl / 1000),
    }),
    handler: async (request) => {
      // Hidden unless configured (ARCHITECTURE.md): a server without a client id takes no Google logins.
      const { clientId, userInfoUrl, tokenInfoUrl } = app.config.google;
      if (!clientId) throw ValidationError.field('non_field_errors', GOOGLE_DISABLED);
      return { token: await googleLogin(app.db, { clientId, userInfoUrl, tokenInfoUrl }, request.body.access_token) };
    },
  });
};

export default googleAuthRoutes;
