import argon2 from 'argon2';
import { and, eq, gt, isNull, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { Language } from '../../../shared/constants';
import type {
  ChangePasswordInput,
  PasswordResetConfirmInput,
  PasswordResetLink,
} from '../../../shared/schemas/account';
import type { Db, DbOrTx } from '../../db/client';
import { authTokens, emailTokens, users } from '../../db/schema';
import { Conflict, type FieldMessages, ValidationError } from '../../errors';
import { serverText } from '../../../shared/i18n/server-messages';
import type { Mailer } from '../../lib/mailer';
import { hashToken, newToken, TOKEN_IDLE_LIFETIME_MS } from '../../lib/tokens';
import { PASSWORDS_DIFFER, passwordProblems } from '../auth/password-rules';
import { type HashOptions, hashPassword, issueToken } from '../auth/service';
import { composeMail } from './emails';

export const LINK_INVALID = serverText('link_invalid');
export const RESET_REQUESTED = serverText('reset_requested');
export const VERIFICATION_SENT = serverText('verification_sent');
export const EMAIL_VERIFIED = serverText('email_verified');
export const ALREADY_VERIFIED = serverText('already_verified');
export const WRONG_CURRENT_PASSWORD = serverText('wrong_current_password');
export const NO_PASSWORD_YET = serverText('no_password_yet');

type EmailPurpose = (typeof emailTokens.$inferSelect)['purpose'];

/** How long an e-mailed link works: a day to verify, an hour to reset. */
export const EMAIL_TOKEN_TTL_MS: Record<EmailPurpose, number> = {
  verify_email: 24 * 60 * 60 * 1000,
  reset_password: 60 * 60 * 1000,
};

/**
 * An e-mail's links name the language it is written in: opened where no language was ever chosen
 * (a computer's mail client, another phone), the page opens in it, not in the default.
 */
export const verifyEmailLink = (publicUrl: string, token: string, language: Language) => `${publicUrl}/verify-email?token=${token}&lang=${language}`;
export const resetPasswordLink = (publicUrl: string, token: string, language: Language) => `${publicUrl}/reset-password?token=${token}&lang=${language}`;

/** What sending e-mail needs: the database, the mailer, and the address links point at. */
export interface MailDeps {
  db: Db;
  mailer: Mailer;
  /** Where the links point: the request's `app.publicUrlFor`. */
  publicUrl: string;
}

interface Recipient {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  language: Language;
  verified: boolean;
  /** False for an account made with Google that has not set one: its reset link sets a first password. */
  hasPassword: boolean;
}

const recipientColumns = {
  id: users.id,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  language: users.language,
  verified: sql<boolean>`${users.emailVerifiedAt} is not null`,
  hasPassword: sql<boolean>`${users.passwordHash} is not null`,
};

async function findRecipient(db: DbOrTx, where: SQL): Promise<Recipient | null> {
  const [row] = await db.select(recipientColumns).from(users).where(where);
  return row ?? null;
}

/** A new single-use link token (256 random bits); only its hash is stored. */
async function createEmailToken(db: DbOrTx, userId: number, purpose: EmailPurpose): Promise<string> {
  const token = newToken();
  await db.insert(emailTokens).values({
    tokenHash: hashToken(token),
    userId,
    purpose,
    expiresAt: new Date(Date.now() + EMAIL_TOKEN_TTL_MS[purpose]),
  });
  return token;
}

/** Tokens longer than any we issue are no tokens: refused before they are hashed. */
const plausible = (token: string) => token.length > 0 && token.length <= 200;

/** The owner of a live token, without spending it. */
async function findEmailTokenOwner(db: DbOrTx, token: string, purpose: EmailPurpose): Promise<number | null> {
  if (!plausible(token)) return null;
  const [row] = await db
    .select({ userId: emailTokens.userId })
    .from(emailTokens)
    .where(and(eq(emailTokens.tokenHash, hashToken(token)), eq(emailTokens.purpose, purpose), gt(emailTokens.expiresAt, sql`now()`)));
  return row?.userId ?? null;
}

/**
 * Spends a token: its row is deleted by the statement that reads it, so of two uses at once only
 * one finds it. Answers its owner, or null when the token is unknown, spent or expired.
 */
async function spendEmailToken(db: DbOrTx, token: string, purpose: EmailPurpose): Promise<number | null> {
  if (!plausible(token)) return null;
  const [row] = await db
    .delete(emailTokens)
    .where(and(eq(emailTokens.tokenHash, hashToken(token)), eq(emailTokens.purpose, purpose)))
    .returning({ userId: emailTokens.userId, expiresAt: emailTokens.expiresAt });
  if (!row || row.expiresAt.getTime() <= Date.now()) return null;
  return row.userId;
}

/** Sends a verification link, unless the address is already verified. Answers whether one was sent. */
export async function sendVerificationEmail(deps: MailDeps, userId: number): Promise<boolean> {
  const user = await findRecipient(deps.db, eq(users.id, userId));
  if (!user || user.verified) return false;
  const token = await createEmailToken(deps.db, user.id, 'verify_email');
  await deps.mailer.send(composeMail('verifyEmail', user, verifyEmailLink(deps.publicUrl, token, user.language)));
  return true;
}

/**
 * `POST /api/auth/verify-email/resend/`: refused when there is nothing left to verify. Sent before the
 * answer (the user asked for it and waits for it): a mail server that does not take it is told
 * (`MailUnavailable`), not answered as sent. Written in the language the app asks in, which the
 * account takes first (`rememberLanguage`: the caller saves it, and tells the user's other phones).
 */
export async function resendVerificationEmail(deps: MailDeps, userId: number, rememberLanguage: () => Promise<void>) {
  const user = await findRecipient(deps.db, eq(users.id, userId));
  if (!user) return;
  if (user.verified) throw new Conflict(ALREADY_VERIFIED);
  await rememberLanguage();
  await sendVerificationEmail(deps, userId);
}

/**
 * Spends a verification link and marks the address verified; every other verification link dies.
 * Answers whose address it was, once committed.
 */
export async function verifyEmail(db: Db, token: string): Promise<{ userId: number; email: string }> {
  const verified = await db.transaction(async (tx) => {
    const userId = await spendEmailToken(tx, token, 'verify_email');
    if (userId === null) return null;
    const [user] = await tx
      .update(users)
      .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` })
      .where(eq(users.id, userId))
      .returning({ email: users.email });
    await tx.delete(emailTokens).where(and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, 'verify_email')));
    return { userId, email: user!.email };
  });
  if (verified === null) throw ValidationError.field('token', LINK_INVALID);
  return verified;
}

/**
 * "Forgot password?": a reset link to the account with this e-mail, if there is one. Called off the
 * request path (`mailer.later`), so the answer is the same, in the same time, either way. Google-only
 * accounts set their first password this way.
 */
export async function sendPasswordResetEmail(deps: MailDeps, email: string): Promise<boolean> {
  // A suspended account gets no link: it could not sign in with it anyway.
  const user = await findRecipient(deps.db, and(eq(users.email, email.trim().toLowerCase()), isNull(users.bannedAt))!);
  if (!user) return false;
  const token = await createEmailToken(deps.db, user.id, 'reset_password');
  // An account with no password yet (made with Google) is not told its password stays as it is.
  await deps.mailer.send(composeMail(user.hasPassword ? 'resetPassword' : 'setPassword', user, resetPasswordLink(deps.publicUrl, token, user.language)));
  return true;
}

/**
 * Tells the owner their password changed (OWASP ASVS: notify on credential changes); `first`: that one
 * was set where there was none (an account made with Google), which it can now sign in with too.
 */
export async function sendPasswordChangedEmail(deps: MailDeps, userId: number, first = false): Promise<void> {
  const user = await findRecipient(deps.db, eq(users.id, userId));
  if (user) await deps.mailer.send(composeMail(first ? 'passwordSet' : 'passwordChanged', user));
}

function passwordFieldErrors(
  password: string,
  password2: string,
  user: { email: string; firstName: string; lastName: string } | null,
): FieldMessages {
  const fields: FieldMessages = {};
  const problems = passwordProblems(password, {
    email: user?.email ?? '',
    first_name: user?.firstName ?? '',
    last_name: user?.lastName ?? '',
  });
  if (problems.length > 0) fields.password = problems;
  if (password !== password2) fields.password2 = [PASSWORDS_DIFFER];
  return fields;
}

/**
 * A session that a new password opened: its token, and the hashes of the user's sessions it ended,
 * which the caller forgets everywhere (caches, sockets) once the change has committed. None ended by
 * a repeat of a change already made (`repeat`): that change ended them, and told the owner.
 */
export interface NewPasswordSession {
  token: string;
  ended: string[];
  repeat: boolean;
}

/**
 * A new password and a fresh token; every other session of the user ends in the same commit, so that
 * a session issued after it (a repeat of the change that waited for it) is not swept with them.
 */
async function setPassword(
  db: DbOrTx,
  userId: number,
  passwordHash: string,
  options: { verifiesEmail: boolean },
): Promise<NewPasswordSession> {
  await db
    .update(users)
    .set({
      passwordHash,
      passwordChangedAt: sql`now()`,
      ...(options.verifiesEmail ? { emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` } : {}),
    })
    .where(eq(users.id, userId));
  // Every reset link still in a mailbox dies with the old password.
  await db.delete(emailTokens).where(and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, 'reset_password')));
  const token = await issueToken(db, userId);
  const ended = await db
    .delete(authTokens)
    .where(and(eq(authTokens.userId, userId), ne(authTokens.tokenHash, hashToken(token))))
    .returning({ tokenHash: authTokens.tokenHash });
  return { token, ended: ended.map((row) => row.tokenHash), repeat: false };
}

