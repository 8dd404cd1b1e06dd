import { LANGUAGES } from '../constants';
import { z } from './zod';
import { Detail } from './common';

/**
 * A link's token as the client read it from the address bar. A bad one, empty or too long included,
 * is the link's fault, not a field's: the service answers "This link is invalid or has expired." for
 * any token it never issued (it refuses those longer than its own before hashing them).
 */
const LinkToken = z.string();
const Password = z.string().min(1).max(1024);

export const VerifyEmailInput = z.object({ token: LinkToken });
export type VerifyEmailInput = z.infer<typeof VerifyEmailInput>;

/** `POST /api/auth/verify-email/`'s answer: the address the link verified. */
export const EmailVerified = Detail.extend({ email: z.string() });
export type EmailVerified = z.infer<typeof EmailVerified>;

export const PasswordResetInput = z.object({ email: z.string().trim().toLowerCase().max(254).pipe(z.email()) });
export type PasswordResetInput = z.infer<typeof PasswordResetInput>;

/** `POST /api/auth/password-reset/check/`: whether the link can still be used, before a password is typed. */
export const PasswordResetCheckInput = z.object({ token: LinkToken });
export type PasswordResetCheckInput = z.infer<typeof PasswordResetCheckInput>;

/**
 * Its answer for a link that can be used: the account it resets, whose address the link was sent to,
 * so that a page opened where another account is signed in can say whose it is, and whether it has a
 * password (`has_password` false: an account made with Google, whose link sets its first one). A link
 * that cannot be used names nobody.
 */
export const PasswordResetLink = z.object({ email: z.string(), has_password: z.boolean() });
export type PasswordResetLink = z.infer<typeof PasswordResetLink>;

export const PasswordResetConfirmInput = z.object({ token: LinkToken, password: Password, password2: Password });
export type PasswordResetConfirmInput = z.infer<typeof PasswordResetConfirmInput>;

export const ChangePasswordInput = z.object({ current_password: Password, password: Password, password2: Password });
export type ChangePasswordInput = z.infer<typeof ChangePasswordInput>;

/** `DELETE /api/users/me/`: the password, or for an account without one, `confirm: "DELETE"`. */
export const DeleteAccountInput = z.object({
  password: Password.optional(),
  confirm: z.string().max(100).optional(),
});
export type DeleteAccountInput = z.infer<typeof DeleteAccountInput>;

/** `PUT /api/users/me/language/`: the language the app was switched to, which its e-mails then speak. */
export const LanguageInput = z.object({ language: z.enum(LANGUAGES) });
export type LanguageInput = z.infer<typeof LanguageInput>;

/** `GET /api/users/me/export/`: a zip of account.json and photos/ (documented as a file). */
export const ExportArchive = z.file().describe('A zip archive: account.json and photos/.');
