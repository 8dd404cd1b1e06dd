import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../server/db/schema';
import { GOOGLE_USERINFO_URL } from '../../shared/schemas/google';
import { type FakeGoogle, type GoogleAccount, startFakeGoogle, TOKENINFO_PATH, USERINFO_PATH } from '../fakes/google';
import { makeCompletedUser, makeUser, markEmailVerified, validProfile } from '../helpers/factories';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { client } from '../helpers/http';
import { backends, serverPerSuite, type TestServer } from '../helpers/server';

const LOGIN = '/api/auth/google/login/';
const CLIENT_ID = 'eventmatch-test.apps.googleusercontent.com';

const unique = () => randomBytes(6).toString('hex');

/** A Google account the fake vouches for, and a fresh access token for it. */
function googleAccount(fake: FakeGoogle, overrides: Partial<GoogleAccount> = {}) {
  const id = unique();
  const account: GoogleAccount = {
    sub: `1${BigInt(`0x${id}`).toString().padStart(20, '0')}`,
    email: `g-${id}@gmail.example`,
    email_verified: true,
    given_name: 'Gabriela',
    family_name: 'García',
    name: 'Gabriela García',
    ...overrides,
  };
  return { account, token: fake.issue(account) };
}

/**
 * Holds Google's user-info answers back until `count` sign-ins are waiting for theirs, then answers
 * them all: they reach the database together, as sign-ins sent at the same instant do.
 */
function lineUpAtGoogle(fake: FakeGoogle, count: number) {
  let waiting: (() => void)[] = [];
  fake.holdAnswer = (path) =>
    path !== USERINFO_PATH
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiting.push(resolve);
          if (waiting.length < count) return;
          fake.holdAnswer = null;
          for (const answer of waiting.splice(0)) answer();
        });
}

const usersWithEmail = (server: TestServer, email: string) =>
  server.app.db.select({ id: users.id }).from(users).where(eq(users.email, email));

