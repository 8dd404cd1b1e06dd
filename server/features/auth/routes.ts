import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LoginInput, RegisterInput, RegisterResponse, TokenResponse } from '../../../shared/schemas/auth';
import type { Config } from '../../config';
import { Throttled } from '../../errors';
import { currentUser } from '../../plugins/auth';
import { login, register, revokeToken } from './service';

const authRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const hashOptions = config.argon2;
  const { perIp, perAccount, windowMs } = config.loginThrottle;
  const throttled = (_request: unknown, context: { ttl: number }) => new Throttled(context.ttl / 1000);

  app.post('/api/auth/', {
    schema: { body: LoginInput, response: { 200: TokenResponse } },
    // Per IP before anything is parsed; per account once the body names one.
    onRequest: app.rateLimit({
      max: perIp,
      timeWindow: windowMs,
      keyGenerator: (request) => `login-ip:${request.ip}`,
      errorResponseBuilder: throttled,
    }),
    preHandler: app.rateLimit({
      max: perAccount,
      timeWindow: windowMs,
      keyGenerator: (request) => `login-account:${(request.body as LoginInput).username.trim().toLowerCase()}`,
      errorResponseBuilder: throttled,
    }),
    handler: async (request) => ({
      token: await login(app.db, request.body.username, request.body.password, hashOptions),
    }),
  });

  app.post('/api/auth/register/', {
    schema: { body: RegisterInput, response: { 201: RegisterResponse } },
    onRequest: app.rateLimit({
      max: perIp,
      timeWindow: windowMs,
      keyGenerator: (request) => `register-ip:${request.ip}`,
      errorResponseBuilder: throttled,
    }),
    handler: async (request, reply) => reply.code(201).send(await register(app.db, request.body, hashOptions)),
  });

  app.post('/api/auth/logout/', { onRequest: app.authenticate }, async (request, reply) => {
    await revokeToken(app.db, currentUser(request).token);
    return reply.code(204).send();
  });
};

export default authRoutes;
