import { randomUUID } from 'node:crypto';
import { ANALYTICS_MAX_AGE_MS } from '../../shared/constants';
import { eq, or } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsEvents, conversations } from '../../server/db/schema';
import { deleteAccount } from '../../server/features/account/deletion';
import { SHUTDOWN_DEADLINE_MS } from '../../server/process';
import { FAKE_POSTHOG_KEY, type FakePostHog, startFakePostHog } from '../fakes/posthog';
import { makeCompletedUser, makeUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { makeModerator } from '../helpers/safety';
import { backends, serverPerSuite, startServer } from '../helpers/server';
import { match } from '../realtime/fixtures';
import { waitUntil } from '../helpers/socket';

const EVENTS = '/api/analytics/events/';

describe.each(backends)('first-party analytics events on %s', (backend) => {
  const server = serverPerSuite({ backend });

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
      expect(Object.keys(row).sort()).toEqual(['anonymousActive', 'clientId', 'createdAt', 'id', 'name', 'userId']);
      expect(row.anonymousActive).toBe(false);
      expect(Date.now() - row.createdAt.getTime()).toBeLessThan(60_000);
    }
    expect(JSON.stringify(rows)).not.toContain(user.email);
  });

  it('stores an event sent again (its answer lost on the way back) once, by its client id', async () => {
    const user = await makeUser(server);
    const other = await makeUser(server);
    const clientId = randomUUID();
    for (let i = 0; i < 2; i++) {
      expect((await api().post(EVENTS, { token: user.token, json: { name: 'match_opened', client_id: clientId } })).status).toBe(204);
    }
    // Two sent at once, as two tabs sending the same kept event would.
    const twice = await Promise.all([1, 2].map(() => api().post(EVENTS, { token: other.token, json: { name: 'message_sent', client_id: clientId } })));
    expect(twice.map((response) => response.status)).toEqual([204, 204]);
    // Events without an id (an app from before ids) are each their own.
    for (let i = 0; i < 2; i++) expect((await api().post(EVENTS, { token: user.token, json: { name: 'app_opened' } })).status).toBe(204);
    expect((await eventsOf(user.id)).map((row) => [row.name, row.clientId])).toEqual([
      ['signed_up', null],
      ['match_opened', clientId],
      ['app_opened', null],
      ['app_opened', null],
    ]);
    expect((await eventsOf(other.id)).map((row) => row.name)).toEqual(['signed_up', 'message_sent']);
    const malformed = await api().post(EVENTS, { token: user.token, json: { name: 'app_opened', client_id: 'not-a-uuid' } });
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body as object)).toEqual(['client_id']);
  });

  it('refuses unknown names, names only the server records, and anonymous callers', async () => {
    const user = await makeUser(server);
    const unknown = await api().post(EVENTS, { token: user.token, json: { name: 'clicked_ad' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ name: ['"clicked_ad" is not a valid choice.'] });
    expect((await api().post(EVENTS, { token: user.token, json: { name: 'signed_up' } })).status).toBe(400);
    expect((await api().post(EVENTS, { token: user.token, json: { name: 'matched' } })).status).toBe(400);
    expect((await api().post(EVENTS, { token: user.token, json: {} })).body).toEqual({ name: ['This field is required.'] });
    expect((await api().post(EVENTS, { token: user.token, json: 'app_opened' })).status).toBe(400);
    expect((await api().post(EVENTS, { json: { name: 'app_opened' } })).status).toBe(401);
    expect((await eventsOf(user.id)).map((row) => row.name)).toEqual(['signed_up']);
  });

  it('an event from a session whose account was deleted meanwhile is 401, and stores nothing', async () => {
    const user = await makeUser(server);
    // Signed in already (the token trusted on this instance), the account gone before the event is stored.
    expect((await api().post(EVENTS, { token: user.token, json: { name: 'app_opened' } })).status).toBe(204);
    expect(await deleteAccount(server.app.db, user.id)).not.toBeNull();
    const late = await api().post(EVENTS, { token: user.token, json: { name: 'app_opened' } });
    expect([late.status, late.body]).toEqual([401, { detail: 'This account has been deleted.', code: 'account_deleted' }]);
    expect(await eventsOf(user.id)).toEqual([]);
  });

  it('is throttled per user: 240 a minute, above the 180 messages a minute a sender may send', async () => {
    const user = await makeUser(server);
    const results = [];
    for (let i = 0; i < 241; i++) results.push((await api().post(EVENTS, { token: user.token, json: { name: 'message_sent' } })).status);
    expect(results.slice(0, 240)).toEqual(Array(240).fill(204));
    expect(results[240]).toBe(429);
    expect(await eventsOf(user.id)).toHaveLength(241);
  });
});

