import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authTokens, users } from '../../server/db/schema';
import { makeUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { freePort } from '../helpers/ports';
import { backends, serverPerSuite, type TestServer } from '../helpers/server';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';

const INVALID_CREDENTIALS = 'Unable to log in with provided credentials.';
const EMAIL_TAKEN = 'A user with that e-mail already exists.';
const TOO_SHORT = 'This password is too short. It must contain at least 8 characters.';
const TOO_COMMON = 'This password is too common.';
const NUMERIC = 'This password is entirely numeric.';
const MISMATCH = 'The two passwords do not match.';
const THROTTLED = /^Request was throttled\. Expected available in (\d+) seconds\.$/;

let sequence = 0;
const uniqueEmail = (prefix = 'someone') => `${prefix}-${Date.now().toString(36)}-${sequence++}@example.com`;
const strongPassword = () => `Velvet-Lantern-${sequence++}-Orbit`;

function registration(overrides: Record<string, unknown> = {}) {
  const password = strongPassword();
  return { first_name: 'Marta', last_name: 'Quiroga', username: uniqueEmail(), password, password2: password, ...overrides };
}

const tokensOf = (server: TestServer, userId: number) =>
  server.app.db.select().from(authTokens).where(eq(authTokens.userId, userId));

describe.each(backends)('accounts on %s', (backend) => {
  const server = serverPerSuite({ backend });
  const api = client(server);

  describe('register', () => {
    it('creates the account, stores the e-mail lower-case and the password as an argon2id hash', async () => {
      const body = registration({ username: `  Mixed.Case-${sequence++}@Example.COM ` });
      const response = await api.post('/api/auth/register/', { json: body });
      expect(response.status).toBe(201);
      const email = String(body.username).trim().toLowerCase();
      expect(response.body).toEqual({ id: expect.any(Number), email, first_name: 'Marta', last_name: 'Quiroga' });

      const [row] = await server.app.db.select().from(users).where(eq(users.id, response.body.id));
      expect(row!.email).toBe(email);
      expect(row!.passwordHash).toMatch(/^\$argon2id\$/);
      expect(row!.passwordHash).not.toContain(String(body.password));

      // The account can log in with any case of its e-mail.
      const login = await api.post('/api/auth/', { json: { username: String(body.username).toUpperCase(), password: body.password } });
      expect(login.status).toBe(200);
    });

    it('lists every bad field at once', async () => {
      const response = await api.post('/api/auth/register/', {
        json: { first_name: '', last_name: 'x'.repeat(151), username: 'not-an-email', password: '1234', password2: '4321' },
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        first_name: ['This field may not be blank.'],
        last_name: ['Ensure this field has no more than 150 characters.'],
        username: ['Enter a valid e-mail address.'],
        password: [TOO_SHORT, TOO_COMMON, NUMERIC],
        password2: [MISMATCH],
      });
    });

    it('reports missing fields as required', async () => {
      const response = await api.post('/api/auth/register/', { json: {} });
      expect(response.status).toBe(400);
      const required = ['This field is required.'];
      expect(response.body).toEqual({
        first_name: required,
        last_name: required,
        username: required,
        password: required,
        password2: required,
      });
    });

    it.each([
      ['too short', { password: 'Zq8#vT1' }, [TOO_SHORT]],
      ['entirely numeric', { password: '80417362995' }, [NUMERIC]],
      ['too common', { password: 'password123' }, [TOO_COMMON]],
      ['short and numeric', { password: '8041736' }, [TOO_SHORT, NUMERIC]],
      [
        'too similar to the e-mail',
        { username: `bartholomew.quisling${sequence++}@example.com`, password: 'bartholomew.quisling' },
        ['The password is too similar to the e-mail address.'],
      ],
      [
        'too similar to the first name',
        { first_name: 'Wilhelmina', password: 'Wilhelmina7' },
        ['The password is too similar to the first name.'],
      ],
      [
        'too similar to the last name',
        { last_name: 'Oyelaran-Fitzgerald', password: 'oyelaranfitzgerald' },
        ['The password is too similar to the last name.'],
      ],
    ])('refuses a password that is %s, with Django’s message', async (_case, overrides, messages) => {
      const body = registration(overrides);
      body.password2 = body.password;
      const response = await api.post('/api/auth/register/', { json: body });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ password: messages });
      const [row] = await server.app.db.select().from(users).where(eq(users.email, String(body.username)));
      expect(row).toBeUndefined();
    });

    it('refuses two passwords that do not match', async () => {
      const response = await api.post('/api/auth/register/', { json: registration({ password2: 'Another-Strong-Phrase-1' }) });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ password2: [MISMATCH] });
    });

    it('refuses an e-mail that is taken, in any case, and keeps the first account', async () => {
      const first = registration();
      expect((await api.post('/api/auth/register/', { json: first })).status).toBe(201);
      const again = registration({ username: String(first.username).toUpperCase(), first_name: 'Other' });
      const response = await api.post('/api/auth/register/', { json: again });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ username: [EMAIL_TAKEN] });
      const rows = await server.app.db.select().from(users).where(eq(users.email, String(first.username)));
      expect(rows.map((row) => row.firstName)).toEqual(['Marta']);
    });

    it('says the e-mail is taken beside the other fields\' problems, not once they are mended', async () => {
      const first = registration();
      expect((await api.post('/api/auth/register/', { json: first })).status).toBe(201);
      const again = registration({ username: ` ${String(first.username).toUpperCase()} `, password: 'password', password2: 'passw0rd', last_name: '' });
      const response = await api.post('/api/auth/register/', { json: again });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        username: [EMAIL_TAKEN],
        last_name: [expect.any(String)],
        password: [TOO_COMMON],
        password2: [MISMATCH],
      });
      // A new e-mail with the same problems: nothing said of it.
      const fresh = await api.post('/api/auth/register/', { json: registration({ password: 'password', password2: 'password' }) });
      expect(fresh.body).toEqual({ password: [TOO_COMMON] });
    });

    it('creates exactly one account when the same e-mail registers twice at once', async () => {
      const body = registration();
      const responses = await Promise.all([1, 2, 3].map(() => api.post('/api/auth/register/', { json: body })));
      expect(responses.map((r) => r.status).sort()).toEqual([201, 400, 400]);
      for (const response of responses.filter((r) => r.status === 400)) {
        expect(response.body).toEqual({ username: [EMAIL_TAKEN] });
      }
    });
  });

  describe('login and tokens', () => {
    it('answers bad credentials with one message, whether the account exists or not', async () => {
      const user = await makeUser(server);
      for (const json of [
        { username: user.email, password: `${user.password}x` },
        { username: uniqueEmail('nobody'), password: user.password },
      ]) {
        const response = await api.post('/api/auth/', { json });
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ non_field_errors: [INVALID_CREDENTIALS] });
      }
      expect(await tokensOf(server, user.id)).toHaveLength(1);
    });

    it('reports missing login fields per field', async () => {
      const response = await api.post('/api/auth/', { json: { username: '' } });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ username: ['This field may not be blank.'], password: ['This field is required.'] });
    });

    it('issues random tokens of at least 160 bits and stores only their SHA-256', async () => {
      const user = await makeUser(server);
      const second = await api.post('/api/auth/', { json: { username: user.email, password: user.password } });
      expect(second.status).toBe(200);
      const tokens = [user.token, second.body.token as string];
      expect(tokens[0]).not.toBe(tokens[1]);
      for (const token of tokens) {
        expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(160);
      }

      const rows = await tokensOf(server, user.id);
      const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
      expect(rows.map((row) => row.tokenHash).sort()).toEqual(tokens.map(sha256).sort());
      const everything = JSON.stringify(await server.app.db.select().from(authTokens));
      for (const token of tokens) expect(everything).not.toContain(token);
    });

    it('shows the current user, and only with a valid token', async () => {
      const user = await makeUser(server, { firstName: 'Inés', lastName: 'Ybarra' });
      const me = await api.get('/api/users/me/', { token: user.token });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        id: user.id,
        email: user.email,
        first_name: 'Inés',
        last_name: 'Ybarra',
        image: null,
        is_profile_completed: false,
        has_subscription: false,
        email_verified: false,
        has_password: true,
        is_moderator: false,
        language: 'es',
      });

      const anonymous = await api.get('/api/users/me/');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect(anonymous.headers.get('www-authenticate')).toBe('Token');

      const altered = `${user.token.slice(0, -2)}${user.token.endsWith('AA') ? 'BB' : 'AA'}`;
      const forged = await api.get('/api/users/me/', { token: altered });
      expect(forged.status).toBe(401);
      expect(forged.body).toEqual({ detail: 'Invalid token.' });
    });

    it('takes a request with a valid token whatever X-CSRFToken it sends, and one without the token never for it', async () => {
      const user = await makeUser(server);
      // The client sends X-CSRFToken, here one that matches no csrftoken cookie: accepted and ignored.
      const csrf = { 'x-csrftoken': 'not-the-cookie', cookie: 'csrftoken=something-else' };
      const saved = await api.put('/api/users/me/profile/', { token: user.token, headers: csrf, json: {} });
      expect(saved.status).toBe(400);
      expect(saved.body).not.toHaveProperty('detail');
      const logout = await api.post('/api/auth/logout/', { token: user.token, headers: { 'x-csrftoken': '' } });
      expect(logout.status).toBe(204);
      // A matching pair is no credential.
      const anonymous = await api.get('/api/users/me/', { headers: { 'x-csrftoken': 'same', cookie: 'csrftoken=same' } });
      expect([anonymous.status, anonymous.body]).toEqual([401, { detail: 'Authentication credentials were not provided.' }]);
    });

    it('logout revokes exactly the token it was called with', async () => {
      const user = await makeUser(server);
      const other = await api.post('/api/auth/', { json: { username: user.email, password: user.password } });
      expect(other.status).toBe(200);

      const logout = await api.post('/api/auth/logout/', { token: user.token });
      expect(logout.status).toBe(204);
      expect(logout.body).toBe('');

      const revoked = await api.get('/api/users/me/', { token: user.token });
      expect(revoked.status).toBe(401);
      expect(revoked.body).toEqual({ detail: 'Invalid token.' });
      expect((await api.post('/api/auth/logout/', { token: user.token })).status).toBe(401);

      const still = await api.get('/api/users/me/', { token: other.body.token });
      expect(still.status).toBe(200);
      expect(still.body.id).toBe(user.id);
      const rows = await tokensOf(server, user.id);
      expect(rows).toHaveLength(1);
    });

    it('logout without a token is 401 and revokes nothing', async () => {
      const user = await makeUser(server);
      const response = await api.post('/api/auth/logout/');
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect(await tokensOf(server, user.id)).toHaveLength(1);
    });
  });
});

