import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { GoogleLoginInput, TokenResponse } from '../../../shared/schemas/auth';
import { ValidationError } from '../../errors';
import { requestLanguage } from '../../lib/language';
import { GOOGLE_DISABLED, googleLogin } from './service';
import { doorLimit } from '../auth/door-limit';
import { withoutToken } from '../../plugins/api-docs';

const googleAuthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/api/auth/google/login/', {
    schema: { ...withoutToken, body: GoogleLoginInput, response: { 200: TokenResponse } },
    preValidation: doorLimit(app, 'google-login:ip', 'google-login:event'),
    handler: async (request) => {
      // Hidden unless configured: a server without a client id takes no Google logins.
      const { clientId } = app.config.google;
      if (!clientId) throw ValidationError.field('non_field_errors', GOOGLE_DISABLED);
      const login = await googleLogin(app.db, { ...app.config.google, clientId }, request.body.access_token, {
        language: requestLanguage(request) ?? undefined,
      });
      // A new account speaks the app's language; a sign-in leaves an account's as it is (`POST /api/auth/`).
      if (login.created) await app.analytics.record(login.userId, 'signed_up');
      if (login.verifiedEmail) app.publish([login.userId], 'account:changed');
      return { token: login.token };
    },
  });
};

export default googleAuthRoutes;
