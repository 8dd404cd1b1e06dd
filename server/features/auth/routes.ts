import type { FastifyError } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LoginInput, RegisterResponse, TokenResponse } from '../../../shared/schemas/auth';
import type { Config } from '../../config';
import { requestLanguage } from '../../lib/language';
import { currentUser } from '../../plugins/auth';
import { sendVerificationEmail } from '../account/service';
import { RegisterBody } from './password-rules';
import { asApiError, ValidationError } from '../../errors';
import { login, register, withEmailTaken } from './service';
import { NoBody } from '../../../shared/schemas/common';
import { noBody, withoutToken } from '../../plugins/api-docs';
import { addressOf } from '../../lib/limits';
import { countDoorMiss, doorLimit } from './door-limit';

/** The (account, address) pair the login throttle counts. */
const accountAtAddress = (accountKey: string, ip: string) => `${accountKey}|${ip}`;

const authRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const hashOptions = config.argon2;

  app.post('/api/auth/', {
    schema: { ...withoutToken, body: LoginInput, response: { 200: TokenResponse } },
    // Per address (or per event, with a join pass, while the address's failed logins with one are
    // few) once the body is read; per (account, address) before the password is checked, whatever the pass.
    preValidation: doorLimit(app, 'login:ip', 'login:event', 'login:door-miss:ip'),
    handler: async (request) => {
      const { token, accountKey } = await login(app.db, request.body.username, request.body.password, hashOptions, (key) =>
        app.limits.consume('login:account-ip', accountAtAddress(key, addressOf(request))),
      ).catch(async (error: unknown) => {
        if (error instanceof ValidationError) await countDoorMiss(app, request, 'login:door-miss:ip');
        throw error;
      });
      // The owner got in: their own mistypes from here no longer count.
      await app.limits.reset('login:account-ip', accountAtAddress(accountKey, addressOf(request)));
      // The account's language is not the device's: a phone where none was chosen sends the default,
      // and takes the account's instead (`GET /api/users/me/`); only a switch in the app changes it.
      return { token };
    },
  });

  app.post('/api/auth/register/', {
    schema: { ...withoutToken, body: RegisterBody, response: { 201: RegisterResponse } },
    preValidation: doorLimit(app, 'register:ip', 'register:event'),
    // A refused body is answered here, with its e-mail's being taken when it is (`withEmailTaken`).
    attachValidation: true,
    handler: async (request, reply) => {
      if (request.validationError) throw (await withEmailTaken(app.db, asApiError(request.validationError as FastifyError), request.body)) ?? request.validationError;
      const user = await register(app.db, request.body, hashOptions, requestLanguage(request));
      await app.analytics.record(user.id, 'signed_up');
      app.mailer.later(() => sendVerificationEmail({ db: app.db, mailer: app.mailer, publicUrl: app.publicUrlFor(request) }, user.id));
      return reply.code(201).send(user);
    },
  });

  app.post('/api/auth/logout/', {
    schema: { ...noBody, response: { 204: NoBody } },
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      await app.revokeToken(currentUser(request).tokenHash);
      return reply.code(204).send(null);
    },
  });

  // Every session of the user, this one included, on every device and instance.
  app.post('/api/auth/logout-all/', {
    schema: { ...noBody, response: { 204: NoBody } },
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      await app.revokeUserTokens(currentUser(request).id);
      return reply.code(204).send(null);
    },
  });
};

export default authRoutes;
