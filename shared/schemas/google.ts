import { z } from './zod';

/** Google's OpenID Connect user-info endpoint: the browser reads the profile there, the server verifies tokens there. */
export const GOOGLE_USERINFO_URL = 'https://www.googleapis.com/oauth2/v3/userinfo';

/**
 * What Google's user-info endpoint (OpenID Connect, v3) answers for a valid access token: the
 * only source of identity for a Google sign-in. `email_verified` is a boolean in v3 and the
 * string "true" in older variants; both are read.
 */
export const GoogleUserInfo = z.object({
  // Google's subject ids are digits: anything unprintable is not an answer of Google's.
  sub: z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/),
  email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
  email_verified: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]),
  given_name: z.string().optional(),
  family_name: z.string().optional(),
  name: z.string().optional(),
});
export type GoogleUserInfo = z.infer<typeof GoogleUserInfo>;

/** Google's token-info answer for an access token: `aud` (or `azp`) is the app it was issued to. */
export const GoogleTokenInfo = z.object({
  aud: z.string().optional(),
  azp: z.string().optional(),
  sub: z.string().optional(),
});
export type GoogleTokenInfo = z.infer<typeof GoogleTokenInfo>;
