import { z } from './zod';

/** `GET /api/config/`: what the client needs to know about this server before it renders. */
export const ClientConfig = z.object({
  /** Google sign-in buttons show only when this is set. */
  google_client_id: z.string().nullable(),
  /**
   * How subscriptions are sold here (CHECKOUT_MODE): `stripe`, `test` (the labelled test checkout, no
   * real payment), or `off` (no checkout: the subscribe page says payments are not configured).
   */
  payments: z.enum(['stripe', 'test', 'off']),
  /** The checkout's `lookup_key` for each billing period, as this server is configured (overridable by environment). */
  lookup_keys: z.object({ monthly: z.string(), yearly: z.string() }),
});
export type ClientConfig = z.infer<typeof ClientConfig>;
