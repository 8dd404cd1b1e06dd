import { and, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { Language } from '../../../shared/constants';
import { GoogleTokenInfo, GoogleUserInfo } from '../../../shared/schemas/google';
import { hasVisibleText } from '../../../shared/visible-text';
import type { Db } from '../../db/client';
import { users } from '../../db/schema';
import { AccountSuspended, ApiError, Conflict, ValidationError } from '../../errors';
import { isUniqueViolation } from '../../lib/pg-errors';
import { createUser, issueToken } from '../auth/service';
import { type ServerText, serverText } from '../../../shared/i18n/server-messages';

export const GOOGLE_DISABLED = serverText('google_disabled');
export const GOOGLE_REJECTED = serverText('google_rejected');
export const GOOGLE_NO_EMAIL = serverText('google_no_email');
export const GOOGLE_UNVERIFIED = serverText('google_unverified');
export const GOOGLE_OTHER_ACCOUNT = serverText('google_other_account');
export const GOOGLE_NEEDS_VERIFIED_EMAIL = serverText('google_needs_verified_email');

/** How long a sign-in waits on Google, both of its questions together: less than the client waits (15 s). */
const GOOGLE_TIMEOUT_MS = 10_000;

const rejected = (message: ServerText) => ValidationError.field('non_field_errors', message);

class GoogleUnavailable extends ApiError {
  constructor() {
    super(503, { detail: serverText('google_unavailable') });
  }
}

export interface GoogleSettings {
  clientId: string;
  userInfoUrl: string;
  tokenInfoUrl: string;
  /** How long a sign-in waits on Google (tests shorten it); `GOOGLE_TIMEOUT_MS` by default. */
  timeoutMs?: number;
}

/**
 * Google's JSON answer, or the error a client should see: 4xx refused the token; 5xx, its limit on our
 * calls (429), no whole answer before `init.signal` ends the wait, or a success that is not a JSON
 * object (a proxy's or captive portal's page, an empty body) is an outage: the token was not refused,
 * and Google did not say the account has no e-mail.
 */
async function askGoogle(url: string, init: RequestInit & { signal: AbortSignal }): Promise<object> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, init);
    // The body too: an answer that stops halfway is no answer.
    text = await response.text();
  } catch {
    throw new GoogleUnavailable();
  }
  if (response.status >= 500 || response.status === 429) throw new GoogleUnavailable();
  if (!response.ok) throw rejected(GOOGLE_REJECTED);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GoogleUnavailable();
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new GoogleUnavailable();
  return body;
}

/**
 * Who Google says the access token belongs to, asked of Google itself: the only identity a
 * Google sign-in is trusted with. The client's copy of the profile is never read. The token must
 * have been issued to this app: a token another app obtained for the same person is refused.
 */
export async function verifyGoogleToken(google: GoogleSettings, accessToken: string): Promise<GoogleUserInfo> {
  const signal = AbortSignal.timeout(google.timeoutMs ?? GOOGLE_TIMEOUT_MS);
  const tokenInfo = GoogleTokenInfo.safeParse(
    await askGoogle(google.tokenInfoUrl, {
      signal,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      // In the body, not the query string: the token stays out of URLs and their logs.
      body: new URLSearchParams({ access_token: accessToken }).toString(),
    }),
  );
  if (!tokenInfo.success) throw rejected(GOOGLE_REJECTED);
  const { aud, azp } = tokenInfo.data;
  if (aud !== google.clientId && azp !== google.clientId) throw rejected(GOOGLE_REJECTED);

  const body = await askGoogle(google.userInfoUrl, {
    signal,
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  });
  const parsed = GoogleUserInfo.safeParse(body);
  if (!parsed.success) {
    const hasEmail = 'email' in body;
    throw rejected(hasEmail ? GOOGLE_REJECTED : GOOGLE_NO_EMAIL);
  }
  if (tokenInfo.data.sub && tokenInfo.data.sub !== parsed.data.sub) throw rejected(GOOGLE_REJECTED);
  if (!parsed.data.email_verified) throw rejected(GOOGLE_UNVERIFIED);
  return parsed.data;
}

/**
 * A name from Google as the app's own rules would take it: without control characters or halves of
 * surrogate pairs (which the database could only write as U+FFFD), cut at 150 characters, not inside
 * one; nothing where nothing would show (the profile's name, `visibleText`, refuses one of only invisible characters).
 */
