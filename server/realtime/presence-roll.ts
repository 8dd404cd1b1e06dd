import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { REDIS_COMMAND_TIMEOUT_MS, type Redis, withTimeout } from '../lib/redis';

export interface PresenceRollOptions {
  redis: Redis;
  log: FastifyBaseLogger;
  beatMs: number;
  /** The users this instance holds a socket of, now. */
  localUsers: () => number[];
  /**
   * The users of an instance gone without a word: says offline those no instance holds a socket of.
   * Rejects when it cannot tell (the cluster did not answer): the roll keeps them for the next beat.
   */
  lapsed: (userIds: number[]) => Promise<void>;
  /** This instance was taken for gone (stalled, or cut off from Redis, for three beats): says its users online again. */
  restored: (userIds: number[]) => Promise<void>;
}

/**
 * Which users each instance holds sockets of, kept in Redis for when an instance stops without a word
 * (killed, its machine gone): its own disconnects would have said its users offline, and without them
 * their matches on the other instances would see them online until their next connect — hours, for a
 * phone asleep in a pocket. Every instance writes its users and a key that lapses three beats on, each
 * beat; the first other instance to find that key gone takes the instance off the roll, and says offline
 * those of its users that no instance holds. An instance that finds itself off the roll while alive puts
 * itself back, and says its users online again. One key per command: Redis Cluster holds them anywhere.
 */
export function createPresenceRoll(options: PresenceRollOptions) {
  const { redis, log, beatMs } = options;
  const client = redis.commands;
  const id = randomBytes(8).toString('hex');
  const roll = `${redis.prefix}:presence:instances`;
  const usersOf = (instance: string) => `${redis.prefix}:presence:${instance}:users`;
  const aliveOf = (instance: string) => `${redis.prefix}:presence:${instance}:alive`;

  const command = <T>(name: string, run: () => Promise<T>): Promise<T> =>
    client.isReady ? withTimeout(run(), REDIS_COMMAND_TIMEOUT_MS, name) : Promise.reject(new Error('redis is not connected'));

  /** This instance's entry: its users as they are now, alive for three beats; whether it was off the roll. */
  async function beat(): Promise<boolean> {
    const users = options.localUsers().map(String);
    const key = usersOf(id);
    const write = client.multi().del(key);
    if (users.length > 0) write.sAdd(key, users);
    await command('MULTI', () => write.set(aliveOf(id), '1', { PX: beatMs * 3 }).exec());
    return (await command('SADD', () => client.sAdd(roll, id))) === 1;
  }

  /** Takes every lapsed instance off the roll, and says its users offline. */
  async function sweep() {
    const others = (await command('SMEMBERS', () => client.sMembers(roll))).filter((instance) => instance !== id);
    for (const other of others) {
      if ((await command('EXISTS', () => client.exists(aliveOf(other)))) === 1) continue;
      // Of the instances that find it lapsed at once, one takes it.
      if ((await command('SREM', () => client.sRem(roll, other))) === 0) continue;
      const users = await command('SMEMBERS', () => client.sMembers(usersOf(other)));
      try {
        await options.lapsed(users.map(Number));
        await command('DEL', () => client.del(usersOf(other)));
        log.warn({ instance: other, users: users.length }, 'presence: an instance stopped without a word: its users were said offline');
      } catch (error) {
        // Back on the roll, for the next beat to try again: its users stay as they were said until then.
        await command('SADD', () => client.sAdd(roll, other));
        throw error;
      }
    }
  }

  let first = true;
  /** The turn under way, if one is. */
  let running: Promise<void> | null = null;
  async function tick() {
    const wasOff = await beat();
    if (wasOff && !first) {
      log.warn('presence: this instance was taken for gone: saying its users online again');
      await options.restored(options.localUsers());
    }
    first = false;
    await sweep();
  }
  const turn = () => {
    // One turn at a time, and a beat due while one runs is skipped: a slow Redis (or a lapsed
    // instance's users said offline slowly) must not pile turns up, to run back to back once it is over.
    if (running) return;
    running = tick()
      .catch((error: unknown) => log.debug({ err: error }, 'presence: roll not kept this beat'))
      .finally(() => {
        running = null;
      });
  };
  turn();
  const timer = setInterval(turn, beatMs);
  timer.unref();

  return {
    /** A user's first socket here: on the roll at once, not at the next beat (this instance may not see it). */
    joined(userId: number) {
      void command('SADD', () => client.sAdd(usersOf(id), String(userId))).catch(() => {});
    },
    /**
     * A user's last socket here closed: off the roll at once, not at the next beat, so that another
     * instance reading the roll (`elsewhere`) does not find them here after their "offline" went out.
     */
    left(userId: number) {
      void command('SREM', () => client.sRem(usersOf(id), String(userId))).catch(() => {});
    },
    /**
     * Which of these users the other instances hold a socket of, by the roll: what each alive instance
     * wrote at its last beat, and its joins and leaves since. For when the cluster does not answer in
     * time (an instance stalled, or slow to answer through Redis) while Redis does: a stalled instance
     * keeps its users here until it is taken off the roll (and they are said offline), a lapsed one
     * awaiting the sweep counts for nothing. Rejects when Redis does not answer. This instance is left
     * out: its caller knows its own sockets better than its last beat does.
     */
    async elsewhere(userIds: number[]): Promise<Set<number>> {
      const found = new Set<number>();
      if (userIds.length === 0) return found;
      const members = userIds.map(String);
      const others = (await command('SMEMBERS', () => client.sMembers(roll))).filter((instance) => instance !== id);
      // Two commands per instance, one key each (Redis Cluster holds them anywhere), all at once: one
      // round trip more, and only users asked about come back, not each instance's whole party.
      await Promise.all(
        others.map(async (other) => {
          const [alive, holds] = await Promise.all([
            command('EXISTS', () => client.exists(aliveOf(other))),
            command('SMISMEMBER', () => client.smIsMember(usersOf(other), members)),
          ]);
          if (alive !== 1) return;
          holds.forEach((held, index) => {
            if (held === 1) found.add(userIds[index]!);
          });
        }),
      );
      return found;
    },
    /** Off the roll, as a clean stop's disconnects have said its users offline already. */
    async close() {
      clearInterval(timer);
      await running;
      await Promise.all([
        command('SREM', () => client.sRem(roll, id)),
        command('DEL', () => client.del(usersOf(id))),
        command('DEL', () => client.del(aliveOf(id))),
      ]).catch(() => {});
    },
  };
}

export type PresenceRoll = ReturnType<typeof createPresenceRoll>;
