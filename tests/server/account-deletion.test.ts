import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { eq, or } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  analyticsEvents,
  authTokens,
  blocks,
  checkoutSessions,
  conversations,
  emailTokens,
  events,
  messages,
  moderationActions,
  posthogErasures,
  profiles,
  reactions,
  reports,
  uploads,
  users,
} from '../../server/db/schema';
import {
  completedCheckout,
  deliverStripeEvent,
  type FakeStripe,
  startFakeStripe,
  startStripeCheckout,
  stripeConfigFor,
  TEST_STRIPE,
} from '../fakes/stripe';
import { deleteAccount } from '../../server/features/account/deletion';
import { saveProfile } from '../../server/features/users/service';
import { NotAuthenticated } from '../../server/errors';
import { boughtAtStripeBefore, subscribeThroughTestCheckout } from '../helpers/plan';
import { checkIn, makeEvent, tokenFor } from '../helpers/events';
import { makeCompletedUser, makeUser, type TestUser, validProfile } from '../helpers/factories';
import { type ApiResponse, client } from '../helpers/http';
import { racesOnPostgres } from '../helpers/lock-holder';
import { imageBytes } from '../helpers/images';
import { backends, loggerInto, serverPerSuite, startServer } from '../helpers/server';
import { hasPostgres } from '../helpers/services';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { admin } from '../../scripts/admin';
import { connect, waitFor, waitForDisconnect } from '../helpers/socket';
import { match } from '../realtime/fixtures';