describe.each(backends)('Google sign-in against a local fake of Google, on %s', (backend) => {
  let fake: FakeGoogle;
  beforeAll(async () => {
    fake = await startFakeGoogle({ clientId: CLIENT_ID });
  });
  afterAll(() => fake?.close());
  const server = serverPerSuite(() => ({
    backend,
    config: { google: { clientId: CLIENT_ID, userInfoUrl: fake.userInfoUrl, tokenInfoUrl: fake.tokenInfoUrl } },
  }));

  const login = (body: unknown) => client(server.url).post(LOGIN, { json: body });
  const me = async (token: string) => (await client(server.url).get('/api/users/me/', { token })).body;

  it('tells the client which Google client id to load, and its pages may load Google Identity Services', async () => {
    const response = await client(server.url).get('/api/config/');
    expect(response.body).toMatchObject({ google_client_id: CLIENT_ID });
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src [^;]*https:\/\/accounts\.google\.com\/gsi\/client/);
    expect(csp).toMatch(/frame-src [^;]*https:\/\/accounts\.google\.com\/gsi\//);
    expect(csp).toMatch(new RegExp(`connect-src [^;]*${GOOGLE_USERINFO_URL.replaceAll('.', '\\.')}`));
    expect(csp).toContain(fake.userInfoUrl);
  });

  it('logs in as the account Google vouches for, not the one the client claims', async () => {
    const victim = await makeUser(server);
    const { account, token } = googleAccount(fake);
    const response = await login({
      access_token: token,
      profile: { sub: 'someone-else', email: victim.email, email_verified: true, given_name: 'Mallory' },
    });

    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.token).toEqual(expect.any(String));
    const user = await me(response.body.token);
    expect(user).toMatchObject({ email: account.email, first_name: 'Gabriela', last_name: 'García' });
    expect(user.id).not.toBe(victim.id);
    // Google was asked which app the token is for, then whose it is, with the token as a bearer credential.
    const asked = fake.requests.slice(-2);
    expect(asked.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /tokeninfo', 'GET /oauth2/v3/userinfo']);
    expect(asked[0]?.form.access_token).toBe(token);
    expect(asked[1]?.headers.authorization).toBe(`Bearer ${token}`);
    // The new account has no password: the password login cannot be used to enter it.
    const [row] = await server.app.db.select({ hash: users.passwordHash, sub: users.googleSub }).from(users).where(eq(users.id, user.id));
    expect(row).toEqual({ hash: null, sub: account.sub });
  });

  it('finds the same account on the next login, by Google id even after the e-mail changed', async () => {
    const { account, token } = googleAccount(fake);
    const first = await login({ access_token: token });
    expect(first.status).toBe(200);
    const firstId = (await me(first.body.token)).id;

    const second = await login({ access_token: fake.issue(account) });
    expect(second.status).toBe(200);
    expect((await me(second.body.token)).id).toBe(firstId);

    const renamed = await login({ access_token: fake.issue({ ...account, email: `renamed-${unique()}@gmail.example` }) });
    expect(renamed.status).toBe(200);
    expect((await me(renamed.body.token)).id).toBe(firstId);
    expect(await usersWithEmail(server, account.email)).toHaveLength(1);
  });

  it('links an existing, verified e-mail account to Google on its first Google login', async () => {
    const existing = await makeUser(server);
    await markEmailVerified(server, existing.id);
    const { token } = googleAccount(fake, { email: existing.email.toUpperCase() });
    const response = await login({ access_token: token });
    expect(response.status).toBe(200);
    expect((await me(response.body.token)).id).toBe(existing.id);
    // The password still works too.
    const password = await client(server.url).post('/api/auth/', { json: { username: existing.email, password: existing.password } });
    expect(password.status).toBe(200);

    // Another Google account with the same e-mail does not take it over.
    const { token: intruder } = googleAccount(fake, { email: existing.email });
    const refused = await login({ access_token: intruder });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ non_field_errors: ['This e-mail address is already linked to another Google account.'] });
  });

  it('does not link a password account whose e-mail is unverified (409): whoever registered it may not own it', async () => {
    const squatter = await makeUser(server);
    const { token } = googleAccount(fake, { email: squatter.email });
    const refused = await login({ access_token: token });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      detail: 'An account with this e-mail already exists. Log in with your password, or reset it, to connect Google.',
    });
    const [row] = await server.app.db.select({ sub: users.googleSub }).from(users).where(eq(users.id, squatter.id));
    expect(row?.sub).toBeNull();
    // The squatter's session is untouched by the refusal; the owner's way in is a reset (account-email.test.ts).
    expect((await me(squatter.token)).id).toBe(squatter.id);
  });

  it('refuses a suspended account (403) without linking Google to it or verifying its address', async () => {
    const banned = await makeCompletedUser(server);
    await markEmailVerified(server, banned.id);
    await banThroughModeration(server, await makeModerator(server), banned);
    const stored = async () =>
      (await server.app.db.select({ sub: users.googleSub, verified: users.emailVerifiedAt }).from(users).where(eq(users.id, banned.id)))[0];
    const before = await stored();
    expect(before?.sub).toBeNull();
    for (const { token } of [googleAccount(fake, { email: banned.email }), googleAccount(fake, { email: banned.email })]) {
      const refused = await login({ access_token: token });
      expect([refused.status, refused.body]).toEqual([403, { detail: 'This account has been suspended.', code: 'account_suspended' }]);
    }
    expect(await stored()).toEqual(before);
  });

  it('refuses an account made with Google once suspended, found by its Google id whatever the e-mail', async () => {
    const { account, token } = googleAccount(fake);
    const first = await login({ access_token: token });
    const user = { ...(await me(first.body.token)), token: first.body.token, password: '', firstName: account.given_name! };
    // Completed, so that others see them, and can report them.
    expect((await client(server.url).put('/api/users/me/profile/', { token: user.token, json: await validProfile() })).status).toBe(200);
    await banThroughModeration(server, await makeModerator(server), user);
    // Its e-mail changed at Google since: only the subject id names the account.
    const again = await login({ access_token: fake.issue({ ...account, email: `moved-${unique()}@gmail.example` }) });
    expect([again.status, again.body]).toEqual([403, { detail: 'This account has been suspended.', code: 'account_suspended' }]);
  });

  it('deleted, a Google account signs up afresh: a new, empty account, its profile to complete', async () => {
    const { account, token } = googleAccount(fake);
    const first = await login({ access_token: token });
    const before = await me(first.body.token);
    const deleted = await client(server.url).delete('/api/users/me/', { token: first.body.token, json: { confirm: 'DELETE' } });
    expect(deleted.status).toBe(204);
    expect((await client(server.url).get('/api/users/me/', { token: first.body.token })).status).toBe(401);

    const again = await login({ access_token: fake.issue(account) });
    expect(again.status).toBe(200);
    const after = await me(again.body.token);
    expect(after).toMatchObject({ email: account.email, is_profile_completed: false, has_password: false, email_verified: true });
    expect(after.id).not.toBe(before.id);
  });

  it('refuses a token Google rejects (4xx) and creates nothing', async () => {
    const claimed = `claimed-${unique()}@gmail.example`;
    const response = await login({ access_token: 'ya29.forged', profile: { email: claimed, email_verified: true } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ non_field_errors: ['Google did not accept this sign-in. Please try again.'] });
    expect(await usersWithEmail(server, claimed)).toEqual([]);
  });

  it('refuses a token Google issued to another app, even for a real verified account', async () => {
    const { account } = googleAccount(fake);
    const foreign = fake.issue(account, 'some-other-app.apps.googleusercontent.com');
    const response = await login({ access_token: foreign });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ non_field_errors: ['Google did not accept this sign-in. Please try again.'] });
    expect(await usersWithEmail(server, account.email)).toEqual([]);
  });

  it('refuses an unverified e-mail (4xx) and creates nothing', async () => {
    const { account, token } = googleAccount(fake, { email_verified: false });
    const response = await login({ access_token: token });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ non_field_errors: ['Your Google e-mail address is not verified.'] });
    expect(await usersWithEmail(server, account.email)).toEqual([]);

    // Nor does an unverified address reach an existing account with that e-mail.
    const existing = await makeUser(server);
    const { token: unverified } = googleAccount(fake, { email: existing.email, email_verified: false });
    expect((await login({ access_token: unverified })).status).toBe(400);
    const [row] = await server.app.db.select({ sub: users.googleSub }).from(users).where(eq(users.id, existing.id));
    expect(row?.sub).toBeNull();
  });

  it('answers bad input with 400 and an unavailable Google with 503, never a 500', async () => {
    expect((await login({})).body).toEqual({ access_token: ['This field is required.'] });
    expect((await login({ access_token: '' })).status).toBe(400);
    expect((await login({ access_token: 42 })).status).toBe(400);
    expect((await login({ access_token: 'x'.repeat(5000) })).status).toBe(400);
    expect((await login(null)).status).toBe(400);
    expect((await login([{ access_token: 'ya29.x' }])).status).toBe(400);
    const malformed = await client(server.url).post(LOGIN, { body: '{"access_token":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);

    const { token } = googleAccount(fake);
    fake.failing.add(token);
    const down = await login({ access_token: token });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ detail: 'Google sign-in is unavailable right now. Please use your e-mail and password.' });
  });

  it("takes Google's names as the app's own rules take names: whole characters, and nothing that shows nothing", async () => {
    const named = async (overrides: Partial<GoogleAccount>) => {
      const { account, token } = googleAccount(fake, overrides);
      const response = await login({ access_token: token });
      expect(response.status).toBe(200);
      const user = await me(response.body.token);
      return [user.first_name, user.last_name, account.email.split('@')[0]];
    };
    // Invisible or broken names fall back: the display name, else the e-mail's local part.
    const [first, last, local] = await named({ given_name: '\u200b\u200b', family_name: '\u202e', name: '\ud800' });
    expect([first, last]).toEqual([local, '']);
    expect((await named({ given_name: ' \u0000 ', name: 'Gabi G.' })).slice(0, 2)).toEqual(['Gabi G.', 'García']);
    // Control characters and lone halves of a pair go; a name is cut between characters, not inside one.
    expect((await named({ given_name: 'Ana\u0000\ud800 María' })).slice(0, 2)).toEqual(['Ana María', 'García']);
    const long = `${'x'.repeat(149)}😀😀`;
    expect((await named({ given_name: long })).slice(0, 2)).toEqual([`${'x'.repeat(149)}😀`, 'García']);
    // A subject id that is not printable is no answer of Google's.
    const { token } = googleAccount(fake, { sub: '123\u0000' });
    expect(await login({ access_token: token })).toMatchObject({ status: 400, body: { non_field_errors: ['Google did not accept this sign-in. Please try again.'] } });
  });

  it('two first logins at the same instant end on one account', async () => {
    const { account } = googleAccount(fake);
    const [a, b] = await Promise.all([
      login({ access_token: fake.issue(account) }),
      login({ access_token: fake.issue(account) }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await me(a.body.token)).id).toBe((await me(b.body.token)).id);
    expect(await usersWithEmail(server, account.email)).toHaveLength(1);
  });

  it('one Google account linking two accounts at once (its e-mail changed between the two) ends on one, never a 500', async () => {
    const [first, second] = [await makeUser(server), await makeUser(server)];
    await markEmailVerified(server, first.id);
    await markEmailVerified(server, second.id);
    const { account } = googleAccount(fake);
    lineUpAtGoogle(fake, 2);
    const responses = await Promise.all([first, second].map((user) => login({ access_token: fake.issue({ ...account, email: user.email }) })));

    expect(responses.map((response) => response.status), JSON.stringify(responses.map((response) => response.body))).toEqual([200, 200]);
    const [a, b] = await Promise.all(responses.map(async (response) => (await me(response.body.token)).id));
    expect(a).toBe(b);
    const linked = await server.app.db.select({ id: users.id }).from(users).where(eq(users.googleSub, account.sub));
    expect(linked).toEqual([{ id: a }]);
  });
});

