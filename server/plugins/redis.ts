import fp from 'fastify-plugin';
import { openRedis, type Redis } from '../lib/redis';

declare module 'fastify' {
  interface FastifyInstance {
    /** The instance's Redis when `REDIS_URL` is set (the socket adapter and the throttle share it); null without. */
    redis: Redis | null;
  }
}

/**
 * Opens Redis when configured. Its state is reported by `/readyz` but does not fail it: a Redis outage
 * reaches every instance at once, and must not take them all out of the load balancer together.
 */
export default fp(
  async (app) => {
    const { redisUrl, redisPrefix } = app.config;
    const redis = redisUrl ? await openRedis({ url: redisUrl, prefix: redisPrefix, log: app.log }) : null;
    app.decorate('redis', redis);
    if (!redis) return;
    app.readinessChecks.set('redis', { check: () => redis.ping(), required: false });
    app.addHook('onClose', () => redis.close());
  },
  { name: 'redis' },
);
