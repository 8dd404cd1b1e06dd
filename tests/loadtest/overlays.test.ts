import { describe, expect, it } from 'vitest';
import { MatchOverlays } from '../../loadtest/overlays';

const LIKER = 1;
const OTHER = 2;
const CONVERSATION = 10;

/** The ledger over phones whose conversation lists are a set of `${phone}:${conversation}` here. */
function ledger() {
  const known = new Set<string>();
  const latencies: number[] = [];
  const overlays = new MatchOverlays(
    (phone, conversationId) => known.has(`${phone}:${conversationId}`),
    (ms) => latencies.push(ms),
  );
  /** What the party does when a phone first hears of a conversation: it lists it, then tells the ledger. */
  const learn = (phone: number, conversationId: number) => {
    known.add(`${phone}:${conversationId}`);
    overlays.learned(conversationId, phone);
  };
  const hear = (phone: number, conversationId: number, at: number) => {
    known.add(`${phone}:${conversationId}`);
    overlays.heard(conversationId, phone, at);
  };
  const counts = () => ({ expected: overlays.expected, delivered: overlays.delivered, recovered: overlays.recovered, lost: overlays.pending });
  return { overlays, latencies, learn, hear, counts };
}

describe('the load tool’s match overlays', () => {
  it('times the other phone’s match:new from the like, whether it comes after the like’s answer or before it', () => {
    const after = ledger();
    after.overlays.liked(CONVERSATION, LIKER, OTHER, 1000);
    after.hear(OTHER, CONVERSATION, 1012);
    expect(after.counts()).toEqual({ expected: 1, delivered: 1, recovered: 0, lost: 0 });
    expect(after.latencies).toEqual([12]);

    const before = ledger();
    before.hear(OTHER, CONVERSATION, 1007);
    before.overlays.liked(CONVERSATION, LIKER, OTHER, 1000);
    expect(before.counts()).toEqual({ expected: 1, delivered: 1, recovered: 0, lost: 0 });
    expect(before.latencies).toEqual([7]);
  });

  it('counts an overlay the other phone never shows as lost, and tells which', () => {
    const { overlays, counts } = ledger();
    overlays.liked(CONVERSATION, LIKER, OTHER, 1000);
    overlays.liked(CONVERSATION + 1, OTHER, LIKER, 2000);
    expect(counts()).toEqual({ expected: 2, delivered: 0, recovered: 0, lost: 2 });
    expect([...overlays.lost()]).toEqual([
      { conversationId: CONVERSATION, phone: OTHER, likedAt: 1000 },
      { conversationId: CONVERSATION + 1, phone: LIKER, likedAt: 2000 },
    ]);
  });

  it('a phone that was offline learns of the match from its catch-up: recovered, before the like’s answer or after it', () => {
    const after = ledger();
    after.overlays.liked(CONVERSATION, LIKER, OTHER, 1000);
    after.learn(OTHER, CONVERSATION);
    expect(after.counts()).toEqual({ expected: 1, delivered: 0, recovered: 1, lost: 0 });

    const before = ledger();
    before.learn(OTHER, CONVERSATION);
    before.overlays.liked(CONVERSATION, LIKER, OTHER, 1000);
    expect(before.counts()).toEqual({ expected: 1, delivered: 0, recovered: 1, lost: 0 });
    expect(before.latencies).toEqual([]);
  });

  it('a phone back online whose first news of the match is a message in it, before its catch-up lists it: recovered, not lost', () => {
    // The race the party once reported as a lost overlay: the socket was down when the match was made,
    // came back, and the liker's first message arrived on it before the catch-up's lists did; the
    // catch-up then found the conversation already known, and the overlay stayed due.
    const { overlays, learn, counts } = ledger();
    overlays.liked(CONVERSATION, LIKER, OTHER, 1000);
    learn(OTHER, CONVERSATION); // message:new in a conversation the phone did not know
    // The catch-up's lists skip what the phone knows: nothing more is told. A late match:new is not
    // told either (the phone knew already), so nothing changes.
    expect(counts()).toEqual({ expected: 1, delivered: 0, recovered: 1, lost: 0 });
    expect([...overlays.lost()]).toEqual([]);
  });

  it('the liker’s own match:new is no overlay, before its answer or after it', () => {
    const { overlays, hear, latencies, counts } = ledger();
    hear(LIKER, CONVERSATION, 1003);
    overlays.liked(CONVERSATION, LIKER, OTHER, 1000);
    hear(OTHER, CONVERSATION, 1010);
    expect(counts()).toEqual({ expected: 1, delivered: 1, recovered: 0, lost: 0 });
    expect(latencies).toEqual([10]);
  });

  it('expects nothing when the other is not one of the party’s phones', () => {
    const { overlays, counts } = ledger();
    overlays.liked(CONVERSATION, LIKER, null, 1000);
    expect(counts()).toEqual({ expected: 0, delivered: 0, recovered: 0, lost: 0 });
  });
});
