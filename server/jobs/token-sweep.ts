import { and, eq, gt, inArray } from 'drizzle-orm';
import { authTokens } from '../db/schema';
import { TOKEN_IDLE_LIFETIME_MS } from '../lib/tokens';
import type { Job } from './job';

/** Hashes per query: well under PostgreSQL's 65,535 bind parameters. */
const CHUNK = 5000;

/**
 * The handshake checks the token once; a token revoked later (logout, a ban) or expired (60 days unused)
 * must not keep a socket listening.
 * A logout drops its sockets at once on every instance it can reach; this is the net for the news that
 * could not travel (Redis away). Every minute, this instance's sockets whose token is gone are
 * disconnected — server-side, so the client does not reconnect with the dead token. Each instance
 * sweeps its own sockets.
 */
export const tokenSweep: Job = {
  name: 'token-sweep',
  everyMs: 60_000,
  scope: 'instance',
  async run(app) {
    const byHash = new Map<string, Array<{ disconnect: (close: boolean) => unknown }>>();
    for (const socket of app.io.of('/').sockets.values()) {
      const hash = socket.data.user.tokenHash;
      const sockets = byHash.get(hash);
      if (sockets) sockets.push(socket);
      else byHash.set(hash, [socket]);
    }
    const hashes = [...byHash.keys()];
    const alive = new Set<string>();
    for (let i = 0; i < hashes.length; i += CHUNK) {
      const rows = await app.db
        .select({ hash: authTokens.tokenHash })
        .from(authTokens)
        .where(
          and(
            inArray(authTokens.tokenHash, hashes.slice(i, i + CHUNK)),
            gt(authTokens.lastUsedAt, new Date(Date.now() - TOKEN_IDLE_LIFETIME_MS)),
            // A session a ban ended keeps its row (to say so), not its sockets.
            eq(authTokens.endedByBan, false),
          ),
        );
      for (const row of rows) alive.add(row.hash);
    }
    let disconnected = 0;
    for (const [hash, sockets] of byHash) {
      if (alive.has(hash)) continue;
      for (const socket of sockets) socket.disconnect(true);
      disconnected += sockets.length;
    }
    return { disconnected };
  },
};
