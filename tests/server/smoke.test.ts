import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { backends, startServer, type TestServer } from '../helpers/server';

describe.each(backends)('the server on %s', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ backend });
  });
  afterAll(() => server.close());

  it('is healthy and ready', async () => {
    const api = client(server.url);
    expect((await api.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await api.get('/readyz')).body).toEqual({ status: 'ok', checks: { database: 'ok' } });
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
    expect(photo.headers.get('cache-control')).toContain('max-age=31536000');
  });

  it('records that a signed-in user is active, beside the request (the deck orders by it)', async () => {
    const ana = await makeCompletedUser(server, { name: 'Ana' });
    const activeMinutesAgo = async () => {
      const [row] = rowsOf<{ minutes: number | string }>(
        await server.app.db.execute(
          sql`select extract(epoch from now() - last_active_at) / 60 as minutes from profiles where user_id = ${ana.id}`,
        ),
      );
      return Number(row!.minutes);
    };
    // A token this instance has not looked up yet: its first request reads the activity from the database.
    const login = await client(server.url).post('/api/auth/', { json: { username: ana.email, password: ana.password } });
    await server.app.db.execute(sql`update profiles set last_active_at = now() - interval '2 hours' where user_id = ${ana.id}`);
    expect(await activeMinutesAgo()).toBeGreaterThan(119);

    expect((await client(server.url).get('/api/users/me/', { token: login.body.token })).status).toBe(200);
    await expect.poll(activeMinutesAgo, { timeout: 5000 }).toBeLessThan(1);
  });
});
