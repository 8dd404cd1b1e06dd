import argon2 from 'argon2';
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { RegisterInput } from '../../../shared/schemas/auth';
import { DEFAULT_LANGUAGE, DEFAULT_MAX_MATCHING_AGE, DEFAULT_MIN_MATCHING_AGE, type Language, NAME_MAX_LENGTH } from '../../../shared/constants';
import type { Db, DbOrTx } from '../../db/client';
import { authTokens, profiles, users } from '../../db/schema';
import { AccountSuspended, type ApiError, type FieldMessages, ValidationError } from '../../errors';
import { isUniqueViolation } from '../../lib/pg-errors';
import { hashToken, newToken } from '../../lib/tokens';
import { PASSWORDS_DIFFER, passwordProblems } from './password-rules';
import { serverText } from '../../../shared/i18n/server-messages';

export interface HashOptions {
  memoryCost: number;
  timeCost: number;
}

export const INVALID_CREDENTIALS = serverText('invalid_credentials');
export const EMAIL_TAKEN = serverText('email_taken');

export const hashPassword = (password: string, options: HashOptions) =>
  argon2.hash(password, { type: argon2.argon2id, ...options });

/**
 * A new session for the user: every way in (password, Google, a reset) ends here, so a banned account
 * gets none (403 `AccountSuspended`). A password login names the hash it checked the password against
 * (`passwordHash`): a change or reset that commits while it was being checked wins too, and the login
 * is answered as for a wrong password. Both are checked in the insert itself, on the user's row held
 * shared: a ban or a change in progress (which holds that row) is waited for and wins; one that comes
 * after waits for this session's commit, and its sweep of the user's sessions finds this one. Read
 * without the lock, a login that began before either committed could store its session after the
 * sweep, and keep it.
 */
export async function issueToken(db: DbOrTx, userId: number, options: { passwordHash?: string } = {}): Promise<string> {
  const token = newToken();
  const checked = options.passwordHash;
  const account = db
    .select({
      tokenHash: sql`${hashToken(token)}`.as('token_hash'),
      userId: users.id,
      createdAt: sql`now()`.as('created_at'),
      lastUsedAt: sql`now()`.as('last_used_at'),
      endedByBan: sql`false`.as('ended_by_ban'),
    })
    .from(users)
    .where(and(eq(users.id, userId), isNull(users.bannedAt), checked === undefined ? undefined : eq(users.passwordHash, checked)));
  const issued = await db
    .insert(authTokens)
    .select(account.for('share'))
    .returning({ tokenHash: authTokens.tokenHash });
  if (issued.length > 0) return token;
  if (checked !== undefined && !(await isBanned(db, userId))) throw ValidationError.field('non_field_errors', INVALID_CREDENTIALS);
  throw new AccountSuspended();
}

async function isBanned(db: DbOrTx, userId: number): Promise<boolean> {
  const [row] = await db.select({ bannedAt: users.bannedAt }).from(users).where(eq(users.id, userId));
  return row?.bannedAt != null;
}

/**
 * A first name (up to 150 long) as a new profile's name (up to 50): cut between whole characters, as
 * the profile would save it. Cut inside an emoji, its first half went to the database alone, which
 * stored U+FFFD in its place.
 */
function profileNameOf(firstName: string): string {
  // A high surrogate last is the first half of a character whose second half was cut off.
  return firstName.slice(0, NAME_MAX_LENGTH).replace(/[\uD800-\uDBFF]$/, '').trimEnd();
}

/** A new account and its empty profile (name = first name, ages 18–50), in one transaction. */
export async function createUser(
  db: Db,
  account: {
    email: string;
    firstName: string;
    lastName: string;
    passwordHash: string | null;
    googleSub?: string;
    language?: Language;
    /** Google vouched for the address: nothing left to verify. */
    emailVerified?: boolean;
  },
) {
  return db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({
        email: account.email,
        firstName: account.firstName,
        lastName: account.lastName,
        passwordHash: account.passwordHash,
        googleSub: account.googleSub ?? null,
        language: account.language ?? DEFAULT_LANGUAGE,
        emailVerifiedAt: account.emailVerified ? new Date() : null,
        passwordChangedAt: account.passwordHash ? new Date() : null,
      })
      .returning();
    await tx.insert(profiles).values({
      userId: user!.id,
      name: profileNameOf(account.firstName),
      minMatchingAge: DEFAULT_MIN_MATCHING_AGE,
      maxMatchingAge: DEFAULT_MAX_MATCHING_AGE,
    });
    return user!;
  });
}

