import { z } from './zod';

/** `GET /api/config/`: what the client needs to know about this server before it renders. */
export const ClientConfig = z.object({
  /** Google sign-in buttons show only when this is set. */
  google_client_id: z.string().nullable(),
  /** `local`: checkout goes through the labelled test checkout, no real payment. */
  payments: z.enum(['stripe', 'local']),
});
export type ClientConfig = z.infer<typeof ClientConfig>;
