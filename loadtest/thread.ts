import { heardAlready, heardUpTo, pushHeard, unheard } from '../shared/thread-cursor';

/**
 * How far a phone has heard a conversation, as the app keeps it (`shared/thread-cursor.ts`), and
 * whether each push is news: a push heard already (pushed twice, or fetched first) is told apart from
 * one that came early.
 */
export class Thread {
  private cursor = unheard;

  /** The newest message heard with none missing before it (0: none yet): where the catch-up starts. */
  get heardTo() {
    return this.cursor.heardTo;
  }

  /**
   * A pushed message: true when it is news, false when it was heard already. `previousId` undefined
   * (a server that does not tell it): it follows on, as it used to.
   */
  pushed(id: number, previousId: number | null | undefined): boolean {
    const previous = previousId === undefined ? this.cursor.heardTo : previousId;
    if (heardAlready(this.cursor, id, previous)) return false;
    this.cursor = pushHeard(this.cursor, id, previous);
    return true;
  }

  /** A page of the catch-up, which holds every message after `heardTo` up to `newest`. */
  fetched(newest: number) {
    this.cursor = heardUpTo(this.cursor, newest);
  }
}
