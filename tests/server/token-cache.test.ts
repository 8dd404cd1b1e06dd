import { describe, expect, it } from 'vitest';
import { createTokenCache } from '../../server/lib/token-cache';

function clock() {
  let time = 1_000_000;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

const options = { ttlMs: 10_000, maxEntries: 10, tombstoneMs: 60_000 };

describe('the token cache', () => {
  it('remembers a lookup until its time is up, then forgets it', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, now: time.now });
    cache.set('a', { userId: 1, activeAt: 5 });
    time.advance(9_999);
    expect(cache.get('a')).toEqual(expect.objectContaining({ userId: 1, activeAt: 5 }));
    time.advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('forgets a revoked token at once, and only that one', () => {
    const cache = createTokenCache(options);
    cache.set('a', { userId: 1, activeAt: 0 });
    cache.set('b', { userId: 2, activeAt: 0 });
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
    cache.set('a', { userId: 1, activeAt: 0 });
    expect(cache.get('a')).toBeUndefined();
    // The tombstone outlives any lookup of that time, then goes.
    time.advance(60_000);
    expect(cache.isRevoked('a')).toBe(false);
    cache.revoke('b');
    cache.set('a', { userId: 1, activeAt: 0 });
    expect(cache.get('a')?.userId).toBe(1);
  });

  it('drops the oldest lookup beyond its size, and a fresh lookup counts as new', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, maxEntries: 2, now: time.now });
    cache.set('a', { userId: 1, activeAt: 0 });
    cache.set('b', { userId: 2, activeAt: 0 });
    // Looked up again: 'a' is now the newest, and its time starts over.
    time.advance(5_000);
    cache.set('a', { userId: 1, activeAt: 0 });
    cache.set('c', { userId: 3, activeAt: 0 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(2);
    time.advance(9_000);
    expect(cache.get('a')?.userId).toBe(1);
    expect(cache.get('c')?.userId).toBe(3);
  });
});