describe.each(backends)('deleting one’s account on %s', (backend) => {
  let stripe: FakeStripe;
  /** What the server warned about, one JSON line each. */
  const warnings: string[] = [];

  beforeAll(async () => {
    stripe = await startFakeStripe(TEST_STRIPE);
  });
  afterAll(() => stripe?.close());
  const server = serverPerSuite(() => ({ backend, config: { stripe: stripeConfigFor(stripe) }, logger: loggerInto(warnings, 'warn') }));

  const api = () => client(server.url);
  const remove = (token: string | undefined, json: unknown) => api().delete('/api/users/me/', { token, json });
  const mediaPath = (url: string) => path.join(server.config.dataDir, 'media', url.replace('/media/', ''));

  /** An active Stripe subscription, set up as checkout and webhook would; answers the user's Stripe customer. */
  async function subscribe(user: TestUser, subscriptionId: string): Promise<string> {
    const { customer, sessionId } = await startStripeCheckout(server, user);
    stripe.subscriptions.set(subscriptionId, { customer, status: 'active' });
    const completed = completedCheckout({ user, customer, sessionId }, subscriptionId);
    expect((await deliverStripeEvent(server, completed, TEST_STRIPE.webhookSecret)).status).toBe(200);
    expect((await api().get('/api/users/me/', { token: user.token })).body.has_subscription).toBe(true);
    return customer;
  }

  const deliver = (event: unknown) => deliverStripeEvent(server, event, TEST_STRIPE.webhookSecret);
  /** Each subscription Stripe holds for a customer, with its status. */
  const subscriptionsOf = (customer: string) =>
    Object.fromEntries([...stripe.subscriptions].filter(([, s]) => s.customer === customer).map(([id, s]) => [id, s.status]));

  it('asks for the password, and changes nothing when it is wrong or missing', async () => {
    const user = await makeUser(server);
    expect((await remove(undefined, { password: user.password })).status).toBe(401);
    const wrong = await remove(user.token, { password: 'not-my-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ password: ['The password is incorrect.'] });
    const missing = await remove(user.token, { confirm: 'DELETE' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ password: ['This field is required.'] });
    const noBody = await api().delete('/api/users/me/', { token: user.token });
    expect(noBody.status).toBe(400);
    expect(noBody.body).toEqual({ password: ['This field is required.'] });
    expect((await remove(user.token, { password: 42 })).status).toBe(400);
    expect((await api().get('/api/users/me/', { token: user.token })).status).toBe(200);
  });

  it('takes the whole account at once: sessions, profile, photos’ files, likes, blocks, conversations, subscription', async () => {
    const leaving = await makeCompletedUser(server, { name: 'Leaving' });
    const partner = await makeCompletedUser(server, { name: 'Partner' });
    const admirer = await makeCompletedUser(server, { name: 'Admirer' });
    const blocked = await makeUser(server);
    const conversationId = await match(server, leaving, partner);
    expect(
      (await api().post(`/api/conversations/${conversationId}/messages/`, { token: partner.token, json: { content: 'Hola!' } })).status,
    ).toBe(201);
    expect(
      (await api().post(`/api/conversations/${conversationId}/messages/`, { token: leaving.token, json: { content: 'Adiós' } })).status,
    ).toBe(201);
    expect((await api().post('/api/matching/', { token: admirer.token, json: { response: 'like', other: leaving.id } })).status).toBe(200);
    await server.app.db.insert(blocks).values({ blockerId: leaving.id, blockedId: blocked.id });
    // A second photo, uploaded but not yet in the profile.
    const form = new FormData();
    form.append('file', new Blob([await imageBytes('png')], { type: 'image/png' }), 'spare.png');
    const spare = await api().request('POST', '/api/uploads/', { token: leaving.token, body: form });
    expect(spare.status).toBe(201);
    const customer = await subscribe(leaving, 'sub_leaving_1');
    expect(
      (await api().post('/api/analytics/events/', { token: leaving.token, json: { name: 'app_opened' } })).status,
    ).toBe(204);

    const profile = (await api().get('/api/users/me/profile/', { token: leaving.token })).body;
    const files = [profile.image as string, spare.body.url as string].map(mediaPath);
    for (const file of files) expect(existsSync(file)).toBe(true);
    const socket = await connect(server.url, leaving.token);
    const dropped = waitForDisconnect(socket);

    const response = await remove(leaving.token, { password: leaving.password });
    expect(response.status, JSON.stringify(response.body)).toBe(204);

    // Sessions: gone at once, socket dropped.
    expect(await dropped).toBe('io server disconnect');
    expect((await api().get('/api/users/me/', { token: leaving.token })).status).toBe(401);
    // Stripe was told, through the SDK, to delete the customer, which cancels the subscription now.
    expect(stripe.requestsTo('DELETE', `/v1/customers/${customer}`)).toHaveLength(1);
    expect(stripe.customers.get(customer)?.deleted).toBe(true);
    expect(stripe.subscriptions.get('sub_leaving_1')?.status).toBe('canceled');
    // Photos' files are gone.
    for (const file of files) expect(existsSync(file)).toBe(false);

    const db = server.app.db;
    const id = leaving.id;
    expect(await db.select().from(users).where(eq(users.id, id))).toEqual([]);
    expect(await db.select().from(profiles).where(eq(profiles.userId, id))).toEqual([]);
    expect(await db.select().from(uploads).where(eq(uploads.ownerId, id))).toEqual([]);
    expect(await db.select().from(authTokens).where(eq(authTokens.userId, id))).toEqual([]);
    expect(await db.select().from(emailTokens).where(eq(emailTokens.userId, id))).toEqual([]);
    expect(await db.select().from(checkoutSessions).where(eq(checkoutSessions.userId, id))).toEqual([]);
    expect(await db.select().from(reactions).where(or(eq(reactions.fromUserId, id), eq(reactions.toUserId, id)))).toEqual([]);
    expect(await db.select().from(blocks).where(or(eq(blocks.blockerId, id), eq(blocks.blockedId, id)))).toEqual([]);
    expect(await db.select().from(conversations).where(eq(conversations.id, conversationId))).toEqual([]);
    expect(await db.select().from(messages).where(eq(messages.conversationId, conversationId))).toEqual([]);
    // Analytics keep the count, not the person.
    const events = await db.select().from(analyticsEvents).where(eq(analyticsEvents.name, 'app_opened'));
    expect(events.some((event) => event.userId === id)).toBe(false);

    // The partner's side: the conversation is gone, the profile with it.
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: partner.token })).status).toBe(404);
    const lists = await Promise.all(
      ['empty', 'started'].map((kind) => api().get(`/api/conversations/${kind}/`, { token: partner.token })),
    );
    for (const list of lists) expect(list.body.results.map((c: { id: number }) => c.id)).not.toContain(conversationId);
    expect((await api().get(`/api/users/${id}/profile/`, { token: partner.token })).status).toBe(404);

    // The e-mail is free again.
    const again = await makeUser(server, { email: leaving.email });
    expect(again.id).not.toBe(id);
  });

  it('tells partners at once (match:removed) and leaves reports about the user, with their snapshot, to moderators', async () => {
    const leaving = await makeCompletedUser(server, { name: 'Reported', bio: 'Something to judge' });
    const partner = await makeCompletedUser(server, { name: 'Partner' });
    const reporter = await makeCompletedUser(server, { name: 'Reporter' });
    const moderator = await makeModerator(server);
    const conversationId = await match(server, leaving, partner);
    expect(
      (await api().post(`/api/conversations/${conversationId}/messages/`, { token: leaving.token, json: { content: 'evidence' } })).status,
    ).toBe(201);
    const reported = await api().post('/api/reports/', {
      token: reporter.token,
      json: { user_id: leaving.id, reason: 'fake_profile', details: 'Not who they say' },
    });
    expect(reported.status, JSON.stringify(reported.body)).toBe(201);
    const before = await api().get(`/api/moderation/reports/${reported.body.id}/`, { token: moderator.token });
    expect(before.status).toBe(200);

    const partnerSocket = await connect(server.url, partner.token);
    const removed = waitFor(partnerSocket, 'match:removed', (payload) => payload.conversation_id === conversationId);
    expect((await remove(leaving.token, { password: leaving.password })).status).toBe(204);
    expect(await removed).toEqual({ conversation_id: conversationId });
    partnerSocket.close();

    const after = await api().get(`/api/moderation/reports/${reported.body.id}/`, { token: moderator.token });
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.snapshot).toEqual(before.body.snapshot);
    expect(after.body.snapshot.profile).toMatchObject({ name: 'Reported', bio: 'Something to judge' });
    expect(after.body).toMatchObject({ reason: 'fake_profile', details: 'Not who they say', status: 'open' });
    // The photo copy kept with the report outlives the user's own photo files.
    const photo = await fetch(`${server.url}/api/moderation/reports/${reported.body.id}/photos/0/`, {
      headers: { authorization: `Token ${moderator.token}` },
    });
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/webp');
    const queue = await api().get('/api/moderation/reports/?status=open', { token: moderator.token });
    expect(queue.body.results.map((row: { id: number }) => row.id)).toContain(reported.body.id);
  });

  // The command needs the database the server holds: on PostgreSQL, shared with the running server.
  if (backend === 'postgres') {
    it('is the admin command’s too, for an owner who cannot sign in: the same whole deletion', async () => {
      const lines: string[] = [];
      const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
      // The server's environment, as the command runs beside it: its database, media folder, Stripe, PostHog.
      const env = {
        DATABASE_URL: server.config.databaseUrl!,
        DATA_DIR: server.config.dataDir,
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_API_BASE: stripe.url,
        POSTHOG_KEY: 'phc_test',
        POSTHOG_PERSONAL_API_KEY: 'phx_test',
        POSTHOG_PROJECT_ID: '1',
      };
      const leaving = await makeCompletedUser(server, { name: 'Banned' });
      const partner = await makeCompletedUser(server, { name: 'Partner' });
      const moderator = await makeModerator(server);
      const conversationId = await match(server, leaving, partner);
      expect((await api().post(`/api/conversations/${conversationId}/messages/`, { token: leaving.token, json: { content: 'evidence' } })).status).toBe(201);
      const customer = await subscribe(leaving, 'sub_banned_1');
      const profile = (await api().get('/api/users/me/profile/', { token: leaving.token })).body;
      const photo = mediaPath(profile.image as string);
      expect(existsSync(photo)).toBe(true);
      const reported = await banThroughModeration(server, moderator, leaving);
      // Banned: they cannot sign in to delete it themselves.
      expect((await api().post('/api/auth/', { json: { username: leaving.email, password: leaving.password } })).status).toBe(403);
      const before = await api().get(`/api/moderation/reports/${reported}/`, { token: moderator.token });
      expect(before.status).toBe(200);

      // Nothing without the confirmation, nor for an e-mail no account has.
      expect(await admin(['delete', leaving.email], env, out as never)).toBe(2);
      expect(lines.pop()).toBe(`${leaving.email} has an account. To delete it and everything of it for good: npm run admin -- delete ${leaving.email} --yes`);
      expect(await admin(['delete', 'nobody@example.com', '--yes'], env, out as never)).toBe(1);
      expect(lines.pop()).toBe('No account with the e-mail nobody@example.com.');
      expect(await server.app.db.select({ id: users.id }).from(users).where(eq(users.id, leaving.id))).toHaveLength(1);

      const partnerSocket = await connect(server.url, partner.token);
      const deletions = () =>
        server.app.db.select({ at: moderationActions.at, moderatorId: moderationActions.moderatorId, userId: moderationActions.userId })
          .from(moderationActions)
          .where(eq(moderationActions.action, 'delete_account'))
          .orderBy(moderationActions.id);
      const deletedBefore = (await deletions()).length;
      // An owner's own deletion is no moderation: nothing recorded of it.
      const own = await makeUser(server);
      expect((await api().delete('/api/users/me/', { token: own.token, json: { password: own.password } })).status).toBe(204);
      expect(await deletions()).toHaveLength(deletedBefore);
      expect(await admin(['delete', ` ${leaving.email.toUpperCase()}`, '--yes'], env, out as never)).toBe(0);
      // An operator's deletion is recorded with the admin command's other changes: when, and nothing of the account.
      const recorded = await deletions();
      expect(recorded).toHaveLength(deletedBefore + 1);
      expect(recorded.at(-1)).toMatchObject({ moderatorId: null, userId: null });
      expect(Date.now() - recorded.at(-1)!.at.getTime()).toBeLessThan(60_000);
      // No Redis here to reach the running server through: it says so, and what the server does then.
      expect(lines).toEqual([
        `${leaving.email} is deleted, with everything of it.`,
        'There is no REDIS_URL: a server running on this database was not told. There its sessions are refused within 10 s ' +
          'and its open apps closed within a minute; its partners’ apps find it gone at their next request.',
      ]);

      const db = server.app.db;
      expect(await db.select().from(users).where(eq(users.id, leaving.id))).toEqual([]);
      expect(await db.select().from(authTokens).where(eq(authTokens.userId, leaving.id))).toEqual([]);
      expect(await db.select().from(conversations).where(eq(conversations.id, conversationId))).toEqual([]);
      expect(existsSync(photo)).toBe(false);
      expect(stripe.customers.get(customer)?.deleted).toBe(true);
      expect(stripe.subscriptions.get('sub_banned_1')?.status).toBe('canceled');
      expect((await db.select({ distinctId: posthogErasures.distinctId }).from(posthogErasures)).map((row) => row.distinctId)).toContain(String(leaving.id));
      // The report keeps its snapshot for moderators.
      const after = await api().get(`/api/moderation/reports/${reported}/`, { token: moderator.token });
      expect(after.status).toBe(200);
      expect(after.body.snapshot).toEqual(before.body.snapshot);

      // No socket reaches the partner from the command: their app finds the account gone at its next request.
      expect((await api().get(`/api/conversations/${conversationId}/`, { token: partner.token })).status).toBe(404);
      const sent = await api().post(`/api/conversations/${conversationId}/messages/`, { token: partner.token, json: { content: 'Still there?' } });
      expect(sent.status).toBe(404);
      expect(sent.body).toMatchObject({ detail: expect.any(String) });
      const started = await api().get('/api/conversations/started/', { token: partner.token });
      expect(started.body.results.map((c: { id: number }) => c.id)).not.toContain(conversationId);
      // The partner's open chat, sending on its socket: told it is gone (`not_found`), and ends it.
      const viaSocket = await partnerSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'Hello?', client_id: randomUUID() });
      expect(viaSocket).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect((await api().get(`/api/users/${leaving.id}/profile/`, { token: partner.token })).status).toBe(404);
      const liked = await api().post('/api/matching/', { token: partner.token, json: { response: 'like', other: leaving.id } });
      expect(liked.status, JSON.stringify(liked.body)).toBe(404);
      partnerSocket.close();
      // The e-mail is free again.
      expect((await makeUser(server, { email: leaving.email })).id).not.toBe(leaving.id);
    });
  }

  it('leaves moderators a transcript that still says who wrote what, once either of the two has left', async () => {
    const reporter = await makeCompletedUser(server, { name: 'Reporter' });
    const reportedUser = await makeCompletedUser(server, { name: 'Harasser' });
    const moderator = await makeModerator(server);
    const conversationId = await match(server, reporter, reportedUser);
    const say = (user: TestUser, content: string) =>
      api().post(`/api/conversations/${conversationId}/messages/`, { token: user.token, json: { content } });
    expect((await say(reporter, 'Hi')).status).toBe(201);
    expect((await say(reportedUser, 'Something vile')).status).toBe(201);
    const reported = await api().post('/api/reports/', { token: reporter.token, json: { user_id: reportedUser.id, reason: 'harassment' } });
    expect(reported.status).toBe(201);
    const transcript = async () =>
      (await api().get(`/api/moderation/reports/${reported.body.id}/`, { token: moderator.token })).body.snapshot.messages.map(
        (message: { from: string; content: string }) => [message.from, message.content],
      );
    const expected = [
      ['reporter', 'Hi'],
      ['reported', 'Something vile'],
    ];
    expect(await transcript()).toEqual(expected);
    // A snapshot taken before snapshots said whose each message was: told by the report's two ids.
    const db = server.app.db;
    const [stored] = await db.select({ snapshot: reports.snapshot }).from(reports).where(eq(reports.id, reported.body.id));
    const unsaid = { ...stored!.snapshot, messages: stored!.snapshot.messages.map(({ from: _from, ...message }) => message) };
    await db.update(reports).set({ snapshot: unsaid }).where(eq(reports.id, reported.body.id));
    expect(await transcript()).toEqual(expected);
    await db.update(reports).set({ snapshot: stored!.snapshot }).where(eq(reports.id, reported.body.id));

    expect((await remove(reportedUser.token, { password: reportedUser.password })).status).toBe(204);
    expect(await transcript()).toEqual(expected);
    expect((await remove(reporter.token, { password: reporter.password })).status).toBe(204);
    expect(await transcript()).toEqual(expected);
  });

  it('takes the attendee out of their event’s count, and leaves the events they organize to their guests', async () => {
    const host = await makeCompletedUser(server);
    const guest = await makeCompletedUser(server);
    const door = await makeEvent(server, host, { join_mode: 'qr', name: 'Host’s party' });
    const codeOnly = await makeEvent(server, guest, { join_mode: 'code', name: 'Guest’s own' });
    await checkIn(server, guest, door.code, { token: await tokenFor(server, door.id) });
    const visitor = await makeCompletedUser(server);
    await checkIn(server, visitor, codeOnly.code, {});
    const count = async (code: string) => (await api().get(`/api/events/${code}/`)).body.attendee_count;
    expect(await count(door.code)).toBe(1);

    // The guest leaves the app: the door's count drops; their own event goes on for its visitor.
    expect((await remove(guest.token, { password: guest.password })).status).toBe(204);
    expect(await count(door.code)).toBe(0);
    expect(await count(codeOnly.code)).toBe(1);
    expect((await api().get('/api/events/current/', { token: visitor.token })).body.event).toMatchObject({ code: codeOnly.code });

    // The host leaves: their event stays (someone may be in it), but its QR secret is gone with them, so
    // a token made with it before is refused; the code alone never checked anyone into a QR event.
    const token = await tokenFor(server, door.id);
    expect((await remove(host.token, { password: host.password })).status).toBe(204);
    const [row] = await server.app.db.select().from(events).where(eq(events.id, door.id));
    expect(row).toMatchObject({ organizerId: null, qrSecret: null });
    const late = await makeCompletedUser(server);
    const refused = await api().post(`/api/events/${door.code}/check-in/`, { token: late.token, json: { token } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('qr_required');
  });

  it('lets an account without a password confirm by typing DELETE', async () => {
    const user = await makeUser(server);
    await server.app.db.update(users).set({ passwordHash: null }).where(eq(users.id, user.id));
    const refused = await remove(user.token, { confirm: 'delete' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ confirm: ['Type DELETE to confirm.'] });
    expect((await remove(user.token, { confirm: 'DELETE' })).status).toBe(204);
    expect(await server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
  });

  // Signed in on another phone, its request under way as the account goes: it finds no account to
  // write for, which the next request will hear as a 401 too.
  it.each([
    ['a read of the account', (token: string) => api().get('/api/users/me/', { token })],
    ['a read of its profile', (token: string) => api().get('/api/users/me/profile/', { token })],
    ['a read of the events it organizes', (token: string) => api().get('/api/events/mine/', { token })],
    ['a read of its current event', (token: string) => api().get('/api/events/current/', { token })],
    ['a block', (token: string, other: number) => api().post(`/api/users/${other}/block/`, { token })],
    ['a report', (token: string, other: number) => api().post('/api/reports/', { token, json: { user_id: other, reason: 'spam' } })],
    [
      'a new event',
      (token: string) =>
        api().post('/api/events/', {
          token,
          json: {
            name: 'Too late',
            starts_at: new Date(Date.now() + 3_600_000).toISOString(),
            ends_at: new Date(Date.now() + 7_200_000).toISOString(),
            join_mode: 'code',
          },
        }),
    ],
  ])('%s that passed sign-in before the deletion committed is told the session has ended', async (_what, send) => {
    const other = await makeCompletedUser(server, { name: 'Other' });
    const leaving = await makeCompletedUser(server, { name: 'Leaving' });
    // The token trusted on this instance already, the account gone before the request writes.
    expect((await api().get('/api/users/me/', { token: leaving.token })).status).toBe(200);
    expect(await deleteAccount(server.app.db, leaving.id)).not.toBeNull();
    const late = await send(leaving.token, other.id);
    expect([late.status, late.body]).toEqual([401, { detail: 'This account has been deleted.', code: 'account_deleted' }]);
    expect(await server.app.db.select().from(blocks).where(eq(blocks.blockedId, other.id))).toEqual([]);
    expect(await server.app.db.select().from(events).where(eq(events.name, 'Too late'))).toEqual([]);
  });

  it('tells a check-in that passed sign-in before the deletion committed that the session has ended, not that the event is gone', async () => {
    const organizer = await makeUser(server);
    const leaving = await makeCompletedUser(server, { name: 'Leaving' });
    const event = await makeEvent(server, organizer);
    // The token trusted on this instance already, the account gone before the check-in writes.
    expect((await api().get('/api/users/me/', { token: leaving.token })).status).toBe(200);
    expect(await deleteAccount(server.app.db, leaving.id)).not.toBeNull();
    const late = await api().post(`/api/events/${event.code}/check-in/`, { token: leaving.token, json: {} });
    expect([late.status, late.body]).toEqual([401, { detail: 'This account has been deleted.', code: 'account_deleted' }]);
    expect((await api().get(`/api/events/${event.code}/`)).body.attendee_count).toBe(0);
  });

  it('keeps the account whole when Stripe cannot be reached: 503, try again', async () => {
    const user = await makeUser(server);
    // A checkout of theirs still open at Stripe, beside the one that subscribed them: the two were
    // started at the same instant, so the later did not expire the earlier.
    const { sessionId } = await startStripeCheckout(server, user);
    const customer = await subscribe(user, 'sub_outage_1');
    stripe.sessions.get(sessionId)!.status = 'open';
    await server.app.db.update(checkoutSessions).set({ status: 'open' }).where(eq(checkoutSessions.id, sessionId));
    stripe.outage = true;
    try {
      const response = await remove(user.token, { password: user.password });
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ detail: 'Payments are unavailable right now. Please try again later.', code: 'payments_unavailable' });
    } finally {
      stripe.outage = false;
    }
    // Nothing ended at Stripe, nothing gone here: the account, its plan and its customer are whole.
    expect(stripe.customers.get(customer)?.deleted).toBeUndefined();
    expect(subscriptionsOf(customer)).toEqual({ sub_outage_1: 'active' });
    expect(stripe.sessions.get(sessionId)?.status).toBe('open');
    const me = await api().get('/api/users/me/', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.body.has_subscription).toBe(true);
    expect(await server.app.db.select().from(checkoutSessions).where(eq(checkoutSessions.userId, user.id))).toHaveLength(2);

    expect((await remove(user.token, { password: user.password })).status).toBe(204);
    expect(subscriptionsOf(customer)).toEqual({ sub_outage_1: 'canceled' });
    expect(stripe.customers.get(customer)?.deleted).toBe(true);
    expect(stripe.sessions.get(sessionId)?.status).toBe('expired');
  });

  it('goes ahead when Stripe has already ended the subscription, or deleted the customer', async () => {
    const user = await makeUser(server);
    await subscribe(user, 'sub_gone_1');
    stripe.subscriptions.delete('sub_gone_1');
    expect((await remove(user.token, { password: user.password })).status).toBe(204);
    expect(await server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);

    const other = await makeUser(server);
    const customer = await subscribe(other, 'sub_gone_2');
    stripe.customers.get(customer)!.deleted = true;
    expect((await remove(other.token, { password: other.password })).status).toBe(204);
    expect(await server.app.db.select().from(users).where(eq(users.id, other.id))).toEqual([]);
  });

  it('leaves nothing to pay: a checkout still open in another tab cannot be paid once the account is gone', async () => {
    const user = await makeUser(server);
    // Checkout opened in one tab; nothing to cancel yet when the account is deleted in another.
    const { customer, sessionId } = await startStripeCheckout(server, user);
    expect((await remove(user.token, { password: user.password })).status).toBe(204);
    expect(stripe.requestsTo('POST', `/v1/checkout/sessions/${sessionId}/expire`)).toHaveLength(1);
    expect(stripe.sessions.get(sessionId)?.status).toBe('expired');
    expect(stripe.customers.get(customer)?.deleted).toBe(true);

    // Back in the first tab, the person pays: Stripe refuses, no subscription starts, no one is billed.
    expect(stripe.payCheckout(sessionId)).toBeNull();
    expect(subscriptionsOf(customer)).toEqual({});
    expect(await server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    expect(await server.app.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId))).toEqual([]);
  });

  it('cancels every subscription of theirs at Stripe, not only the last one stored here', async () => {
    const user = await makeUser(server);
    const { customer, sessionId } = await startStripeCheckout(server, user);
    const paid = stripe.payCheckout(sessionId, { status: 'active' })!;
    for (const event of paid.events) expect((await deliver(event)).status).toBe(200);
    // A second one, started in Stripe's dashboard say, whose events never reached us.
    stripe.subscriptions.set('sub_unseen', { customer, status: 'active' });
    const [row] = await server.app.db.select({ subscription: users.stripeSubscriptionId }).from(users).where(eq(users.id, user.id));
    expect(row?.subscription).toBe(paid.subscription);

    expect((await remove(user.token, { password: user.password })).status).toBe(204);
    expect(subscriptionsOf(customer)).toEqual({ [paid.subscription]: 'canceled', sub_unseen: 'canceled' });
  });

  it('answers 204 when the photo files cannot be removed after the deletion, and says so in the log', async () => {
    const user = await makeCompletedUser(server, { name: 'Bucket' });
    const media = server.app.media;
    const removeFile = media.remove;
    media.remove = async () => {
      throw new Error('the bucket is down');
    };
    try {
      const response = await remove(user.token, { password: user.password });
      expect(response.status, JSON.stringify(response.body)).toBe(204);
    } finally {
      media.remove = removeFile;
    }
    expect(await server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    expect((await api().get('/api/users/me/', { token: user.token })).status).toBe(401);
    const logged = warnings.map((line) => JSON.parse(line)).find((entry) => entry.userId === user.id);
    expect(logged).toMatchObject({ level: 40, msg: 'account deleted, but its photo files were not removed', photos: 1 });
  });
});

