/**
 * Which user a token hash belongs to, remembered for a short while so that a busy client does not cost a
 * token query per request. A revocation is forgotten at once on the instance that made it and, through
 * the realtime layer, on the others; `ttlMs` bounds how long a token revoked while that news could not
 * travel (Redis away) still opens requests on another instance.
 *
 * A revoked token leaves a tombstone for `tombstoneMs`: a lookup that read the token's row just before
 * the revocation must not put it back, and a socket whose handshake was in flight must not outlive it.
 *
 * An entry is trusted for `ttlMs` after the read that vouched for it began, and no longer. Before that,
 * at a random share of `ttlMs` between `readAgain.from` and `readAgain.to`, it falls due: the next
 * request it serves hands the caller the read (`takeRefresh`), which runs beside that request, so that a
 * client in steady use never waits for its token to be read again. The random point spreads the reads:
 * tokens first seen together (an instance starting, a room of people opening the app at once) would
 * otherwise be read again together, a wave on top of the load of the moment (bench/README.md). What
 * is left between `to` and the end of the trust is the window a client's next request must fall in.
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
  /**
   * Remembers a lookup, unless the token was revoked since (it has a tombstone). `readAt`: when the read
   * that found the token began (now, if not given); the trust runs from then. The cache keeps a copy of
   * `entry`: what changes later goes through the entry `get` returns.
   */
  set(hash: string, entry: TokenCacheEntry, readAt?: number): void;
  /**
   * True, once, when the entry has fallen due: the caller reads the token again and answers with
   * `confirm` (still there) or `forget` (gone). No other caller is handed the same read meanwhile; one
   * that fails is not retried, and the entry lapses at the end of its trust.
   */
  takeRefresh(hash: string): boolean;
  /** The read begun at `readAt` found the token still valid: the trust starts again from then. */
  confirm(hash: string, readAt: number): void;
  /** The token is gone (expired, or deleted where the news could not reach this instance). */
  forget(hash: string): void;
  revoke(hash: string): void;
  isRevoked(hash: string): boolean;
  readonly size: number;
}

interface Held extends TokenCacheEntry {
  expiresAt: number;
  dueAt: number;
  refreshing: boolean;
}

export function createTokenCache(options: {
  ttlMs: number;
  /** When an entry falls due, as shares of `ttlMs` (0 ≤ from ≤ to < 1); never, without it. */
  readAgain?: { from: number; to: number };
  maxEntries: number;
  tombstoneMs: number;
  now?: () => number;
  random?: () => number;
}): TokenCache {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const { from, to } = options.readAgain ?? { from: 1, to: 1 };
  const dueAfter = () => options.ttlMs * (from + (to - from) * random());
  // A Map iterates in insertion order, and `hold` re-inserts: the first key is always the oldest.
  const entries = new Map<string, Held>();
  const tombstones = new Map<string, number>();

  const isRevoked = (hash: string) => {
    const until = tombstones.get(hash);
    return until !== undefined && until > now();
  };

  const live = (hash: string) => {
    const entry = entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(hash);
      return undefined;
    }
    return entry;
  };

  const hold = (hash: string, entry: TokenCacheEntry, readAt: number) => {
    entries.delete(hash);
    const { userId, activeAt, usedAt } = entry;
    entries.set(hash, { userId, activeAt, usedAt, expiresAt: readAt + options.ttlMs, dueAt: readAt + dueAfter(), refreshing: false });
    if (entries.size > options.maxEntries) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
  };

  return {
    get: live,
    set(hash, entry, readAt = now()) {
      if (isRevoked(hash)) return;
      hold(hash, entry, readAt);
    },
    takeRefresh(hash) {
      const entry = live(hash);
      if (!entry || entry.refreshing || entry.dueAt > now()) return false;
      entry.refreshing = true;
      return true;
    },
    confirm(hash, readAt) {
      const entry = live(hash);
      // Revoked (or lapsed) while it was being read: nothing to vouch for. A later read may have
      // vouched already (the entry lapsed and a request read it again): the trust only moves forward.
      if (entry && !isRevoked(hash)) hold(hash, entry, Math.max(readAt, entry.expiresAt - options.ttlMs));
    },
    forget(hash) {
      entries.delete(hash);
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
