import { visibleText } from './text';
import { z } from './zod';

/**
 * The join pass the scan at an event's door gave (README.md, "Events"), sent along while signing up or in there:
 * with a current one of an open event, the request counts against the event's budget rather than the
 * address's, which the venue's whole crowd shares.
 */
const JoinPassField = z
  .string()
  .min(1)
  .max(2048)
  .describe(
    "The join pass from the event's QR (`POST /api/events/{code}/pass/`), while signing up or in at its door: " +
      "a current one of an open event counts the request against the event's budget (2,000 a minute) instead of the " +
      "address's (`LOGIN_THROTTLE_PER_IP`); one expired, forged or of another deployment counts per address.",
  )
  .optional();

export const LoginInput = z.object({
  username: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(1024),
  pass: JoinPassField,
});
export type LoginInput = z.infer<typeof LoginInput>;

export const TokenResponse = z.object({ token: z.string() });
export type TokenResponse = z.infer<typeof TokenResponse>;

const personName = visibleText(150, { oneLine: true });

/** Shape only: the password's strength and the e-mail's uniqueness are checked by the server. */
export const RegisterInput = z.object({
  first_name: personName,
  last_name: personName,
  username: z.string().trim().toLowerCase().max(254).pipe(z.email()),
  password: z.string().min(1).max(1024),
  password2: z.string().min(1).max(1024),
  pass: JoinPassField,
});
export type RegisterInput = z.infer<typeof RegisterInput>;

export const RegisterResponse = z.object({
  id: z.number(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
});
export type RegisterResponse = z.infer<typeof RegisterResponse>;

export const GoogleLoginInput = z.object({
  access_token: z.string().min(1).max(4096),
  // The client sends Google's profile along; it is never trusted for identity.
  profile: z.unknown().optional(),
  pass: JoinPassField,
});
export type GoogleLoginInput = z.infer<typeof GoogleLoginInput>;