/** The account a reset link is for, while it can be used: null once spent or expired, or never issued. */
async function resetLinkOwner(db: DbOrTx, token: string): Promise<Recipient | null> {
  const ownerId = await findEmailTokenOwner(db, token, 'reset_password');
  return ownerId === null ? null : findRecipient(db, eq(users.id, ownerId));
}

/**
 * Whether a reset link can still be used, asked as its page opens: one spent or expired says so at
 * once, not after a new password was typed twice. Spends nothing. A usable one answers the address
 * it was sent to, which its holder has already read.
 */
export async function checkPasswordReset(db: Db, token: string): Promise<PasswordResetLink> {
  const owner = await resetLinkOwner(db, token);
  if (!owner) throw ValidationError.field('token', LINK_INVALID);
  return { email: owner.email, has_password: owner.hasPassword };
}

/**
 * Spends a reset link: the new password (registration's rules), the e-mail verified (the link reached
 * its inbox), and a fresh token. Every problem is reported at once, the link's included.
 */
export async function confirmPasswordReset(
  db: Db,
  input: PasswordResetConfirmInput,
  hashOptions: HashOptions,
): Promise<{ userId: number; session: NewPasswordSession; first: boolean }> {
  const owner = await resetLinkOwner(db, input.token);
  const fields = passwordFieldErrors(input.password, input.password2, owner);
  if (!owner) fields.token = [LINK_INVALID];
  if (Object.keys(fields).length > 0) throw new ValidationError(fields);

  const passwordHash = await hashPassword(input.password, hashOptions);
  return db.transaction(async (tx) => {
    // The user's row before the link's, as a change takes them (the row, then every reset link
    // through `setPassword`): the other order deadlocked a reset against a change at once.
    // Read under the lock: whether this sets the account's first password (one made with Google).
    const [row] = await tx.select({ hash: users.passwordHash }).from(users).where(eq(users.id, owner!.id)).for('no key update');
    // Spent by whichever use gets here first.
    const userId = await spendEmailToken(tx, input.token, 'reset_password');
    if (userId !== owner!.id) throw ValidationError.field('token', LINK_INVALID);
    return { userId, session: await setPassword(tx, userId, passwordHash, { verifiesEmail: true }), first: row?.hash == null };
  });
}

