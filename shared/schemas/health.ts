import { z } from './zod';

/** `GET /healthz`: the process is up. */
export const Health = z.object({ status: z.literal('ok') });
export type Health = z.infer<typeof Health>;

/**
 * `GET /readyz`: 200 while the database answers, 503 when it does not. Every check's state is listed;
 * Redis is reported but never fails readiness (an outage would otherwise empty the load balancer).
 */
export const Readiness = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.string(), z.enum(['ok', 'failing'])),
});
export type Readiness = z.infer<typeof Readiness>;