describe('Google sign-in while Google is slow or overloaded', () => {
  // Two seconds: the last test's sign-in must pass both questions within it on a loaded CI machine.
  const TIMEOUT_MS = 2000;
  const UNAVAILABLE = { detail: 'Google sign-in is unavailable right now. Please use your e-mail and password.' };
  let fake: FakeGoogle;
  // Answers token-info with its status and headers, then never the rest of its body.
  const stalling = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"aud": ');
  });
  beforeAll(async () => {
    fake = await startFakeGoogle({ clientId: CLIENT_ID });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    stalling.closeAllConnections();
    stalling.close();
    await fake?.close();
  });
  const server = serverPerSuite(() => ({
    config: { google: { clientId: CLIENT_ID, userInfoUrl: fake.userInfoUrl, tokenInfoUrl: fake.tokenInfoUrl, timeoutMs: TIMEOUT_MS } },
  }));
  const login = (token: string) => client(server.url).post(LOGIN, { json: { access_token: token } });

  it('answers 503 when Google limits our calls (429): the token was not refused', async () => {
    const { token } = googleAccount(fake);
    fake.holdAnswer = async () => ({ status: 429, body: { error: 'rate_limit_exceeded' } });
    try {
      expect(await login(token)).toMatchObject({ status: 503, body: UNAVAILABLE });
    } finally {
      fake.holdAnswer = null;
    }
  });

  it('answers 503 when a success is not a JSON object (a proxy’s page), not that the token or e-mail was refused', async () => {
    const { account, token } = googleAccount(fake);
    const broken = [Buffer.from('<html><body>Bad gateway</body></html>'), Buffer.from(''), ['not', 'an', 'answer'], null];
    try {
      for (const path of [TOKENINFO_PATH, USERINFO_PATH]) {
        for (const body of broken) {
          fake.holdAnswer = async (asked) => (asked === path ? { status: 200, body } : undefined);
          expect([path, await login(token)]).toMatchObject([path, { status: 503, body: UNAVAILABLE }]);
        }
      }
      // A whole answer without the e-mail is Google's word that it did not share one.
      fake.holdAnswer = async (asked) => (asked === USERINFO_PATH ? { status: 200, body: { sub: account.sub } } : undefined);
      expect(await login(token)).toMatchObject({ status: 400, body: { non_field_errors: ['Google did not share an e-mail address for this account.'] } });
    } finally {
      fake.holdAnswer = null;
    }
    expect(await usersWithEmail(server, account.email)).toEqual([]);
  });

  it('answers 503 when an answer stops halfway, not that Google refused the token', async () => {
    const { token } = googleAccount(fake);
    server.config.google.tokenInfoUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/tokeninfo`;
    try {
      expect(await login(token)).toMatchObject({ status: 503, body: UNAVAILABLE });
    } finally {
      server.config.google.tokenInfoUrl = fake.tokenInfoUrl;
    }
  });

  it('waits on Google once for both of its questions, so that the client hears the 503 before it gives up', async () => {
    // Each answer alone comes within the time, the two together do not.
    const { token } = googleAccount(fake);
    fake.holdAnswer = () => new Promise<void>((resolve) => setTimeout(resolve, TIMEOUT_MS * 0.75));
    try {
      expect(await login(token)).toMatchObject({ status: 503, body: UNAVAILABLE });
    } finally {
      fake.holdAnswer = null;
    }
    expect((await login(fake.issue({ ...googleAccount(fake).account }))).status).toBe(200);
  });
});

describe('Google sign-in without GOOGLE_CLIENT_ID', () => {
  let fake: FakeGoogle;
  beforeAll(async () => {
    fake = await startFakeGoogle({ clientId: CLIENT_ID });
  });
  afterAll(() => fake?.close());
  const server = serverPerSuite(() => ({
    config: { google: { clientId: null, userInfoUrl: fake.userInfoUrl, tokenInfoUrl: fake.tokenInfoUrl } },
  }));

  it('hides the buttons and takes no Google logins', async () => {
    expect((await client(server.url).get('/api/config/')).body).toMatchObject({ google_client_id: null });
    const { token } = googleAccount(fake);
    const response = await client(server.url).post(LOGIN, { json: { access_token: token } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ non_field_errors: ['Google sign-in is not enabled on this server.'] });
    expect(fake.requests).toEqual([]);
  });
});
