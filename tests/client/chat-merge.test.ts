// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { type ChatMessage, mergeMessages } from '../../client/stores/chat';

const stored = (id: number, clientId: string | null = null) => ({ id, sender: 1, content: `m${id}`, time: '2026-11-21T10:00:00.000Z', client_id: clientId });
const pending = (id: number, clientId: string): ChatMessage => ({ ...stored(id, clientId), status: 'sending' });

describe('mergeMessages (optimistic send, live events, catch-up and older pages meet here)', () => {
  it('replaces the optimistic copy with the server copy of the same client_id', () => {
    const merged = mergeMessages([{ ...stored(1), status: 'sent' }, pending(-1, 'a')], [stored(7, 'a')]);
    expect(merged.map((message) => [message.id, message.status])).toEqual([
      [1, 'sent'],
      [7, 'sent'],
    ]);
  });

  it('keeps each stored message once, whichever way it arrives (ack, socket, catch-up)', () => {
    let messages = mergeMessages([], [stored(3), stored(2)]);
    messages = mergeMessages(messages, [stored(3)]);
    messages = mergeMessages(messages, [stored(4), stored(3)]);
    expect(messages.map((message) => message.id)).toEqual([2, 3, 4]);
  });

  it('puts an older page before the current one and keeps pending messages last, in typing order', () => {
    const messages = mergeMessages([{ ...stored(50), status: 'sent' }, pending(-1, 'a'), pending(-2, 'b')], [stored(10), stored(11)]);
    expect(messages.map((message) => message.id)).toEqual([10, 11, 50, -1, -2]);
  });
});
