import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { authTokens, emailTokens, users } from '../../server/db/schema';
import { expiredTokensPurge } from '../../server/jobs/expired-tokens-purge';
import { runJob } from '../../server/jobs/index';
import { tokenSweep } from '../../server/jobs/token-sweep';
import { hashToken, newToken } from '../../server/lib/tokens';
import { makeUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { later } from '../helpers/later';
import { backends, serverPerSuite } from '../helpers/server';
import { connect, waitForDisconnect, waitUntil } from '../helpers/socket';

const DAY = 24 * 60 * 60 * 1000;
const PASSWORD_CHANGE = '/api/users/me/password/';

describe.each(backends)('sessions and password on %s', (backend) => {
  const server = serverPerSuite({ backend });

  const api = () => client(server.url);
  const me = (token: string) => api().get('/api/users/me/', { token });
  const login = (email: string, password: string) => api().post('/api/auth/', { json: { username: email, password } });
  const tokenRow = async (token: string) =>
    (await server.app.db.select().from(authTokens).where(eq(authTokens.tokenHash, hashToken(token))))[0];

  describe('change password', () => {
    it('checks the current password, applies registration’s rules, and ends every other session', async () => {
      const user = await makeUser(server);
      const other = (await login(user.email, user.password)).body.token as string;
      const socket = await connect(server.url, other);
      const dropped = waitForDisconnect(socket);

      const wrong = await api().post(PASSWORD_CHANGE, {
        token: user.token,
        json: { current_password: 'not-it', password: '1234', password2: '4321' },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toEqual({
        current_password: ['Your old password was entered incorrectly. Please enter it again.'],
        password: [
          'This password is too short. It must contain at least 8 characters.',
          'This password is too common.',
          'This password is entirely numeric.',
        ],
        password2: ['The two passwords do not match.'],
      });
      expect((await me(other)).status).toBe(200);

      const fresh = `${user.password}-renewed`;
      const changed = await api().post(PASSWORD_CHANGE, {
        token: user.token,
        json: { current_password: user.password, password: fresh, password2: fresh },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual({ token: expect.any(String) });

      // The answer's token is the one session left: the caller's old token and the other device are out.
      expect((await me(changed.body.token)).status).toBe(200);
      expect((await me(user.token)).body).toEqual({ detail: 'Invalid token.' });
      expect((await me(other)).status).toBe(401);
      expect(await dropped).toBe('io server disconnect');
      expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).toHaveLength(1);

      expect((await login(user.email, user.password)).status).toBe(400);
      expect((await login(user.email, fresh)).status).toBe(200);
    });

    /**
     * Holds the user's row in a transaction of the test's own (on PGlite, one connection, the whole
     * database) until the answer is called: requests sent meanwhile queue up behind it.
     */
    async function holdUserRow(userId: number): Promise<() => Promise<void>> {
      const locked = later<void>();
      const release = later<void>();
      const holding = server.app.db.transaction(async (tx) => {
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
        locked.resolve();
        await release.promise;
      });
      await Promise.race([locked.promise, holding]);
      return async () => {
        release.resolve();
        await holding;
      };
    }

    /** Counts the HTTP requests that reach the server, until `stop`. */
    function countArrivals() {
      let arrived = 0;
      const arrive = () => arrived++;
      server.app.server.on('request', arrive);
      return { arrived: () => arrived, stop: () => server.app.server.off('request', arrive) };
    }

    it('applies one of several changes sent at once; the others answer that the current password is wrong', async () => {
      const user = await makeUser(server);
      const fresh = ['A', 'B', 'C', 'D', 'E'].map((letter) => `${user.password}-renewed-${letter}`);
      // The session is in the token cache from here on: each request is past authentication as soon as
      // it arrives, so none can be turned away (401) by the winner's ending every other session.
      expect((await me(user.token)).status).toBe(200);

      // Each with the same session and the same, right, current password; the user's row is held until
      // all have arrived, so they cannot but overlap.
      const arrivals = countArrivals();
      const release = await holdUserRow(user.id);
      const sent = Promise.all(
        fresh.map((password) =>
          api().post(PASSWORD_CHANGE, { token: user.token, json: { current_password: user.password, password, password2: password } }),
        ),
      );
      try {
        await waitUntil(() => arrivals.arrived() === fresh.length, 5000, 'every change to arrive');
      } finally {
        arrivals.stop();
        await release();
      }
      const answers = await sent;

      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400, 400]);
      const won = answers.findIndex((answer) => answer.status === 200);
      for (const lost of answers.filter((answer) => answer.status === 400)) {
        // What they sent as the current password no longer is: the same answer as a wrong one.
        expect(lost.body).toEqual({ current_password: ['Your old password was entered incorrectly. Please enter it again.'] });
      }

      // The token that came with the 200 is the one session left; the password that came with it is the one that works.
      expect((await me(answers[won]!.body.token)).status).toBe(200);
      expect((await me(user.token)).status).toBe(401);
      expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).toHaveLength(1);
      for (const [i, password] of fresh.entries()) expect((await login(user.email, password)).status).toBe(i === won ? 200 : 400);
      expect((await login(user.email, user.password)).status).toBe(400);
    });

    it('answers the same change sent twice at once (a double tap) as done, each with a session that works', async () => {
      const user = await makeUser(server);
      const other = (await login(user.email, user.password)).body.token as string;
      const fresh = `${user.password}-renewed`;
      expect((await me(user.token)).status).toBe(200);

      const arrivals = countArrivals();
      const release = await holdUserRow(user.id);
      const sent = Promise.all(
        [1, 2].map(() => api().post(PASSWORD_CHANGE, { token: user.token, json: { current_password: user.password, password: fresh, password2: fresh } })),
      );
      try {
        await waitUntil(() => arrivals.arrived() === 2, 5000, 'both changes to arrive');
      } finally {
        arrivals.stop();
        await release();
      }
      const answers = await sent;

      // The second finds the password it asked for in place: done, not "your old password is wrong".
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      // Whichever answer the phone keeps opens the app: the repeat's session came after the change ended the others.
      for (const answer of answers) expect((await me(answer.body.token)).status).toBe(200);
      expect((await me(user.token)).status).toBe(401);
      expect((await me(other)).status).toBe(401);
      expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).toHaveLength(2);
      expect((await login(user.email, fresh)).status).toBe(200);
      expect((await login(user.email, user.password)).status).toBe(400);
    });

    it.each(['change', 'reset'] as const)(
      'lets one of a change and a reset at once win, the %s queued first on PostgreSQL; the other answers 400',
      async (first) => {
        const user = await makeUser(server);
        expect((await me(user.token)).status).toBe(200);
        const link = newToken();
        await server.app.db
          .insert(emailTokens)
          .values({ tokenHash: hashToken(link), userId: user.id, purpose: 'reset_password', expiresAt: new Date(Date.now() + DAY) });
        const passwords = { change: `${user.password}-changed`, reset: `${user.password}-reset` };
        const send = {
          change: () =>
            api().post(PASSWORD_CHANGE, {
              token: user.token,
              json: { current_password: user.password, password: passwords.change, password2: passwords.change },
            }),
          reset: () =>
            api().post('/api/auth/password-reset/confirm/', {
              json: { token: link, password: passwords.reset, password2: passwords.reset },
            }),
        };
        /** The statements of the server's connections that wait on a lock. */
        const lockWaiters = async () =>
          rowsOf<{ query: string }>(
            await server.app.db.execute(sql`
              select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`),
          ).map((row) => row.query.replace(/\s+/g, ' ').slice(0, 120));
        /**
         * Of those, the change's and the reset's waits for the user's row. Other writes may queue there
         * too: the sign-up's verification e-mail, sent beside the request, inserts its link (a foreign
         * key, so a share lock on the user's row), and on a busy machine may do so only now.
         */
        const passwordWrites = (waiters: string[]) => waiters.filter((query) => query.includes('for no key update'));

        const second = first === 'change' ? 'reset' : 'change';
        const answers: Partial<Record<'change' | 'reset', ReturnType<typeof send.change>>> = {};
        const arrivals = countArrivals();
        /**
         * Until `n` requests have arrived and, on PostgreSQL, wait for the user's row: their order is the
         * lock's queue. Timed out, it says what it saw last and what waited on a lock.
         */
        const queued = async (n: number) => {
          let arrived = 0;
          let waiters: string[] = [];
          try {
            await waitUntil(
              async () => {
                arrived = arrivals.arrived();
                if (backend === 'postgres') waiters = await lockWaiters();
                return arrived === n && (backend !== 'postgres' || passwordWrites(waiters).length === n);
              },
              5000,
              `${n} queued`,
            );
          } catch (error) {
            const onLock = backend === 'postgres' ? `, ${waiters.length} waiting on a lock ${JSON.stringify(waiters)}` : '';
            throw new Error(`${(error as Error).message}: ${arrived} arrived${onLock}`);
          }
        };
        const release = await holdUserRow(user.id);
        try {
          answers[first] = send[first]();
          await queued(1);
          answers[second] = send[second]();
          await queued(2);
        } finally {
          arrivals.stop();
          await release();
        }
        const change = await answers.change!;
        const reset = await answers.reset!;

        // Never a deadlock (500): one 200, and the other's 400 says why.
        expect([change.status, reset.status].sort()).toEqual([200, 400]);
        const won = change.status === 200 ? 'change' : 'reset';
        if (backend === 'postgres') expect(won).toBe(first);
        if (won === 'change') expect(reset.body).toEqual({ token: ['This link is invalid or has expired.'] });
        else expect(change.body).toEqual({ current_password: ['Your old password was entered incorrectly. Please enter it again.'] });

        const token = (won === 'change' ? change : reset).body.token as string;
        expect((await me(token)).status).toBe(200);
        expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).toHaveLength(1);
        expect((await login(user.email, passwords[won])).status).toBe(200);
        expect((await login(user.email, passwords[won === 'change' ? 'reset' : 'change'])).status).toBe(400);
      },
    );

    it('a login that read the old password as it was changed gets no session that outlives the change', async () => {
      const user = await makeUser(server);
      const fresh = `${user.password}-renewed`;
      // The login has read the account (its password hash) and asks its throttle: the change lands then,
      // before the old password is checked against what was read.
      const limits = server.app.limits;
      const consume = limits.consume;
      let changed: Awaited<ReturnType<typeof me>> | undefined;
      limits.consume = async (name, subject) => {
        await consume(name, subject);
        if (name === 'login:account-ip' && changed === undefined) {
          changed = await api().post(PASSWORD_CHANGE, { token: user.token, json: { current_password: user.password, password: fresh, password2: fresh } });
        }
      };
      let late: Awaited<ReturnType<typeof login>>;
      try {
        late = await login(user.email, user.password);
      } finally {
        limits.consume = consume;
      }
      expect(changed?.status).toBe(200);
      // The old password is no longer the account's: as for any wrong one, no session.
      expect([late.status, late.body]).toEqual([400, { non_field_errors: ['Unable to log in with provided credentials.'] }]);
      expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).toHaveLength(1);
    });

    it('needs a session, and the whole body', async () => {
      expect((await api().post(PASSWORD_CHANGE, { json: {} })).status).toBe(401);
      const user = await makeUser(server);
      const empty = await api().post(PASSWORD_CHANGE, { token: user.token, json: {} });
      expect(empty.status).toBe(400);
      expect(Object.keys(empty.body).sort()).toEqual(['current_password', 'password', 'password2']);
      expect((await api().post(PASSWORD_CHANGE, { token: user.token, json: [] })).status).toBe(400);
    });

    it('tells an account without a password to set one through a reset', async () => {
      const user = await makeUser(server);
      await server.app.db.update(users).set({ passwordHash: null }).where(eq(users.id, user.id));
      const response = await api().post(PASSWORD_CHANGE, {
        token: user.token,
        json: { current_password: 'anything', password: 'Brand-New-Secret-9', password2: 'Brand-New-Secret-9' },
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        current_password: ['This account has no password yet. Set one with "Forgot password?" on the login page.'],
      });
    });

    it('lets a stolen session guess the password only 10 times an hour', async () => {
      const user = await makeUser(server);
      const guess = (n: number) =>
        api().post(PASSWORD_CHANGE, { token: user.token, json: { current_password: `guess-${n}`, password: 'Whatever-Else-77', password2: 'Whatever-Else-77' } });
      for (let n = 0; n < 10; n++) expect((await guess(n)).status).toBe(400);
      const refused = await guess(10);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60);
    });
  });

  describe('log out everywhere', () => {
    it('ends every session of the user, this one included, and drops their sockets', async () => {
      const user = await makeUser(server);
      const bystander = await makeUser(server);
      const second = (await login(user.email, user.password)).body.token as string;
      const sockets = await Promise.all([connect(server.url, user.token), connect(server.url, second)]);
      const bystanderSocket = await connect(server.url, bystander.token);
      const dropped = sockets.map((socket) => waitForDisconnect(socket));

      expect((await api().post('/api/auth/logout-all/')).status).toBe(401);
      const response = await api().post('/api/auth/logout-all/', { token: user.token });
      expect(response.status).toBe(204);

      expect(await Promise.all(dropped)).toEqual(['io server disconnect', 'io server disconnect']);
      for (const token of [user.token, second]) expect((await me(token)).status).toBe(401);
      expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).toEqual([]);
      // Someone else is not touched.
      expect(bystanderSocket.connected).toBe(true);
      expect((await me(bystander.token)).status).toBe(200);
      bystanderSocket.close();
      await expect(connect(server.url, user.token)).rejects.toThrow('unauthorized');
    });
  });

  describe('60-day sliding expiry', () => {
    it('refuses a token unused for 60 days, on HTTP and on the socket', async () => {
      const user = await makeUser(server);
      await server.app.db
        .update(authTokens)
        .set({ lastUsedAt: new Date(Date.now() - 60 * DAY - 60_000) })
        .where(eq(authTokens.tokenHash, hashToken(user.token)));
      const response = await me(user.token);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: 'Invalid token.' });
      await expect(connect(server.url, user.token)).rejects.toThrow('unauthorized');
      // Another session of the same user lives on.
      const fresh = (await login(user.email, user.password)).body.token as string;
      expect((await me(fresh)).status).toBe(200);
    });

    it('slides: a token used on day 59 lives another 60 days', async () => {
      const user = await makeUser(server);
      const day59 = new Date(Date.now() - 59 * DAY);
      await server.app.db.update(authTokens).set({ lastUsedAt: day59 }).where(eq(authTokens.tokenHash, hashToken(user.token)));
      expect((await me(user.token)).status).toBe(200);
      // The use is written beside the request.
      await waitUntil(async () => (await tokenRow(user.token))!.lastUsedAt.getTime() > Date.now() - 60_000, 5000, 'the token’s use to be recorded');
    });

    it('purges what can no longer open anything: idle sessions and expired links, nothing else', async () => {
      const user = await makeUser(server);
      const idle = (await login(user.email, user.password)).body.token as string;
      await server.app.db
        .update(authTokens)
        .set({ lastUsedAt: new Date(Date.now() - 60 * DAY - 60_000) })
        .where(eq(authTokens.tokenHash, hashToken(idle)));
      // The registration's verification link, made to look a day and a minute old.
      await server.app.db
        .update(emailTokens)
        .set({ expiresAt: new Date(Date.now() - 60_000) })
        .where(eq(emailTokens.userId, user.id));
      await server.app.mailer.idle();
      const fresh = await api().post('/api/auth/password-reset/', { json: { email: user.email } });
      expect(fresh.status).toBe(202);
      await server.app.mailer.idle();

      // As the process runs it: the job, under its lock.
      const outcome = await runJob(server.app, expiredTokensPurge);
      expect(outcome.status).toBe('done');
      const purged = (outcome as unknown as { report: { sessions: number; links: number } }).report;
      expect(purged.sessions).toBeGreaterThanOrEqual(1);
      expect(purged.links).toBeGreaterThanOrEqual(1);
      expect(await tokenRow(idle)).toBeUndefined();
      expect(await tokenRow(user.token)).toBeDefined();
      expect((await me(user.token)).status).toBe(200);
      // The reset link just sent is alive.
      const links = await server.app.db.select().from(emailTokens).where(eq(emailTokens.userId, user.id));
      expect(links.map((link) => link.purpose)).toEqual(['reset_password']);
    });

    it('drops a socket whose token expired while it was open, on the next sweep', async () => {
      const user = await makeUser(server);
      const socket = await connect(server.url, user.token);
      const dropped = waitForDisconnect(socket);
      await server.app.db
        .update(authTokens)
        .set({ lastUsedAt: new Date(Date.now() - 61 * DAY) })
        .where(eq(authTokens.tokenHash, hashToken(user.token)));
      const swept = await runJob(server.app, tokenSweep);
      expect(swept).toMatchObject({ status: 'done', report: { disconnected: 1 } });
      expect(await dropped).toBe('io server disconnect');
    });
  });
});