describe('forwarding to PostHog (POSTHOG_KEY) through the real SDK', () => {
  let posthog: FakePostHog;
  beforeAll(async () => {
    posthog = await startFakePostHog();
  });
  afterAll(() => posthog?.close());
  const server = serverPerSuite(() => ({
    config: {
      posthog: posthog.appConfig,
    },
  }));

  it('sends the same events keyed by the user id only: no e-mail, no name, no address', async () => {
    const user = await makeUser(server, { firstName: 'Zelda' });
    expect((await client(server.url).post(EVENTS, { token: user.token, json: { name: 'app_opened' } })).status).toBe(204);
    await server.app.analytics.flush();

    const mine = posthog.events.filter((event) => event.distinct_id === String(user.id));
    expect(mine.map((event) => event.event)).toEqual(['signed_up', 'app_opened']);
    expect(posthog.apiKeys.every((key) => key === FAKE_POSTHOG_KEY)).toBe(true);
    for (const event of mine) {
      const sent = JSON.stringify(event.raw);
      expect(sent).not.toContain(user.email);
      expect(sent).not.toContain('Zelda');
      expect(sent).not.toContain('127.0.0.1');
      expect(event.properties.$geoip_disable).toBe(true);
    }
  });

  it('does not hold its close for the events PostHog is slow to take', async () => {
    // Batches that may take a minute: PostHog's SDK, left to itself, waits 30 s for its last flush.
    const own = await startServer({ config: { posthog: { ...posthog.appConfig, sendTimeoutMs: 60_000 } } });
    try {
      await makeUser(own);
      posthog.capture.state = 'holding';
      const heldBefore = posthog.held.length;
      // The account's sign-up is still queued: the close sends it, and PostHog holds it on its way; the
      // close goes on without its answer, before the process's own deadline would exit it.
      const started = Date.now();
      await own.close();
      expect(Date.now() - started).toBeLessThan(SHUTDOWN_DEADLINE_MS);
      expect(posthog.held.length).toBeGreaterThan(heldBefore);
    } finally {
      posthog.capture.state = 'up';
      posthog.release();
    }
  });

  it('forwards an event sent again once, with its client id as the event’s uuid', async () => {
    const user = await makeUser(server);
    const clientId = randomUUID();
    for (let i = 0; i < 2; i++) {
      expect((await client(server.url).post(EVENTS, { token: user.token, json: { name: 'match_opened', client_id: clientId } })).status).toBe(204);
    }
    await server.app.analytics.flush();
    const mine = posthog.events.filter((event) => event.distinct_id === String(user.id) && event.event === 'match_opened');
    expect(mine.map((event) => event.raw.uuid)).toEqual([clientId]);
  });

  it('sends an event kept offline with the time it happened', async () => {
    const user = await makeUser(server);
    const sent = Date.now();
    const json = { name: 'match_opened', client_id: randomUUID(), age_ms: 3_600_000 };
    expect((await client(server.url).post(EVENTS, { token: user.token, json })).status).toBe(204);
    await server.app.analytics.flush();
    const [event] = posthog.events.filter((each) => each.distinct_id === String(user.id) && each.event === 'match_opened');
    expect(Math.abs(Date.parse(String(event!.raw.timestamp)) - (sent - 3_600_000))).toBeLessThan(5_000);
  });

  it('deletes a deleted account’s person and events in PostHog too, those still queued here included', async () => {
    const api = client(server.url);
    const leaving = await makeUser(server);
    const staying = await makeUser(server);
    for (const user of [leaving, staying]) {
      expect((await api.post(EVENTS, { token: user.token, json: { name: 'app_opened' } })).status).toBe(204);
    }
    await server.app.analytics.flush();
    // One more, still in the SDK's queue as the account goes.
    expect((await api.post(EVENTS, { token: leaving.token, json: { name: 'match_opened' } })).status).toBe(204);
    expect(posthog.events.some((event) => event.distinct_id === String(leaving.id))).toBe(true);

    expect((await api.delete('/api/users/me/', { token: leaving.token, json: { password: leaving.password } })).status).toBe(204);
    // Done after the answer, in the background.
    const deletions = () => posthog.requests.filter((request) => request.path.endsWith('/persons/bulk_delete/'));
    await waitUntil(() => posthog.deleted.length > 0, 10_000, 'the person deleted in PostHog');
    expect(deletions()).toHaveLength(1);
    expect(deletions()[0]!.path).toBe(`/api/projects/${posthog.projectId}/persons/bulk_delete/`);
    expect(JSON.parse(deletions()[0]!.body.toString('utf8'))).toEqual({ distinct_ids: [String(leaving.id)], delete_events: true });
    expect(posthog.deleted).toEqual([String(leaving.id)]);
    expect(posthog.events.filter((event) => event.distinct_id === String(leaving.id))).toEqual([]);
    // Nobody else's.
    expect(posthog.events.filter((event) => event.distinct_id === String(staying.id)).map((event) => event.event)).toEqual(['signed_up', 'app_opened']);
  });
});

