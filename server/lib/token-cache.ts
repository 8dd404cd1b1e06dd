/**
 * Which user a token hash belongs to, remembered for a short while so that a busy client does not cost a
 * token query per request. A revocation is forgotten at once on the instance that made it and, through
 * the realtime layer, on the others; `ttlMs` bounds how long a token revoked while that news could not
 * travel (Redis away) still opens requests on another instance.
 *
 * A revoked token leaves a tombstone for `tombstoneMs`: a lookup that read the token's row just before
 * the revocation must not put it back, and a socket whose handshake was in flight must not outlive it.
 *
 * Each entry lives a random time between `ttlMs × (1 − jitter)` and `ttlMs`. With one fixed lifetime,
 * tokens first seen together (an instance starting, a room of people opening the app at once) would
 * all expire together, again and again: every ~10 s a wave of lookups in the request path, on top of
 * the load of the moment (bench/README.md). The bound on a revocation stays `ttlMs`.
 */
export interface TokenCacheEntry {
  userId: number;
  /** When this instance last recorded the user's activity (or read it from the database). */
  activeAt: number;
  /** When this instance last recorded the token's own use (its 60-day idle lifetime slides with it). */
  usedAt: number;
}

export interface TokenCache {
  get(hash: string): TokenCacheEntry | undefined;
  /** Remembers a lookup, unless the token was revoked since (it has a tombstone). */
  set(hash: string, entry: TokenCacheEntry): void;
  revoke(hash: string): void;
  isRevoked(hash: string): boolean;
  readonly size: number;
}

export function createTokenCache(options: {
  ttlMs: number;
  /** The share of `ttlMs` that an entry's lifetime may fall short of it, from 0 to 1. */
  jitter?: number;
  maxEntries: number;
  tombstoneMs: number;
  now?: () => number;
  random?: () => number;
}): TokenCache {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const lifetime = () => options.ttlMs * (1 - (options.jitter ?? 0) * random());
  // A Map iterates in insertion order, and `set` re-inserts: the first key is always the oldest.
  const entries = new Map<string, TokenCacheEntry & { expiresAt: number }>();
  const tombstones = new Map<string, number>();

  const isRevoked = (hash: string) => {
    const until = tombstones.get(hash);
    return until !== undefined && until > now();
  };

  return {
    get(hash) {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(hash);
        return undefined;
      }
      return entry;
    },
    set(hash, entry) {
      if (isRevoked(hash)) return;
      entries.delete(hash);
      entries.set(hash, { ...entry, expiresAt: now() + lifetime() });
      if (entries.size > options.maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
    },
    revoke(hash) {
      entries.delete(hash);
      // Tombstones are added in time order: the expired ones are at the front.
      for (const [old, until] of tombstones) {
        if (until > now()) break;
        tombstones.delete(old);
      }
      tombstones.delete(hash);
      tombstones.set(hash, now() + options.tombstoneMs);
    },
    isRevoked,
    get size() {
      return entries.size;
    },
  };
}
