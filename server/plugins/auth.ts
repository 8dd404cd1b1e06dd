import { eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type Db, PreparedStatement } from '../db/client';
import { authTokens, profiles } from '../db/schema';
import { AccountSuspended, NotAuthenticated } from '../errors';
import { addressOf, type LimitName, userSubject } from '../lib/limits';
import { createTokenCache, type TokenCacheEntry } from '../lib/token-cache';
import { hashToken, TOKEN_IDLE_LIFETIME_MS } from '../lib/tokens';
import { inFlight } from '../lib/turns';
import { serverText } from '../../shared/i18n/server-messages';

export interface AuthUser {
  id: number;
  /** The hash of this request's token, so that logout (and a socket's revocation) names exactly it. */
  tokenHash: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** `onRequest` hook for routes that need a signed-in user. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /**
     * The user a token belongs to (HTTP and the socket handshake alike), noting their activity;
     * `suspended` for a session a ban ended, which says so rather than that the token is unknown.
     */
    userForToken: (token: string) => Promise<AuthUser | 'suspended' | null>;
    /**
     * Ends a token's session: its row, then every listener of `onTokenRevoked` (realtime tells the other
     * instances, and waits for them to drop it: once this resolves, the token opens nothing anywhere).
     */
    revokeToken: (tokenHash: string) => Promise<void>;
    /** Ends every session of a user: their sockets are dropped on every instance. Returns how many were ended. */
    revokeUserTokens: (userId: number) => Promise<number>;
    /**
     * Sessions a ban, a new password or the account's deletion ended in its own transaction, forgotten
     * here and on every instance, their sockets dropped, as `revokeUserTokens` does. A ban's rows are kept, marked
     * (`endedByBan`), until they would have expired, so that a phone away during the ban comes back to
     * "suspended", not to a session closed for no reason it can tell; a marked row never authenticates
     * again.
     */
    suspendedTokens: (tokenHashes: string[]) => Promise<void>;
    /** A listener's promise is waited for: the revocation is answered once it is in force where the listener reaches. */
    onTokenRevoked: (listener: (tokenHash: string) => void | Promise<void>) => void;
    /** Another instance revoked this token: forget it here too. */
    revokeTokenHere: (tokenHash: string) => void;
    /** Whether this instance heard of the token's revocation lately (a handshake in flight may have missed it). */
    isTokenRevoked: (tokenHash: string) => boolean;
  }
  interface FastifyRequest {
    user: AuthUser | null;
  }
}

/** Activity is written at most this often per user: the deck orders by it. */
const ACTIVITY_RESOLUTION_MS = 60_000;
/** A token's use is written at most this often: plenty of precision for a 60-day lifetime. */
const TOKEN_USE_RESOLUTION_MS = 60 * 60 * 1000;
/**
 * A token in use is read again beside a request (never in its path) once 50–70 % of its trust has gone
 * (5–7 s of the 10), spread so that tokens first seen together are not read again together. The last
 * 3 s or more of the trust, less the moment the reads are gathered (`TOKEN_READS_GATHERED`), are the
 * window for the next request that sets the read off: a phone at a party swipes every 2–5 s. How long
 * a token is trusted at most is `config.tokenTrustMs`.
 */
const TOKEN_READ_AGAIN = { from: 0.5, to: 0.7 };
/**
 * How long reads of tokens that fell due are gathered before they go out together, as a share of the
 * trust (0.2 s of the 10): a read still begins before 72 % of its token’s trust has gone.
 */
const TOKEN_READS_GATHERED = 0.02;
/** Enough for every active client of a busy instance; the oldest lookups go first beyond it. */
const TOKEN_CACHE_ENTRIES = 100_000;
/** Far longer than any lookup or handshake that could have started before a revocation. */
const TOMBSTONE_MS = 60_000;

export function parseAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Token\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/**
 * A limit for a route anyone may call, taken before it authenticates: per person when the request's
 * token is good (a venue's crowd shares one address, never one account), per address otherwise, or
 * when its token is no good or a suspended account's (which the route then answers).
 */
export const personOrAddressLimit = (app: FastifyInstance, perPerson: LimitName, perAddress: LimitName) => async (request: FastifyRequest) => {
  const token = parseAuthorization(request.headers.authorization);
  const user = token && token.length <= 200 ? await app.userForToken(token).catch(() => null) : null;
  if (user && user !== 'suspended') return app.limits.consume(perPerson, userSubject(user.id));
  return app.limits.consume(perAddress, addressOf(request));
};

/** The signed-in user of a request that passed `app.authenticate`. */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw new NotAuthenticated();
  return request.user;
}

