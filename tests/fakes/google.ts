/**
 * A local fake of Google's OAuth endpoints the server asks: the OpenID Connect user-info endpoint
 * (bearer token → that account's claims) and the token-info endpoint (which app a token was
 * issued to). Unknown tokens answer as Google does: 401 and 400.
 */
import { randomBytes } from 'node:crypto';
import { type FakeServer, startFakeServer } from './http';

export interface GoogleAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  given_name?: string;
  family_name?: string;
  name?: string;
  picture?: string;
}

export interface FakeGoogle extends FakeServer {
  userInfoUrl: string;
  tokenInfoUrl: string;
  /** A fresh access token for `account`, issued to `audience` (by default the app under test). */
  issue(account: GoogleAccount, audience?: string): string;
  /** Tokens that make the fake answer 503, as Google does when it is having trouble. */
  failing: Set<string>;
  /**
   * Awaited before each answer (the path asked), when set: holds answers back (to line requests up, or
   * to be slow), and answers in Google's place when it gives an answer.
   */
  holdAnswer: ((path: string) => Promise<{ status: number; body: unknown } | void>) | null;
}

export const USERINFO_PATH = '/oauth2/v3/userinfo';
export const TOKENINFO_PATH = '/tokeninfo';

export async function startFakeGoogle(options: { clientId: string }): Promise<FakeGoogle> {
  const tokens = new Map<string, { account: GoogleAccount; audience: string }>();
  const failing = new Set<string>();

  const fake = { holdAnswer: null as FakeGoogle['holdAnswer'] };
  const server = await startFakeServer(async (request) => {
    const instead = await fake.holdAnswer?.(request.path);
    if (instead) return instead;
    if (request.method === 'GET' && request.path === USERINFO_PATH) {
      const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (token && failing.has(token)) return { status: 503, body: { error: 'backend_error' } };
      const grant = token ? tokens.get(token) : undefined;
      if (!grant) {
        return {
          status: 401,
          headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
          body: { error: 'invalid_token', error_description: 'Invalid Credentials' },
        };
      }
      return { status: 200, body: grant.account };
    }

    if (request.method === 'POST' && request.path === TOKENINFO_PATH) {
      const token = request.form.access_token;
      if (token && failing.has(token)) return { status: 503, body: { error: 'backend_error' } };
      const grant = token ? tokens.get(token) : undefined;
      if (!grant) return { status: 400, body: { error: 'invalid_token', error_description: 'Invalid Value' } };
      return {
        status: 200,
        body: {
          azp: grant.audience,
          aud: grant.audience,
          sub: grant.account.sub,
          scope: 'openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile',
          expires_in: '3599',
          email: grant.account.email,
          email_verified: String(grant.account.email_verified),
        },
      };
    }

    return { status: 404, body: { error: 'not_found' } };
  });

  return Object.assign(fake, {
    ...server,
    userInfoUrl: `${server.url}${USERINFO_PATH}`,
    tokenInfoUrl: `${server.url}${TOKENINFO_PATH}`,
    failing,
    issue(account: GoogleAccount, audience = options.clientId) {
      const token = `ya29.${randomBytes(12).toString('hex')}`;
      tokens.set(token, { account, audience });
      return token;
    },
  });
}
