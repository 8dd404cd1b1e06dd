import { eq, inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../db/client';
import { authTokens, profiles, users } from '../db/schema';
import { NotAuthenticated } from '../errors';
import { hashToken } from '../lib/tokens';

export interface AuthUser {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  hasSubscription: boolean;
  /** The raw token of this request, so that logout can revoke exactly it. */
  token: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** `onRequest` hook for routes that need a signed-in user. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** The user a token belongs to (HTTP and the socket handshake alike), noting their activity. */
    userForToken: (token: string) => Promise<AuthUser | null>;
  }
  interface FastifyRequest {
    user: AuthUser | null;
  }
}

/** Activity is written at most this often per user: the deck orders by it. */
const ACTIVITY_RESOLUTION_MS = 60_000;

export function parseAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Token\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/** The signed-in user of a request that passed `app.authenticate`. */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw new NotAuthenticated();
  return request.user;
}

export default fp(
  async (app) => {
    const activity = activityRecorder(app.db, app.log);
    app.addHook('onClose', () => activity.close());

    app.decorate('userForToken', async (token: string) => {
      const found = await findUserByToken(app.db, token);
      if (!found) return null;
      if (Date.now() - found.lastActiveAt.getTime() > ACTIVITY_RESOLUTION_MS) activity.record(found.user.id);
      return found.user;
    });

    app.decorateRequest('user', null);
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const token = parseAuthorization(request.headers.authorization);
      if (token === null) throw new NotAuthenticated();
      if (token === '' || token.length > 200) throw new NotAuthenticated('Invalid token.');
      const user = await app.userForToken(token);
      if (!user) throw new NotAuthenticated('Invalid token.');
      request.user = user;
    });
  },
  { name: 'auth', dependencies: ['database'] },
);

async function findUserByToken(db: Db, token: string): Promise<{ user: AuthUser; lastActiveAt: Date } | null> {
  const [row] = await db
    .select({
      id: users.id,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      hasSubscription: users.hasSubscription,
      lastActiveAt: profiles.lastActiveAt,
    })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .innerJoin(profiles, eq(profiles.userId, users.id))
    .where(eq(authTokens.tokenHash, hashToken(token)));
  if (!row) return null;
  const { lastActiveAt, ...user } = row;
  return { user: { ...user, token }, lastActiveAt };
}

/**
 * Activity is written beside the request, never in its path: the ids seen during one turn of the event
 * loop go out together in one UPDATE (one commit for many requests under load), and no request waits
 * for it. The deck orders by this column at minute resolution, so a lost write costs nothing.
 */
function activityRecorder(db: Db, log: FastifyBaseLogger) {
  let pending = new Set<number>();
  let writing: Promise<void> = Promise.resolve();

  function flush() {
    const ids = [...pending];
    pending = new Set();
    writing = db
      .update(profiles)
      .set({ lastActiveAt: sql`now()` })
      .where(inArray(profiles.userId, ids))
      .then(
        () => {},
        (error: unknown) => log.warn({ err: error }, 'could not record activity'),
      );
  }

  return {
    record(userId: number) {
      if (pending.size === 0) setImmediate(flush);
      pending.add(userId);
    },
    async close() {
      if (pending.size > 0) flush();
      await writing;
    },
  };
}