/** The user's password hash as stored now: null for an account without a password (Google only). */
async function storedPasswordHash(db: DbOrTx, userId: number): Promise<string | null> {
  const [row] = await db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  return row?.hash ?? null;
}

/** Whether `password` is the one `hash` was made from (argon2: tens of ms of CPU, off any transaction). */
async function verdictOf(hash: string | null, password: string): Promise<'ok' | 'wrong' | 'none'> {
  if (!hash) return 'none';
  return (await argon2.verify(hash, password).catch(() => false)) ? 'ok' : 'wrong';
}

/** Checks a password the signed-in user typed again (password change, deletion). */
export async function checkPassword(db: DbOrTx, userId: number, password: string): Promise<'ok' | 'wrong' | 'none'> {
  return verdictOf(await storedPasswordHash(db, userId), password);
}

/**
 * `POST /api/users/me/password/`: the current password, then a new one; answers a fresh token.
 * Of several changes at once, one wins: the current password is verified (and the new one hashed)
 * outside the transaction, which then locks the user's row and goes on only if the hash is still
 * the one verified. Whichever commits first changes it, so the others answer, as for a wrong
 * current password, that theirs no longer is; so does a change that a reset overtook. All but one
 * that asked for the very password that won: the same change sent twice (a double tap, a retry of
 * one whose answer was slow), which is done, and answers so with a session of its own.
 */
