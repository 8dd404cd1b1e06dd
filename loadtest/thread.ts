/**
 * How far a phone has heard a conversation, as the app keeps it: up to `heardTo`, every message with
 * none missing before it, from pushes that follow on from there (`message:new`'s `previous_id`) and
 * from the catch-up's pages. Pushes can overtake each other (a batched send, another instance's), so
 * one that does not follow on waits in `ahead` until the one before it comes. The catch-up starts
 * after `heardTo`: what was pushed ahead of a message the socket dropped before is fetched, not
 * missed (and not counted lost), and a push that overtook another is not taken for one seen twice.
 */
export class Thread {
  /** The newest message heard with none missing before it (0: none yet). */
  heardTo = 0;
  /** Pushes heard ahead of `heardTo`, by the id of the message stored just before each; null when none. */
  private ahead: Map<number, number> | null = null;

  /**
   * A pushed message: true when it is news, false when it was heard already (pushed twice, or fetched
   * first). `previousId` undefined (a server that does not tell it): it follows on, as it used to.
   */
  pushed(id: number, previousId: number | null | undefined): boolean {
    if (id <= this.heardTo) return false;
    const previous = previousId === undefined ? this.heardTo : (previousId ?? 0);
    if (this.ahead?.get(previous) === id) return false;
    if (previous === this.heardTo) this.moveTo(id);
    else (this.ahead ??= new Map()).set(previous, id);
    return true;
  }

  /** A page of the catch-up, which holds every message after `heardTo` up to `newest`. */
  fetched(newest: number) {
    if (newest > this.heardTo) this.moveTo(newest);
  }

  private moveTo(id: number) {
    this.heardTo = id;
    if (!this.ahead) return;
    for (let next = this.ahead.get(this.heardTo); next !== undefined; next = this.ahead.get(this.heardTo)) {
      this.ahead.delete(this.heardTo);
      this.heardTo = next;
    }
    // What a page reached past is heard: a push of it now is a second one.
    for (const [previous, pushedId] of this.ahead) if (pushedId <= this.heardTo || previous < this.heardTo) this.ahead.delete(previous);
    if (this.ahead.size === 0) this.ahead = null;
  }
}
