/**
 * The throttle's counters in Redis (`server/lib/counters.ts`), on a Redis of the test's own: the hit
 * script goes by its SHA1, a Redis that has forgotten it (a restart, SCRIPT FLUSH) still counts, and
 * a batch of hits is one call; a hit given back (`unhit`) takes one off, never below none, and a count
 * read (`count`) counts nothing (in memory too).
 */
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Counters, memoryCounters, redisCounters } from '../../server/lib/counters';
import { openRedis, type Redis } from '../../server/lib/redis';
import { freePort } from '../helpers/ports';
import { hasRedisServerBinary, ownRedis } from '../helpers/services';

/**
 * Two hits of two on `u`, one given back: one more fits, the next is over; a key never hit gives
 * nothing, and reads as none. Its count, read as often as need be, is what is left after the give-back.
 */
async function expectOneHitBack(counters: Counters) {
  await counters.hit('u', 2, 60_000);
  await counters.hit('u', 2, 60_000);
  expect(await counters.count('u')).toBe(2);
  await counters.unhit('u');
  expect(await counters.count('u')).toBe(1);
  expect(await counters.count('u')).toBe(1);
  expect(await counters.count('never-hit')).toBe(0);
  // Two hits again, not three: the third is the one over.
  expect((await counters.hit('u', 2, 60_000)).exceeded).toBe(false);
  expect((await counters.hit('u', 2, 60_000)).exceeded).toBe(true);
  await counters.unhit('never-hit');
}

describe.skipIf(!hasRedisServerBinary())('throttle counters in Redis', () => {
  let server: ReturnType<typeof ownRedis>;
  let redis: Redis;
  const warn = vi.fn();
  const log = { warn, info: () => {}, error: () => {} } as unknown as FastifyBaseLogger;

  beforeAll(async () => {
    server = ownRedis(await freePort());
    await server.start();
    redis = await openRedis({ url: server.url, prefix: 'test-counters', log });
  });
  afterAll(async () => {
    redis?.close();
    await server?.stop();
  });

  it('counts in Redis by the script’s SHA1, and goes on counting after Redis forgets the script', async () => {
    const counters = redisCounters({ redis, log });
    // Nothing loaded yet: the first hit finds NOSCRIPT and loads the script.
    expect((await counters.hit('k', 2, 60_000)).exceeded).toBe(false);
    await redis.commands.sendCommand(['SCRIPT', 'FLUSH']);
    expect((await counters.hit('k', 2, 60_000)).exceeded).toBe(false);
    // The third hit is over the limit only if Redis counted all three (the per-instance fallback would start again).
    const third = await counters.hit('k', 2, 60_000);
    expect(third.exceeded).toBe(true);
    expect(third.retryAfterMs).toBeGreaterThan(59_000);
    expect(warn).not.toHaveBeenCalled();
    // Each hit went by EVALSHA; the script's text was sent only when Redis did not know it.
    expect(await calls(redis, 'evalsha')).toBe(3);
    expect(await calls(redis, 'eval')).toBe(2);
  });

  it('counts a batch of hits in one call, in order, a key that comes twice counted twice', async () => {
    const counters = redisCounters({ redis, log });
    await counters.hit('b', 3, 60_000);
    const before = await calls(redis, 'evalsha');
    const results = await counters.hitEach(['a', 'b', 'b', 'c', 'b'], 3, 60_000);
    expect(results.map((result) => result.exceeded)).toEqual([false, false, false, false, true]);
    for (const result of results) expect(result.retryAfterMs).toBeGreaterThan(59_000);
    expect(await calls(redis, 'evalsha')).toBe(before + 1);
    // The counts are Redis's: one more hit of 'a' on its own finds the batch's.
    expect((await counters.hit('a', 1, 60_000)).exceeded).toBe(true);
    expect(await counters.hitEach([], 3, 60_000)).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('gives a hit back, never below none, reads a count without counting, and never makes a key out of nothing', async () => {
    const counters = redisCounters({ redis, log });
    const keysBefore = (await redis.commands.keys('test-counters:throttle:*')).length;
    await expectOneHitBack(counters);
    expect(await redis.commands.keys('test-counters:throttle:*')).toHaveLength(keysBefore + 1);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('throttle counters in memory', () => {
  it('give a hit back, never below none, and read a count without counting', async () => {
    const counters = memoryCounters();
    await expectOneHitBack(counters);
    for (let i = 0; i < 3; i++) await counters.unhit('u');
    expect((await counters.hit('u', 1, 60_000)).exceeded).toBe(false);
    await counters.close();
  });
});

async function calls(redis: Redis, command: string) {
  const stats = await redis.commands.info('commandstats');
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}
