import type { FastifyBaseLogger } from 'fastify';
import { Server } from 'socket.io';
import { rooms, type ServerToClientEvents } from '../../shared/events';
import { openRedis, REDIS_COMMAND_TIMEOUT_MS, withTimeout } from '../lib/redis';
import { createRedisFanout } from './redis';
import { revokedElsewhere } from './revocation';
import type { AttendanceMove, Publish, RealtimeServer } from './types';

/**
 * What a process of its own (the admin command) tells the running instances, through the Redis they
 * share: the very messages one instance sends the others (Socket.IO's sharded adapter, `redis.ts`), so
 * the instances hear it as they hear each other, with nothing new to listen for.
 */
export interface InstancesNews {
  /** As `app.publish`: to every open socket of these users, on whichever instance it is. */
  publish: Publish;
  /**
   * Each instance forgets these sessions and drops their sockets (`token:revoked`); true once every
   * instance has said so, false when one did not within the bound (theirs then end with the token's
   * trust and the token sweep).
   */
  revoked(tokenHashes: string[]): Promise<boolean>;
  /** A user checked in or left (`event:moved`): each instance moves its sockets of theirs and tells the rooms' counts. */
  moved(move: AttendanceMove): void;
  /** Once what was sent has gone (or a bound has passed), the connection to Redis closes. Once: a second call waits for the first. */
  close(): Promise<void>;
}

/** Nothing of Redis's own warnings: the command says in one line whether the instances were told. */
const quiet = { info() {}, warn() {}, error() {} } as unknown as FastifyBaseLogger;

/**
 * Joins the instances' Redis as an instance that holds no sockets (a Socket.IO server with their
 * adapter, on no port). Null when Redis cannot be reached within the wait of an instance's start-up
 * (a few seconds); a Redis without sharded pub/sub throws a `ConfigError`, as at an instance's start.
 */
export async function reachInstances(options: { url: string; prefix: string }): Promise<InstancesNews | null> {
  const redis = await openRedis({ url: options.url, prefix: options.prefix, log: quiet });
  if (!redis.isReady()) {
    redis.close();
    return null;
  }
  const fanout = createRedisFanout(redis, { tracksPublishes: true });
  const io: RealtimeServer = new Server({ adapter: fanout.adapter });
  // Another instance's revocation meanwhile counts this one too, and waits for its word: it holds no
  // socket and trusts no token, so it has nothing to drop.
  io.on('token:revoked', (_tokenHash, done) => done?.());
  // Its own subscriptions confirmed first (the namespace's channel, and the one answers come back on):
  // the instances a revocation waits for are counted by their subscriptions to the namespace's channel.
  await withTimeout(fanout.settled(), 2 * REDIS_COMMAND_TIMEOUT_MS, 'SSUBSCRIBE').catch(() => {});

  function publish<E extends keyof ServerToClientEvents>(userIds: number[], event: E, ...args: Parameters<ServerToClientEvents[E]>) {
    // One room per emit, each on that room's own channel, as the instances publish (`plugin.ts`).
    for (const id of new Set(userIds)) io.to(rooms.user(id)).emit(event, ...args);
  }

  let closed: Promise<void> | undefined;
  return {
    publish,
    async revoked(tokenHashes) {
      const answers = await Promise.allSettled(tokenHashes.map((tokenHash) => revokedElsewhere(io, tokenHash)));
      return answers.every((answer) => answer.status === 'fulfilled');
    },
    moved(move) {
      io.serverSideEmit('event:moved', move);
    },
    close() {
      closed ??= closing();
      return closed;
    },
  };

  async function closing() {
    await withTimeout(fanout.settled(), 2 * REDIS_COMMAND_TIMEOUT_MS, 'SPUBLISH').catch(() => {});
    // A revocation no instance answered in time keeps the adapter's own timer (5 s) running: the
    // command has given up on it already, and ends now.
    const { requests } = io.of('/').adapter as unknown as { requests: Map<string, { timeout?: ReturnType<typeof setTimeout> }> };
    for (const request of requests.values()) clearTimeout(request.timeout);
    requests.clear();
    redis.close();
  }
}
