import { and, gt, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { authTokens } from '../db/schema';
import { TOKEN_IDLE_LIFETIME_MS } from '../lib/tokens';
import type { RealtimeServer } from './plugin';

/** How long a socket may outlive its token (logout elsewhere, revoked): the sweep's period. */
export const TOKEN_SWEEP_MS = 60_000;
/** Hashes per query: well under PostgreSQL's 65,535 bind parameters. */
const CHUNK = 5000;

/**
 * The handshake checks the token once; a token revoked later (logout) or expired (60 days unused)
 * must not keep a socket listening.
 * A logout drops its sockets at once on every instance it can reach; this is the net for the news that
 * could not travel (Redis away). Every TOKEN_SWEEP_MS, this instance's sockets whose token is gone are
 * disconnected — server-side, so the client does not reconnect with the dead token.
 */
export function startTokenSweep(app: FastifyInstance, io: RealtimeServer) {
  async function sweep() {
    const byHash = new Map<string, Array<{ disconnect: (close: boolean) => unknown }>>();
    for (const socket of io.of('/').sockets.values()) {
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
          ),
        );
      for (const row of rows) alive.add(row.hash);
    }
    let closed = 0;
    for (const [hash, sockets] of byHash) {
      if (alive.has(hash)) continue;
      for (const socket of sockets) socket.disconnect(true);
      closed += sockets.length;
    }
    return closed;
  }

  const timer = setInterval(() => {
    sweep().catch((error: unknown) => app.log.warn({ err: error }, 'token sweep failed'));
  }, TOKEN_SWEEP_MS);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