function usableName(name: string | undefined): string | undefined {
  const text = name?.replace(/[\p{Cc}\p{Cs}]/gu, '').trim();
  return text && hasVisibleText(text) ? Array.from(text).slice(0, 150).join('').trim() : undefined;
}

/** Names for a new account: Google's given/family names, else its display name, else the e-mail's local part. */
function accountNames(info: GoogleUserInfo) {
  const firstName = usableName(info.given_name) ?? usableName(info.name) ?? usableName(info.email.split('@')[0]) ?? 'Google user';
  return { firstName, lastName: usableName(info.family_name) ?? '' };
}

/**
 * The account for a verified Google identity: by Google's subject id, then by e-mail (linking the
 * two), else a new one. Two first logins at once both end on the one account the constraints allow.
 *
 * A password account is linked only once its owner has proved the address: otherwise
 * whoever registered the address first, perhaps not its owner, would be let into the owner's Google
 * login ("pre-account hijacking"). Google vouching for the address verifies it; `verifiedEmail` says
 * when that verified an account that was there before, whose open apps still say it is not.
 */
export async function findOrCreateGoogleUser(
  db: Db,
  info: GoogleUserInfo,
  options: { language?: Language } = {},
  attempt = 0,
): Promise<{ id: number; created: boolean; verifiedEmail: boolean }> {
  // A suspended account is refused before anything of it changes (issueToken refuses it again, in
  // case a ban commits meanwhile): no address verified, no Google account linked.
  const [bySub] = await db.select({ id: users.id, bannedAt: users.bannedAt }).from(users).where(eq(users.googleSub, info.sub));
  if (bySub) {
    if (bySub.bannedAt) throw new AccountSuspended();
    const verified = await db
      .update(users)
      .set({ emailVerifiedAt: sql`now()` })
      .where(and(eq(users.id, bySub.id), eq(users.email, info.email), isNull(users.emailVerifiedAt)))
      .returning({ id: users.id });
    return { id: bySub.id, created: false, verifiedEmail: verified.length > 0 };
  }

  const [byEmail] = await db
    .select({ id: users.id, googleSub: users.googleSub, passwordHash: users.passwordHash, emailVerifiedAt: users.emailVerifiedAt, bannedAt: users.bannedAt })
    .from(users)
    .where(eq(users.email, info.email));
  if (byEmail) {
    if (byEmail.bannedAt) throw new AccountSuspended();
    if (byEmail.googleSub && byEmail.googleSub !== info.sub) throw rejected(GOOGLE_OTHER_ACCOUNT);
    if (byEmail.passwordHash !== null && byEmail.emailVerifiedAt === null) throw new Conflict(GOOGLE_NEEDS_VERIFIED_EMAIL);
    const linked = await db
      .update(users)
      .set({ googleSub: info.sub, emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` })
      .where(
        and(
          eq(users.id, byEmail.id),
          isNull(users.googleSub),
          isNull(users.bannedAt),
          // Checked again here: the account may have changed since it was read.
          or(isNull(users.passwordHash), isNotNull(users.emailVerifiedAt)),
        ),
      )
      .returning({ id: users.id })
      // The same Google account linked to another account meanwhile (its e-mail changed at Google
      // between two sign-ins at once): that account is the one it signs in to now.
      .catch((error: unknown) => {
        if (isUniqueViolation(error, 'users_google_sub_unique')) return [];
        throw error;
      });
    if (linked[0]) return { id: linked[0].id, created: false, verifiedEmail: byEmail.emailVerifiedAt === null };
  } else {
    try {
      const user = await createUser(db, {
        email: info.email,
        ...accountNames(info),
        passwordHash: null,
        googleSub: info.sub,
        language: options.language,
        emailVerified: true,
      });
      return { id: user.id, created: true, verifiedEmail: false };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  // Another request linked or created concurrently: look again, once.
  if (attempt > 0) throw rejected(GOOGLE_OTHER_ACCOUNT);
  return findOrCreateGoogleUser(db, info, options, attempt + 1);
}

export async function googleLogin(
  db: Db,
  google: GoogleSettings,
  accessToken: string,
  options: { language?: Language } = {},
): Promise<{ token: string; userId: number; created: boolean; verifiedEmail: boolean }> {
  const info = await verifyGoogleToken(google, accessToken);
  const user = await findOrCreateGoogleUser(db, info, options);
  return { token: await issueToken(db, user.id), userId: user.id, created: user.created, verifiedEmail: user.verifiedEmail };
}
