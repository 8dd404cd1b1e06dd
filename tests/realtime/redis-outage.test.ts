import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedis } from '../../server/lib/redis';
import { client } from '../helpers/http';
import { startTwoInstances, type TwoInstances } from '../helpers/server';
import { hasPostgres, hasRedisServerBinary, ownRedis } from '../helpers/services';
import { type ClientSocket, connect, record, waitFor, waitUntil } from '../helpers/socket';
import { freePort } from '../helpers/ports';
import { makePair, match, newClientId, storedMessages } from './fixtures';

const ready = (await hasPostgres()) && hasRedisServerBinary();

describe.skipIf(!ready)('a Redis outage under two instances', () => {
  let redis: ReturnType<typeof ownRedis>;
  let cluster: TwoInstances;
  const open: ClientSocket[] = [];

  beforeAll(async () => {
    redis = ownRedis(await freePort());
    await redis.start();
    cluster = await startTwoInstances({ redisUrl: redis.url });
  });
  afterAll(async () => {
    for (const socket of open) socket.close();
    await cluster?.close();
    await redis?.stop();
  });

  const readiness = async (url: string) => (await client(url).get('/readyz')).body.checks?.redis;

  it('keeps both instances ready, local delivery and REST working; within 5 s of Redis returning, delivery resumes and clients are told to catch up', async () => {
    const { one, two } = cluster;
    const { a, b, conversationId } = await makePair(one);
    const c = (await makePair(one, ['Cleo', 'Dan'])).a;
    const withCleo = await match(one, a, c);
    const aSocket = await connect(one.url, a.token);
    const bSocket = await connect(two.url, b.token);
    const cSocket = await connect(one.url, c.token);
    open.push(aSocket, bSocket, cSocket);
    const bEvents = record(bSocket);

    // Before: Ana (instance one) reaches Ben (instance two).
    const before = waitFor(bSocket, 'message:new');
    expect((await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'before', client_id: newClientId() })).ok).toBe(true);
    const lastSeenByBen = (await before).message.id;

    await redis.stop();
    await waitUntil(async () => (await readiness(one.url)) === 'failing', 5000, 'instance one to notice Redis is gone');
    await waitUntil(async () => (await readiness(two.url)) === 'failing', 5000, 'instance two to notice Redis is gone');
    // Still ready: an outage of the shared Redis must not empty the load balancer.
    for (const server of [one, two]) {
      const ready = await client(server.url).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'failing' } });
    }

    // During: Ana and Cleo share instance one, so Cleo still hears Ana at once.
    const local = waitFor(cSocket, 'message:new');
    const during = await aSocket.emitWithAck('message:send', { conversation_id: withCleo, content: 'local', client_id: newClientId() });
    expect(during.ok).toBe(true);
    expect((await local).message.content).toBe('local');
    // REST keeps working on both instances, and a message acknowledged now is stored.
    const posted = await client(two.url).post(`/api/conversations/${conversationId}/messages/`, {
      token: b.token,
      json: { content: 'while redis is down', client_id: newClientId() },
    });
    expect(posted.status).toBe(201);
    expect((await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'acked offline', client_id: newClientId() })).ok).toBe(true);
    expect((await client(one.url).get('/healthz')).status).toBe(200);

    await redis.start();
    // The deadline is the promise made to operators: both instances find Redis again within 5 s.
    await waitUntil(
      async () => (await readiness(one.url)) === 'ok' && (await readiness(two.url)) === 'ok',
      5000,
      'both instances to reconnect to Redis',
    );
    // Ben's socket never dropped, so nothing else would make his client look: the server tells it to.
    await waitUntil(() => bEvents.some((e) => e.event === 'sync'), 5000, 'the sync event on Ben\'s socket');
    const missed = await client(two.url).get(`/api/conversations/${conversationId}/messages/?after=${lastSeenByBen}`, { token: b.token });
    expect(missed.body.results.map((m: { content: string }) => m.content)).toEqual(['while redis is down', 'acked offline']);

    // After: instance two hears instance one again, and the other way round.
    const after = waitFor(bSocket, 'message:new', (event) => event.message.content === 'after');
    expect((await aSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'after', client_id: newClientId() })).ok).toBe(true);
    await after;
    const back = waitFor(aSocket, 'message:new', (event) => event.message.content === 'back');
    expect((await bSocket.emitWithAck('message:send', { conversation_id: conversationId, content: 'back', client_id: newClientId() })).ok).toBe(true);
    await back;

    // Nothing acknowledged was lost: the catch-up read has all of it, in order.
    expect((await storedMessages(two, b.token, conversationId)).map((m) => m.content)).toEqual([
      'before',
      'while redis is down',
      'acked offline',
      'after',
      'back',
    ]);
  });

  it('finds Redis again when its subscriptions are more than one write to the socket holds', async () => {
    // A busy instance's subscriber holds two channels a socket (its own room, its user's), ~60 bytes of
    // SSUBSCRIBE each: 1,000 is a party of 500 phones on one instance, past the socket's 16 KiB.
    const silent = { warn: () => {}, info: () => {}, error: () => {} } as unknown as FastifyBaseLogger;
    const own = await openRedis({ url: redis.url, prefix: `many-${newClientId()}`, log: silent });
    try {
      let recovered = false;
      own.onRecovered(() => (recovered = true));
      const channels = Array.from({ length: 1000 }, (_, i) => `${own.prefix}#/#socket-room-of-twenty-chars-${i}#`);
      const heard: string[] = [];
      await Promise.all(channels.map((channel) => own.subscriber.sSubscribe(channel, (message) => heard.push(String(message)), true)));

      await redis.stop();
      await waitUntil(() => !own.isReady(), 5000, 'the connections to notice Redis is gone');
      await redis.start();
      // The deadline of the first case: found again within 5 s, subscriptions and all.
      await waitUntil(() => recovered && own.isReady(), 5000, 'both connections to be ready again');
      await own.commands.sPublish(channels.at(-1)!, 'to the last channel');
      await waitUntil(() => heard.includes('to the last channel'), 5000, 'the last channel to be subscribed again');
    } finally {
      own.close();
    }
  });
});
