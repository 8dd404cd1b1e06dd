import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { ProfileInput } from '../../shared/schemas/users';
import { DECK_PAGE_SIZE } from '../../shared/constants';
import { DEMO_EMAIL, SEED_PASSWORD, seed } from '../../scripts/seed';
import { rowsOf } from '../../server/db/client';
import { birthDateForAge, makeCompletedUser, makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { backends, serverPerSuite } from '../helpers/server';

/**
 * Every test works in its own age band (nobody else in the shared test database is that old and
 * wants that band), so that a deck holds exactly the test's own candidates.
 */
describe.each(backends)('the deck on %s', (backend) => {
  const server = serverPerSuite({ backend });

  const api = () => client(server.url);
  const deckPage = (user: TestUser, query = '') =>
    api().get(`/api/users/matching-profiles/${query}`, { token: user.token });

  /** Every card of the user's deck, page after page. */
  async function deckIds(user: TestUser, limit = 100): Promise<number[]> {
    const ids: number[] = [];
    let query = `?limit=${limit}`;
    for (let pages = 0; pages < 50; pages++) {
      const page = await deckPage(user, query);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      ids.push(...page.body.results.map((card: { id: number }) => card.id));
      if (!page.body.next) return ids;
      query = `?limit=${limit}&cursor=${encodeURIComponent(page.body.next)}`;
    }
    throw new Error('the deck never ended');
  }

  const react = async (from: TestUser, to: TestUser, response: 'like' | 'dislike' | 'skip') => {
    const reply = await api().post('/api/matching/', { token: from.token, json: { response, other: to.id } });
    expect(reply.status).toBe(200);
  };

  /** A profile of someone `age` years old who wants `band` and the given genders. */
  const person = (age: number, band: [number, number], overrides: Partial<ProfileInput> = {}): Partial<ProfileInput> => ({
    date_of_birth: birthDateForAge(age),
    min_matching_age: band[0],
    max_matching_age: band[1],
    ...overrides,
  });

  it('applies each rule of the filter on its own and combined (a truth table)', async () => {
    // The viewer: a 40-year-old woman who wants men of 38–42.
    const band: [number, number] = [38, 42];
    const viewer = await makeCompletedUser(server, person(40, band, { gender: 'female', genders_to_match: ['male'] }));
    const fitting = (overrides: Partial<ProfileInput> = {}) =>
      person(40, band, { gender: 'male', genders_to_match: ['female'], ...overrides });

    const cases: { name: string; shown: boolean; profile?: Partial<ProfileInput>; incomplete?: boolean }[] = [
      { name: 'fits every rule', shown: true, profile: fitting() },
      { name: 'at the bottom of my range (38)', shown: true, profile: fitting({ date_of_birth: birthDateForAge(38) }) },
      { name: 'at the top of my range (42)', shown: true, profile: fitting({ date_of_birth: birthDateForAge(42) }) },
      { name: 'my age exactly their range (40–40)', shown: true, profile: fitting({ min_matching_age: 40, max_matching_age: 40 }) },
      { name: 'also wants other genders', shown: true, profile: fitting({ genders_to_match: ['female', 'male', 'non_binary'] }) },
      { name: 'incomplete profile', shown: false, incomplete: true },
      { name: 'their gender not in my list', shown: false, profile: fitting({ gender: 'non_binary' }) },
      { name: 'my gender not in their list', shown: false, profile: fitting({ genders_to_match: ['male', 'non_binary'] }) },
      { name: 'younger than my minimum (37)', shown: false, profile: fitting({ date_of_birth: birthDateForAge(37) }) },
      { name: 'older than my maximum (43)', shown: false, profile: fitting({ date_of_birth: birthDateForAge(43) }) },
      { name: 'I am below their minimum', shown: false, profile: fitting({ min_matching_age: 41, max_matching_age: 42 }) },
      { name: 'I am above their maximum', shown: false, profile: fitting({ min_matching_age: 38, max_matching_age: 39 }) },
      {
        name: 'wrong gender and too old (combined)',
        shown: false,
        profile: fitting({ gender: 'female', date_of_birth: birthDateForAge(50) }),
      },
      {
        name: 'both gender rules fail (combined)',
        shown: false,
        profile: fitting({ gender: 'female', genders_to_match: ['male'] }),
      },
      {
        name: 'both age rules fail (combined)',
        shown: false,
        profile: fitting({ date_of_birth: birthDateForAge(45), min_matching_age: 18, max_matching_age: 30 }),
      },
    ];
    const users = new Map<string, TestUser>();
    for (const entry of cases) {
      users.set(entry.name, entry.incomplete ? await makeUser(server) : await makeCompletedUser(server, entry.profile));
    }

    // Reactions and blocks: each one on an otherwise fitting candidate.
    const byReaction = async (name: string, setup: (candidate: TestUser) => Promise<unknown>, shown: boolean) => {
      const candidate = await makeCompletedUser(server, fitting());
      await setup(candidate);
      users.set(name, candidate);
      cases.push({ name, shown });
    };
    await byReaction('I liked them', (c) => react(viewer, c, 'like'), false);
    await byReaction('I disliked them', (c) => react(viewer, c, 'dislike'), false);
    await byReaction('I skipped them (comes back last)', (c) => react(viewer, c, 'skip'), true);
    await byReaction('they liked me', (c) => react(c, viewer, 'like'), true);
    await byReaction('they disliked me (not a rule of the deck)', (c) => react(c, viewer, 'dislike'), true);
    await byReaction('I blocked them', (c) => block(viewer, c), false);
    await byReaction('they blocked me', (c) => block(c, viewer), false);
    await byReaction('they liked me but I blocked them (combined)', async (c) => {
      await react(c, viewer, 'like');
      await block(viewer, c);
    }, false);
    await byReaction('I skipped and then disliked them (combined)', async (c) => {
      await react(viewer, c, 'skip');
      await react(viewer, c, 'dislike');
    }, false);

    const deck = new Set(await deckIds(viewer));
    expect(deck.has(viewer.id), 'never myself').toBe(false);
    const table = Object.fromEntries(cases.map((entry) => [entry.name, deck.has(users.get(entry.name)!.id)]));
    const expected = Object.fromEntries(cases.map((entry) => [entry.name, entry.shown]));
    expect(table).toEqual(expected);
    expect(deck.size).toBe(cases.filter((entry) => entry.shown).length);
  });

  async function block(blocker: TestUser, blocked: TestUser) {
    // The block action comes in a later issue: the row is what the deck reads.
    await server.app.db.execute(sql`insert into blocks (blocker_id, blocked_id) values (${blocker.id}, ${blocked.id})`);
  }

  /** Sets a user's last activity to `minutesAgo` minutes ago. */
  const activeMinutesAgo = (user: TestUser, minutesAgo: number) =>
    server.app.db.execute(
      sql`update profiles set last_active_at = now() - ${minutesAgo} * interval '1 minute' where user_id = ${user.id}`,
    );

  it('mixes the people who liked me in among the first cards, then the most recently active, then the skipped', async () => {
    const band: [number, number] = [55, 56];
    const viewer = await makeCompletedUser(server, person(55, band));
    const names = ['old', 'liker', 'recent', 'middle', 'skipped', 'olderLiker'] as const;
    const u = {} as Record<(typeof names)[number], TestUser>;
    for (const name of names) u[name] = await makeCompletedUser(server, person(56, band, { name }));
    // Reacting counts as activity: the times are set afterwards.
    await react(u.liker, viewer, 'like');
    await react(u.olderLiker, viewer, 'like');
    await react(viewer, u.skipped, 'skip');
    await Promise.all([
      activeMinutesAgo(u.old, 300),
      activeMinutesAgo(u.liker, 200),
      activeMinutesAgo(u.olderLiker, 400),
      activeMinutesAgo(u.recent, 1),
      activeMinutesAgo(u.middle, 100),
      activeMinutesAgo(u.skipped, 0),
    ]);

    const page = await deckPage(viewer);
    expect(page.status).toBe(200);
    expect(page.body.next).toBeNull();
    const shown: string[] = page.body.results.map((card: { name: string }) => card.name);
    // The likers somewhere among the unseen (which keep their order), the skipped last.
    expect(shown.filter((name) => name !== 'liker' && name !== 'olderLiker')).toEqual(['recent', 'middle', 'old', 'skipped']);
    expect(shown.slice(0, 5).sort()).toEqual(['liker', 'middle', 'old', 'olderLiker', 'recent']);
    // The same order when asked again: a refresh does not shuffle the deck.
    expect((await deckPage(viewer)).body.results.map((card: { name: string }) => card.name)).toEqual(shown);
    // The card: exactly what the client reads, never private fields.
    expect(page.body.results.find((card: { name: string }) => card.name === 'liker')).toEqual({
      id: u.liker.id,
      name: 'liker',
      age: 56,
      bio: 'Here for the music.',
      image: expect.stringMatching(/^\/media\/.+\.webp$/),
    });
  });

  it('does not tell a free user which cards liked them: the likers are not simply the first ones', async () => {
    // Eight viewers, each liked by one of six candidates: were likers placed first, every one of
    // them would see their liker on top (the chance the mixing puts all eight there is 1 in 6^8).
    // Viewers of 57 want 58, candidates of 58 want 57: no viewer sees another.
    const candidates = await Promise.all(Array.from({ length: 6 }, () => makeCompletedUser(server, person(58, [57, 57]))));
    const tops: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      const viewer = await makeCompletedUser(server, person(57, [58, 58]));
      const liker = candidates[i % candidates.length]!;
      await react(liker, viewer, 'like');
      const ids = await deckIds(viewer);
      expect([...ids].sort()).toEqual(candidates.map((c) => c.id).sort());
      tops.push(ids[0] === liker.id);
    }
    expect(tops.some((top) => !top)).toBe(true);
  });

  it('brings skipped profiles back only once the unseen ones are exhausted', async () => {
    const band: [number, number] = [60, 61];
    const viewer = await makeCompletedUser(server, person(60, band));
    const [a, b, c] = [
      await makeCompletedUser(server, person(61, band)),
      await makeCompletedUser(server, person(61, band)),
      await makeCompletedUser(server, person(61, band)),
    ];
    await activeMinutesAgo(a, 1);
    await activeMinutesAgo(b, 2);
    await activeMinutesAgo(c, 3);
    expect(await deckIds(viewer)).toEqual([a.id, b.id, c.id]);

    await react(viewer, a, 'skip');
    expect(await deckIds(viewer)).toEqual([b.id, c.id, a.id]);
    await react(viewer, b, 'skip');
    expect(await deckIds(viewer)).toEqual([c.id, a.id, b.id]);
    await react(viewer, c, 'dislike');
    // Only skipped ones are left: they come back, most recently active first.
    expect(await deckIds(viewer)).toEqual([a.id, b.id]);
    // A skip can become a like: then it is gone for good.
    await react(viewer, a, 'like');
    expect(await deckIds(viewer)).toEqual([b.id]);
  });

  it('pages with an opaque cursor across all three tiers, without gaps or repeats', async () => {
    const band: [number, number] = [65, 66];
    const viewer = await makeCompletedUser(server, person(65, band));
    const candidates: TestUser[] = [];
    for (let i = 0; i < 9; i++) candidates.push(await makeCompletedUser(server, person(66, band)));
    // Same activity time for several: the id breaks the tie.
    await server.app.db.execute(
      sql`update profiles set last_active_at = date_trunc('minute', now()) where user_id in (${sql.join(
        candidates.slice(0, 5).map((c) => c.id),
        sql`, `,
      )})`,
    );
    await react(candidates[7]!, viewer, 'like');
    await react(candidates[8]!, viewer, 'like');
    await react(viewer, candidates[0]!, 'skip');
    await react(viewer, candidates[6]!, 'skip');

    const whole = await deckPage(viewer, '?limit=100');
    const expected: number[] = whole.body.results.map((card: { id: number }) => card.id);
    expect(expected).toHaveLength(9);
    expect(expected.slice(-2).sort()).toEqual([candidates[0]!.id, candidates[6]!.id].sort());
    // Who liked me is mixed in within each page: what pages may not change is everyone else's order.
    const likers = [candidates[7]!.id, candidates[8]!.id];
    const others = (ids: number[]) => ids.filter((id) => !likers.includes(id));

    for (const limit of [1, 2, 4]) {
      const seen: number[] = [];
      let query = `?limit=${limit}`;
      let pages = 0;
      for (;;) {
        const page = await deckPage(viewer, query);
        expect(page.status).toBe(200);
        expect(page.body.results.length).toBeLessThanOrEqual(limit);
        seen.push(...page.body.results.map((card: { id: number }) => card.id));
        pages++;
        if (!page.body.next) break;
        expect(page.body.next).toMatch(/^[A-Za-z0-9_-]+$/);
        query = `?limit=${limit}&cursor=${page.body.next}`;
      }
      expect([...seen].sort(), `limit ${limit}: no gaps, no repeats`).toEqual([...expected].sort());
      expect(others(seen), `limit ${limit}`).toEqual(others(expected));
      expect(pages).toBe(Math.ceil(9 / limit));
    }
  });

  it('refuses another user’s cursor: where it resumes would tell whether its card liked its owner', async () => {
    // Two viewers with the same deck; the first is liked by one of its cards. Were her cursor opened
    // for the second, he would resume in her likers' tier or in everyone's, after the card it names.
    const band: [number, number] = [72, 73];
    const [her, him] = [await makeCompletedUser(server, person(72, band)), await makeCompletedUser(server, person(72, band))];
    const cards: TestUser[] = [];
    for (let i = 0; i < 3; i++) cards.push(await makeCompletedUser(server, person(73, band)));
    await react(cards[1]!, her, 'like');
    const first = await deckPage(her, '?limit=1');
    expect(first.body.next).toEqual(expect.any(String));
    const replayed = await deckPage(him, `?limit=1&cursor=${first.body.next}`);
    expect(replayed.status).toBe(400);
    expect(replayed.body).toEqual({ cursor: ['Invalid cursor.'] });
    // Hers still works for her.
    expect((await deckPage(her, `?limit=1&cursor=${first.body.next}`)).status).toBe(200);
  });

  it('uses the default page size without ?limit', async () => {
    const band: [number, number] = [70, 71];
    const viewer = await makeCompletedUser(server, person(70, band));
    for (let i = 0; i < DECK_PAGE_SIZE + 1; i++) await makeCompletedUser(server, person(71, band));
    const first = await deckPage(viewer);
    expect(first.body.results).toHaveLength(DECK_PAGE_SIZE);
    const second = await deckPage(viewer, `?cursor=${first.body.next}`);
    expect(second.body.results).toHaveLength(1);
    expect(second.body.next).toBeNull();
  });

  it('is empty for someone whose own profile is not complete', async () => {
    const newcomer = await makeUser(server);
    const page = await deckPage(newcomer);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ results: [], next: null });
  });

  it('refuses bad queries with a 400 and anonymous callers with a 401', async () => {
    const viewer = await makeCompletedUser(server);
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?limit=1.5']) {
      const page = await deckPage(viewer, query);
      expect(page.status, query).toBe(400);
      expect(page.body).toHaveProperty('limit');
    }
    const foreign = Buffer.from('messages:older:5').toString('base64url');
    // The deck writes its values into the statement: a cursor part that is not digits never gets there.
    const quoting = Buffer.from("deck:1:1' or true --:5").toString('base64url');
    for (const cursor of ['%%%', 'bm9wZQ', foreign, Buffer.from('deck:9:1:1').toString('base64url'), quoting, 'x'.repeat(300)]) {
      const page = await deckPage(viewer, `?cursor=${cursor}`);
      expect(page.status, cursor).toBe(400);
      expect(page.body).toHaveProperty('cursor');
    }
    const anonymous = await api().get('/api/users/matching-profiles/');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });
});

