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

  it('falls due for a read at a share of the ttl between readAgain.from and .to, as its draw says, and is trusted to the ttl', () => {
    const time = clock();
    let draw = 0;
    const cache = createTokenCache({ ...options, readAgain: { from: 0.5, to: 0.7 }, now: time.now, random: () => draw });
    cache.set('early', { userId: 1, activeAt: 0, usedAt: 0 });
    draw = 0.99;
    cache.set('late', { userId: 2, activeAt: 0, usedAt: 0 });
    time.advance(4_999);
    expect(cache.takeRefresh('early')).toBe(false);
    time.advance(1);
    expect(cache.takeRefresh('early')).toBe(true);
    expect(cache.takeRefresh('late')).toBe(false);
    time.advance(1_980);
    expect(cache.takeRefresh('late')).toBe(true);
    // Due, and read again or not, neither is trusted past the ttl.
    time.advance(10_000 - 6_980 - 1);
    expect(cache.get('early')?.userId).toBe(1);
    expect(cache.get('late')?.userId).toBe(2);
    time.advance(1);
    expect(cache.get('early')).toBeUndefined();
    expect(cache.get('late')).toBeUndefined();
  });

  it('without readAgain, never falls due: it lapses at the ttl', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, now: time.now });
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 });
    time.advance(9_999);
    expect(cache.takeRefresh('a')).toBe(false);
    // Held still, to the end of its trust: not due, rather than gone.
    expect(cache.get('a')?.userId).toBe(1);
    time.advance(1);
    expect(cache.takeRefresh('a')).toBe(false);
    expect(cache.get('a')).toBeUndefined();
  });

  it('does not let tokens looked up at the same moment all fall due at the same moment', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, readAgain: { from: 0.5, to: 0.7 }, maxEntries: 1_000, now: time.now });
    const hashes = Array.from({ length: 1_000 }, (_, i) => `t${i}`);
    for (const [i, hash] of hashes.entries()) cache.set(hash, { userId: i, activeAt: 0, usedAt: 0 });
    const due = () => hashes.filter((hash) => cache.takeRefresh(hash)).length;
    time.advance(4_999);
    expect(due()).toBe(0);
    // Halfway through the spread, about half have fallen due (the odds of fewer than 400 or more than
    // 600 are below one in a billion); the rest fall due by its end, each once.
    time.advance(1_001);
    const firstHalf = due();
    expect(firstHalf).toBeGreaterThan(400);
    expect(firstHalf).toBeLessThan(600);
    time.advance(1_000);
    expect(due()).toBe(1_000 - firstHalf);
  });

  it('hands out the read of a due entry once; its answer restarts the trust from when the read began, or drops it', () => {
    const time = clock();
    // Due halfway through its trust.
    const cache = createTokenCache({ ...options, readAgain: { from: 0.5, to: 0.5 }, now: time.now });
    cache.set('kept', { userId: 1, activeAt: 7, usedAt: 8 });
    cache.set('gone', { userId: 2, activeAt: 0, usedAt: 0 });
    time.advance(5_000);
    expect(cache.takeRefresh('kept')).toBe(true);
    expect(cache.takeRefresh('kept')).toBe(false);
    expect(cache.takeRefresh('gone')).toBe(true);
    const readAt = time.now();
    time.advance(1);
    cache.confirm('kept', readAt);
    cache.forget('gone');
    expect(cache.get('gone')).toBeUndefined();
    // Trusted from the read's start, with what this instance had recorded of its use.
    time.advance(4_999);
    expect(cache.takeRefresh('kept')).toBe(true);
    time.advance(4_999);
    expect(cache.get('kept')).toEqual(expect.objectContaining({ userId: 1, activeAt: 7, usedAt: 8 }));
    time.advance(1);
    expect(cache.get('kept')).toBeUndefined();
  });

  it('does not shorten the trust for a read older than the one that vouched last', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, now: time.now });
    const oldRead = time.now();
    time.advance(3_000);
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 });
    cache.confirm('a', oldRead);
    time.advance(9_999);
    expect(cache.get('a')?.userId).toBe(1);
  });

  it('trusts a lookup from when its read began, not from when it was answered', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, now: time.now });
    const readAt = time.now();
    time.advance(4_000);
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 }, readAt);
    time.advance(5_999);
    expect(cache.get('a')?.userId).toBe(1);
    time.advance(1);
    expect(cache.get('a')).toBeUndefined();
  });

  it('does not take back a token revoked while it was being read again', () => {
    const time = clock();
    const cache = createTokenCache({ ...options, readAgain: { from: 0.5, to: 0.5 }, now: time.now });
    cache.set('a', { userId: 1, activeAt: 0, usedAt: 0 });
    time.advance(5_000);
    expect(cache.takeRefresh('a')).toBe(true);
    const readAt = time.now();
    cache.revoke('a');
    cache.confirm('a', readAt);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
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
