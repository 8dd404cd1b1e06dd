import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHAT_LINES_ES, DEMO_EMAIL, SEED_PASSWORD, type SeedResult, seed } from '../../scripts/seed';
import { rowsOf } from '../../server/db/client';
import { client } from '../helpers/http';
import { serverPerSuite } from '../helpers/server';

/** What the seed leaves for a demo: what the demo account sees should look like a real night out. */
describe('the seeded demo', () => {
  const server = serverPerSuite({ backend: 'pglite' });
  let result: SeedResult;
  let token: string;
  const api = () => client(server.url);
  const query = async <T>(statement: ReturnType<typeof sql>) => rowsOf<T>(await server.app.db.execute(statement));

  beforeAll(async () => {
    result = await seed(server.app.db, { users: 120, reactionsPerUser: 20, matchRate: 0.3, photos: 6, dataDir: server.config.dataDir });
    const login = await api().post('/api/auth/', { json: { username: DEMO_EMAIL, password: SEED_PASSWORD } });
    token = login.body.token;
  });

  it('spreads the matches and their messages over time, not all at the moment it ran', async () => {
    const started = await api().get('/api/conversations/started/', { token });
    const activity: string[] = started.body.results.map((chat: { last_activity: string }) => chat.last_activity);
    expect(activity.length).toBeGreaterThan(1);
    // The demo's chats did not all go quiet in the same minute.
    const minutes = new Set(activity.map((time) => time.slice(0, 16)));
    expect(minutes.size).toBeGreaterThan(1);
    // No chat holds its history in one moment: no two of its lines less than a second apart on average.
    const [instant] = await query<{ n: number }>(sql`
      select count(*)::int as n from (
        select conversation_id from messages group by conversation_id
        having count(*) > 1 and max(created_at) - min(created_at) < (count(*) - 1) * interval '1 second'
      ) c`);
    expect(Number(instant!.n)).toBe(0);
    // Matches were made over the past weeks (those of the demo event, tonight), not as the seed ran.
    const [recent] = await query<{ n: number; total: number }>(sql`
      select count(*) filter (where created_at > now() - interval '10 minutes')::int as n, count(*)::int as total
      from conversations where event_id is null`);
    expect(Number(recent!.n)).toBeLessThan(Number(recent!.total) * 0.2);
  });

  it('leaves the demo account new matches to open as well as chats going on', async () => {
    const fresh = await api().get('/api/conversations/empty/', { token });
    expect(fresh.status).toBe(200);
    expect(fresh.body.results.length).toBeGreaterThanOrEqual(2);
    const started = await api().get('/api/conversations/started/', { token });
    expect(started.body.results.length).toBeGreaterThanOrEqual(3);
  });

  it('gives the host screen a night to show: likes, matches and chats made at the demo event', async () => {
    const stats = await api().get(`/api/events/${result.demoEvent.id}/stats/`, { token });
    expect(stats.status).toBe(200);
    expect(stats.body.checked_in_total).toBe(result.demoEvent.attendees);
    expect(stats.body.likes).toBeGreaterThan(10);
    expect(stats.body.matches).toBeGreaterThan(3);
    expect(stats.body.conversations_started).toBeGreaterThan(0);
    expect(stats.body.conversations_started).toBeLessThanOrEqual(stats.body.matches);
    const charted = stats.body.timeline.reduce((sum: number, slot: { matches: number }) => sum + slot.matches, 0);
    expect(charted).toBe(stats.body.matches);
    // Made there: after both had checked in, and before now.
    const [wrong] = await query<{ n: number }>(sql`
      select count(*)::int as n from conversations c
      join attendances a on a.event_id = c.event_id and a.user_id = c.user_low_id
      join attendances b on b.event_id = c.event_id and b.user_id = c.user_high_id
      where c.event_id = ${result.demoEvent.id}
        and (c.created_at < greatest(a.checked_in_at, b.checked_in_at) or c.created_at > now())`);
    expect(Number(wrong!.n)).toBe(0);
  });

  it('gives the organizer a past event and an upcoming one beside tonight’s, once', async () => {
    const mine = await api().get('/api/events/mine/', { token });
    expect(mine.status).toBe(200);
    const events: { id: number; status: string; starts_at: string; ends_at: string }[] = mine.body.results;
    expect(events.map((event) => event.status).sort()).toEqual(['closed', 'open', 'upcoming']);
    expect(events[0]!.id).toBe(result.demoEvent.id);
    const past = events.find((event) => event.status === 'closed')!;
    const stats = await api().get(`/api/events/${past.id}/stats/`, { token });
    expect(stats.body.checked_in_total).toBeGreaterThan(10);
    expect(stats.body.attendee_count).toBe(0);
    // Nobody is still in the past event, and nobody arrived before its check-in opened or after it ended.
    const [odd] = await query<{ n: number }>(sql`
      select count(*)::int as n from attendances a join events e on e.id = a.event_id
      where e.id = ${past.id} and (a.left_at is null or a.checked_in_at < e.starts_at - interval '1 hour'
        or a.checked_in_at > e.ends_at or a.left_at > e.ends_at or a.left_at < a.checked_in_at)`);
    expect(Number(odd!.n)).toBe(0);
    // A second batch reuses tonight’s event and adds no other.
    await seed(server.app.db, { users: 10, reactionsPerUser: 1, matchRate: 0, photos: 2, dataDir: server.config.dataDir });
    const again = await api().get('/api/events/mine/', { token });
    expect(again.body.results.map((event: { id: number }) => event.id)).toEqual(events.map((event) => event.id));
  });

  it('leaves a few reports in the moderators’ queue, about seeded people and their chats', async () => {
    await server.app.db.execute(sql`update users set role = 'moderator' where id = ${result.demoUserId}`);
    const queue = await api().get('/api/moderation/reports/', { token });
    expect(queue.status).toBe(200);
    const open: { id: number }[] = queue.body.results;
    expect(open.length).toBeGreaterThanOrEqual(3);
    const details = await Promise.all(open.map((item) => api().get(`/api/moderation/reports/${item.id}/`, { token })));
    // One at least holds the chat it was made from; none is about, or by, the demo account.
    expect(details.some((detail) => detail.body.snapshot.messages.length > 0)).toBe(true);
    const [mine] = await query<{ n: number }>(sql`
      select count(*)::int as n from reports where ${result.demoUserId} in (reporter_id, reported_id)`);
    expect(Number(mine!.n)).toBe(0);
  });

  it('speaks Spanish, the app’s first language, as well as English: each chat in one of them', async () => {
    const spanish = JSON.stringify(CHAT_LINES_ES);
    const [chats] = await query<{ spanish: number; english: number; mixed: number }>(sql`
      select count(*) filter (where es = n)::int as spanish, count(*) filter (where es = 0)::int as english,
        count(*) filter (where es > 0 and es < n)::int as mixed
      from (
        select conversation_id, count(*) as n, count(*) filter (where ${spanish}::jsonb ? content) as es
        from messages group by conversation_id
      ) c`);
    expect(chats!.mixed).toBe(0);
    expect(chats!.spanish).toBeGreaterThan(5);
    expect(chats!.english).toBeGreaterThan(5);
    const [bios] = await query<{ n: number; total: number }>(sql`
      select count(*) filter (where bio ~ '[áéíóúñ¿¡]')::int as n, count(bio)::int as total from profiles`);
    expect(bios!.n).toBeGreaterThan(bios!.total * 0.2);
  });

  it('never gives a profile the same photo twice, whatever the size of the pool', async () => {
    // Pools of 2 and 3 photos too, where a repeat would be the rule rather than the exception.
    await seed(server.app.db, { users: 30, reactionsPerUser: 1, matchRate: 0, photos: 2, dataDir: server.config.dataDir });
    await seed(server.app.db, { users: 30, reactionsPerUser: 1, matchRate: 0, photos: 3, dataDir: server.config.dataDir });
    const [counts] = await query<{ repeated: number; second: number; third: number; primary_missing: number }>(sql`
      select
        count(*) filter (where image = image2 or image = image3 or image2 = image3)::int as repeated,
        count(image2)::int as second, count(image3)::int as third,
        count(*) filter (where is_completed and image is null)::int as primary_missing
      from profiles`);
    expect(counts).toEqual({ repeated: 0, second: expect.any(Number), third: expect.any(Number), primary_missing: 0 });
    // Some profiles have more than one photo to swipe through.
    expect(counts!.second).toBeGreaterThan(result.users * 0.3);
    expect(counts!.third).toBeGreaterThan(result.users * 0.1);
  });
});