// Its own server: the seeded crowd must not leak into the age bands of the tests above.
describe.each(backends)('the seed on %s', (backend) => {
  const server = serverPerSuite({ backend });

  it('fills the database with a living crowd that the real routes serve, and can run again', async () => {
    const first = await seed(server.app.db, {
      users: 300,
      reactionsPerUser: 20,
      matchRate: 0.3,
      photos: 4,
      dataDir: server.config.dataDir,
    });
    expect(first.users).toBe(300);
    expect(first.reactions).toBeGreaterThan(300 * 20 * 0.8);
    expect(first.conversations).toBeGreaterThan(10);
    expect(first.messages).toBeGreaterThan(first.conversations);
    const again = await seed(server.app.db, { users: 50, reactionsPerUser: 5, matchRate: 0.3, photos: 2, dataDir: server.config.dataDir });
    expect(again.firstId).toBeGreaterThan(first.lastId);
    expect(again.users).toBe(50);
    expect(again.demoUserId).toBe(first.demoUserId);
    // The demo event: open now, most of each batch and the demo user checked in; a second run reuses it.
    expect(again.demoEvent.id).toBe(first.demoEvent.id);
    expect(first.demoEvent.attendees).toBeGreaterThan(first.users * 0.7);

    const api = client(server.url);
    const login = await api.post('/api/auth/', { json: { username: DEMO_EMAIL, password: SEED_PASSWORD } });
    expect(login.status).toBe(200);
    const token = login.body.token;
    const deck = await api.get('/api/users/matching-profiles/', { token });
    expect(deck.status).toBe(200);
    expect(deck.body.results.length).toBeGreaterThan(0);
    const current = await api.get('/api/events/current/', { token });
    expect(current.body.event).toMatchObject({
      id: first.demoEvent.id,
      code: first.demoEvent.code,
      status: 'open',
      attendee_count: first.demoEvent.attendees + again.demoEvent.attendees - 1,
    });
    // The demo's deck is the room.
    const cardIds: number[] = deck.body.results.map((card: { id: number }) => card.id);
    const [inside] = rowsOf<{ n: number }>(
      await server.app.db.execute(
        sql`select count(*)::int as n from attendances where event_id = ${first.demoEvent.id} and left_at is null and user_id in (${sql.join(cardIds, sql`, `)})`,
      ),
    );
    expect(Number(inside!.n)).toBe(cardIds.length);
    const photo = await fetch(`${server.url}${deck.body.results[0].image}`);
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/webp');

    const started = await api.get('/api/conversations/started/', { token });
    expect(started.body.results.length).toBeGreaterThan(0);
    const chat = started.body.results[0];
    const history = await api.get(`/api/conversations/${chat.id}/messages/`, { token });
    expect(history.status).toBe(200);
    expect(history.body.results[0].content).toBe(chat.last_message);
    // Seeded times are in the past, newest first.
    const times = history.body.results.map((message: { time: string }) => Date.parse(message.time));
    expect(times.every((time: number) => time <= Date.now())).toBe(true);
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    // Every seeded match is counted in the moderators' daily matches, as a like's match is.
    const [events] = rowsOf<{ n: number }>(await server.app.db.execute(sql`select count(*)::int as n from analytics_events where name = 'matched'`));
    expect(Number(events!.n)).toBe(first.conversations + again.conversations);
  });
});
