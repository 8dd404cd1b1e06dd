import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runParty } from '../../loadtest/party';
import { SEND_ACK_TIMEOUT_MS } from '../../shared/constants';
import { createPostgresDatabase } from '../helpers/database';
import { lockHolder } from '../helpers/lock-holder';
import { serverPerSuite } from '../helpers/server';
import { hasPostgres } from '../helpers/services';
import { waitUntil } from '../helpers/socket';

/**
 * A server that keeps the socket (its pings go on) but does not answer a send: the database stalls
 * under it. The app gives the send up after SEND_ACK_TIMEOUT_MS, drops the connection as dead and sends
 * again once back; the tool's phones must too, rather than wait for a heartbeat that never fails.
 */
describe.skipIf(!(await hasPostgres()))('npm run loadtest: a message:send left unanswered', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let holder: postgres.Sql;
  let dir: string;

  beforeAll(async () => {
    database = await createPostgresDatabase({ migrated: true });
  });
  afterAll(() => database?.drop());
  const server = serverPerSuite(() => ({ backend: 'postgres', databaseUrl: database.url, config: { limitMultiplier: 1000 } }));
  beforeAll(async () => {
    holder = postgres(database.url, { max: 2, onnotice: () => {} });
    dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-loadtest-unanswered-'));
  });
  afterAll(async () => {
    await holder?.end();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /**
   * Statements of this database waiting for the messages table: a send's insert, held by the test's
   * lock. Not any wait for a lock in the database (`lock.waiting()`), which could start the window
   * below before any send was stuck.
   */
  async function sendsWaiting(): Promise<number> {
    const [row] = await holder<{ n: number }[]>`
      select count(*)::int as n from pg_locks
      where not granted and relation = 'messages'::regclass
        and database = (select oid from pg_database where datname = current_database())`;
    return row!.n;
  }

  it('is given up after ~10 s as the app does: an error, the connection dropped, the message sent again and delivered', async () => {
    const lock = lockHolder(holder);
    // Every message's insert waits behind the test's lock: nothing sent is stored, nor answered, until it goes.
    const release = await lock.hold('lock table messages in exclusive mode');
    // Nobody leaves: the first socket to end is one a phone gave up.
    const dropped = new Promise<number>((resolve) =>
      server.app.io.on('connection', (socket) => socket.on('disconnect', () => resolve(performance.now()))),
    );
    const party = runParty({ url: server.url, attendees: 6, minutes: 0.5, likeShare: 1, leaveShare: 0, stateFile: path.join(dir, 'state.json') });
    let stuckAt: number;
    let droppedAt: number | null;
    try {
      await waitUntil(async () => (await sendsWaiting()) >= 1, 40_000, 'a message send waiting on the lock');
      stuckAt = performance.now();
      // Left to the heartbeat (the server's pings go on), no phone would ever give the send up. The tool
      // does ~10 s after the send (SEND_ACK_TIMEOUT_MS and its margin, checked twice a second); 25 s
      // leaves room for a CI machine whose two cores are saturated.
      droppedAt = await Promise.race([dropped, new Promise<null>((resolve) => setTimeout(() => resolve(null), 25_000))]);
    } finally {
      await release();
    }
    const result = await party;

    expect(droppedAt).not.toBeNull();
    // Not before the app would have given it up.
    expect(droppedAt! - stuckAt).toBeGreaterThan(SEND_ACK_TIMEOUT_MS);
    expect(result.counts.errors['message:send no answer within 10 s']).toBeGreaterThanOrEqual(1);
    expect(result.counts.drops).toBeGreaterThanOrEqual(1);
    expect(result.counts.reconnects).toBe(result.counts.drops);
    // Stored once the lock went, and delivered: the resend (same client_id) is answered with it.
    const m = result.counts.messages;
    expect(m.sent).toBeGreaterThan(0);
    expect(m.acknowledged).toBe(m.sent);
    expect(m.delivered + m.recovered).toBe(m.sent);
    expect([m.lost, m.duplicated, m.unanswered, m.refused]).toEqual([0, 0, 0, 0]);
    expect(result.ok).toBe(true);
  }, 90_000);
});