describe('deleting one’s account with the local test checkout (CHECKOUT_MODE=test), a Stripe key set', () => {
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe(TEST_STRIPE);
  });
  afterAll(() => stripe?.close());
  const server = serverPerSuite(() => ({ config: { checkoutMode: 'test', stripe: stripeConfigFor(stripe) } }));

  it('ends the local subscription with the account and calls Stripe for nothing', async () => {
    const user = await makeUser(server);
    await subscribeThroughTestCheckout(server, user);
    const response = await client(server.url).delete('/api/users/me/', { token: user.token, json: { password: user.password } });
    expect(response.status, JSON.stringify(response.body)).toBe(204);
    expect(await server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    expect(stripe.requests).toEqual([]);
  });

  it('still ends at Stripe the plan of someone who paid there before the switch: no deleted account is billed on', async () => {
    const user = await makeUser(server);
    // Bought while the server sold through Stripe; the operator has since switched to the test checkout.
    await boughtAtStripeBefore(server, stripe, user, 'cus_before_switch', 'sub_before_switch');

    const response = await client(server.url).delete('/api/users/me/', { token: user.token, json: { password: user.password } });
    expect(response.status, JSON.stringify(response.body)).toBe(204);
    expect(stripe.customers.get('cus_before_switch')?.deleted).toBe(true);
    expect(stripe.subscriptions.get('sub_before_switch')?.status).toBe('canceled');
  });
});