export default fp(
  async (app) => {
    const activity = activityRecorder(app.db, app.log);
    app.addHook('onClose', () => activity.close());
    const cache = createTokenCache({
      ttlMs: app.config.tokenTrustMs,
      readAgain: TOKEN_READ_AGAIN,
      maxEntries: TOKEN_CACHE_ENTRIES,
      tombstoneMs: TOMBSTONE_MS,
    });
    const revocationListeners: Array<(tokenHash: string) => void | Promise<void>> = [];

    // Reads of tokens in use, beside the requests they came with, gathered for a moment and made in one
    // statement: a party's phones each set one off every few requests (a third to a half of a swipe's
    // statements were these reads, each a round trip of its own). Awaited on close; those still
    // gathering are dropped (their entries lapse, as after a failed read).
    const refreshes = inFlight();
    let gathering = new Set<string>();
    let gathered: NodeJS.Timeout | null = null;
    const readGathered = () => {
      gathered = null;
      const hashes = [...gathering];
      gathering = new Set();
      const readAt = Date.now();
      const read = findTokenOwners(app.db, hashes).then(
        (owners) => {
          for (const hash of hashes) {
            const found = owners.get(hash);
            if (found && !found.endedByBan) cache.confirm(hash, readAt);
            else cache.forget(hash);
          }
        },
        (error: unknown) => app.log.warn({ err: error }, 'could not read tokens again; they lapse at the end of their trust'),
      );
      refreshes.track(read);
    };
    const refresh = (hash: string) => {
      gathering.add(hash);
      gathered ??= setTimeout(readGathered, app.config.tokenTrustMs * TOKEN_READS_GATHERED);
    };
    app.addHook('onClose', async () => {
      if (gathered) clearTimeout(gathered);
      await refreshes.settled();
    });

    /** Records the user's activity and the token's use when they are due, and notes it in the entry. */
    const noteUse = (hash: string, entry: TokenCacheEntry) => {
      const now = Date.now();
      if (now - entry.activeAt > ACTIVITY_RESOLUTION_MS) {
        entry.activeAt = now;
        activity.record(entry.userId);
      }
      if (now - entry.usedAt > TOKEN_USE_RESOLUTION_MS) {
        entry.usedAt = now;
        activity.recordTokenUse(hash);
      }
    };

    app.decorate('userForToken', async (token: string) => {
      const hash = hashToken(token);
      const cached = cache.get(hash);
      if (cached) {
        if (cache.takeRefresh(hash)) refresh(hash);
        noteUse(hash, cached);
        return { id: cached.userId, tokenHash: hash };
      }
      const readAt = Date.now();
      const found = await findTokenOwner(app.db, hash);
      if (found?.endedByBan) return 'suspended';
      // Revoked while the row was being read: the row was there, the session is not.
      if (!found || cache.isRevoked(hash)) return null;
      const entry = { userId: found.userId, activeAt: found.lastActiveAt.getTime(), usedAt: found.lastUsedAt.getTime() };
      // Noted before the cache keeps its copy of the entry: noted after, on the entry given, the copy
      // kept the times read from the database, and the next request wrote both again.
      noteUse(hash, entry);
      cache.set(hash, entry, readAt);
      return { id: entry.userId, tokenHash: hash };
    });

    const revoked = async (tokenHashes: string[]) => {
      for (const tokenHash of tokenHashes) cache.revoke(tokenHash);
      await Promise.all(tokenHashes.flatMap((tokenHash) => revocationListeners.map((listener) => listener(tokenHash))));
    };
    app.decorate('revokeToken', async (tokenHash: string) => {
      await app.db.delete(authTokens).where(eq(authTokens.tokenHash, tokenHash));
      await revoked([tokenHash]);
    });
    app.decorate('revokeUserTokens', async (userId: number) => {
      const deleted = await app.db.delete(authTokens).where(eq(authTokens.userId, userId)).returning({ tokenHash: authTokens.tokenHash });
      await revoked(deleted.map((row) => row.tokenHash));
      return deleted.length;
    });
    app.decorate('suspendedTokens', revoked);
    app.decorate('onTokenRevoked', (listener: (tokenHash: string) => void) => {
      revocationListeners.push(listener);
    });
    app.decorate('revokeTokenHere', (tokenHash: string) => cache.revoke(tokenHash));
    app.decorate('isTokenRevoked', (tokenHash: string) => cache.isRevoked(tokenHash));

    app.decorateRequest('user', null);
    app.decorate('authenticate', async (request: FastifyRequest, reply: FastifyReply) => {
      const token = parseAuthorization(request.headers.authorization);
      if (token === null) throw new NotAuthenticated();
      if (token === '' || token.length > 200) throw new NotAuthenticated(serverText('invalid_token'));
      const user = await app.userForToken(token);
      if (user === 'suspended') throw new AccountSuspended();
      if (!user) throw new NotAuthenticated(serverText('invalid_token'));
      request.user = user;
      // A signed-in answer is that user's alone: no cache keeps it (a shared phone's browser after
      // sign-out), unless the route says otherwise.
      void reply.header('Cache-Control', 'no-store');
    });
  },
  { name: 'auth', dependencies: ['database'] },
);

