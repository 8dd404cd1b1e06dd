import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { backends, serverPerSuite } from '../helpers/server';

describe.each(backends)('the server on %s', (backend) => {
  const server = serverPerSuite({ backend });

  it('is healthy and ready', async () => {
    const api = client(server.url);
    expect((await api.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await api.get('/readyz')).body).toEqual({ status: 'ok', checks: { database: 'ok' } });
  });

  it('gives its database all the time its migrations take to start, not Fastify’s 10 s', () => {
    // A new embedded database on a busy 2-core machine took longer: the process died at its first start.
    expect(server.app.initialConfig.pluginTimeout).toBe(0);
  });

  it('registers, completes a profile and shows it to others without private fields', async () => {
    const api = client(server.url);
    const ana = await makeCompletedUser(server, { name: 'Ana' });
    const ben = await makeCompletedUser(server, { name: 'Ben' });
    const me = await api.get('/api/users/me/', { token: ana.token });
    expect(me.body).toMatchObject({ id: ana.id, is_profile_completed: true, has_subscription: false });
    expect(me.body.image).toMatch(/^\/media\/.+\.webp$/);
    const seen = await api.get(`/api/users/${ana.id}/profile/`, { token: ben.token });
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ id: ana.id, name: 'Ana', age: 28, genre: 'Female' });
    expect(seen.body).not.toHaveProperty('email');
    expect(seen.body).not.toHaveProperty('date_of_birth');
    const photo = await fetch(`${server.url}${me.body.image}`);
    expect(photo.status).toBe(200);
    expect(photo.headers.get('cache-control')).toBe('public, max-age=3600, must-revalidate');
  });

  it('sends the same security headers on every kind of response', async () => {
    const api = client(server.url);
    const ana = await makeCompletedUser(server);
    const me = await api.get('/api/users/me/', { token: ana.token });
    const responses = [
      me,
      await api.get('/api/users/me/'), // 401
      await api.get('/api/nothing-here/'), // 404
      await api.get('/healthz'),
      { headers: (await fetch(`${server.url}${me.body.image}`)).headers }, // a media file
    ];
    const security = (headers: Headers) =>
      Object.fromEntries(
        [
          'content-security-policy',
          'cross-origin-opener-policy',
          'cross-origin-resource-policy',
          'referrer-policy',
          'strict-transport-security',
          'x-content-type-options',
          'x-frame-options',
          'x-powered-by',
        ].map((name) => [name, headers.get(name)]),
      );
    const first = security(responses[0]!.headers);
    expect(first).toMatchObject({
      'cross-origin-opener-policy': 'same-origin-allow-popups',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
      'x-powered-by': null,
    });
    expect(first['content-security-policy']).toMatch(/^default-src 'self';/);
    expect(first['content-security-policy']).toContain("img-src 'self' data: blob:");
    expect(first['strict-transport-security']).toMatch(/^max-age=\d+/);
    for (const response of responses.slice(1)) expect(security(response.headers)).toEqual(first);
  });

  describe('activity', () => {
    const theirs = (ids: number[]) => sql`user_id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`;
    /** Minutes since each user's last recorded activity, by id. */
    const activeMinutesAgo = async (...ids: number[]) => {
      const rows = rowsOf<{ minutes: number | string }>(
        await server.app.db.execute(
          sql`select extract(epoch from now() - last_active_at) / 60 as minutes from profiles where ${theirs(ids)} order by user_id`,
        ),
      );
      return rows.map((row) => Number(row.minutes));
    };
    const activeTwoHoursAgo = (...ids: number[]) =>
      server.app.db.execute(sql`update profiles set last_active_at = now() - interval '2 hours' where ${theirs(ids)}`);
    /** A token this instance has not looked up yet: its first request reads the activity from the database. */
    const signIn = async (person: { email: string; password: string }): Promise<string> =>
      (await client(server.url).post('/api/auth/', { json: { username: person.email, password: person.password } })).body.token;
    const me = (token: string) => client(server.url).get('/api/users/me/', { token });

    it('records that signed-in users are active, beside their requests (the deck orders by it)', async () => {
      const people = await Promise.all(['Ana', 'Ben', 'Cai'].map((name) => makeCompletedUser(server, { name })));
      const ids = people.map((person) => person.id);
      const tokens = await Promise.all(people.map(signIn));
      await activeTwoHoursAgo(...ids);
      expect((await activeMinutesAgo(...ids)).map((minutes) => minutes > 119)).toEqual([true, true, true]);

      // Requests close together go out in one write (one id or several, the same statement).
      const answers = await Promise.all(tokens.map(me));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      await expect.poll(async () => (await activeMinutesAgo(...ids)).map((minutes) => minutes < 1), { timeout: 5000 }).toEqual([true, true, true]);
    });

    it('writes activity once a minute from a token’s first request, not again at its second', async () => {
      const ana = await makeCompletedUser(server, { name: 'Ana' });
      const ben = await makeCompletedUser(server, { name: 'Ben' });
      const anaToken = await signIn(ana);
      const benToken = await signIn(ben);
      await activeTwoHoursAgo(ana.id, ben.id);

      expect((await me(anaToken)).status).toBe(200);
      await expect.poll(async () => (await activeMinutesAgo(ana.id))[0], { timeout: 5000 }).toBeLessThan(1);
      await activeTwoHoursAgo(ana.id);
      expect((await me(anaToken)).status).toBe(200);
      // Ben's first request writes his activity after anything Ana's second could have written.
      expect((await me(benToken)).status).toBe(200);
      await expect.poll(async () => (await activeMinutesAgo(ben.id))[0], { timeout: 5000 }).toBeLessThan(1);
      expect((await activeMinutesAgo(ana.id))[0]).toBeGreaterThan(119);
    });
  });
});
