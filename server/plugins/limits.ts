import fp from 'fastify-plugin';
import { memoryCounters, redisCounters } from '../lib/counters';
import { createLimits, type Limits, limitRules } from '../lib/limits';

declare module 'fastify' {
  interface FastifyInstance {
    limits: Limits;
  }
}

/** The server's one throttle: counters in the instance's Redis when it has one (limits hold across instances). */
export default fp(
  async (app) => {
    const counters = app.redis ? redisCounters({ redis: app.redis, log: app.log }) : memoryCounters();
    const limits = createLimits(counters, limitRules(app.config));
    app.decorate('limits', limits);
    app.addHook('onClose', () => limits.close());
  },
  { name: 'limits', dependencies: ['redis'] },
);
