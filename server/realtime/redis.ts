import { createShardedAdapter } from '@socket.io/redis-adapter';
import type { FastifyBaseLogger } from 'fastify';
import { createClient } from 'redis';

type RedisClient = ReturnType<typeof createClient>;
/** The adapter always subscribes in buffer mode. */
type Listener = Parameters<RedisClient['sSubscribe']>[1];

/** How long a publish may wait on Redis before local delivery goes ahead without it. */
const PUBLISH_TIMEOUT_MS = 1000;
/** How long start-up waits for Redis; after that the instance serves locally and keeps retrying. */
const CONNECT_WAIT_MS = 3000;
/** Errors are logged at most this often while Redis is down, not once per retry. */
const ERROR_LOG_INTERVAL_MS = 10_000;

export interface RedisFanout {
  adapter: ReturnType<typeof createShardedAdapter>;
  /** Rejects unless Redis answers a PING: `/readyz` uses it. */
  check(): Promise<void>;
  close(): Promise<void>;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
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

function openClient(url: string, role: string, log: FastifyBaseLogger, options: { offlineQueue: boolean }) {
  const client: RedisClient = createClient({
    url,
    // The publisher must fail fast while Redis is away (local delivery waits on it); the subscriber
    // queues its SSUBSCRIBEs and replays them on reconnect.
    disableOfflineQueue: !options.offlineQueue,
    socket: { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000), connectTimeout: 2000 },
  });
  let lastLogged = 0;
  // Without an 'error' listener node-redis rethrows, and a Redis outage would take the instance down.
  client.on('error', (error: Error) => {
    if (Date.now() - lastLogged < ERROR_LOG_INTERVAL_MS) return;
    lastLogged = Date.now();
    log.warn({ err: error, role }, 'redis unavailable: serving local sockets only until it is back');
  });
  client.on('ready', () => log.info({ role }, 'redis connected'));
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
 * The two clients as the sharded adapter sees them, made safe for an outage: a publish never hangs
 * (the adapter delivers locally only after its publish settles), and a subscription that failed
 * mid-outage is retried on reconnect instead of being lost or becoming an unhandled rejection.
 */
function outageSafeClients(pub: RedisClient, sub: RedisClient) {
  const failed = new Map<string, Listener>();
  const wanted = new Set<string>();

  const subscribe = (channel: string, listener: Listener) => {
    wanted.add(channel);
    sub.sSubscribe(channel, listener, true).catch(() => {
      if (wanted.has(channel)) failed.set(channel, listener);
    });
  };
  sub.on('ready', () => {
    const retry = [...failed];
    failed.clear();
    for (const [channel, listener] of retry) subscribe(channel, listener);
  });

  const pubFacade = {
    sSubscribe: () => Promise.resolve(),
    sPublish(channel: string, payload: string | Buffer) {
      if (!pub.isReady) return Promise.reject(new Error('redis is not connected'));
      return withTimeout(pub.sPublish(channel, payload), PUBLISH_TIMEOUT_MS, 'SPUBLISH');
    },
    sendCommand(args: string[]) {
      if (!pub.isReady) return Promise.reject(new Error('redis is not connected'));
      return withTimeout(pub.sendCommand(args), PUBLISH_TIMEOUT_MS, args[0] ?? 'command');
    },
  };
  const subFacade = {
    sSubscribe: (channel: string, listener: Listener) => subscribe(channel, listener),
    sUnsubscribe(channel: string) {
      wanted.delete(channel);
      failed.delete(channel);
      sub.sUnsubscribe(channel).catch(() => {});
    },
  };
  return { pubFacade, subFacade };
}

/**
 * Socket.IO's sharded Redis adapter (SPUBLISH/SSUBSCRIBE, Redis ≥ 7) with one channel per room,
 * private rooms included: an event for one user reaches only the instances holding that user's sockets.
 */
export async function openRedisFanout(options: {
  url: string;
  channelPrefix: string;
  log: FastifyBaseLogger;
}): Promise<RedisFanout> {
  const pub = openClient(options.url, 'publisher', options.log, { offlineQueue: false });
  const sub = openClient(options.url, 'subscriber', options.log, { offlineQueue: true });
  // connect() rejects when Redis is down at start-up; the reconnect strategy keeps trying either way.
  pub.connect().catch(() => {});
  sub.connect().catch(() => {});
  const [pubReady, subReady] = await Promise.all([
    waitForReady(pub, CONNECT_WAIT_MS),
    waitForReady(sub, CONNECT_WAIT_MS),
  ]);
  if (!pubReady || !subReady) options.log.warn('redis not reachable at start-up: starting without fan-out');

  const { pubFacade, subFacade } = outageSafeClients(pub, sub);
  return {
    adapter: createShardedAdapter(pubFacade, subFacade, {
      channelPrefix: options.channelPrefix,
      subscriptionMode: 'dynamic-private',
    }),
    async check() {
      if (!pub.isReady || !sub.isReady) throw new Error('redis is not connected');
      await withTimeout(pub.ping(), PUBLISH_TIMEOUT_MS, 'PING');
    },
    async close() {
      // destroy(): nothing of ours is left to flush, and close() would wait on a Redis that may be gone.
      pub.destroy();
      sub.destroy();
    },
  };
}
