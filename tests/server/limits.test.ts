/**
 * Limits on what one user can consume: each limit of the table refuses the attempt past
 * it with a 429 and Retry-After, stores nothing for it, and counts per user, not per request path.
 * JSON bodies are capped, and text that shows nothing is refused. (Sends, sockets at once and the
 * limits across two instances: tests/realtime/safety.test.ts.)
 */
import net from 'node:net';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { loadConfig } from '../../server/config';
import { clientNetwork, limitRules } from '../../server/lib/limits';
import { IMAGE_FIELDS } from '../../shared/schemas/users';
import { makeCompletedUser, makeUser, validProfile } from '../helpers/factories';
import { client } from '../helpers/http';
import { imageBytes } from '../helpers/images';
import { serverPerSuite, startServer, type TestServer } from '../helpers/server';
import { connect } from '../helpers/socket';
import { makePair, newClientId } from '../realtime/fixtures';

const THROTTLED = /^Request was throttled\. Expected available in \d+ seconds\.$/;

describe('per-user limits', () => {
  const server = serverPerSuite();

  const api = () => client(server.url);
  const rules = () => limitRules(server.config);
  const count = async (query: ReturnType<typeof sql>) => Number(rowsOf<{ n: number }>(await server.app.db.execute(query))[0]!.n);

  const expectThrottled = (response: { status: number; body: { detail?: string }; headers: Headers }) => {
    expect(response.status).toBe(429);
    expect(response.body.detail).toMatch(THROTTLED);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  };

  it('multiplies every limit by RATE_LIMIT_MULTIPLIER, for benchmarks', () => {
    const scaled = limitRules(loadConfig({ RATE_LIMIT_MULTIPLIER: '1000' }));
    const plain = limitRules(loadConfig({}));
    expect(scaled['message:send']).toEqual({ max: plain['message:send'].max * 1000, windowMs: plain['message:send'].windowMs });
    expect(scaled.report.max).toBe(10_000);
  });

  it('allows 120 reactions a minute, and stores nothing past them', async () => {
    const { max, windowMs } = rules().reaction;
    expect([max, windowMs]).toEqual([120, 60_000]);
    const me = await makeCompletedUser(server);
    const other = await makeCompletedUser(server);
    for (let i = 0; i < max; i++) {
      const reply = await api().post('/api/matching/', { token: me.token, json: { response: i % 2 ? 'skip' : 'dislike', other: other.id } });
      expect(reply.status).toBe(200);
    }
    const refused = await api().post('/api/matching/', { token: me.token, json: { response: 'like', other: other.id } });
    expectThrottled(refused);
    expect(await count(sql`select count(*) as n from reactions where from_user_id = ${me.id} and kind = 'like'`)).toBe(0);
    // Someone else's reactions are theirs to spend.
    expect((await api().post('/api/matching/', { token: other.token, json: { response: 'like', other: me.id } })).status).toBe(200);
  });

  it('gives back the reaction a retry of a stored one counted: an honest retry costs no swipe', async () => {
    const { max } = rules().reaction;
    const me = await makeCompletedUser(server);
    const others = await Promise.all([makeCompletedUser(server), makeCompletedUser(server)]);
    const react = (other: number, retry?: boolean) =>
      api().post('/api/matching/', { token: me.token, json: { response: 'dislike', other, retry } });
    for (let i = 0; i < max - 1; i++) expect((await react(others[0].id)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await react(others[0].id, true)).status).toBe(200);
    // The last one of the minute is still there, for someone new; then none.
    expect((await react(others[1].id)).status).toBe(200);
    expectThrottled(await react(others[1].id));
  });

  it('gives back no more retries than the reactions a minute: past them, a retry costs one', async () => {
    const { max } = rules().reaction;
    const retries = rules()['reaction:retry'];
    expect([retries.max, retries.windowMs]).toEqual([max, 60_000]);
    const me = await makeCompletedUser(server);
    const other = await makeCompletedUser(server);
    const react = (retry?: boolean) => api().post('/api/matching/', { token: me.token, json: { response: 'dislike', other: other.id, retry } });
    expect((await react()).status).toBe(200);
    for (let i = 0; i < retries.max; i++) expect((await react(true)).status).toBe(200);
    // The same stored reaction, sent again and again: each now spends one of the minute's reactions.
    for (let i = 0; i < max - 1; i++) expect((await react(true)).status).toBe(200);
    expectThrottled(await react(true));
  });

  it('allows 300 profile views an hour', async () => {
    const { max, windowMs } = rules()['profile:view'];
    expect([max, windowMs]).toEqual([300, 3_600_000]);
    const me = await makeCompletedUser(server);
    const other = await makeCompletedUser(server);
    for (let i = 0; i < max; i++) {
      // Missing ids count too: the limit is what makes ids not worth scraping.
      const path = i % 3 ? `/api/users/${other.id}/profile/` : `/api/users/${900_000 + i}/profile/`;
      expect([200, 404]).toContain((await api().get(path, { token: me.token })).status);
    }
    expectThrottled(await api().get(`/api/users/${other.id}/profile/`, { token: me.token }));
  });

  it('allows 100 blocks an hour, missing ids counted, and blocks no one past them', async () => {
    const { max, windowMs } = rules().block;
    expect([max, windowMs]).toEqual([100, 3_600_000]);
    const me = await makeCompletedUser(server);
    const other = await makeCompletedUser(server);
    // A block answers 404 for an id that is no one: counted, or a script would learn which ids are people.
    for (let i = 0; i < max; i++) expect((await api().post(`/api/users/${900_000 + i}/block/`, { token: me.token })).status).toBe(404);
    expectThrottled(await api().post(`/api/users/${other.id}/block/`, { token: me.token }));
    expect(await count(sql`select count(*) as n from blocks where blocker_id = ${me.id}`)).toBe(0);
    // Someone else's blocks are theirs to make.
    expect((await api().post(`/api/users/${me.id}/block/`, { token: other.token })).status).toBe(204);
  });

  it('allows 60 uploads an hour, and keeps no file past them', async () => {
    const { max } = rules().upload;
    expect(max).toBe(60);
    const me = await makeUser(server);
    const png = await imageBytes('png', { width: 8, height: 8 });
    const upload = () => {
      const form = new FormData();
      form.append('file', new Blob([png], { type: 'image/png' }), 'a.png');
      return fetch(`${server.url}/api/uploads/`, { method: 'POST', headers: { authorization: `Token ${me.token}` }, body: form });
    };
    for (let i = 0; i < max - 2; i++) expect((await upload()).status).toBe(201);
    // A photo sent inline with the profile is an upload too.
    const save = async (photos: number) => {
      const inline = Object.fromEntries(IMAGE_FIELDS.slice(0, photos).map((field) => [field, `data:image/png;base64,${png.toString('base64')}`]));
      return api().put('/api/users/me/profile/', { token: me.token, json: await validProfile({ name: `Saved with ${photos}`, ...inline }) });
    };
    expect((await save(1)).status).toBe(200);
    const uploads = () => count(sql`select count(*) as n from uploads where owner_id = ${me.id}`);
    expect(await uploads()).toBe(max - 1);
    // Two photos when the hour has one left: refused whole, the profile as it was.
    expectThrottled(await save(2));
    expect(await uploads()).toBe(max - 1);
    expect((await api().get('/api/users/me/profile/', { token: me.token })).body.name).toBe('Saved with 1');
    const refused = await upload();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await uploads()).toBe(max - 1);
  });

  it('allows 60 profile saves an hour, one at a time: a second body is refused before it is read', async () => {
    const { max, windowMs } = rules()['profile:save'];
    expect([max, windowMs]).toEqual([60, 3_600_000]);
    const me = await makeCompletedUser(server);
    // Saved as a client that names no version does: a save that goes first would make the next ones stale.
    const { version: _version, ...profile } = (await api().get('/api/users/me/profile/', { token: me.token })).body;
    const save = (name: string) => api().put('/api/users/me/profile/', { token: me.token, json: { ...profile, name } });

    // A save whose body is still on its way (some 80 MB may come): the next one waits its turn.
    const slow = net.connect({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
    await new Promise((resolve) => slow.once('connect', resolve));
    slow.write(
      `PUT /api/users/me/profile/ HTTP/1.1\r\nhost: localhost\r\nauthorization: Token ${me.token}\r\n` +
        'content-type: application/json\r\ncontent-length: 1000000\r\n\r\n{"name": "',
    );
    // Until the server has seen the slow one's head, a save may still go first (and counts).
    await expect.poll(async () => (await save('waits')).body, { timeout: 5000 }).toEqual({
      detail: 'Your last change is still being saved. Try again in a moment.',
    });
    // The connection dropped half-way through its body: the user may save again.
    slow.destroy();
    await expect.poll(async () => (await save('after the drop')).status, { timeout: 5000 }).toBe(200);

    expect((await api().get('/api/users/me/profile/', { token: me.token })).body.name).toBe('after the drop');

    // The polls above spent some of the hour's saves: the rest go, and no more.
    let saved = 0;
    while (saved <= max && (await save(`save ${saved}`)).status === 200) saved += 1;
    expect(saved).toBeLessThan(max);
    expectThrottled(await save('one more'));
    expect((await api().get('/api/users/me/profile/', { token: me.token })).body.name).toBe(`save ${saved - 1}`);
  });

  it("keeps each app's saves on their way apart: one on its way to an app does not refuse another app's user of the same id", async () => {
    // Two apps of one process (as tests run them), each with its own database: their first users share an id.
    const [one, two] = await Promise.all([startServer(), startServer()]);
    let slow: net.Socket | undefined;
    try {
      const [mine, theirs] = [await makeCompletedUser(one), await makeCompletedUser(two)];
      expect(mine.id).toBe(theirs.id);
      const profileOf = async (server: TestServer, token: string) => {
        const { version: _version, ...profile } = (await client(server.url).get('/api/users/me/profile/', { token })).body;
        return profile;
      };
      const [myProfile, theirProfile] = [await profileOf(one, mine.token), await profileOf(two, theirs.token)];
      slow = net.connect({ host: '127.0.0.1', port: Number(new URL(one.url).port) });
      await new Promise((resolve) => slow!.once('connect', resolve));
      slow.write(
        `PUT /api/users/me/profile/ HTTP/1.1\r\nhost: localhost\r\nauthorization: Token ${mine.token}\r\n` +
          'content-type: application/json\r\ncontent-length: 1000000\r\n\r\n{"name": "',
      );
      // The first app has seen the slow save's head: its user waits their turn there.
      await expect
        .poll(async () => (await client(one.url).put('/api/users/me/profile/', { token: mine.token, json: { ...myProfile, name: 'waits' } })).status, {
          timeout: 5000,
        })
        .toBe(429);
      const saved = await client(two.url).put('/api/users/me/profile/', { token: theirs.token, json: { ...theirProfile, name: 'Not waiting' } });
      expect(saved.status).toBe(200);
      expect(saved.body.name).toBe('Not waiting');
    } finally {
      slow?.destroy();
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('allows 10 reports a day, not counting refused bodies', async () => {
    const { max, windowMs } = rules().report;
    expect([max, windowMs]).toEqual([10, 86_400_000]);
    const me = await makeCompletedUser(server);
    const people = await Promise.all(Array.from({ length: max + 1 }, () => makeCompletedUser(server)));
    // A report sent without its reason is answered 400 and does not count.
    for (let i = 0; i < max; i++) {
      expect((await api().post('/api/reports/', { token: me.token, json: { user_id: people[0]!.id } })).status).toBe(400);
    }
    for (const person of people.slice(0, max)) {
      expect((await api().post('/api/reports/', { token: me.token, json: { user_id: person.id, reason: 'spam' } })).status).toBe(201);
    }
    expectThrottled(await api().post('/api/reports/', { token: me.token, json: { user_id: people[max]!.id, reason: 'spam' } }));
    expect(await count(sql`select count(*) as n from reports where reporter_id = ${me.id}`)).toBe(max);
  });

  it("counts new reports and additions apart: one added to an open report of the same person goes through past the reports' limit, up to its own", async () => {
    const { max } = rules().report;
    const me = await makeCompletedUser(server);
    const people = await Promise.all(Array.from({ length: max + 1 }, () => makeCompletedUser(server)));
    const report = (user: { id: number }, reason = 'spam', details?: string) =>
      api().post('/api/reports/', { token: me.token, json: { user_id: user.id, reason, details } });
    const first = await report(people[0]!);
    expect(first.status).toBe(201);
    // Added to while there is still room: the day's count does not move.
    expect([(await report(people[0]!, 'harassment')).status, (await report(people[0]!, 'other')).status]).toEqual([200, 200]);
    for (const person of people.slice(1, max)) expect((await report(person)).status).toBe(201);
    expectThrottled(await report(people[max]!));
    // Past the limit: an addition still answers 200 with the same id, and is kept.
    const again = await report(people[0]!, 'underage');
    expect([again.status, again.body]).toEqual([200, { id: first.body.id }]);
    expect(await count(sql`select jsonb_array_length(additions) as n from reports where id = ${first.body.id}`)).toBe(3);
    // A new report stays refused, and so does one of an id nobody has: its 404 would say who is reportable.
    expectThrottled(await report(people[max]!));
    expectThrottled(await report({ id: 999_999 }));
    expect(await count(sql`select count(*) as n from reports where reporter_id = ${me.id}`)).toBe(max);

    // Additions have a day's limit of their own: a report cannot be made to grow without end. Each says
    // something new (one that repeats the latest is taken as its retry, and adds nothing).
    const additions = rules()['report:addition'];
    expect([additions.max, additions.windowMs]).toEqual([10, 86_400_000]);
    for (let added = 3; added < additions.max; added++) expect((await report(people[0]!, 'other', `again ${added}`)).status).toBe(200);
    expectThrottled(await report(people[0]!, 'other', 'once more'));
    expect(await count(sql`select jsonb_array_length(additions) as n from reports where id = ${first.body.id}`)).toBe(additions.max);
  });

  it('bounds the same report sent again, apart from new reports and additions', async () => {
    const repeats = rules()['report:repeat'];
    expect([repeats.max, repeats.windowMs]).toEqual([10, 86_400_000]);
    const me = await makeCompletedUser(server);
    const [first, second] = await Promise.all([makeCompletedUser(server), makeCompletedUser(server)]);
    const report = (user: { id: number }, reason = 'spam') => api().post('/api/reports/', { token: me.token, json: { user_id: user.id, reason } });
    const made = await report(first!);
    expect(made.status).toBe(201);
    // A double tap, an answer lost: the same report again answers the same id, up to the day's repeats.
    for (let i = 0; i < repeats.max; i++) {
      const again = await report(first!);
      expect([again.status, again.body]).toEqual([200, { id: made.body.id }]);
    }
    expectThrottled(await report(first!));
    // They cost neither a new report nor an addition.
    expect((await report(second!)).status).toBe(201);
    expect((await report(first!, 'harassment')).status).toBe(200);
  });
});

describe('the address a per-address limit counts', () => {
  it('is an IPv4 address as it is, and an IPv6 address’s /64 network, however it is written', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    const network = '2001:db8:0:12::/64';
    for (const ip of ['2001:db8:0:12::1', '2001:DB8:0000:0012:aaaa:bbbb:cccc:dddd', '2001:db8::12:0:0:0:5', '2001:db8:0:12::1%eth0']) {
      expect(clientNetwork(ip), ip).toBe(network);
    }
    expect(clientNetwork('2001:db8:0:13::1')).toBe('2001:db8:0:13::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('fe80::1')).toBe('fe80:0:0:0::/64');
  });
});

describe('body caps and text that shows nothing', () => {
  const server = serverPerSuite();

  const api = () => client(server.url);
  const INVISIBLE = [
    ' ',
    '\u200b\u200c\u200d',
    '\u202e\u202c',
    '\u2066\u2069',
    '\ufeff\u00ad',
    '\t\n\u200f',
    // Hangul fillers, the braille blank, a grapheme joiner, a variation selector, a tag: shown as nothing.
    '\u3164\u3164',
    '\u115f\u2800',
    '\u034f\ufe0f\u{e0020}',
    // A combining accent with no letter under it; control characters; NEXT LINE, white space that `\s` misses.
    '\u0301\u0301',
    '\u001b\u0007',
    '\u0085',
  ];

  it('caps JSON bodies at 64 KB, except the profile save, which carries its photos', async () => {
    const { a, conversationId } = await makePair(server);
    const tooBig = await api().post(`/api/conversations/${conversationId}/messages/`, {
      token: a.token,
      json: { content: 'x'.repeat(70 * 1024) },
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toEqual({ detail: 'Request body is too large.' });
    // A profile with a photo of some 270 KB (noise does not compress) as a data: URI still saves.
    const noise = Buffer.alloc(300 * 300 * 3).map(() => Math.floor(Math.random() * 256));
    const big = await sharp(noise, { raw: { width: 300, height: 300, channels: 3 } }).png().toBuffer();
    expect(big.length).toBeGreaterThan(64 * 1024);
    const saved = await api().put('/api/users/me/profile/', {
      token: a.token,
      json: await validProfile({ image: `data:image/png;base64,${big.toString('base64')}` }),
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  });

  it('refuses names, bios, messages and report details made only of white space and invisible characters', async () => {
    const { a, b, conversationId } = await makePair(server);
    const socket = await connect(server.url, a.token);
    try {
      for (const blank of INVISIBLE) {
        const register = await api().post('/api/auth/register/', {
          json: { first_name: blank, last_name: blank, username: `blank-${Math.random()}@example.com`, password: 'Long-Enough-Phrase-1', password2: 'Long-Enough-Phrase-1' },
        });
        expect(register.status).toBe(400);
        expect(register.body).toMatchObject({ first_name: ['This field may not be blank.'], last_name: ['This field may not be blank.'] });

        const profile = await api().put('/api/users/me/profile/', { token: a.token, json: await validProfile({ name: blank, bio: blank }) });
        expect(profile.body).toMatchObject({ name: ['This field may not be blank.'], bio: ['This field may not be blank.'] });

        const rest = await api().post(`/api/conversations/${conversationId}/messages/`, { token: a.token, json: { content: blank } });
        expect(rest.body).toEqual({ content: ['This field may not be blank.'] });
        const ack = await socket.emitWithAck('message:send', { conversation_id: conversationId, content: blank, client_id: newClientId() });
        expect(ack).toMatchObject({ ok: false, error: { code: 'validation', fields: { content: ['This field may not be blank.'] } } });
      }
      const report = await api().post('/api/reports/', { token: a.token, json: { user_id: b.id, reason: 'other', details: '\u200b' } });
      expect(report.body).toEqual({ details: ['This field may not be blank.'] });
      // Text with something visible among the invisible passes, as typed.
      const kept = await api().post(`/api/conversations/${conversationId}/messages/`, { token: a.token, json: { content: '\u200bhi\u200b' } });
      expect(kept.status).toBe(201);
      expect(kept.body.content).toBe('\u200bhi\u200b');
    } finally {
      socket.close();
    }
  });
});