describe.each(backends)("a token's trust on %s", (backend) => {
  // Short, so that a test sees several trusts go by; 10 s in the app.
  const TRUST_MS = 600;
  const server = serverPerSuite({ backend, config: { tokenTrustMs: TRUST_MS } });
  const api = client(server);

  it('keeps a token in steady use working across many trusts, each read again and vouched for', async () => {
    const user = await makeUser(server);
    const until = Date.now() + 4 * TRUST_MS;
    let answered = 0;
    while (Date.now() < until) {
      const me = await api.get('/api/users/me/', { token: user.token });
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(user.id);
      answered += 1;
      await sleep(40);
    }
    expect(answered).toBeGreaterThan(10);
    expect(await tokensOf(server, user.id)).toHaveLength(1);
  });

  it('stops opening requests within one trust of its row going behind the instance’s back', async () => {
    const user = await makeUser(server);
    expect((await api.get('/api/users/me/', { token: user.token })).status).toBe(200);
    // As another instance revoking it would, with the news lost on the way (Redis away).
    await server.app.db.delete(authTokens).where(eq(authTokens.userId, user.id));
    const deletedAt = Date.now();
    const answers: Array<{ sentAt: number; status: number }> = [];
    while (answers.at(-1)?.status !== 401) {
      if (Date.now() > deletedAt + 5 * TRUST_MS) throw new Error('the deleted token still opened requests five trusts later');
      const sentAt = Date.now();
      const me = await api.get('/api/users/me/', { token: user.token });
      answers.push({ sentAt, status: me.status });
      if (me.status === 401) expect(me.body).toEqual({ detail: 'Invalid token.' });
      else await sleep(20);
    }
    // Every request it still opened was sent before the trust of the last read that vouched for it ran out.
    for (const answer of answers.filter(({ status }) => status === 200)) expect(answer.sentAt).toBeLessThan(deletedAt + TRUST_MS);
    expect(answers.every(({ status }) => status === 200 || status === 401)).toBe(true);
  });
});

