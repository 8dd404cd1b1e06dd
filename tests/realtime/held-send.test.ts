import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createMessageBatcher } from '../../server/features/conversations/message-batcher';
import { makeCompletedUser } from '../helpers/factories';
import { makeEvent } from '../helpers/events';
import { racesOnPostgres } from '../helpers/lock-holder';
import { hasPostgres } from '../helpers/services';
import { connect, record, waitUntil } from '../helpers/socket';
import { makePair, storedMessages } from './fixtures';

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

  const doneWithin = async (work: Promise<unknown>, what: string) => {
    let done = false;
    void work.then(
      () => (done = true),
      () => (done = true),
    );
    await waitUntil(() => done, 5000, what);
  };

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
