import { createShardedAdapter } from '@socket.io/redis-adapter';
import { type Redis, REDIS_COMMAND_TIMEOUT_MS, type RedisClient, withTimeout } from '../lib/redis';
import { inFlight } from '../lib/turns';

/** The adapter always subscribes in buffer mode. */
type Listener = Parameters<RedisClient['sSubscribe']>[1];

/** How long a socket's handshake waits for its room's subscription before it goes ahead without. */
const SUBSCRIBE_WAIT_MS = 2000;

export interface RedisFanout {
  adapter: ReturnType<typeof createShardedAdapter>;
  /**
   * Resolves once Redis has confirmed this instance's subscription to a room of the default namespace,
   * so that an event published for it from another instance cannot pass by unheard. While Redis is
   * away it resolves at once: the subscription is replayed on reconnect, and clients are told to catch up.
   */
  subscribed(room: string): Promise<void>;
  /**
   * Resolves once every subscription and every publish asked for so far has been answered (or has
   * failed): a process that only sends (the admin command) hears the answers it asked for, and closes
   * its connection only after what it sent has gone. Publishes are counted only with `tracksPublishes`:
   * an instance's every chat message goes through one, and none of them waits for the rest.
   */
  settled(): Promise<void>;
}

/**
 * Socket.IO's sharded Redis adapter (SPUBLISH/SSUBSCRIBE, Redis ≥ 7) with one channel per room,
 * private rooms included: an event for one user reaches only the instances holding that user's
 * sockets. The clients it is given are made safe for an outage: a publish never hangs (the adapter
 * delivers locally only after its publish settles), and a subscription that failed mid-outage is
 * retried on reconnect instead of being lost or becoming an unhandled rejection.
 */
export function createRedisFanout(redis: Redis, options: { tracksPublishes?: boolean } = {}): RedisFanout {
  const { commands: pub, subscriber: sub } = redis;
  const channelPrefix = redis.prefix;
  const failed = new Map<string, Listener>();
  const wanted = new Set<string>();
  /** Each channel's SSUBSCRIBE/SUNSUBSCRIBE, one after the other (see `inOrder`). */
  const queues = new Map<string, Promise<void>>();
  /** A channel's subscription on its way, so that a handshake can wait for it. */
  const pending = new Map<string, Promise<void>>();

  /**
   * Runs a channel's commands in the order they were asked for, each once the one before has been
   * answered. node-redis adds a listener to a channel it still holds without asking Redis again, even
   * while that channel's SUNSUBSCRIBE is on its way, and then drops it with the unsubscribe's reply: a
   * user who leaves an instance and is back within a round trip (a page reload) would stay connected
   * but unsubscribed, deaf to every other instance.
   */
  const inOrder = (channel: string, command: () => Promise<void>) => {
    const done = (queues.get(channel) ?? Promise.resolve()).then(command);
    queues.set(channel, done);
    void done.finally(() => {
      if (queues.get(channel) === done) queues.delete(channel);
    });
    return done;
  };

  /**
   * Every instance that holds a user's socket subscribes to that user's channel, the instance that
   * publishes for them included, so Redis hands each instance its own publishes back; the adapter
   * would decode each one in full only to find its own id and drop it. The id is the JSON message's
   * last field but one (`…,"uid":"<id>","nsp":"/"}`), so a look at the message's tail drops them undecoded.
   * Only JSON messages end that way: binary ones (MessagePack) are passed on as before.
   */
  const ownTails: Buffer[] = [];
  const fromThisInstance = (message: Buffer) =>
    message[0] === 0x7b && ownTails.some((tail) => message.length > tail.length && message.subarray(message.length - tail.length).equals(tail));
  const withoutOwn = new WeakMap<Listener, Listener>();
  const skippingOwn = (listener: Listener): Listener => {
    let wrapped = withoutOwn.get(listener);
    if (!wrapped) {
      wrapped = ((message: Buffer, channel: Buffer) => {
        if (!fromThisInstance(message)) listener(message, channel);
      }) as Listener;
      withoutOwn.set(listener, wrapped);
    }
    return wrapped;
  };

  const subscribe = (channel: string, listener: Listener) => {
    wanted.add(channel);
    const done = inOrder(channel, () =>
      sub.sSubscribe(channel, listener, true).then(
        () => {},
        () => {
          if (wanted.has(channel)) failed.set(channel, listener);
        },
      ),
    );
    pending.set(channel, done);
    void done.finally(() => {
      if (pending.get(channel) === done) pending.delete(channel);
    });
  };
  sub.on('ready', () => {
    const retry = [...failed];
    failed.clear();
    for (const [channel, listener] of retry) subscribe(channel, listener);
  });

  /** Publishes not answered yet (`settled`). */
  const publishing = inFlight();
  const pubFacade = {
    sSubscribe: () => Promise.resolve(),
    sPublish(channel: string, payload: string | Buffer) {
      if (!pub.isReady) return Promise.reject(new Error('redis is not connected'));
      const published = withTimeout(pub.sPublish(channel, payload), REDIS_COMMAND_TIMEOUT_MS, 'SPUBLISH');
      if (!options.tracksPublishes) return published;
      publishing.track(published);
      return published;
    },
    sendCommand(args: string[]) {
      if (!pub.isReady) return Promise.reject(new Error('redis is not connected'));
      return withTimeout(pub.sendCommand(args), REDIS_COMMAND_TIMEOUT_MS, args[0] ?? 'command');
    },
  };
  const subFacade = {
    sSubscribe: (channel: string, listener: Listener) => subscribe(channel, skippingOwn(listener)),
    sUnsubscribe(channel: string) {
      wanted.delete(channel);
      failed.delete(channel);
      void inOrder(channel, () => sub.sUnsubscribe(channel).then(() => {}, () => {}));
    },
  };

  const createAdapter = createShardedAdapter(pubFacade, subFacade, { channelPrefix, subscriptionMode: 'dynamic-private' });
  return {
    // Socket.IO calls the adapter with `new`: a function, not an arrow (the object it returns is the adapter).
    adapter: function adapter(nsp) {
      const adapter = createAdapter(nsp);
      // The id the adapter stamps on what it publishes (a protected field of socket.io-adapter's ClusterAdapter).
      const { uid } = adapter as unknown as { uid: string };
      ownTails.push(Buffer.from(`"uid":${JSON.stringify(uid)},"nsp":${JSON.stringify(nsp.name)}}`));
      return adapter;
    },
    async subscribed(room) {
      // The adapter's channel for a room of the default namespace ("dynamic-private" mode).
      const done = pending.get(`${channelPrefix}#/#${room}#`);
      if (!done || !sub.isReady) return;
      await withTimeout(done, SUBSCRIBE_WAIT_MS, 'SSUBSCRIBE').catch(() => {});
    },
    async settled() {
      await Promise.all([...pending.values(), publishing.settled()]);
    },
  };
}
