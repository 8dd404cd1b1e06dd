import { z } from './zod';

/** `GET /api/config/`: what the client needs to know about this server before it renders. */
export const ClientConfig = z.object({
  /** Google sign-in buttons show only when this is set. */
  google_client_id: z.string().nullable(),
  /** `local`: checkout goes through the labelled test checkout, no real payment. */
  payments: z.enum(['stripe', 'local']),
  /** The checkout's `lookup_key` for each billing period, as this server is configured (API.md: overridable by environment). */
  lookup_keys: z.object({ monthly: z.string(), yearly: z.string() }),
});
export type ClientConfig = z.infer<typeof ClientConfig>;
