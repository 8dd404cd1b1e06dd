import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../scripts/admin';
import { checkIn, makeEvent } from '../helpers/events';
import { makeCompletedUser, makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { linkToken, startSmtpServer, type TestSmtpServer } from '../helpers/mail';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { startTwoInstances, type TestServer, type TwoInstances } from '../helpers/server';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';
import { connect, record, socketsClosedAfterEach, waitFor, waitForDisconnect } from '../helpers/socket';
import { match } from './fixtures';

const ready = (await hasPostgres()) && (await hasRedis());

/**
 * Every revocation of an account's sessions (reset, change, logout-all, deletion) ends the user's
 * sockets on every instance, not only on the one that took the request.
 */
describe.skipIf(!ready)('account revocations across two instances over Redis', () => {
  let smtp: TestSmtpServer;
  let cluster: TwoInstances;
  let one: TestServer;
  let two: TestServer;
  const sockets = socketsClosedAfterEach();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    cluster = await startTwoInstances({ redisUrl: REDIS_URL, config: { mail: { smtpUrl: smtp.url, from: 'Eventmatch <no-reply@eventmatch.test>' } } });
    ({ one, two } = cluster);
  });
  afterAll(async () => {
    await cluster?.close();
    await smtp?.close();
  });

  /** A user with two sessions, each with a socket on a different instance; answers the disconnects to come. */
  async function signedInOnBoth() {
    const user = await makeUser(one);
    const second = (await client(two.url).post('/api/auth/', { json: { username: user.email, password: user.password } })).body
      .token as string;
    const phones = [await sockets.connect(one.url, user.token), await sockets.connect(two.url, second)];
    return { user, second, dropped: Promise.all(phones.map((socket) => waitForDisconnect(socket))) };
  }

  const expectDead = async (tokens: string[]) => {
    for (const server of [one, two]) {
      for (const token of tokens) expect((await client(server.url).get('/api/users/me/', { token })).status).toBe(401);
    }
  };

  it('a password reset on one instance drops the sockets on both', async () => {
    const { user, second, dropped } = await signedInOnBoth();
    await smtp.nextMailTo(user.email); // the verification e-mail
    expect((await client(two.url).post('/api/auth/password-reset/', { json: { email: user.email } })).status).toBe(202);
    const token = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
    const confirmed = await client(one.url).post('/api/auth/password-reset/confirm/', {
      json: { token, password: 'Fresh-Harbour-2026', password2: 'Fresh-Harbour-2026' },
    });
    expect(confirmed.status).toBe(200);
    expect(await dropped).toEqual(['io server disconnect', 'io server disconnect']);
    await expectDead([user.token, second]);
    expect((await client(two.url).get('/api/users/me/', { token: confirmed.body.token })).status).toBe(200);
  });

  it('a password change drops the other sessions’ sockets on both instances', async () => {
    const { user, second, dropped } = await signedInOnBoth();
    const changed = await client(one.url).post('/api/users/me/password/', {
      token: user.token,
      json: { current_password: user.password, password: 'Another-Harbour-77', password2: 'Another-Harbour-77' },
    });
    expect(changed.status).toBe(200);
    expect(await dropped).toEqual(['io server disconnect', 'io server disconnect']);
    await expectDead([user.token, second]);
  });

  it('logging out everywhere drops every socket on both instances', async () => {
    const { user, second, dropped } = await signedInOnBoth();
    expect((await client(two.url).post('/api/auth/logout-all/', { token: second })).status).toBe(204);
    expect(await dropped).toEqual(['io server disconnect', 'io server disconnect']);
    await expectDead([user.token, second]);
  });

  it('deleting the account drops every socket on both instances', async () => {
    const { user, second, dropped } = await signedInOnBoth();
    const deleted = await client(one.url).delete('/api/users/me/', { token: user.token, json: { password: user.password } });
    expect(deleted.status).toBe(204);
    expect(await dropped).toEqual(['io server disconnect', 'io server disconnect']);
    await expectDead([user.token, second]);
    await expect(connect(two.url, second)).rejects.toThrow('unauthorized');
  });

  /**
   * The deletion in the app and the admin command's, which runs in a process of its own and reaches the
   * instances through their Redis alone: the same news either way, on both instances.
   */
  const deletions: Array<[string, (leaving: TestUser) => Promise<void>]> = [
    [
      'in the app',
      async (leaving) => {
        expect((await client(one.url).delete('/api/users/me/', { token: leaving.token, json: { password: leaving.password } })).status).toBe(204);
      },
    ],
    [
      'by the admin command',
      async (leaving) => {
        expect(await adminBeside(['delete', leaving.email, '--yes'])).toEqual({ status: 0, lines: [`${leaving.email} is deleted, with everything of it.`] });
      },
    ],
  ];

  /** `npm run admin` with the servers' environment, as it runs beside them: its exit status and what it said. */
  async function adminBeside(argv: string[]) {
    const lines: string[] = [];
    const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const env = { DATABASE_URL: cluster.databaseUrl, DATA_DIR: one.config.dataDir, REDIS_URL, REDIS_PREFIX: cluster.redisPrefix };
    return { status: await admin(argv, env, out as never), lines };
  }

  it('a moderator made or unmade by the admin command: the account’s open apps on both instances read it again', async () => {
    const user = await makeUser(one);
    const second = (await client(two.url).post('/api/auth/', { json: { username: user.email, password: user.password } })).body.token as string;
    const phones = [await sockets.connect(one.url, user.token), await sockets.connect(two.url, second)];
    for (const [command, isModerator, said] of [
      ['grant-moderator', true, 'is now a moderator'],
      ['revoke-moderator', false, 'is no longer a moderator'],
    ] as const) {
      const told = Promise.all(phones.map((phone) => waitFor(phone, 'account:changed')));
      void told.catch(() => {});
      expect(await adminBeside([command, user.email])).toEqual({ status: 0, lines: [`${user.email} ${said}.`] });
      await told;
      expect((await client(two.url).get('/api/users/me/', { token: second })).body.is_moderator).toBe(isModerator);
    }
  });
  it.each(deletions)('a deletion %s: their sockets dropped on both instances, their partner and event told at once', async (_how, erase) => {
    const leaving = await makeCompletedUser(one, { name: 'Leaving' });
    const partner = await makeCompletedUser(two, { name: 'Partner' });
    const organizer = await makeUser(one);
    const conversationId = await match(one, leaving, partner, two);
    const event = await makeEvent(one, organizer);
    await checkIn(one, leaving, event.code);
    await checkIn(two, partner, event.code);
    const second = (await client(two.url).post('/api/auth/', { json: { username: leaving.email, password: leaving.password } })).body.token as string;
    const phones = [await sockets.connect(one.url, leaving.token), await sockets.connect(two.url, second)];
    const dropped = Promise.all(phones.map((socket) => waitForDisconnect(socket)));
    // Each of their phones hears that the account is gone before its socket drops: it says so, rather
    // than that its session was closed from elsewhere, and keeps nothing of the account.
    const toldFirst = phones.map((socket) => {
      let heard = false;
      socket.once('account:deleted', () => (heard = true));
      return new Promise<boolean>((resolve) => socket.once('disconnect', () => resolve(heard)));
    });
    const partnerSocket = await sockets.connect(two.url, partner.token);
    const told = Promise.all([
      waitFor(partnerSocket, 'match:removed', (payload) => payload.conversation_id === conversationId),
      waitFor(partnerSocket, 'person:gone', (payload) => payload.user_id === leaving.id),
      waitFor(partnerSocket, 'event:count', (payload) => payload.event_id === event.id && payload.count === 1),
    ]);
    // Awaited below; a failure before then is the test's, not an unhandled rejection.
    void Promise.allSettled([dropped, told]);

    await erase(leaving);
    // Once it is answered, their sessions open nothing anywhere: not a 404 of a user gone, a 401.
    await expectDead([leaving.token, second]);
    expect(await dropped).toEqual(['io server disconnect', 'io server disconnect']);
    expect(await Promise.all(toldFirst)).toEqual([true, true]);
    expect(await told).toEqual([{ conversation_id: conversationId }, { user_id: leaving.id }, { event_id: event.id, count: 1 }]);
  });

  /**
   * A deletion whose transaction fails: the event's check-in figure is already at its column's most, so
   * adding the leaving attendee's check-in to it (`tallyDeparture`) is out of range, and the whole
   * deletion rolls back. Nothing happened, so no phone of theirs is told anything, nor signed out.
   */
  const failedDeletions: Array<[string, (leaving: TestUser) => Promise<void>]> = [
    [
      'in the app',
      async (leaving) => {
        expect((await client(one.url).delete('/api/users/me/', { token: leaving.token, json: { password: leaving.password } })).status).toBe(500);
      },
    ],
    [
      'by the admin command',
      async (leaving) => {
        await expect(adminBeside(['delete', leaving.email, '--yes'])).rejects.toMatchObject({ cause: { message: expect.stringMatching(/out of range/) } });
      },
    ],
  ];
  it.each(failedDeletions)('a deletion %s that fails in the database: no phone of theirs is told, none signed out', async (_how, erase) => {
    const leaving = await makeCompletedUser(one, { name: 'Staying' });
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    await checkIn(one, leaving, event.code);
    await one.app.db.execute(sql`
      insert into event_tallies (event_id, at, check_ins)
      select event_id, date_bin('15 minutes', checked_in_at, timestamptz 'epoch'), 2147483647 from attendances
      where user_id = ${leaving.id}`);
    const second = (await client(two.url).post('/api/auth/', { json: { username: leaving.email, password: leaving.password } })).body.token as string;
    const phones = [await sockets.connect(one.url, leaving.token), await sockets.connect(two.url, second)];
    const heard = phones.map((phone) => record(phone));

    await erase(leaving);
    // Anything sent them after the deletion arrives after what it would have told them (or the phone is gone).
    const later = Promise.all(
      phones.map((phone) => new Promise<void>((resolve) => (phone.connected ? phone.once('account:changed', () => resolve()).once('disconnect', () => resolve()) : resolve()))),
    );
    one.app.publish([leaving.id], 'account:changed');
    await later;
    expect(heard.map((events) => events.map((e) => e.event))).toEqual([['account:changed'], ['account:changed']]);
    expect(phones.map((phone) => phone.connected)).toEqual([true, true]);
    for (const [server, token] of [[one, leaving.token], [two, second]] as const) {
      expect((await client(server.url).get('/api/users/me/', { token })).status).toBe(200);
    }
  });
});

