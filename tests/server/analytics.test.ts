import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsEvents } from '../../server/db/schema';
import { type FakePostHog, startFakePostHog } from '../fakes/posthog';
import { makeUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { backends, startServer, type TestServer } from '../helpers/server';

const EVENTS = '/api/analytics/events/';

describe.each(backends)('first-party analytics events on %s', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ backend });
  });
  afterAll(() => server?.close());

  const api = () => client(server.url);
  const eventsOf = (userId: number) =>
    server.app.db.select().from(analyticsEvents).where(eq(analyticsEvents.userId, userId)).orderBy(analyticsEvents.id);

  it('stores the user id, the name and the time of each named event, and nothing else', async () => {
    const user = await makeUser(server);
    for (const name of ['app_opened', 'user_logged_in', 'profile_completed', 'match_opened', 'message_sent']) {
      const response = await api().post(EVENTS, { token: user.token, json: { name } });
      expect(response.status).toBe(204);
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    const rows = await eventsOf(user.id);
    // The account's creation was recorded by the server itself.
    expect(rows.map((row) => row.name)).toEqual(['signed_up', 'app_opened', 'user_logged_in', 'profile_completed', 'match_opened', 'message_sent']);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['createdAt', 'id', 'name', 'userId']);
      expect(Date.now() - row.createdAt.getTime()).toBeLessThan(60_000);
    }
    expect(JSON.stringify(rows)).not.toContain(user.email);
  });

  it('refuses unknown names, names only the server records, and anonymous callers', async () => {
    const user = await makeUser(server);
    const unknown = await api().post(EVENTS, { token: user.token, json: { name: 'clicked_ad' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ name: ['"clicked_ad" is not a valid choice.'] });
    expect((await api().post(EVENTS, { token: user.token, json: { name: 'signed_up' } })).status).toBe(400);
    expect((await api().post(EVENTS, { token: user.token, json: {} })).body).toEqual({ name: ['This field is required.'] });
    expect((await api().post(EVENTS, { token: user.token, json: 'app_opened' })).status).toBe(400);
    expect((await api().post(EVENTS, { json: { name: 'app_opened' } })).status).toBe(401);
    expect((await eventsOf(user.id)).map((row) => row.name)).toEqual(['signed_up']);
  });

  it('is throttled per user: 60 a minute', async () => {
    const user = await makeUser(server);
    const results = [];
    for (let i = 0; i < 61; i++) results.push((await api().post(EVENTS, { token: user.token, json: { name: 'message_sent' } })).status);
    expect(results.slice(0, 60)).toEqual(Array(60).fill(204));
    expect(results[60]).toBe(429);
    expect(await eventsOf(user.id)).toHaveLength(61);
  });
});

describe('forwarding to PostHog (POSTHOG_KEY) through the real SDK', () => {
  let posthog: FakePostHog;
  let server: TestServer;
  beforeAll(async () => {
    posthog = await startFakePostHog();
    server = await startServer({ config: { posthog: { key: 'phc_test_eventmatch', host: posthog.url } } });
  });
  afterAll(async () => {
    await server?.close();
    await posthog?.close();
  });

  it('sends the same events keyed by the user id only: no e-mail, no name, no address', async () => {
    const user = await makeUser(server, { firstName: 'Zelda' });
    expect((await client(server.url).post(EVENTS, { token: user.token, json: { name: 'app_opened' } })).status).toBe(204);
    await server.app.analytics.flush();

    const mine = posthog.events.filter((event) => event.distinct_id === String(user.id));
    expect(mine.map((event) => event.event)).toEqual(['signed_up', 'app_opened']);
    expect(posthog.apiKeys.every((key) => key === 'phc_test_eventmatch')).toBe(true);
    for (const event of mine) {
      const sent = JSON.stringify(event.raw);
      expect(sent).not.toContain(user.email);
      expect(sent).not.toContain('Zelda');
      expect(sent).not.toContain('127.0.0.1');
      expect(event.properties.$geoip_disable).toBe(true);
    }
  });
});
