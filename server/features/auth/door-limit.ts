import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Throttled } from '../../errors';
import { addressOf, type LimitName } from '../../lib/limits';
import { openEventOfPass } from '../events/service';

/**
 * The limit of a way in (register, login, Google login), counted once the body is read, before it is
 * validated. At a party the venue's whole crowd is behind its one Wi-Fi address, and the newcomers sign
 * up and in within the doors-open minute: a request carrying a current join pass of an open event (the
 * scan's, kept by the client through sign-up) counts against that event's budget, sized for its door.
 * Any other — no pass, or one expired, forged, or of an event closed or gone, or of one whose organizer
 * has not verified their e-mail (an account made for the purpose lends no door) — counts against its
 * address's, as before. So does a pass past its own few uses (`door:pass`: one phone signs up and in,
 * it does not try thousands of accounts) or past its event's budget (someone draining it leaves the
 * newcomers their address's allowance, not a refusal). The login's per (account, address) count comes
 * on top either way. So do its misses (`misses`, counted by `countDoorMiss`): once an address's logins
 * let in by a pass have failed that many times, its passes lift them no more, until the window ends.
 */
export const doorLimit =
  (app: FastifyInstance, perAddress: LimitName, perEvent: LimitName, misses?: LimitName) =>
  async (request: FastifyRequest): Promise<void> => {
    const body = request.body as { pass?: unknown } | null | undefined;
    const pass = typeof body === 'object' && body !== null && typeof body.pass === 'string' ? body.pass : null;
    const eventId = pass === null ? null : await openEventOfPass(app.db, app.sealer, pass);
    const missedOut = misses !== undefined && eventId !== null && (await app.limits.usedUp(misses, addressOf(request)));
    if (eventId !== null && !missedOut && (await withinDoorBudget(app, perEvent, eventId, pass!))) {
      if (misses) throughDoor.add(request);
      return;
    }
    return app.limits.consume(perAddress, addressOf(request));
  };

/** Requests `doorLimit` let in on their event's budget, where their misses count. */
const throughDoor = new WeakSet<FastifyRequest>();

/**
 * A login that failed (its credentials were wrong): one of its address's misses if its pass let it in.
 * Read before, not held during the login, as a crowd's logins in flight at once must not use them up.
 */
export async function countDoorMiss(app: FastifyInstance, request: FastifyRequest, misses: LimitName): Promise<void> {
  if (throughDoor.has(request)) await app.limits.consumeEach(misses, [addressOf(request)]);
}

/** Counts one use of the pass, then one of its event's budget: false when either is used up. */
async function withinDoorBudget(app: FastifyInstance, perEvent: LimitName, eventId: number, pass: string) {
  try {
    await app.limits.consume('door:pass', pass);
    await app.limits.consume(perEvent, `event:${eventId}`);
    return true;
  } catch (error) {
    if (error instanceof Throttled) return false;
    throw error;
  }
}
