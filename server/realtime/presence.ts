import type { FastifyInstance } from 'fastify';
import { rooms } from '../../shared/events';
import { listPartnerIds } from '../features/conversations/service';
import { turnsByKey } from '../lib/turns';
import { createPresenceRoll } from './presence-roll';
import type { RealtimeServer } from './types';

/** How long a cluster-wide "is this user still connected anywhere?" may take. */
const FETCH_SOCKETS_TIMEOUT_MS = 1000;

/** How soon a user whose last socket here closed is looked for again when the cluster could not say where they are. */
const LOOK_AGAIN_MS = 2000;

/**
 * Online/offline, told only to the user's matches. A user is online while any socket of theirs is open
 * on any instance: the first local socket announces "online" (a repeat is harmless), and the last local
 * one announces "offline" only after the cluster confirms no other instance holds one. While the cluster
 * cannot say (Redis away, an instance slow to answer), the user stays as they were and is looked for
 * again a moment later: said offline on this instance's word alone, a user still connected to another
 * would go offline and come back for their matches.
 */
export function createPresence(app: FastifyInstance, io: RealtimeServer) {
  const localSockets = new Map<number, number>();
  /**
   * A user's announcements on this instance go out in the order their sockets came and went: each
   * reads the partners before it publishes, and two reads on two pooled connections may answer in
   * either order, so a quick reload's "online" could follow its "offline" (or the reverse), and the
   * partners would show the wrong one until the next change.
   */
  const inTurn = turnsByKey<number>();
  /** The users to look for again, once the cluster may answer (`lookAgainLater`). */
  const lookingAgain = new Map<number, ReturnType<typeof setTimeout>>();
  let closed = false;

  async function announce(userId: number, online: boolean) {
    const partners = await listPartnerIds(app.db, userId);
    app.publish(partners, 'presence', { user_id: userId, online });
  }

  /** Which of these users any instance holds a socket of; rejects when the cluster does not answer in time. */
  async function connectedInCluster(userIds: number[]): Promise<Set<number>> {
    const online = new Set<number>();
    if (userIds.length === 0) return online;
    const sockets = await io.in(userIds.map(rooms.user)).timeout(FETCH_SOCKETS_TIMEOUT_MS).fetchSockets();
    for (const socket of sockets) online.add(socket.data.user.id);
    return online;
  }

  async function connectedAnywhere(userIds: number[]): Promise<Set<number>> {
    try {
      return await connectedInCluster(userIds);
    } catch (error) {
      const online = new Set<number>();
      for (const id of userIds) if (localSockets.has(id)) online.add(id);
      // An instance slow to answer while Redis answers: the roll says whom the other instances hold (the
      // stalled one's users too, while it is on the roll), where this instance's own view alone would
      // list every match on the others offline, and the app takes the list as it is told. A user who has
      // just left another instance may be read there still (taken off at once, or at its next beat if
      // that failed); while the cluster does not answer, that instance holds their "offline" back too,
      // and says it once it can, after this answer.
      let byRoll = false;
      if (roll) {
        try {
          for (const id of await roll.elsewhere(userIds.filter((userId) => !online.has(userId)))) online.add(id);
          byRoll = true;
        } catch {
          // Redis itself away: this instance's own view is the best there is.
        }
      }
      app.log.warn({ err: error }, `presence: cluster lookup failed, using local sockets${byRoll ? ' and the presence roll' : ' only'}`);
      return online;
    }
  }

  /**
   * The user's last socket here has closed: says them offline once the cluster confirms that no instance
   * holds a socket of theirs. While it cannot tell, they stay as they were, and are looked for again.
   */
  async function sayOfflineUnlessConnected(userId: number, lookedBefore: boolean) {
    // A new local socket may have arrived while the announcements before this one went out.
    if (localSockets.has(userId)) return;
    let stillOnline: Set<number>;
    try {
      stillOnline = await connectedInCluster([userId]);
    } catch (error) {
      // Once a user, at warn: during a Redis outage every user who leaves is looked for again and again.
      app.log[lookedBefore ? 'debug' : 'warn']({ err: error, userId }, 'presence: cluster lookup failed, looking again before saying offline');
      lookAgainLater(userId);
      return;
    }
    // Or while the cluster was asked.
    if (stillOnline.has(userId) || localSockets.has(userId)) return;
    await announce(userId, false);
    // A socket of theirs that finished its handshake on another instance after the cluster answered
    // (a page reloaded onto it) has said online there, maybe ahead of this offline. Asked again,
    // after it went out, such a socket is found, and online said after it.
    if ((await connectedAnywhere([userId])).has(userId)) await announce(userId, true);
  }

  function lookAgainLater(userId: number) {
    if (closed || lookingAgain.has(userId)) return;
    const timer = setTimeout(() => {
      lookingAgain.delete(userId);
      inTurn(userId, () => sayOfflineUnlessConnected(userId, true)).catch((error: unknown) =>
        app.log.error({ err: error, userId }, 'presence: could not say a user offline'),
      );
    }, LOOK_AGAIN_MS);
    timer.unref();
    lookingAgain.set(userId, timer);
  }

  /** Says each user online or offline, in the user's turn, if this instance's sockets still agree. */
  async function sayAll(userIds: number[], online: boolean) {
    await Promise.all(userIds.map((id) => inTurn(id, async () => (localSockets.has(id) === online ? announce(id, online) : undefined))));
  }

  const roll =
    app.redis &&
    createPresenceRoll({
      redis: app.redis,
      log: app.log,
      beatMs: app.config.presenceBeatMs,
      localUsers: () => [...localSockets.keys()],
      async lapsed(userIds) {
        // Strictly the cluster's answer: this instance's own view would say offline the users of a third.
        const online = await connectedInCluster(userIds);
        await sayAll(userIds.filter((id) => !online.has(id)), false);
      },
      restored: (userIds) => sayAll(userIds, true),
    });

  return {
    async connected(userId: number) {
      const count = (localSockets.get(userId) ?? 0) + 1;
      localSockets.set(userId, count);
      if (count !== 1) return;
      roll?.joined(userId);
      await inTurn(userId, () => announce(userId, true));
    },

    async disconnected(userId: number) {
      const count = (localSockets.get(userId) ?? 1) - 1;
      if (count > 0) {
        localSockets.set(userId, count);
        return;
      }
      localSockets.delete(userId);
      roll?.left(userId);
      await inTurn(userId, () => sayOfflineUnlessConnected(userId, false));
    },

    /** Which of the user's matches are connected right now. */
    async onlinePartners(userId: number): Promise<number[]> {
      const partners = await listPartnerIds(app.db, userId);
      const online = await connectedAnywhere(partners);
      return partners.filter((id) => online.has(id));
    },

    /** Off the presence roll, once the sockets' disconnects have said their users offline. */
    async close() {
      closed = true;
      for (const timer of lookingAgain.values()) clearTimeout(timer);
      lookingAgain.clear();
      await roll?.close();
    },
  };
}

export type Presence = ReturnType<typeof createPresence>;
