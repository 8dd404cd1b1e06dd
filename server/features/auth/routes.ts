import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LoginInput, RegisterResponse, TokenResponse } from '../../../shared/schemas/auth';
import type { Config } from '../../config';
import { Throttled } from '../../errors';
import { memoryThrottle, redisThrottle } from '../../lib/throttle';
import { currentUser } from '../../plugins/auth';
import { RegisterBody } from './password-rules';
import { login, register } from './service';

const authRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const hashOptions = config.argon2;
  const { perIp, perAccount, windowMs } = config.loginThrottle;

  const throttle = app.redis ? redisThrottle({ redis: app.redis, log: app.log }) : memoryThrottle();
  app.addHook('onClose', () => throttle.close());

  /** A hook that counts a request under a key and answers 429 past `max` per window. */
  const limit = (max: number, key: (request: FastifyRequest) => string) => async (request: FastifyRequest) => {
    const result = await throttle.hit(key(request), max, windowMs);
    if (result.exceeded) throw new Throttled(result.retryAfterMs / 1000);
  };

  app.post('/api/auth/', {
    schema: { body: LoginInput, response: { 200: TokenResponse } },
    // Per IP before anything is parsed; per account once the body names one (across all IPs).
    onRequest: limit(perIp, (request) => `login-ip:${request.ip}`),
    preHandler: limit(perAccount, (request) => `login-account:${(request.body as LoginInput).username.toLowerCase()}`),
    handler: async (request) => ({
      token: await login(app.db, request.body.username, request.body.password, hashOptions),
    }),
  });

  app.post('/api/auth/register/', {
    schema: { body: RegisterBody, response: { 201: RegisterResponse } },
    onRequest: limit(perIp, (request) => `register-ip:${request.ip}`),
    handler: async (request, reply) => reply.code(201).send(await register(app.db, request.body, hashOptions)),
  });

  app.post('/api/auth/logout/', { onRequest: app.authenticate }, async (request, reply) => {
    await app.revokeToken(currentUser(request).tokenHash);
    return reply.code(204).send();
  });
};

export default authRoutes;