/**
 * A profile save storing a new photo while the same account is deleted, on PostgreSQL, where the two
 * run on connections of their own. The order is driven: the test holds the profile's row, so that
 * the save (signed in, its photo decoded) waits for it, then the deletion goes as far as it can; once
 * the row is let go, the save has it first. A save that locked the profile before the account
 * deadlocked here with the deletion, which held the account and waited for the profile (one of the
 * two answered 500).
 */
describe.skipIf(!(await hasPostgres()))('a profile save racing the account’s deletion, on PostgreSQL', () => {
  // PostgreSQL looks for a cycle once, deadlock_timeout after a wait begins: a cycle the test closes
  // later than that (a busy machine's second) is found by the test's own wait instead, and the wrong
  // side is rolled back. The server's connections look after 3 s here, the test's never first.
  const races = racesOnPostgres({ deadlockTimeout: '3s' });
  const { hold, stuckOrDone } = races;

  it('the save lands first, then the deletion takes the account with the photo it stored', async () => {
    const user = await makeCompletedUser(races.server);
    const api = client(races.server.url);
    const release = await hold('select 1 from profiles where user_id = $1 for update', [user.id]);
    let saving: Promise<ApiResponse> | undefined;
    let deleting: Promise<ApiResponse> | undefined;
    try {
      saving = api.put('/api/users/me/profile/', { token: user.token, json: await validProfile({ name: 'Saved late' }) });
      expect(await stuckOrDone(saving, 1)).toBe(false);
      deleting = api.delete('/api/users/me/', { token: user.token, json: { password: user.password } });
      expect(await stuckOrDone(deleting, 2)).toBe(false);
    } finally {
      await release();
    }
    const [saved, deleted] = await Promise.all([saving, deleting]);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    expect(await races.server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    expect(await races.server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id))).toEqual([]);
    expect((await fetch(`${races.server.url}${saved.body.image as string}`)).status).toBe(404);
  });

  it('a partner’s like caught in a deadlock with the deletion: the deletion goes through, the like is told to try again', async () => {
    const leaving = await makeCompletedUser(races.server, { name: 'Leaving' });
    const partner = await makeCompletedUser(races.server, { name: 'Partner' });
    const api = client(races.server.url);
    const swipe = (user: TestUser, other: TestUser, response: string) => api.post('/api/matching/', { token: user.token, json: { response, other: other.id } });
    // The partner passed over them once; they liked the partner. The partner's like now makes the match.
    expect((await swipe(leaving, partner, 'like')).status).toBe(200);
    expect((await swipe(partner, leaving, 'skip')).status).toBe(200);
    // An event of theirs stops the deletion after it has taken the account's row, before its cascade.
    const event = await makeEvent(races.server, leaving);
    const release = await hold('select 1 from events where id = $1 for update', [event.id]);
    let deleting: Promise<ApiResponse> | undefined;
    let liking: Promise<ApiResponse> | undefined;
    try {
      deleting = api.delete('/api/users/me/', { token: leaving.token, json: { password: leaving.password } });
      expect(await stuckOrDone(deleting, 1)).toBe(false);
      // The like holds its reaction row, and waits for the account's row to name it in the conversation.
      liking = swipe(partner, leaving, 'like');
      expect(await stuckOrDone(liking, 2)).toBe(false);
    } finally {
      // The deletion's cascade now waits for the like's reaction row: a cycle, which PostgreSQL breaks.
      await release();
    }
    const [deleted, liked] = await Promise.all([deleting, liking]);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    if (liked.status === 503) {
      expect(liked.body).toEqual({ detail: expect.stringContaining('try again') });
      expect(liked.headers.get('retry-after')).toBe('1');
    } else {
      expect([liked.status, liked.body.match], JSON.stringify(liked.body)).toEqual([200, true]);
    }
    expect(await races.server.app.db.select().from(users).where(eq(users.id, leaving.id))).toEqual([]);
    expect(await races.server.app.db.select().from(conversations).where(or(eq(conversations.userLowId, leaving.id), eq(conversations.userHighId, leaving.id)))).toEqual([]);
  });

  it('a block of someone whose account goes as it is written finds no one: 404, as for anyone gone', async () => {
    const leaving = await makeCompletedUser(races.server, { name: 'Leaving' });
    const blocker = await makeCompletedUser(races.server, { name: 'Blocker' });
    const api = client(races.server.url);
    // An event of theirs stops the deletion after it has taken the account's row, before its cascade.
    const event = await makeEvent(races.server, leaving);
    const release = await hold('select 1 from events where id = $1 for update', [event.id]);
    let deleting: Promise<unknown> | undefined;
    let blocking: Promise<ApiResponse> | undefined;
    try {
      deleting = deleteAccount(races.server.app.db, leaving.id);
      expect(await stuckOrDone(deleting, 1)).toBe(false);
      // The block saw them still there; its row's key waits for their account's row.
      blocking = api.post(`/api/users/${leaving.id}/block/`, { token: blocker.token });
      expect(await stuckOrDone(blocking, 2)).toBe(false);
    } finally {
      await release();
    }
    const [, blocked] = await Promise.all([deleting, blocking!]);
    expect([blocked.status, blocked.body]).toEqual([404, { detail: 'Not found.' }]);
    expect(await races.server.app.db.select().from(blocks).where(eq(blocks.blockerId, blocker.id))).toEqual([]);
  });

  it('a deletion PostgreSQL rolls back to break a deadlock goes again, and through', async () => {
    const user = await makeCompletedUser(races.server);
    const api = client(races.server.url);
    // The test's own transaction holds the profile, which the deletion's cascade waits for, its account
    // row taken; then asks for the account row itself: a cycle. The deletion, waiting first, is the one
    // PostgreSQL rolls back (whoever's wait reaches deadlock_timeout with the cycle there: the
    // deletion's 3 s, long before this transaction's minute).
    const session = await races.holder.reserve();
    try {
      await session`begin`;
      await session`set local deadlock_timeout = '1min'`;
      await session`select 1 from profiles where user_id = ${user.id} for update`;
      const deleting = api.delete('/api/users/me/', { token: user.token, json: { password: user.password } });
      expect(await stuckOrDone(deleting, 1)).toBe(false);
      await session`select 1 from users where id = ${user.id} for key share`;
      // Granted: the deletion, which held the row, was rolled back. Its second attempt waits for this
      // transaction.
      expect(await stuckOrDone(deleting, 1)).toBe(false);
      await session`rollback`;
      const deleted = await deleting;
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    } finally {
      session.release();
    }
    expect(await races.server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
  });

  it.each(['test', 'stripe'] as const)(
    'a %s checkout that passed sign-in before the deletion committed is told the session has ended, and starts nothing',
    async (mode) => {
      // Stripe's checkout on a second instance over the same database, against the fake Stripe.
      const stripe = mode === 'stripe' ? await startFakeStripe(TEST_STRIPE) : null;
      const instance = stripe
        ? await startServer({ backend: 'postgres', databaseUrl: races.server.config.databaseUrl!, config: { stripe: stripeConfigFor(stripe) } })
        : races.server;
      try {
        const user = await makeCompletedUser(races.server);
        // An event of theirs stops the deletion after it has taken the account's row, before its cascade.
        const event = await makeEvent(races.server, user);
        const release = await hold('select 1 from events where id = $1 for update', [event.id]);
        let deleting: Promise<unknown> | undefined;
        let checkout: Promise<ApiResponse> | undefined;
        try {
          deleting = deleteAccount(races.server.app.db, user.id);
          expect(await stuckOrDone(deleting, 1)).toBe(false);
          // Signed in, the account read: its checkout's write (the session's row, or the customer's link) waits for the account's.
          checkout = client(instance.url).post('/api/payments/stripe/create-checkout-session/', {
            token: user.token,
            json: { lookup_key: instance.config.stripe.lookupKeys.monthly },
          });
          expect(await stuckOrDone(checkout, 2)).toBe(false);
        } finally {
          await release();
        }
        const [, started] = await Promise.all([deleting, checkout!]);
        expect([started.status, started.body]).toEqual([401, { detail: 'This account has been deleted.', code: 'account_deleted' }]);
        expect(await races.server.app.db.select().from(checkoutSessions).where(eq(checkoutSessions.userId, user.id))).toEqual([]);
      } finally {
        if (stripe) {
          await instance.close();
          await stripe.close();
        }
      }
    },
  );

  it('a save that passed sign-in before the deletion committed is told the session has ended, and stores nothing', async () => {
    const user = await makeCompletedUser(races.server);
    const input = await validProfile({ name: 'Too late' });
    expect(await deleteAccount(races.server.app.db, user.id)).not.toBeNull();
    await expect(saveProfile(races.server.app.db, races.server.app.media, user.id, input)).rejects.toBeInstanceOf(NotAuthenticated);
    expect(await races.server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id))).toEqual([]);
  });
});