/**
 * A revocation is in force on every instance once it is answered, not when the news happens to reach
 * them: the instance that revokes waits for the others to say they have dropped the token (within a
 * bound, for an instance that cannot answer). Instance two hears Redis 150 ms late here, longer than
 * the answer takes to come back and a request to reach it.
 */
describe.skipIf(!ready)('revocations answered on one instance, with the other hearing Redis late', () => {
  let cluster: TwoInstances;
  let one: TestServer;
  let two: TestServer;
  const sockets = socketsClosedAfterEach();

  beforeAll(async () => {
    cluster = await startTwoInstances({ redisUrl: REDIS_URL, slowLinkOfTwo: { replyDelayMs: 150 } });
    ({ one, two } = cluster);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  /** Whether instance two still holds a socket of this user (its own view, with no client in between). */
  const socketsOnTwo = (userId: number) => [...two.app.io.of('/').sockets.values()].filter((socket) => socket.data.user.id === userId).length;

  /** A user whose token instance two has read (and trusts for a while), with a socket there. */
  async function knownToTwo(user: { id: number; token: string }) {
    await sockets.connect(two.url, user.token);
    expect((await client(two.url).get('/api/users/me/', { token: user.token })).status).toBe(200);
    expect(socketsOnTwo(user.id)).toBe(1);
  }

  it('a logout: the token is refused on the other instance, its socket there gone, when the 204 arrives', async () => {
    const ana = await makeUser(one);
    await knownToTwo(ana);
    expect((await client(one.url).post('/api/auth/logout/', { token: ana.token })).status).toBe(204);
    expect((await client(two.url).get('/api/users/me/', { token: ana.token })).status).toBe(401);
    expect(socketsOnTwo(ana.id)).toBe(0);
  });

  it('a ban: the banned token is refused on the other instance, their socket there gone, when the moderator is answered', async () => {
    const moderator = await makeModerator(one);
    const ben = await makeCompletedUser(one);
    await knownToTwo(ben);
    await banThroughModeration(one, moderator, ben);
    const refused = await client(two.url).get('/api/users/me/', { token: ben.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'This account has been suspended.', code: 'account_suspended' });
    expect(socketsOnTwo(ben.id)).toBe(0);
  });
});
