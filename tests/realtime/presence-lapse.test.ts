import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openRedis } from '../../server/lib/redis';
import { createPresenceRoll } from '../../server/realtime/presence-roll';
import { startTwoInstances, type TwoInstances } from '../helpers/server';
import { hasPostgres, hasRedis, REDIS_URL } from '../helpers/services';
import { record, socketsClosedAfterEach, waitFor } from '../helpers/socket';
import { makePair } from './fixtures';

const ready = (await hasPostgres()) && (await hasRedis());

describe.skipIf(!ready)('presence across instances when one stops without a word', () => {
  let cluster: TwoInstances;
  const sockets = socketsClosedAfterEach();
  const redis = createClient({ url: REDIS_URL });

  beforeAll(async () => {
    // A beat of 100 ms: an instance is taken for gone 300 ms after its last.
    cluster = await startTwoInstances({ redisUrl: REDIS_URL, config: { presenceBeatMs: 100 } });
    await redis.connect();
  });
  afterAll(async () => {
    redis.destroy();
    await cluster.close();
  });

  it('says online again the users of an instance taken for gone while it was alive', async () => {
    const { a, b } = await makePair(cluster.one);
    const bSocket = await sockets.connect(cluster.two.url, b.token);
    const online = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
    await sockets.connect(cluster.one.url, a.token);
    await online;
    const bEvents = record(bSocket);

    // Instance one off the roll, as after a stall of three beats: its next beat puts it back and says Ana online again.
    const roll = `${cluster.redisPrefix}:presence:instances`;
    const instances = await redis.sMembers(roll);
    const holding = await Promise.all(instances.map((instance) => redis.sIsMember(`${cluster.redisPrefix}:presence:${instance}:users`, String(a.id))));
    expect(holding.toSorted()).toEqual([0, 1]);
    const again = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
    expect(await redis.sRem(roll, instances[holding.indexOf(1)]!)).toBe(1);
    await again;
    expect(await redis.sMembers(roll)).toHaveLength(2);
    expect(bEvents.filter((e) => e.event === 'presence' && !(e.payload as { online: boolean }).online)).toEqual([]);
  });

  it('says offline to their matches the users of an instance gone without a word', async () => {
    const { a, b } = await makePair(cluster.one);
    const bSocket = await sockets.connect(cluster.two.url, b.token);
    const online = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && p.online);
    const aSocket = await sockets.connect(cluster.one.url, a.token);
    await online;

    // Instance one cut off from Redis as a killed process is: no beat, and no word of its sockets' ends.
    cluster.one.app.redis!.close();
    const offline = waitFor(bSocket, 'presence', (p) => p.user_id === a.id && !p.online);
    aSocket.close();
    await offline;
    expect(await bSocket.emitWithAck('presence:list', {})).toEqual({ ok: true, online: [] });
    expect(await redis.sMembers(`${cluster.redisPrefix}:presence:instances`)).toHaveLength(1);
  });
});

describe.skipIf(!(await hasRedis()))('the presence roll', () => {
  const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as FastifyBaseLogger;
  afterEach(() => {
    vi.useRealTimers();
  });

  it('skips the beats due while a turn is still running, rather than queueing them all', async () => {
    const prefix = `test-roll-${randomBytes(6).toString('hex')}`;
    const redis = await openRedis({ url: REDIS_URL, prefix, log: silent });
    const other = createClient({ url: REDIS_URL });
    await other.connect();
    try {
      // An instance on the roll whose beat has lapsed: the first turn says its users offline, slowly.
      await other.sAdd(`${prefix}:presence:instances`, 'gone');
      await other.sAdd(`${prefix}:presence:gone:users`, '7');
      let saying!: () => void;
      const slow = new Promise<void>((resolve) => (saying = resolve));
      let entered!: () => void;
      const sayingOffline = new Promise<void>((resolve) => (entered = resolve));
      let turns = 0;
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      const roll = createPresenceRoll({
        redis,
        log: silent,
        beatMs: 100,
        localUsers: () => {
          turns += 1;
          return [];
        },
        lapsed: () => {
          entered();
          return slow;
        },
        restored: async () => {},
      });
      await sayingOffline;
      // Twenty beats come due while that turn runs (a slow database, a slow cluster).
      vi.advanceTimersByTime(20 * 100);
      saying();
      await roll.close();
      // The turn that ran, and none of those due meanwhile piled up behind it.
      expect(turns).toBe(1);
    } finally {
      await other.del([`${prefix}:presence:instances`, `${prefix}:presence:gone:users`]);
      other.destroy();
      redis.close();
    }
  });

  it('tells which users the other instances alive on the roll hold, for when the cluster does not answer', async () => {
    const prefix = `test-roll-${randomBytes(6).toString('hex')}`;
    const redis = await openRedis({ url: REDIS_URL, prefix, log: silent });
    const other = createClient({ url: REDIS_URL });
    await other.connect();
    const roll = `${prefix}:presence:instances`;
    const usersOf = (instance: string) => `${prefix}:presence:${instance}:users`;
    try {
      // Alive, with Ana and Ben; lapsed, being said offline (off the roll) with Cleo; off the roll yet
      // alive, with Dan.
      await other.sAdd(roll, ['alive', 'gone']);
      await other.set(`${prefix}:presence:alive:alive`, '1', { PX: 60_000 });
      await other.sAdd(usersOf('alive'), ['1', '2']);
      await other.sAdd(usersOf('gone'), '3');
      await other.set(`${prefix}:presence:off:alive`, '1', { PX: 60_000 });
      await other.sAdd(usersOf('off'), '4');
      let saying!: () => void;
      const slow = new Promise<void>((resolve) => (saying = resolve));
      let entered!: () => void;
      const sayingOffline = new Promise<void>((resolve) => (entered = resolve));
      const presenceRoll = createPresenceRoll({
        redis,
        log: silent,
        beatMs: 60_000,
        // Eve, on this instance.
        localUsers: () => [5],
        lapsed: () => {
          entered();
          return slow;
        },
        restored: async () => {},
      });
      await sayingOffline;
      // Lapsed since the sweep under way began, so still on the roll: Finn.
      await other.sAdd(roll, 'late');
      await other.sAdd(usersOf('late'), '6');

      expect([...(await presenceRoll.elsewhere([1, 2, 3, 4, 5, 6, 7]))].toSorted()).toEqual([1, 2]);
      expect(await presenceRoll.elsewhere([])).toEqual(new Set());
      // Eve's last socket here closes: off this instance's entry at once, not at the next beat.
      const [own] = (await other.sMembers(roll)).filter((instance) => !['alive', 'late'].includes(instance));
      expect(await other.sMembers(usersOf(own!))).toEqual(['5']);
      presenceRoll.left(5);
      await presenceRoll.elsewhere([5]);
      expect(await other.sMembers(usersOf(own!))).toEqual([]);
      saying();
      await presenceRoll.close();
    } finally {
      await other.del([roll, ...['alive', 'gone', 'off', 'late'].flatMap((instance) => [usersOf(instance), `${prefix}:presence:${instance}:alive`])]);
      other.destroy();
      redis.close();
    }
  });
});
