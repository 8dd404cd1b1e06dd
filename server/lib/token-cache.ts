/**
 * Which user a token hash belongs to, remembered for a short while so that a busy client does not cost a
 * token query per request. A revocation is forgotten at once on the instance that made it and, through
 * the realtime layer, on the others; `ttlMs` bounds how long a token revoked while that news could not
 * travel (Redis away) still opens requests on another instance.
 */
export interface TokenCacheEntry {
  userId: number;
  /** When this instance last recorded the user's activity (or read it from the database). */
  activeAt: number;
}

export interface TokenCache {
  get(hash: string): TokenCacheEntry | undefined;
  set(hash: string, entry: TokenCacheEntry): void;
  forget(hash: string): void;
  readonly size: number;
}

export function createTokenCache(options: { ttlMs: number; maxEntries: number; now?: () => number }): TokenCache {
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order, and `set` re-inserts: the first key is always the oldest.
  const entries = new Map<string, TokenCacheEntry & { expiresAt: number }>();

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
      entries.delete(hash);
      entries.set(hash, { ...entry, expiresAt: now() + options.ttlMs });
      if (entries.size > options.maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
    },
    forget(hash) {
      entries.delete(hash);
    },
    get size() {
      return entries.size;
    },
  };
}
