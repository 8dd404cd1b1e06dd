/**
 * The phones' asks the server leaves unanswered: every `message:send` emitted and every `presence:list`
 * asked, in order (so by deadline), each given up as the app gives it up.
 */
import { SEND_ACK_TIMEOUT_MS } from '../shared/constants';
import type { Tally } from './tally';

const SECOND = 1000;

/**
 * A `message:send` or `presence:list` the server has not answered in this long is given up as the app
 * gives it up after SEND_ACK_TIMEOUT_MS (client/lib/socket.ts), with a margin for this tool's own event
 * loop: an error, the connection dropped as dead, and once it is back the send sent again (same
 * client_id), who is online asked again (as at every connect). Left to the heartbeat, a server that
 * keeps the socket but never answers held it for 45 s, or for ever.
 */
const UNANSWERED_MS = SEND_ACK_TIMEOUT_MS + 2000;

/** What of a phone (an attendee) giving up on an ask reads and changes. */
export interface Phone {
  readonly socket: { readonly connected: boolean; drop(): void };
  /** How many of its connections have ended: an ask belongs to the connection it went out on. */
  readonly connectionsEnded: number;
  presencePending: number;
}

/** A `presence:list` asked: answered, given up after UNANSWERED_MS, or let go with its connection. */
export interface PresenceAsk {
  attendee: Phone;
  /** The `connectionsEnded` of its phone when it was asked. */
  connection: number;
  at: number;
  open: boolean;
}

export class Unanswered {
  /** Every `message:send` emitted, in order (so by deadline), from `awaitingFrom` on: `giveUp` reads them. */
  private awaiting: Array<{ attendee: Phone; clientId: string; at: number }> = [];
  private awaitingFrom = 0;
  /** Every `presence:list` asked, in order (so by deadline), from `presenceAsksFrom` on: `giveUp` reads them too. */
  private presenceAsks: PresenceAsk[] = [];
  private presenceAsksFrom = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly tally: Tally) {}

  /** Checks twice a second from now on (from the first connect: a `presence:list` is asked at each). */
  start() {
    this.timer = setInterval(() => this.giveUp(performance.now()), SECOND / 2);
  }

  stop() {
    clearInterval(this.timer);
  }

  /** A `message:send` emitted at `at`. */
  sent(attendee: Phone, clientId: string, at: number) {
    this.awaiting.push({ attendee, clientId, at });
  }

  asked(ask: PresenceAsk) {
    this.presenceAsks.push(ask);
  }

  /**
   * The sends still unanswered on the connection they went out on after UNANSWERED_MS: the phone
   * drops that connection as dead, as the app does; the reconnect sends them again. The message is still
   * timed and counted when it arrives (it may have been stored: the resend is answered with it).
   * Likewise a `presence:list`: the reconnect asks again.
   */
  private giveUp(now: number) {
    this.giveUpPresence(now);
    const { awaiting } = this;
    while (this.awaitingFrom < awaiting.length && now - awaiting[this.awaitingFrom]!.at >= UNANSWERED_MS) {
      const { attendee, clientId, at } = awaiting[this.awaitingFrom]!;
      this.awaitingFrom += 1;
      // Answered, or sent again since (after a reconnect): not this send's to give up.
      const message = this.tally.messages.get(clientId);
      if (!message || message.answered || message.at !== at || !attendee.socket.connected) continue;
      this.tally.error(`message:send no answer within ${UNANSWERED_MS / SECOND} s`);
      attendee.socket.drop();
    }
    if (this.awaitingFrom > 1024 && this.awaitingFrom * 2 > awaiting.length) {
      this.awaiting = awaiting.slice(this.awaitingFrom);
      this.awaitingFrom = 0;
    }
  }

  private giveUpPresence(now: number) {
    const asks = this.presenceAsks;
    while (this.presenceAsksFrom < asks.length && now - asks[this.presenceAsksFrom]!.at >= UNANSWERED_MS) {
      const ask = asks[this.presenceAsksFrom]!;
      this.presenceAsksFrom += 1;
      // Answered, or let go with a connection that has ended since.
      if (!ask.open || ask.connection !== ask.attendee.connectionsEnded) continue;
      ask.open = false;
      ask.attendee.presencePending -= 1;
      this.tally.error(`presence:list no answer within ${UNANSWERED_MS / SECOND} s`);
      ask.attendee.socket.drop();
    }
    if (this.presenceAsksFrom > 1024 && this.presenceAsksFrom * 2 > asks.length) {
      this.presenceAsks = asks.slice(this.presenceAsksFrom);
      this.presenceAsksFrom = 0;
    }
  }
}
