import fp from 'fastify-plugin';
import { memoryCounters, redisCounters } from '../lib/counters';
import { createLimits, type Limits, limitRules } from '../lib/limits';

declare module 'fastify' {
  interface FastifyInstance {
    limits: Limits;
  }
}

/** The server's one throttle: counters in Redis when `REDIS_URL` is set (limits hold across instances). */
export default fp(
  async (app) => {
    const { config } = app;
    const counters = config.redisUrl
      ? await redisCounters({ url: config.redisUrl, prefix: config.redisPrefix, log: app.log })
      : memoryCounters();
    const limits = createLimits(counters, limitRules(config));
    app.decorate('limits', limits);
    app.addHook('onClose', () => limits.close());
  },
  { name: 'limits' },
);
