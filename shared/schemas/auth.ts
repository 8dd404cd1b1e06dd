import { visibleText } from './text';
import { z } from './zod';

export const LoginInput = z.object({
  username: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(1024),
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
});
export type GoogleLoginInput = z.infer<typeof GoogleLoginInput>;
