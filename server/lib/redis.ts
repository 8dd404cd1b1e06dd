import type { FastifyBaseLogger } from 'fastify';
import { createClient } from 'redis';
import { ConfigError } from '../config';

export type RedisClient = ReturnType<typeof createClient>;

/** How long a command may wait on Redis before its caller goes ahead without it. */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
/** How long start-up waits for Redis; after that the instance serves on its own and keeps retrying. */
const CONNECT_WAIT_MS = 3000;
/** Errors are logged at most this often while Redis is down, not once per retry. */
const ERROR_LOG_INTERVAL_MS = 10_000;
/**
 * Reconnect attempts back off to this and no further (plus the connect timeout): once Redis is back,
 * every instance has found it again within about four seconds.
 */
const MAX_RECONNECT_DELAY_MS = 2000;
const CONNECT_TIMEOUT_MS = 2000;
/**
 * What the subscriber's socket buffers before a write waits for it to drain. On reconnect node-redis
 * writes one SSUBSCRIBE per channel it held, then waits for every answer before it calls the connection
 * ready; but it stops writing at the socket's high-water mark (16 KiB by default) and writes the rest
 * only on `drain` once ready. Past ~280 channels (a party of 140 phones on one instance: each socket's
 * room and its user's) the connection would wait forever for answers to commands never sent: connected,
 * never ready, so the recovery (`onRecovered`: the clients' catch-up) never came. 64 MiB is a million
 * channels; the subscriber sends nothing else.
 */
const SUBSCRIBER_WRITE_BUFFER_BYTES = 64 * 1024 * 1024;

/**
 * The instance's Redis: one module for every part that uses it (the Socket.IO adapter, the throttle).
 * Two connections, because a connection that subscribes can send nothing else.
 */
export interface Redis {
  /**
   * Commands and publishes. No offline queue: while Redis is away a command fails at once, and its
   * caller goes ahead without Redis (local delivery, per-instance counting) instead of waiting.
   */
  commands: RedisClient;
  /** Subscriptions only. Queued while Redis is away, and subscribed again on reconnect. */
  subscriber: RedisClient;
  /** Every key and channel starts with this, so that several deployments (or test runs) share one Redis. */
  prefix: string;
  /** Both connections are up. */
  isReady(): boolean;
  /** Called every time both connections are up again after either was lost (not at the first connect). */
  onRecovered(listener: () => void): void;
  /** Rejects unless Redis answers a PING in time. */
  ping(): Promise<void>;
  close(): void;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function openClient(url: string, role: string, log: FastifyBaseLogger, options: { offlineQueue: boolean; writeBufferBytes?: number }) {
  // node:net takes stream.Duplex's `writableHighWaterMark` for a connection; @types/node does not list it there.
  const writeBuffer = options.writeBufferBytes === undefined ? {} : { writableHighWaterMark: options.writeBufferBytes };
  const client: RedisClient = createClient({
    url,
    disableOfflineQueue: !options.offlineQueue,
    // node-redis 6 gives every command a 5 s AbortSignal.timeout: a timer that cannot be cancelled, which
    // fires (and builds a DOMException) 5 s after every command, answered or not: ~6 % of an instance's
    // CPU under chat load (bench/README.md). The callers bound their commands with `withTimeout` instead.
    commandOptions: { timeout: 0 },
    socket: {
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS),
      connectTimeout: CONNECT_TIMEOUT_MS,
      ...writeBuffer,
    },
  });
  let lastLogged = 0;
  // Without an 'error' listener node-redis rethrows, and a Redis outage would take the instance down.
  client.on('error', (error: Error) => {
    if (Date.now() - lastLogged < ERROR_LOG_INTERVAL_MS) return;
    lastLogged = Date.now();
    log.warn({ err: error, role }, 'redis unavailable: this instance carries on alone until it is back');
  });
  return client;
}

function waitForReady(client: RedisClient, ms: number) {
  if (client.isReady) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, ms);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('ready', onReady);
  });
}

/**
 * Whether this Redis has sharded pub/sub (SPUBLISH/SSUBSCRIBE, Redis 7 and later), which the Socket.IO
 * adapter relies on. Asked by doing it, not by reading a version: Redis-compatible servers count too.
 * Null when Redis did not say (not connected, or no answer in time).
 */
async function hasShardedPubSub(commands: RedisClient, prefix: string): Promise<boolean | null> {
  try {
    await withTimeout(commands.sendCommand(['SPUBLISH', `${prefix}#version-probe`, '']), REDIS_COMMAND_TIMEOUT_MS, 'SPUBLISH');
    return true;
  } catch (error) {
    return /unknown command/i.test(String(error)) ? false : null;
  }
}

const TOO_OLD = 'REDIS_URL names a Redis without sharded pub/sub (SPUBLISH): Eventmatch needs Redis 7 or newer.';

/**
 * Connects (waiting a few seconds at most: a Redis that is down does not stop the instance starting).
 * A Redis older than 7 stops the start with a `ConfigError`: its instances would not hear each other.
 */
export async function openRedis(options: { url: string; prefix: string; log: FastifyBaseLogger }): Promise<Redis> {
  const { log } = options;
  const commands = openClient(options.url, 'commands', log, { offlineQueue: false });
  const subscriber = openClient(options.url, 'subscriber', log, { offlineQueue: true, writeBufferBytes: SUBSCRIBER_WRITE_BUFFER_BYTES });
  const listeners: Array<() => void> = [];
  const isReady = () => commands.isReady && subscriber.isReady;

  let lost = false;
  for (const client of [commands, subscriber]) {
    client.on('end', () => (lost = true));
    client.on('reconnecting', () => (lost = true));
    client.on('ready', () => {
      if (!isReady()) return;
      log.info('redis connected');
      if (!lost) return;
      lost = false;
      for (const listener of listeners) listener();
    });
  }

  // connect() rejects when Redis is down at start-up; the reconnect strategy keeps trying either way.
  commands.connect().catch(() => {});
  subscriber.connect().catch(() => {});
  const ready = await Promise.all([waitForReady(commands, CONNECT_WAIT_MS), waitForReady(subscriber, CONNECT_WAIT_MS)]);
  if (!ready.every(Boolean)) log.warn('redis not reachable at start-up: starting alone, and connecting when it is there');
  if (commands.isReady && (await hasShardedPubSub(commands, options.prefix)) === false) {
    commands.destroy();
    subscriber.destroy();
    throw new ConfigError(TOO_OLD);
  }
  // Found only later (Redis was away at the start, or was replaced): said as loudly as a log can.
  commands.on('ready', () => {
    void hasShardedPubSub(commands, options.prefix).then((sharded) => {
      if (sharded === false) log.error(TOO_OLD);
    });
  });

  return {
    commands,
    subscriber,
    prefix: options.prefix,
    isReady,
    onRecovered: (listener) => void listeners.push(listener),
    async ping() {
      if (!isReady()) throw new Error('redis is not connected');
      await withTimeout(commands.ping(), REDIS_COMMAND_TIMEOUT_MS, 'PING');
    },
    close() {
      // destroy(): nothing of ours is left to flush, and quit() would wait on a Redis that may be gone.
      commands.destroy();
      subscriber.destroy();
    },
  };
}
