import { describe, expect, it } from 'vitest';
import { createTokenCache } from '../../server/lib/token-cache';
import { hashToken } from '../../server/lib/tokens';

function clock() {
  let time = 1_000_000;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

const options = { ttlMs: 10_000, maxEntries: 10, tombstoneMs: 60_000 };

describe('the token cache', () => {
  it('remembers a lookup until its time is up, then forgets it', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, now: time.now });
    cache.set('a', { userId: 1, activeAt: 5, usedAt: 0 });
    time.advance(9_999);
    expect(cache.get('a')).toEqual(expect.objectContaining({ userId: 1, activeAt: 5, usedAt: 0 }));
    time.advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('with jitter, keeps an entry between ttl × (1 − jitter) and ttl, as its draw says', () => {
    const time = clock();
    let draw = 1;
    const cache = createTokenCache({ ...options, jitter: 0.5, now: time.now, random: () => draw });
    cache.set('short', { userId: 1, activeAt: 0, usedAt: 0 });
    draw = 0;
    cache.set('long', { userId: 2, activeAt: 0, usedAt: 0 });
    time.advance(4_999);
    expect(cache.get('short')?.userId).toBe(1);
    time.advance(1);
    expect(cache.get('short')).toBeUndefined();
    time.advance(4_999);
    expect(cache.get('long')?.userId).toBe(2);
    time.advance(1);
    expect(cache.get('long')).toBeUndefined();
  });

  it('does not let tokens looked up at the same moment all expire at the same moment', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, jitter: 0.5, maxEntries: 1_000, now: time.now });
    const hashes = Array.from({ length: 1_000 }, (_, i) => `t${i}`);
    for (const [i, hash] of hashes.entries()) cache.set(hash, { userId: i, activeAt: 0, usedAt: 0 });
    const alive = () => hashes.filter((hash) => cache.get(hash) !== undefined).length;
    time.advance(4_999);
    expect(alive()).toBe(1_000);
    // Halfway through the spread, about half are gone (the odds of fewer than 400 or more than 600 are
    // below one in a billion); none outlives the ttl.
    time.advance(2_501);
    expect(alive()).toBeGreaterThan(400);
    expect(alive()).toBeLessThan(600);
    time.advance(2_500);
    expect(alive()).toBe(0);
  });

  it('forgets a revoked token at once, and only that one', () => {
    const cache = createTokenCache(options);
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 });
    cache.set('b', { userId: 2, activeAt: 0, usedAt: 0 });
    cache.revoke('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.isRevoked('a')).toBe(true);
    expect(cache.get('b')?.userId).toBe(2);
    expect(cache.isRevoked('b')).toBe(false);
  });

  it('does not take back a revoked token from a lookup that read it just before', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, now: time.now });
    cache.revoke('a');
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 });
    expect(cache.get('a')).toBeUndefined();
    // The tombstone outlives any lookup of that time, then goes.
    time.advance(60_000);
    expect(cache.isRevoked('a')).toBe(false);
    cache.revoke('b');
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 });
    expect(cache.get('a')?.userId).toBe(1);
  });

  it('drops the oldest lookup beyond its size, and a fresh lookup counts as new', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, maxEntries: 2, now: time.now });
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 });
    cache.set('b', { userId: 2, activeAt: 0, usedAt: 0 });
    // Looked up again: 'a' is now the newest, and its time starts over.
    time.advance(5_000);
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 });
    cache.set('c', { userId: 3, activeAt: 0, usedAt: 0 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(2);
    time.advance(9_000);
    expect(cache.get('a')?.userId).toBe(1);
    expect(cache.get('c')?.userId).toBe(3);
  });
});

describe('a token hash', () => {
  it('is the SHA-256 of the token in hex, as every stored session was written', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
