import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { and, eq, isNotNull, like } from 'drizzle-orm';
import { blocks, messages, profiles, users } from '../../server/db/schema';
import { deleteAccount } from '../../server/features/account/deletion';
import { SEED_PASSWORD, seed } from '../../scripts/seed';
import { birthDateForAge, makeCompletedUser, makeUser } from '../helpers/factories';
import { makeEvent } from '../helpers/events';
import { client } from '../helpers/http';
import { imageBytes } from '../helpers/images';
import { subscribeThroughTestCheckout } from '../helpers/plan';
import { backends, serverPerSuite } from '../helpers/server';
import { makeModerator } from '../helpers/safety';
import { unzip } from '../helpers/zip';
import { match } from '../realtime/fixtures';

const EXPORT = '/api/users/me/export/';

describe.each(backends)('exporting one’s data on %s', (backend) => {
  const server = serverPerSuite({ backend });

  const api = () => client(server.url);

  async function download(token: string) {
    const response = await fetch(`${server.url}${EXPORT}`, { headers: { authorization: `Token ${token}` } });
    return { response, archive: Buffer.from(await response.arrayBuffer()) };
  }

  it('streams a zip of account.json and the user’s own photos, and nothing of others they do not already see', async () => {
    const me = await makeCompletedUser(server, { name: 'Nora', bio: 'Dancing till late.' }, { firstName: 'Nora', lastName: 'Quintana' });
    const partner = await makeCompletedUser(
      server,
      { name: 'Paco', bio: 'Partner secret bio', date_of_birth: birthDateForAge(41) },
      { firstName: 'Francisco', lastName: 'Secreto' },
    );
    const admirer = await makeCompletedUser(server, { name: 'Admirer', bio: 'Admirer secret bio' }, { lastName: 'Hidden' });
    const passed = await makeCompletedUser(server, { name: 'Passed' });
    const blocked = await makeUser(server);
    const conversationId = await match(server, me, partner);
    const send = (token: string, content: string) =>
      api().post(`/api/conversations/${conversationId}/messages/`, { token, json: { content } });
    expect((await send(partner.token, 'Hola Nora')).status).toBe(201);
    expect((await send(me.token, 'Hola Paco')).status).toBe(201);
    // A long history: the export reads it page by page.
    await server.app.db.insert(messages).values(
      Array.from({ length: 1200 }, (_, i) => ({ conversationId, senderId: i % 2 ? me.id : partner.id, content: `message ${i}` })),
    );
    expect((await api().post('/api/matching/', { token: me.token, json: { response: 'dislike', other: passed.id } })).status).toBe(200);
    expect((await api().post('/api/matching/', { token: admirer.token, json: { response: 'like', other: me.id } })).status).toBe(200);
    await server.app.db.insert(blocks).values({ blockerId: me.id, blockedId: blocked.id });
    // Two conversations she can no longer open: one unmatched, one whose partner blocked her since.
    const former = await makeCompletedUser(server, { name: 'Former' }, { firstName: 'Formerly' });
    const blocker = await makeCompletedUser(server, { name: 'Blocker' }, { firstName: 'Blocking' });
    const unmatched = await match(server, me, former);
    const blockedBy = await match(server, me, blocker);
    for (const [id, token] of [[unmatched, former.token], [blockedBy, blocker.token]] as const) {
      expect((await api().post(`/api/conversations/${id}/messages/`, { token, json: { content: 'hidden since' } })).status).toBe(201);
    }
    // What she wrote there is still kept (until the ended chats' purge): hers to take.
    expect((await api().post(`/api/conversations/${blockedBy}/messages/`, { token: me.token, json: { content: 'Mine, before the block' } })).status).toBe(201);
    expect((await api().delete(`/api/conversations/${unmatched}/`, { token: me.token })).status).toBe(204);
    expect((await api().post(`/api/users/${me.id}/block/`, { token: blocker.token })).status).toBe(204);
    const form = new FormData();
    form.append('file', new Blob([await imageBytes('jpeg', { color: '#0ea5e9' })], { type: 'image/jpeg' }), 'spare.jpg');
    const spare = await api().request('POST', '/api/uploads/', { token: me.token, body: form });
    expect(spare.status).toBe(201);
    await api().post('/api/analytics/events/', { token: me.token, json: { name: 'match_opened' } });
    // An event Nora organizes, and one of someone else's she checked in to.
    const mine = await makeEvent(server, me, { name: 'Nora’s birthday' });
    const theirs = await makeEvent(server, partner, { name: 'Rooftop party', venue: 'The roof' });
    expect((await api().post(`/api/events/${theirs.code}/check-in/`, { token: me.token, json: {} })).status).toBe(200);

    const { response, archive } = await download(me.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="eventmatch-export-\d{4}-\d{2}-\d{2}\.zip"$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    // Streamed as it is built: no length known up front.
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');

    const files = await unzip(archive);
    const profile = (await api().get('/api/users/me/profile/', { token: me.token })).body;
    const keys = [profile.image as string, spare.body.url as string].map((url) => url.replace('/media/', ''));
    expect([...files.keys()].sort()).toEqual(['account.json', ...keys.map((key) => `photos/${key}`)].sort());
    for (const key of keys) {
      expect(files.get(`photos/${key}`)!.equals(await readFile(path.join(server.config.dataDir, 'media', key)))).toBe(true);
    }

    const text = files.get('account.json')!.toString('utf8');
    const data = JSON.parse(text);
    expect(data.account).toMatchObject({
      id: me.id,
      email: me.email,
      first_name: 'Nora',
      last_name: 'Quintana',
      email_verified: false,
      has_password: true,
      google_linked: false,
    });
    expect(data.profile).toMatchObject({ name: 'Nora', bio: 'Dancing till late.', image: `photos/${keys[0]}`, is_completed: true });
    expect(data.subscription).toEqual({
      active: false,
      provider: null,
      subscription_id: null,
      status: null,
      period: null,
      trial_ends_at: null,
      renews_at: null,
      ends_at: null,
    });
    // In the order of the ids reacted to (partner was made before passed).
    expect(data.reactions_given).toEqual([
      { user_id: partner.id, response: 'like', time: expect.any(String) },
      { user_id: passed.id, response: 'dislike', time: expect.any(String) },
      { user_id: former.id, response: 'dislike', time: expect.any(String) },
      { user_id: blocker.id, response: 'like', time: expect.any(String) },
    ]);
    expect(data.matches).toEqual([{ conversation_id: conversationId, partner: { id: partner.id, name: 'Paco' }, matched_at: expect.any(String) }]);
    expect(data.conversations).toHaveLength(1);
    const conversation = data.conversations[0];
    expect(conversation).toMatchObject({ id: conversationId, partner: { id: partner.id, name: 'Paco' } });
    expect(conversation.messages).toHaveLength(1202);
    expect(conversation.messages[0]).toMatchObject({ sender: partner.id, from_me: false, content: 'Hola Nora' });
    expect(conversation.messages[1]).toMatchObject({ sender: me.id, from_me: true, content: 'Hola Paco' });
    expect(conversation.messages[1201]).toMatchObject({ content: 'message 1199' });
    const ids = conversation.messages.map((m: { id: number }) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // The chats that ended and whose messages are still kept, as her list of ended chats shows them
    // (newest end first): with her own messages only, the partner's no longer hers to see.
    expect(data.ended_conversations).toEqual([
      {
        id: blockedBy,
        partner: { id: blocker.id, name: 'Blocker' },
        ended_at: expect.any(String),
        messages: [{ id: expect.any(Number), sender: me.id, from_me: true, content: 'Mine, before the block', time: expect.any(String) }],
      },
      { id: unmatched, partner: { id: former.id, name: 'Former' }, ended_at: expect.any(String), messages: [] },
    ]);
    expect(data.blocks).toEqual([{ user_id: blocked.id, name: 'Alex', time: expect.any(String) }]);
    expect(data.events_attended).toEqual([
      {
        event: { id: theirs.id, code: theirs.code, name: 'Rooftop party', venue: 'The roof', starts_at: theirs.starts_at, ends_at: theirs.ends_at },
        checked_in_at: expect.any(String),
        left_at: null,
      },
    ]);
    expect(data.events_organized).toEqual([
      expect.objectContaining({ id: mine.id, code: mine.code, name: 'Nora’s birthday', join_mode: 'code' }),
    ]);
    // An event's QR secret never leaves the server.
    expect(text).not.toMatch(/qr_?secret/i);
    expect(data.analytics_events).toEqual([
      { name: 'signed_up', time: expect.any(String) },
      { name: 'match_opened', time: expect.any(String) },
    ]);

    // Nothing about anyone else beyond what the user already sees.
    const hidden = ['Formerly', 'Blocking', 'hidden since'];
    for (const secret of [partner.email, 'Francisco', 'Secreto', 'Partner secret bio', admirer.email, 'Admirer', 'Hidden', blocked.email, ...hidden]) {
      expect(text).not.toContain(secret);
    }
    const partnerProfile = (await api().get('/api/users/me/profile/', { token: partner.token })).body;
    expect(text).not.toContain(partnerProfile.date_of_birth);
    expect(text).not.toContain(String(partnerProfile.image).replace('/media/', ''));
    expect([...files.keys()].join()).not.toContain(String(partnerProfile.image).replace('/media/', ''));
    // Who liked them is not theirs to know.
    expect(JSON.stringify(data.reactions_given)).not.toContain(`"user_id":${admirer.id}`);
  });

  it('holds the reports they made and whom they blocked, by the names they saw, and nothing moderators kept', async () => {
    const me = await makeCompletedUser(server, { name: 'Rita' });
    const rude = await makeCompletedUser(server, { name: 'Rude', bio: 'Reported secret bio' }, { firstName: 'Rudolf', lastName: 'Surname' });
    const pest = await makeCompletedUser(server, { name: 'Pest' });
    const moderator = await makeModerator(server);
    const conversationId = await match(server, me, rude);
    expect((await api().post(`/api/conversations/${conversationId}/messages/`, { token: rude.token, json: { content: 'Evidence line' } })).status).toBe(201);
    const first = await api().post('/api/reports/', {
      token: me.token,
      json: { user_id: rude.id, reason: 'harassment', details: 'Kept writing after I said no', conversation_id: conversationId },
    });
    expect(first.status).toBe(201);
    const again = await api().post('/api/reports/', { token: me.token, json: { user_id: rude.id, reason: 'spam', details: 'And again' } });
    expect(again.status).toBe(200);
    expect((await api().post(`/api/users/${pest.id}/block/`, { token: me.token })).status).toBe(204);
    // Renamed since: the report names them as she saw them, her list of blocks as it shows them now.
    await server.app.db.update(profiles).set({ name: 'Renamed' }).where(eq(profiles.userId, rude.id));
    expect(
      (await api().post(`/api/moderation/reports/${first.body.id}/resolve/`, { token: moderator.token, json: { action: 'dismiss', note: 'Moderator private note' } }))
        .status,
    ).toBe(200);

    const text = (await unzip((await download(me.token)).archive)).get('account.json')!.toString('utf8');
    const data = JSON.parse(text);
    expect(data.reports_made).toEqual([
      {
        id: first.body.id,
        reported: { id: rude.id, name: 'Rude' },
        reason: 'harassment',
        details: 'Kept writing after I said no',
        conversation_id: conversationId,
        time: expect.any(String),
        additions: [{ reason: 'spam', details: 'And again', time: expect.any(String) }],
      },
    ]);
    const shown = (await api().get('/api/users/me/blocks/', { token: me.token })).body.results as Array<{ id: number; name: string; blocked_at: string }>;
    expect(data.blocks).toEqual(shown.map((row) => ({ user_id: row.id, name: row.name, time: row.blocked_at })));
    expect(data.blocks.map((row: { name: string }) => row.name)).toEqual(['Pest', 'Renamed']);
    // The snapshot and the moderators' decision are theirs, not hers.
    for (const secret of ['Reported secret bio', 'Rudolf', 'Surname', rude.email, 'Moderator private note', 'dismiss', 'resolved', 'Evidence line']) {
      expect(text).not.toContain(secret);
    }

    // The reported account deleted since: her report stays hers, without their id.
    expect(await deleteAccount(server.app.db, rude.id)).not.toBeNull();
    const after = JSON.parse((await unzip((await download(me.token)).archive)).get('account.json')!.toString('utf8'));
    expect(after.reports_made).toEqual([expect.objectContaining({ id: first.body.id, reported: { id: null, name: 'Rude' } })]);
  });

  it('says which plan a subscriber is on, as their plan page does', async () => {
    const user = await makeUser(server);
    await subscribeThroughTestCheckout(server, user, 'yearly');
    const shown = (await api().get('/api/payments/subscription/', { token: user.token })).body;
    const data = JSON.parse((await unzip((await download(user.token)).archive)).get('account.json')!.toString('utf8'));
    expect(data.subscription).toEqual({
      active: true,
      provider: 'local_test_checkout',
      subscription_id: expect.stringMatching(/^sub_local_/),
      // In its free trial (a first checkout's), as Stripe says of one.
      status: 'trialing',
      period: 'yearly',
      trial_ends_at: shown.trial_ends_at,
      renews_at: shown.renews_at,
      ends_at: null,
    });

    // A renewal's payment failed: the plan page says so, and so does the archive.
    await server.app.db.update(users).set({ planStatus: 'past_due' }).where(eq(users.id, user.id));
    expect((await api().get('/api/payments/subscription/', { token: user.token })).body.payment_failed).toBe(true);
    const failed = JSON.parse((await unzip((await download(user.token)).archive)).get('account.json')!.toString('utf8'));
    expect(failed.subscription).toMatchObject({ active: true, status: 'past_due' });
  });

  it('exports a new, empty account too', async () => {
    const user = await makeUser(server);
    const { response, archive } = await download(user.token);
    expect(response.status).toBe(200);
    const files = await unzip(archive);
    expect([...files.keys()]).toEqual(['account.json']);
    const data = JSON.parse(files.get('account.json')!.toString('utf8'));
    expect(data).toMatchObject({
      reactions_given: [],
      matches: [],
      conversations: [],
      ended_conversations: [],
      events_attended: [],
      events_organized: [],
      blocks: [],
      reports_made: [],
    });
    expect(data.analytics_events).toEqual([{ name: 'signed_up', time: expect.any(String) }]);
    expect(data.profile).toMatchObject({ name: 'Alex', image: null, is_completed: false });
  });

  it('holds a seeded person’s photos, which the demo account uploaded and their profile shows', async () => {
    await seed(server.app.db, { users: 8, reactionsPerUser: 1, matchRate: 0, photos: 2, dataDir: server.config.dataDir });
    const [seeded] = await server.app.db
      .select({ email: users.email, image: profiles.image, image2: profiles.image2 })
      .from(profiles)
      .innerJoin(users, eq(users.id, profiles.userId))
      .where(and(like(users.email, 'seed-%'), isNotNull(profiles.image)))
      .limit(1);
    const login = await api().post('/api/auth/', { json: { username: seeded!.email, password: SEED_PASSWORD } });
    expect(login.status).toBe(200);

    const files = await unzip((await download(login.body.token)).archive);
    const keys = [...new Set([seeded!.image, seeded!.image2])].filter((url) => url !== null).map((url) => url.replace('/media/', ''));
    expect([...files.keys()].sort()).toEqual(['account.json', ...keys.map((key) => `photos/${key}`)].sort());
    for (const key of keys) {
      expect(files.get(`photos/${key}`)!.equals(await readFile(path.join(server.config.dataDir, 'media', key)))).toBe(true);
    }
    expect(JSON.parse(files.get('account.json')!.toString('utf8')).profile.image).toBe(`photos/${keys[0]}`);
  });

  it('an export whose account is deleted as it starts ends broken, and the server goes on', async () => {
    const user = await makeUser(server);
    // Signed in already (the token trusted on this instance), the account gone before its archive is read.
    expect((await api().get('/api/users/me/', { token: user.token })).status).toBe(200);
    expect(await deleteAccount(server.app.db, user.id)).not.toBeNull();
    const response = await fetch(`${server.url}${EXPORT}`, { headers: { authorization: `Token ${user.token}` } });
    expect(response.status).toBe(200);
    // The stream is cut: the download fails rather than ending as a whole archive.
    await expect(response.arrayBuffer()).rejects.toThrow();
    expect((await api().get('/healthz')).status).toBe(200);
  });

  it('is no HEAD: a HEAD builds no archive and is not one of the day’s three', async () => {
    const user = await makeUser(server);
    const head = await fetch(`${server.url}${EXPORT}`, { method: 'HEAD', headers: { authorization: `Token ${user.token}` } });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    for (let i = 0; i < 3; i++) expect((await download(user.token)).response.status).toBe(200);
  });

  it('needs a session, and allows 3 exports a day', async () => {
    expect((await api().get(EXPORT)).status).toBe(401);
    const user = await makeUser(server);
    for (let i = 0; i < 3; i++) expect((await download(user.token)).response.status).toBe(200);
    const refused = await api().get(EXPORT, { token: user.token });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(23 * 3600);
  });
});
