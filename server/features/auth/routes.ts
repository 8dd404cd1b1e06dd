import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LoginInput, RegisterResponse, TokenResponse } from '../../../shared/schemas/auth';
import type { Config } from '../../config';
import { currentUser } from '../../plugins/auth';
import { RegisterBody } from './password-rules';
import { login, register } from './service';
import { NoBody } from '../../../shared/schemas/common';
import { noBody } from '../../plugins/api-docs';

const authRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const hashOptions = config.argon2;

  app.post('/api/auth/', {
    schema: { body: LoginInput, response: { 200: TokenResponse } },
    // Per IP before anything is parsed; per account once the body names one (across all IPs).
    onRequest: app.limits.hook('login:ip', (request) => request.ip),
    preHandler: app.limits.hook('login:account', (request) => (request.body as LoginInput).username.toLowerCase()),
    handler: async (request) => ({
      token: await login(app.db, request.body.username, request.body.password, hashOptions),
    }),
  });

  app.post('/api/auth/register/', {
    schema: { body: RegisterBody, response: { 201: RegisterResponse } },
    onRequest: app.limits.hook('register:ip', (request) => request.ip),
    handler: async (request, reply) => reply.code(201).send(await register(app.db, request.body, hashOptions)),
  });

  app.post('/api/auth/logout/', {
    schema: { ...noBody, response: { 204: NoBody } },
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      await app.revokeToken(currentUser(request).tokenHash);
      return reply.code(204).send(null);
    },
  });
};

export default authRoutes;