describe.skipIf(!(await hasPostgres()))('a token in steady use on PostgreSQL', () => {
  // Due for its read 1.0–1.4 s into a 2 s trust.
  const TRUST_MS = 2_000;
  const server = serverPerSuite({ backend: 'postgres', config: { tokenTrustMs: TRUST_MS } });
  const api = client(server);
  let observer: postgres.Sql;
  beforeAll(() => {
    observer = postgres(server.config.databaseUrl!, { max: 1, onnotice: () => {} });
  });
  afterAll(() => observer.end());

  /** Holds every read of a token (an exclusive lock on the table) until `release()`. */
  async function holdTokenReads() {
    const holder = postgres(server.config.databaseUrl!, { max: 1, onnotice: () => {} });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const holding = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const transaction = holder.begin(async (sql) => {
      await sql`lock table auth_tokens in access exclusive mode`;
      locked();
      await released;
    });
    await Promise.race([holding, transaction]);
    return {
      async release() {
        release();
        await transaction;
        await holder.end();
      },
    };
  }

  const tokenReadsWaiting = async () => {
    const [row] = await observer<Array<{ count: number }>>`
      select count(*)::int as count from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query ilike '%t.token_hash = %'`;
    return row!.count;
  };

  /** The user's own page, or 'waited' when the request is still waiting for the database long after. */
  const me = (token: string) =>
    Promise.race([api.get('/api/users/me/', { token }).then((response) => response.status), sleep(5_000).then(() => 'waited' as const)]);

  it('is read again beside a request, never in its path, and the read carries its trust on', { timeout: 30_000 }, async () => {
    const user = await makeUser(server);
    const start = Date.now();
    expect(await me(user.token)).toBe(200);
    // From here every read of a token waits: a request that needed one would wait with it.
    const hold = await holdTokenReads();
    try {
      while ((await tokenReadsWaiting()) === 0) {
        if (Date.now() > start + TRUST_MS - 300) throw new Error('no request set off a read of its token before the trust ran out');
        expect(await me(user.token)).toBe(200);
        await sleep(50);
      }
      // A read is waiting for the table, set off by a request that did not wait for it; nor does the next.
      expect(await me(user.token)).toBe(200);
    } finally {
      await hold.release();
    }

    // The read, let through, vouched for the token from when it began: past the first trust, requests
    // are still answered with every read of a token held again.
    await sleep(start + TRUST_MS + 200 - Date.now());
    const again = await holdTokenReads();
    try {
      expect(await me(user.token)).toBe(200);
    } finally {
      await again.release();
    }
  });

  it('reads the tokens that fall due together in one statement', { timeout: 30_000 }, async () => {
    const people = await Promise.all([makeUser(server), makeUser(server), makeUser(server)]);
    const start = Date.now();
    expect(await Promise.all(people.map((person) => me(person.token)))).toEqual([200, 200, 200]);
    // Every one of them due (past 70 % of the trust), none lapsed yet.
    await sleep(start + 0.8 * TRUST_MS - Date.now());
    const hold = await holdTokenReads();
    try {
      expect(await Promise.all(people.map((person) => me(person.token)))).toEqual([200, 200, 200]);
      while ((await tokenReadsWaiting()) === 0) {
        if (Date.now() > start + 5 * TRUST_MS) throw new Error('no read of the tokens came');
        await sleep(20);
      }
      // Time for any read sent apart to reach the lock too. One read for the three, each its own before;
      // two if the machine stalled the server longer than the gathering (40 ms) between their requests.
      await sleep(300);
      expect(await tokenReadsWaiting()).toBeLessThan(people.length);
    } finally {
      await hold.release();
    }
  });
});

