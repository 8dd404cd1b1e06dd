/**
 * The party's match overlays: which are due, and how each one ended, whatever order the news comes in.
 *
 * A like whose answer says it completed a pair makes the other person's phone due an overlay: that
 * phone's `match:new`, timed from when the like left. The news can come in any order. The server's
 * push may beat the like's own answer. A phone whose socket was down when the match was made hears of
 * it another way after it reconnects: from its catch-up's conversation lists, or from the first
 * message of the new conversation, which can arrive on the new socket before the catch-up's lists do.
 * Either is recovered, not lost, and not timed as an overlay (the app shows that one late, when its
 * read of the lists finds the match).
 * A phone's first news of a match is the one that counts: a `match:new` for a conversation the phone
 * already knew shows nothing, and the caller does not report it.
 */
export class MatchOverlays {
  expected = 0;
  delivered = 0;
  recovered = 0;
  /** `${conversation}:${phone}` → when the completing like left, while that phone has had no news of it. */
  private readonly due = new Map<string, number>();
  /** `${conversation}:${phone}` → when `match:new` arrived there, for a push that beat the like's own answer. */
  private readonly heardEarly = new Map<string, number>();

  /**
   * `knows(phone, conversationId)`: whether that phone's conversations already hold it (its first news
   * came before the like's answer, another way than `match:new`). `onDelivered`: each delivered
   * overlay's latency, ms.
   */
  constructor(
    private readonly knows: (phone: number, conversationId: number) => boolean,
    private readonly onDelivered: (ms: number) => void,
  ) {}

  /**
   * The answer to the liker's like completed a pair: the other phone is due the overlay (`otherId`
   * null: the other is not one of the party's phones, nothing to time). The liker's own `match:new`
   * may have come first; the liker's phone knows from its answer, so that is no overlay.
   */
  liked(conversationId: number, likerId: number, otherId: number | null, likedAt: number) {
    this.heardEarly.delete(key(conversationId, likerId));
    if (otherId === null) return;
    this.expected += 1;
    const phone = key(conversationId, otherId);
    const heardAt = this.heardEarly.get(phone);
    if (heardAt !== undefined) {
      this.heardEarly.delete(phone);
      this.deliver(heardAt - likedAt);
    } else if (this.knows(otherId, conversationId)) {
      this.recovered += 1;
    } else {
      this.due.set(phone, likedAt);
    }
  }

  /** `match:new` on `phone`, its first news of the conversation: the overlay shows. */
  heard(conversationId: number, phone: number, at: number) {
    const phoneKey = key(conversationId, phone);
    const likedAt = this.due.get(phoneKey);
    if (likedAt === undefined) {
      this.heardEarly.set(phoneKey, at);
      return;
    }
    this.due.delete(phoneKey);
    this.deliver(at - likedAt);
  }

  /** `phone` learned of the conversation without an overlay: a catch-up's lists, or a message in it. */
  learned(conversationId: number, phone: number) {
    if (this.due.delete(key(conversationId, phone))) this.recovered += 1;
  }

  /** Overlays still due: lost, once the party has drained. */
  get pending(): number {
    return this.due.size;
  }

  /** The overlays still due, in the order their likes were answered: the conversation, the phone, when the like left. */
  *lost(): Generator<{ conversationId: number; phone: number; likedAt: number }> {
    for (const [phoneKey, likedAt] of this.due) {
      const [conversationId, phone] = phoneKey.split(':').map(Number) as [number, number];
      yield { conversationId, phone, likedAt };
    }
  }

  private deliver(ms: number) {
    this.delivered += 1;
    this.onDelivered(ms);
  }
}

const key = (conversationId: number, phone: number) => `${conversationId}:${phone}`;