/**
 * A register body refused by its schema (`RegisterBody`), with its e-mail said to be taken too when it
 * is one: every bad field at once, so that a user who already has an account learns it with the rest,
 * rather than once they have mended the password only to be told to sign in.
 */
export async function withEmailTaken(db: Db, refused: ApiError | null, body: unknown): Promise<ApiError | null> {
  if (!(refused instanceof ValidationError) || refused.fields.username) return refused;
  const email = RegisterInput.shape.username.safeParse((body as { username?: unknown } | null)?.username);
  if (!email.success) return refused;
  const [taken] = await db.select({ id: users.id }).from(users).where(eq(users.email, email.data));
  return taken ? new ValidationError({ username: [EMAIL_TAKEN], ...refused.fields }) : refused;
}

export async function register(db: Db, input: RegisterInput, hashOptions: HashOptions, language: Language | null = null) {
  const fields: FieldMessages = {};
  const problems = passwordProblems(input.password, {
    email: input.username,
    first_name: input.first_name,
    last_name: input.last_name,
  });
  if (problems.length > 0) fields.password = problems;
  if (input.password !== input.password2) fields.password2 = [PASSWORDS_DIFFER];
  if (Object.keys(fields).length > 0) throw new ValidationError(fields);

  try {
    const user = await createUser(db, {
      email: input.username,
      firstName: input.first_name,
      lastName: input.last_name,
      passwordHash: await hashPassword(input.password, hashOptions),
      language: language ?? undefined,
    });
    return { id: user.id, email: user.email, first_name: user.firstName, last_name: user.lastName };
  } catch (error) {
    if (isUniqueViolation(error, 'users_email_unique')) throw ValidationError.field('username', EMAIL_TAKEN);
    throw error;
  }
}

// Verifying against a real hash when the account is unknown keeps both answers equally slow.
let decoyHash: Promise<string> | null = null;

/**
 * Password login. `throttle` is asked before the password is checked, with the account's key: the
 * e-mail and the moment its password last changed, so that a new password (a reset) starts every
 * count of that account afresh. Answers the token and that key (a success clears its count).
 */
export async function login(
  db: Db,
  username: string,
  password: string,
  hashOptions: HashOptions,
  throttle: (accountKey: string) => Promise<void> = async () => {},
): Promise<{ token: string; accountKey: string }> {
  const email = username.trim().toLowerCase();
  const [user] = await db
    .select({ id: users.id, passwordHash: users.passwordHash, passwordChangedAt: users.passwordChangedAt })
    .from(users)
    .where(eq(users.email, email));
  const accountKey = `${email}|${user?.passwordChangedAt?.getTime() ?? 0}`;
  await throttle(accountKey);
  const hash = user?.passwordHash ?? (await (decoyHash ??= hashPassword('decoy-password', hashOptions)));
  const valid = await argon2.verify(hash, password).catch(() => false);
  if (!user?.passwordHash || !valid) throw ValidationError.field('non_field_errors', INVALID_CREDENTIALS);
  return { token: await issueToken(db, user.id, { passwordHash: user.passwordHash }), accountKey };
}

/** The language the user reads the app in now: their e-mails are written in it from here on. True when it was another. */
export async function rememberLanguage(db: DbOrTx, userId: number, language: Language | null): Promise<boolean> {
  if (!language) return false;
  const changed = await db
    .update(users)
    .set({ language })
    .where(and(eq(users.id, userId), ne(users.language, language)))
    .returning({ id: users.id });
  return changed.length > 0;
}