describe.each(backends)('the moderators’ daily summary on %s', (backend) => {
  const server = serverPerSuite({ backend });

  const api = () => client(server.url);
  const summary = (token: string | undefined, query = '') => api().get(`/api/analytics/summary/${query}`, { token });
  const eventsOf = (userId: number) =>
    server.app.db.select().from(analyticsEvents).where(eq(analyticsEvents.userId, userId)).orderBy(analyticsEvents.id);

  it('counts sign-ups, logins, active users, matches and messages per UTC day, zeros included', async () => {
    const moderator = await makeModerator(server);
    type Day = { date: string; signups: number; logins: number; active_users: number; matches: number; messages: number };
    const METRICS = ['signups', 'logins', 'active_users', 'matches', 'messages'] as const;
    // Sums over the window: the same whether or not a UTC midnight falls within the test.
    const totals = (days: Day[]) => Object.fromEntries(METRICS.map((metric) => [metric, days.reduce((sum, day) => sum + day[metric], 0)]));
    const before = totals((await summary(moderator.token)).body.days);
    const firstDay = new Date().toISOString().slice(0, 10);

    const a = await makeCompletedUser(server, { name: 'Ana' });
    const b = await makeCompletedUser(server, { name: 'Ben' });
    await match(server, a, b);
    for (const [user, name] of [
      [a, 'user_logged_in'],
      [a, 'message_sent'],
      [a, 'message_sent'],
      [b, 'app_opened'],
    ] as const) {
      expect((await api().post(EVENTS, { token: user.token, json: { name } })).status).toBe(204);
    }

    const utcToday = () => new Date().toISOString().slice(0, 10);
    const startedOn = utcToday();
    const response = await summary(moderator.token);
    const endedOn = utcToday();
    expect(response.status).toBe(200);
    const days = response.body.days as Array<Record<string, number | string>>;
    expect(days).toHaveLength(30);
    const last = days.at(-1)!;
    // "Today" is the server's UTC date (the two differ only across midnight).
    expect([startedOn, endedOn]).toContain(last.date);
    // Consecutive days, oldest first.
    const lastMs = Date.parse(`${String(last.date)}T00:00:00Z`);
    const expected = Array.from({ length: 30 }, (_, i) => new Date(lastMs - (29 - i) * 86_400_000).toISOString().slice(0, 10));
    expect(days.map((day) => day.date)).toEqual(expected);
    const after = totals(days as Day[]);
    expect(after).toMatchObject({
      signups: before.signups! + 2,
      logins: before.logins! + 1,
      matches: before.matches! + 1,
      messages: before.messages! + 2,
    });
    // Ana and Ben were active today: two more (a user active on two days counts on each).
    if (firstDay === endedOn) expect(after.active_users).toBe(before.active_users! + 2);
    else expect(after.active_users).toBeGreaterThanOrEqual(before.active_users! + 2);
    // Days without activity are there, as zeros: this fresh database has none before yesterday.
    for (const day of days.slice(0, 28)) expect(day).toEqual({ date: day.date, signups: 0, logins: 0, active_users: 0, matches: 0, messages: 0 });

    const week = await summary(moderator.token, '?days=7');
    expect(week.body.days).toHaveLength(7);
  });

  it('counts an event kept offline on the day it happened: a minute before UTC midnight is yesterday’s', async () => {
    const moderator = await makeModerator(server);
    const messagesOn = async () => {
      const days = (await summary(moderator.token, '?days=2')).body.days as Array<{ date: string; messages: number; active_users: number }>;
      return days;
    };
    // Yesterday and today, read before and after it is sent, on one UTC day: across a midnight (the
    // two days move on by one, and "yesterday" with them) it is done again, by another user.
    const utcDay = () => new Date().toISOString().slice(0, 10);
    const attempt = async () => {
      const began = utcDay();
      const user = await makeUser(server);
      const before = await messagesOn();
      // Sent now, happened at 23:59 UTC yesterday (by the phone's own clock: how long ago, not when).
      const now = Date.now();
      const ageMs = now - Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`) + 60_000;
      const sent = await api().post(EVENTS, { token: user.token, json: { name: 'message_sent', client_id: randomUUID(), age_ms: ageMs } });
      const after = await messagesOn();
      return { user, before, after, sent, happened: now - ageMs, oneDay: utcDay() === began };
    };
    const first = await attempt();
    const { user, before, after, sent, happened } = first.oneDay ? first : await attempt();
    expect(sent.status).toBe(204);
    const [row] = (await eventsOf(user.id)).filter((event) => event.name === 'message_sent');
    expect(Math.abs(row!.createdAt.getTime() - happened)).toBeLessThan(5_000);
    expect(after.map((day) => day.date)).toEqual(before.map((day) => day.date));
    expect(after[0]!.messages).toBe(before[0]!.messages + 1);
    expect(after[1]!.messages).toBe(before[1]!.messages);

    // Not from the future, nor older than a device keeps one; nothing stored for either.
    for (const age of [-1, ANALYTICS_MAX_AGE_MS + 1, 1.5, '60000']) {
      const refused = await api().post(EVENTS, { token: user.token, json: { name: 'message_sent', age_ms: age } });
      expect([refused.status, Object.keys(refused.body as object)]).toEqual([400, ['age_ms']]);
    }
    expect((await eventsOf(user.id)).filter((event) => event.name === 'message_sent')).toHaveLength(1);
  });

  it('keeps counting the matches of an account deleted since', async () => {
    const moderator = await makeModerator(server);
    const matchesOf = async () => {
      const days = (await summary(moderator.token)).body.days as Array<{ date: string; matches: number }>;
      return { today: days.at(-1)!.date, todays: days.at(-1)!.matches, total: days.reduce((sum, day) => sum + day.matches, 0) };
    };
    const before = await matchesOf();

    // Ana's likes make both matches: the events are hers, and go anonymous with her account.
    const ana = await makeCompletedUser(server, { name: 'Ana' });
    const ben = await makeCompletedUser(server, { name: 'Ben' });
    const cleo = await makeCompletedUser(server, { name: 'Cleo' });
    await match(server, ben, ana);
    await match(server, cleo, ana);
    expect((await eventsOf(ana.id)).map((row) => row.name)).toEqual(['signed_up', 'matched', 'matched']);
    expect((await eventsOf(ben.id)).map((row) => row.name)).toEqual(['signed_up']);
    const made = await matchesOf();
    expect(made.total).toBe(before.total + 2);

    expect((await api().delete('/api/users/me/', { token: ana.token, json: { password: ana.password } })).status).toBe(204);
    const conversationsLeft = await server.app.db
      .select()
      .from(conversations)
      .where(or(eq(conversations.userLowId, ana.id), eq(conversations.userHighId, ana.id)));
    expect(conversationsLeft).toEqual([]);
    const after = await matchesOf();
    expect(after.total).toBe(made.total);
    // Today's two matches are still today's (across a UTC midnight, the window's total above says it).
    if (before.today === after.today) expect(after.todays).toBe(before.todays + 2);
  });

  it('keeps counting a deleted account among the active users of each day it was active', async () => {
    const moderator = await makeModerator(server);
    const activeUsers = async () =>
      new Map(((await summary(moderator.token)).body.days as Array<{ date: string; active_users: number }>).map((day) => [day.date, day.active_users]));
    const before = await activeUsers();

    // Ana was active yesterday (twice) and today (three times: her sign-up and two events).
    const ana = await makeUser(server);
    const yesterday = new Date(Date.now() - 86_400_000);
    await server.app.db.insert(analyticsEvents).values([
      { userId: ana.id, name: 'app_opened', createdAt: yesterday },
      { userId: ana.id, name: 'message_sent', createdAt: yesterday },
    ]);
    for (const name of ['app_opened', 'message_sent'] as const) {
      expect((await api().post(EVENTS, { token: ana.token, json: { name } })).status).toBe(204);
    }
    const active = await activeUsers();
    const yesterdayDate = yesterday.toISOString().slice(0, 10);
    expect(active.get(yesterdayDate)).toBe((before.get(yesterdayDate) ?? 0) + 1);

    expect((await api().delete('/api/users/me/', { token: ana.token, json: { password: ana.password } })).status).toBe(204);
    expect(await eventsOf(ana.id)).toEqual([]);
    const after = await activeUsers();
    // The days both answers hold (a UTC midnight between them moves the window by one).
    for (const [date, count] of after) if (active.has(date)) expect([date, count]).toEqual([date, active.get(date)]);
  });

  it('is for moderators only: anyone else finds nothing (404), signed out is 401, bad days are 400', async () => {
    const user = await makeUser(server);
    const moderator = await makeModerator(server);
    expect((await summary(undefined)).status).toBe(401);
    const hidden = await summary(user.token);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ detail: 'Not found.' });
    for (const days of ['0', '366', 'abc', '1.5']) {
      const response = await summary(moderator.token, `?days=${days}`);
      expect(response.status, days).toBe(400);
      expect(Object.keys(response.body)).toEqual(['days']);
    }
  });
});
