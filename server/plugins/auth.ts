import { eq, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
    app.decorateRequest('user', null);

    app.decorate('authenticate', async (request: FastifyRequest) => {
      const token = parseAuthorization(request.headers.authorization);
      if (token === null) throw new NotAuthenticated();
      if (token === '' || token.length > 200) throw new NotAuthenticated('Invalid token.');
      const user = await findUserByToken(app.db, token);
      if (!user) throw new NotAuthenticated('Invalid token.');
      request.user = user;
    });
  },
  { name: 'auth', dependencies: ['database'] },
);

export async function findUserByToken(db: Db, token: string): Promise<AuthUser | null> {
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

  if (Date.now() - row.lastActiveAt.getTime() > ACTIVITY_RESOLUTION_MS) {
    await db.update(profiles).set({ lastActiveAt: sql`now()` }).where(eq(profiles.userId, row.id));
  }
  const { lastActiveAt: _, ...user } = row;
  return { ...user, token };
}
