/**
 * A local fake of Google's OpenID Connect user-info endpoint: a bearer access token it knows
 * answers that account's claims, anything else answers 401 as Google does.
 */
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
  /** access token → the account Google vouches for. */
  tokens: Map<string, GoogleAccount>;
  /** Tokens that make the fake answer 503, as Google does when it is having trouble. */
  failing: Set<string>;
}

export const USERINFO_PATH = '/oauth2/v3/userinfo';

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const tokens = new Map<string, GoogleAccount>();
  const failing = new Set<string>();
  const server = await startFakeServer((request) => {
    if (request.method !== 'GET' || request.path !== USERINFO_PATH) return { status: 404, body: { error: 'not_found' } };
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token && failing.has(token)) return { status: 503, body: { error: 'backend_error' } };
    const account = token ? tokens.get(token) : undefined;
    if (!account) {
      return {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
        body: { error: 'invalid_token', error_description: 'Invalid Credentials' },
      };
    }
    return { status: 200, body: account };
  });
  return { ...server, userInfoUrl: `${server.url}${USERINFO_PATH}`, tokens, failing };
}
