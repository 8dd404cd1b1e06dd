import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createMessageBatcher } from '../../server/features/conversations/message-batcher';
import { makeCompletedUser } from '../helpers/factories';
import { makeEvent } from '../helpers/events';
import { racesOnPostgres } from '../helpers/lock-holder';
import { hasPostgres } from '../helpers/services';
import { connect, record, waitUntil } from '../helpers/socket';
import { client } from '../helpers/http';
import { makePair, match, storedMessages } from './fixtures';

/** Fails unless `work` settles within 5 s. */
async function doneWithin(work: Promise<unknown>, what: string) {
  let done = false;
  void work.then(
    () => (done = true),
    () => (done = true),
  );
  await waitUntil(() => done, 5000, what);
}

/**
 * A send whose conversation's row another write holds (an event deleted sets its `event_id` to null,
 * leaving it open) waits for that write, then is stored. Nobody else's message may wait with it: the
 * other sends of its batch, and the batches after it, are answered while it waits; the sends of its own
 * conversation stay behind it, in the order they were sent.
 */
describe.skipIf(!(await hasPostgres()))('a send waiting for a held conversation row, on PostgreSQL', () => {
  const races = racesOnPostgres();

  /** A pair matched at an event (so that deleting the event holds their conversation's row), and the event. */
  async function pairAtEvent() {
    const organizer = await makeCompletedUser(races.server, { name: 'Olga' });
    const event = await makeEvent(races.server, organizer);
    const pair = await makePair(races.server);
    await races.holder`update conversations set event_id = ${event.id} where id = ${pair.conversationId}`;
    return { ...pair, eventId: event.id };
  }

  it('answers the other sends of its batch while it waits', async () => {
    const held = await pairAtEvent();
    const other = await makePair(races.server, ['Cleo', 'Dan']);
    const log = { warn: () => {} } as unknown as FastifyBaseLogger;
    const batcher = createMessageBatcher(races.server.app.db, log, races.server.app.limits);

    const release = await races.hold('delete from events where id = $1', [held.eventId]);
    let waiting: Promise<unknown>;
    try {
      // One event-loop turn, one batch.
      waiting = batcher.send({ conversationId: held.conversationId, senderId: held.a.id, content: 'still here', clientId: randomUUID() });
      const unrelated = batcher.send({ conversationId: other.conversationId, senderId: other.a.id, content: 'hi', clientId: randomUUID() });
      expect(await races.stuckOrDone(waiting, 1)).toBe(false);
      await doneWithin(unrelated, 'the unrelated send answered while the held one waits');
      await expect(unrelated).resolves.toMatchObject({ created: true, message: { content: 'hi' } });
    } finally {
      await release('commit');
    }
    await expect(waiting).resolves.toMatchObject({ created: true, message: { content: 'still here' } });
  });

  it('answers later sends to other conversations while it waits, and keeps its own conversation’s in order', async () => {
    const held = await pairAtEvent();
    const other = await makePair(races.server, ['Cleo', 'Dan']);
    const [ana, ben, cleo] = await Promise.all([held.a, held.b, other.a].map((user) => connect(races.server.url, user.token)));
    try {
      const heard = record(ben!);
      const send = (socket: typeof ana, conversationId: number, content: string) =>
        socket!.emitWithAck('message:send', { conversation_id: conversationId, content, client_id: randomUUID() });
      const release = await races.hold('delete from events where id = $1', [held.eventId]);
      let first: Promise<{ ok: boolean; message?: { id: number } }>;
      let second: Promise<{ ok: boolean; message?: { id: number } }>;
      try {
        first = send(ana, held.conversationId, 'one');
        expect(await races.stuckOrDone(first, 1)).toBe(false);
        second = send(ana, held.conversationId, 'two');
        const unrelated = send(cleo, other.conversationId, 'hi');
        await doneWithin(unrelated, 'the unrelated send answered while the held one waits');
        expect(await unrelated).toMatchObject({ ok: true, message: { content: 'hi' } });
      } finally {
        await release('commit');
      }
      const [one, two] = await Promise.all([first, second]);
      expect([one, two]).toMatchObject([{ ok: true }, { ok: true }]);
      expect(one.message!.id).toBeLessThan(two.message!.id);
      const stored = await storedMessages(races.server, held.b.token, held.conversationId);
      expect(stored.map((message: { content: string }) => message.content)).toEqual(['one', 'two']);
      await waitUntil(() => heard.filter(({ event }) => event === 'message:new').length === 2, 5000, 'both pushed');
      const pushed = heard.filter(({ event }) => event === 'message:new').map(({ payload }) => payload as { message: { content: string } });
      expect(pushed.map(({ message }) => message.content)).toEqual(['one', 'two']);
    } finally {
      for (const socket of [ana, ben, cleo]) socket!.close();
    }
  });
});

/**
 * A ban ends every conversation of the banned one in one statement, and holds their rows until it
 * commits (a deletion, of an account or an event, alike): a send into each of them waits. The waits
 * must not take the pool's connections, which every other request of the instance needs meanwhile.
 */
describe.skipIf(!(await hasPostgres()))('sends waiting for the many conversations a ban holds, on PostgreSQL', () => {
  const POOL = 2;
  const races = racesOnPostgres({ config: { databasePoolSize: POOL } });

  it('leave the pool to everyone else, and find their conversations ended', async () => {
    const banned = await makeCompletedUser(races.server, { name: 'Bea' });
    const partners = await Promise.all(Array.from({ length: 2 * POOL }, (_, n) => makeCompletedUser(races.server, { name: `Partner ${n}` })));
    const conversations: number[] = [];
    for (const partner of partners) conversations.push(await match(races.server, banned, partner));
    const other = await makePair(races.server, ['Cleo', 'Dan']);
    const log = { warn: () => {} } as unknown as FastifyBaseLogger;
    const batcher = createMessageBatcher(races.server.app.db, log, races.server.app.limits);

    // The ban's ending of the conversations, not committed yet.
    const release = await races.hold(
      `update conversations set ended_at = now(), end_reason = 'ban' where (user_low_id = $1 or user_high_id = $1) and ended_at is null`,
      [banned.id],
    );
    let waiting: Array<Promise<unknown>> = [];
    try {
      waiting = partners.map((partner, n) =>
        batcher.send({ conversationId: conversations[n]!, senderId: partner.id, content: 'still there?', clientId: randomUUID() }),
      );
      expect(await races.stuckOrDone(Promise.all(waiting), 1)).toBe(false);
      // Everyone else is served meanwhile: a send of theirs, a page of their conversations.
      const unrelated = batcher.send({ conversationId: other.conversationId, senderId: other.a.id, content: 'hi', clientId: randomUUID() });
      await doneWithin(unrelated, 'an unrelated send answered while the held ones wait');
      await expect(unrelated).resolves.toMatchObject({ created: true });
      const list = client(races.server.url).get('/api/conversations/started/', { token: other.b.token });
      await doneWithin(list, 'an unrelated request answered while the held ones wait');
      expect((await list).status).toBe(200);
    } finally {
      await release('commit');
    }
    const outcomes = await Promise.allSettled(waiting);
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as { statusCode?: number }).statusCode : 'sent'))).toEqual(
      partners.map(() => 404),
    );
  });
});