describe.each(backends)('login throttling on %s', (backend) => {
  const server = serverPerSuite({ backend, config: { loginThrottle: { perIp: 5, perAccount: 2, windowMs: 60_000 } } });
  const api = client(server);

  let ipCounter = 0;
  // trustProxy is on: the client address is the one X-Forwarded-For names.
  const freshIp = () => `10.${Math.floor(ipCounter / 250)}.${ipCounter % 250}.${(ipCounter++ % 200) + 1}`;

  /** An account made without logging in, so that no throttle counter has moved yet. */
  async function account() {
    const body = registration();
    const response = await api.post('/api/auth/register/', { json: body, headers: { 'x-forwarded-for': freshIp() } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return { id: response.body.id as number, email: String(body.username), password: String(body.password) };
  }

  const login = (username: string, password: string, ip: string) =>
    api.post('/api/auth/', { json: { username, password }, headers: { 'x-forwarded-for': ip } });

  function expectThrottled(response: Awaited<ReturnType<typeof login>>) {
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(response.body).toEqual({ detail: expect.stringMatching(THROTTLED) });
    expect(Number(THROTTLED.exec(response.body.detail)![1])).toBe(retryAfter);
  }

  it('slows guesses at one account from one address, even with the right password', async () => {
    const target = await account();
    const ip = freshIp();
    expect((await login(target.email, 'wrong-guess-1', ip)).status).toBe(400);
    expect((await login(target.email.toUpperCase(), 'wrong-guess-2', ip)).status).toBe(400);

    const blocked = await login(target.email, target.password, ip);
    expectThrottled(blocked);
    expect(await tokensOf(server, target.id)).toHaveLength(0);

    // Another account from the same address is not affected.
    const bystander = await account();
    expect((await login(bystander.email, bystander.password, ip)).status).toBe(200);
  });

  it('never lets a stranger lock the owner out: the right password from a new address still works', async () => {
    const target = await account();
    // A stranger guesses from many addresses until each of them is throttled for this account.
    for (let i = 0; i < 4; i++) {
      const strangerIp = freshIp();
      expect((await login(target.email, `guess-${i}-a`, strangerIp)).status).toBe(400);
      expect((await login(target.email, `guess-${i}-b`, strangerIp)).status).toBe(400);
      expectThrottled(await login(target.email, `guess-${i}-c`, strangerIp));
    }
    // The owner, from their own address, gets in at once.
    expect((await login(target.email, target.password, freshIp())).status).toBe(200);
  });

  it('forgets the owner’s own mistypes once they get in', async () => {
    const target = await account();
    const ip = freshIp();
    expect((await login(target.email, 'mistyped', ip)).status).toBe(400);
    expect((await login(target.email, target.password, ip)).status).toBe(200);
    expect((await login(target.email, 'mistyped-again', ip)).status).toBe(400);
    expect((await login(target.email, target.password, ip)).status).toBe(200);
  });

  it('throttles one address across many accounts', async () => {
    const accounts = await Promise.all([account(), account(), account(), account(), account(), account()]);
    const ip = freshIp();
    for (const each of accounts.slice(0, 5)) {
      expect((await login(each.email, each.password, ip)).status).toBe(200);
    }
    const fourth = accounts[5]!;
    expectThrottled(await login(fourth.email, fourth.password, ip));
    expect(await tokensOf(server, fourth.id)).toHaveLength(0);

    // The same account from another address still gets in.
    expect((await login(fourth.email, fourth.password, freshIp())).status).toBe(200);
  });

  it('counts an IPv6 client by its /64: a new address of the same network is not a new allowance', async () => {
    const target = await account();
    // One host's network, a different address for each guess (2^64 of them to choose from).
    expect((await login(target.email, 'guess-a', '2001:db8:7:1::a')).status).toBe(400);
    expect((await login(target.email, 'guess-b', '2001:db8:7:1:ffff:1:2:3')).status).toBe(400);
    expectThrottled(await login(target.email, 'guess-c', '2001:0db8:0007:0001:0:0:0:4'));
    // The next network along is someone else.
    expect((await login(target.email, target.password, '2001:db8:7:2::a')).status).toBe(200);
  });
});

describe.each(backends)('X-Forwarded-For from an untrusted address on %s', (backend) => {
  // Only 10.9.9.9 may speak for clients: this test connects from 127.0.0.1, a client like any other.
  const server = serverPerSuite({ backend, config: { trustProxy: '10.9.9.9', loginThrottle: { perIp: 3, perAccount: 100, windowMs: 60_000 } } });

  it('cannot dodge the per-IP throttle by naming a new address each time', async () => {
    const api = client(server.url);
    const attempt = (n: number) =>
      api.post('/api/auth/', {
        json: { username: uniqueEmail('spoof'), password: 'guess' },
        headers: { 'x-forwarded-for': `203.0.113.${n}` },
      });
    for (const n of [1, 2, 3]) expect((await attempt(n)).status).toBe(400);
    const fourth = await attempt(4);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe.skipIf(!(await hasRedis()))('login throttling shared through Redis', () => {
  // Two instances of one deployment: same Redis, same prefix (unique to this run).
  const shared = {
    redisUrl: REDIS_URL,
    redisPrefix: `test-throttle-${randomBytes(6).toString('hex')}`,
    loginThrottle: { perIp: 3, perAccount: 2, windowMs: 60_000 },
  };
  const servers = [serverPerSuite({ config: shared }), serverPerSuite({ config: shared })];

  const attempt = (server: TestServer, username: string, ip: string) =>
    client(server.url).post('/api/auth/', { json: { username, password: 'guess' }, headers: { 'x-forwarded-for': ip } });

  it('counts an account’s attempts from one address across instances', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const username = uniqueEmail('shared');
    expect((await attempt(a, username, '198.51.100.1')).status).toBe(400);
    expect((await attempt(b, username, '198.51.100.1')).status).toBe(400);
    const third = await attempt(a, username, '198.51.100.1');
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await attempt(b, username, '198.51.100.1')).status).toBe(429);
    // Another address is its own count.
    expect((await attempt(b, username, '198.51.100.2')).status).toBe(400);
  });

  it('counts an address’s attempts across instances', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const ip = '198.51.100.77';
    expect((await attempt(a, uniqueEmail('ip'), ip)).status).toBe(400);
    expect((await attempt(b, uniqueEmail('ip'), ip)).status).toBe(400);
    expect((await attempt(a, uniqueEmail('ip'), ip)).status).toBe(400);
    expect((await attempt(b, uniqueEmail('ip'), ip)).status).toBe(429);
  });
});

describe('login throttling while Redis is unreachable', () => {
  // A port nothing listens on: the instance must still start, log in and throttle, on its own.
  const server = serverPerSuite(async () => ({
    config: { redisUrl: `redis://127.0.0.1:${await freePort()}`, loginThrottle: { perIp: 100, perAccount: 2, windowMs: 60_000 } },
  }));

  it('falls back to counting per instance, never to a 5xx', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    // makeUser logged in once: that success reset the count.
    expect((await api.post('/api/auth/', { json: { username: user.email, password: 'wrong' } })).status).toBe(400);
    expect((await api.post('/api/auth/', { json: { username: user.email, password: 'wrong' } })).status).toBe(400);
    expect((await api.post('/api/auth/', { json: { username: user.email, password: user.password } })).status).toBe(429);
  });
});