// The tokens that count, as `t` beside their owner's profile `p`: a token past its idle lifetime is no
// token (its row is purged later), even one a ban ended. Read one by one and together, below.
const liveTokens = sql`${authTokens} t join ${profiles} p on p.user_id = t.user_id
    where t.last_used_at > now() - ${sql.raw(`interval '${TOKEN_IDLE_LIFETIME_MS / 1000} seconds'`)}`;

const tokenOwner = new PreparedStatement<{ tokenHash: string }>(
  sql`select t.user_id, p.last_active_at, t.last_used_at, t.ended_by_ban from ${liveTokens}
      and t.token_hash = ${sql.placeholder('tokenHash')}`,
);

// The tokens read again together (`refresh`): one text for any number of hashes (hex, safe in an
// array literal), as the activity's flush below.
const tokenOwners = new PreparedStatement<{ tokenHashes: string }>(
  sql`select t.token_hash, t.ended_by_ban from ${liveTokens}
      and t.token_hash = any(${sql.placeholder('tokenHashes')}::text[])`,
);

/** Of these tokens, those still valid, by hash: whether a ban ended each. */
async function findTokenOwners(db: Db, tokenHashes: string[]): Promise<Map<string, { endedByBan: boolean }>> {
  const rows = await tokenOwners.run<{ token_hash: string; ended_by_ban: boolean }>(db, { tokenHashes: `{${tokenHashes.join(',')}}` });
  return new Map(rows.map((row) => [row.token_hash, { endedByBan: row.ended_by_ban }]));
}

async function findTokenOwner(
  db: Db,
  tokenHash: string,
): Promise<{ userId: number; lastActiveAt: Date; lastUsedAt: Date; endedByBan: boolean } | null> {
  const [row] = await tokenOwner.run<{ user_id: number; last_active_at: Date | string; last_used_at: Date | string; ended_by_ban: boolean }>(db, {
    tokenHash,
  });
  return row
    ? {
        userId: Number(row.user_id),
        lastActiveAt: new Date(row.last_active_at),
        lastUsedAt: new Date(row.last_used_at),
        endedByBan: row.ended_by_ban,
      }
    : null;
}

// The flushes below: one text for any number of ids (an array literal, as the deck's genders), so it
// is parsed once per connection rather than built and parsed again for each list's length. Token
// hashes are hex, safe in an array literal. Both are written behind the requests (`writeBehind`), on
// the generic plan: for an array it cannot see, PostgreSQL's estimate of the generic plan stays dearer
// than a custom plan's for a list of one or two, so it planned the activity's UPDATE afresh at every
// flush (a 4-minute party: 9,346 plans in 9,336 flushes, 1.5 s of planning beside 1.8 s of running
// it); the plan is the same primary-key lookup for any length.
const touchActivity = new PreparedStatement<{ ids: string }>(
  sql`update ${profiles} set last_active_at = now() where user_id = any(${sql.placeholder('ids')}::int[])`,
);
const touchTokens = new PreparedStatement<{ hashes: string }>(
  sql`update ${authTokens} set last_used_at = now() where token_hash = any(${sql.placeholder('hashes')}::text[])`,
);

/**
 * Activity is written beside the request, never in its path: the ids seen during one turn of the event
 * loop go out together in one UPDATE (one commit for many requests under load), and no request waits
 * for it. The deck orders by this column at minute resolution, so a lost write costs nothing.
 */
function activityRecorder(db: Db, log: FastifyBaseLogger) {
  let pending = new Set<number>();
  let pendingTokens = new Set<string>();
  let writing: Promise<void> = Promise.resolve();

  const warn = (what: string) => (error: unknown) => log.warn({ err: error }, `could not record ${what}`);

  function flush() {
    const ids = [...pending];
    const tokens = [...pendingTokens];
    pending = new Set();
    pendingTokens = new Set();
    const writes: Promise<void>[] = [];
    if (ids.length > 0) writes.push(touchActivity.writeBehind(db, { ids: `{${ids.join(',')}}` }).catch(warn('activity')));
    // Each token's use slides its 60-day lifetime; rare (hourly per token), so batched the same way.
    if (tokens.length > 0) writes.push(touchTokens.writeBehind(db, { hashes: `{${tokens.join(',')}}` }).catch(warn('token use')));
    writing = Promise.all(writes).then(() => {});
  }

  const schedule = () => {
    if (pending.size === 0 && pendingTokens.size === 0) setImmediate(flush);
  };

  return {
    record(userId: number) {
      schedule();
      pending.add(userId);
    },
    recordTokenUse(tokenHash: string) {
      schedule();
      pendingTokens.add(tokenHash);
    },
    async close() {
      if (pending.size > 0 || pendingTokens.size > 0) flush();
      await writing;
    },
  };
}