export async function changePassword(
  db: Db,
  userId: number,
  input: ChangePasswordInput,
  hashOptions: HashOptions,
): Promise<NewPasswordSession> {
  const user = await findRecipient(db, eq(users.id, userId));
  const verifiedHash = await storedPasswordHash(db, userId);
  const current = await verdictOf(verifiedHash, input.current_password);
  const fields = passwordFieldErrors(input.password, input.password2, user);
  // Sent again after it was done, the old password no longer is: what it asks for is.
  if (current === 'wrong' && Object.keys(fields).length === 0) {
    const repeat = await repeatedChange(db, userId, input.password);
    if (repeat) return repeat;
  }
  if (current === 'wrong') fields.current_password = [WRONG_CURRENT_PASSWORD];
  if (current === 'none') fields.current_password = [NO_PASSWORD_YET];
  if (Object.keys(fields).length > 0) throw new ValidationError(fields);

  const passwordHash = await hashPassword(input.password, hashOptions);
  const session = await db.transaction(async (tx) => {
    // Waits for a change or reset of the same user in flight, then sees what it wrote.
    const [row] = await tx.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId)).for('no key update');
    if (row?.hash !== verifiedHash) return null;
    return setPassword(tx, userId, passwordHash, { verifiesEmail: false });
  });
  if (session) return session;
  const repeat = await repeatedChange(db, userId, input.password);
  if (repeat) return repeat;
  throw ValidationError.field('current_password', WRONG_CURRENT_PASSWORD);
}

/** How soon a change sent again comes after the one that was done: a double tap, a retry of a slow answer. */
const REPEAT_WINDOW_MS = 60 * 1000;

/**
 * A change that finds the password already the one it asks for, set within the minute, is the same
 * change sent again after it was done: answered as done, with a session of its own (none is ended: the
 * change it repeats ended the others, after which this one is issued). Checked off any transaction, as
 * the current password is; issued only while the password is still the one checked, as a login's is.
 */
async function repeatedChange(db: Db, userId: number, password: string): Promise<NewPasswordSession | null> {
  const [row] = await db
    .select({ hash: users.passwordHash })
    .from(users)
    .where(and(eq(users.id, userId), gt(users.passwordChangedAt, sql`now() - ${REPEAT_WINDOW_MS}::int * interval '1 millisecond'`)));
  if (!row?.hash || (await verdictOf(row.hash, password)) !== 'ok') return null;
  try {
    return { token: await issueToken(db, userId, { passwordHash: row.hash }), ended: [], repeat: true };
  } catch (error) {
    // Changed again meanwhile: not the password it asked for any more.
    if (error instanceof ValidationError) return null;
    throw error;
  }
}

/**
 * Deletes what can no longer open anything: sessions unused for their whole idle lifetime and e-mailed
 * links past their expiry (both already refused where they are read). Answers how many of each went.
 */
export async function purgeExpiredTokens(db: DbOrTx, now: Date = new Date()): Promise<{ sessions: number; links: number }> {
  const sessions = await db
    .delete(authTokens)
    .where(lt(authTokens.lastUsedAt, new Date(now.getTime() - TOKEN_IDLE_LIFETIME_MS)))
    .returning({ hash: authTokens.tokenHash });
  const links = await db.delete(emailTokens).where(lt(emailTokens.expiresAt, now)).returning({ hash: emailTokens.tokenHash });
  return { sessions: sessions.length, links: links.length };
}
