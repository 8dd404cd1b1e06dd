/**
 * One attendee of the party: a phone that arrives, checks in, swipes the deck at human pace, chats with
 * its matches (typing first), now and then puts the phone away and comes back, and after every
 * reconnect does what the app does (sends again what was not acknowledged, catches up, asks who is
 * online). What it hears is timed and counted on the party's tally as it comes.
 *
 * Its actions run from the party's one timer wheel, by the attendee's index: no timer or closure of
 * its own per action.
 */
import { randomUUID } from 'node:crypto';
import { DECK_REFILL_AT } from '../shared/constants';
import type { Message } from '../shared/schemas/conversations';
import type { Ack, MatchUser, ServerToClientEvents } from '../shared/events';
import { ConnectError, type DisconnectReason, LeanSocket } from './lean-socket';
import type { MatchOverlays } from './overlays';
import { NetworkError, type Rest } from './rest';
import { type Account, THROTTLE_HINT } from './setup';
import type { Tally } from './tally';
import { Thread } from './thread';
import type { PresenceAsk, Unanswered } from './unanswered';
import type { Wheel } from './wheel';

/** What the attendees share: the run's means, settings and state, as `runParty` sets them. */
export interface Party {
  readonly rest: Rest;
  readonly wheel: Wheel;
  readonly tally: Tally;
  readonly overlays: MatchOverlays;
  readonly unanswered: Unanswered;
  /** The party's phones by account id. */
  readonly byId: Map<number, Attendee>;
  /** The door: a join pass read from the event's QR (or its code), then the check-in. */
  readonly checkIn: (base: URL, token: string) => Promise<void>;
  readonly likeShare: number;
  readonly leaveShare: number;
  readonly partyMs: number;
  /** When the party began (`performance.now()`). */
  partyStarted: number;
  /** The party is over (the drain, or the end): nothing new is begun. */
  stopping: boolean;
  /** The run has returned: no phone connects any more. */
  ended: boolean;
  /** The drain's tries again of phones whose return or arrival failed (the wheel, which tries them during the party, is stopped). */
  readonly drainRetries: Set<NodeJS.Timeout>;
  /** The server's throttling has been told (once). */
  throttleTold: boolean;
  readonly log: (line: string) => void;
}

// Wheel actions.
const SWIPE = 0;
const CHAT = 1;
const SEND = 2;
const LEAVE = 3;
const RECONNECT = 4;
const REFRESH = 5;
const ARRIVE = 6;
const SYNC = 7;

const between = (low: number, high: number) => low + Math.random() * (high - low);
const SECOND = 1000;

const SOCKET_EVENTS = new Set(['message:new', 'match:new', 'deck:refresh', 'sync']);
/** The spread over which the app's phones fetch after `sync` (client/stores/realtime.ts). */
const SYNC_SPREAD_MS = 2000;

/** A `message:new` as heard: without `previous_id` from a server that does not tell it. */
type MessageNew = Omit<Parameters<ServerToClientEvents['message:new']>[0], 'previous_id'> & { previous_id?: number | null };

interface Conversation {
  id: number;
  other: number;
  /** How far this phone has heard it, with none missing: where its catch-up starts. */
  thread: Thread;
  /** Ids the catch-ups fetched (the socket may bring them too: not a duplicate). */
  fetched: Set<number> | null;
}

export class Attendee {
  readonly socket: LeanSocket;
  online = false;
  /** A deliberate leave is in progress (the socket is closed on purpose). */
  away = false;
  connectedOnce = false;
  /** It has tried to arrive (`arriveOverSeconds`): from then on it should be online. */
  arriving = false;
  /** An arrival is under way: one at a time. */
  private arrivalUnderWay = false;
  /**
   * A return is under way: one at a time. The drain tries every phone still away again, and one whose
   * return is connecting would open a second socket: counted twice, the first left open.
   */
  private returnUnderWay = false;
  private deck: number[] = [];
  private deckStale = true;
  /** A `deck:refresh` was heard: the deck goes stale at a moment of its window, as in the app. */
  private refreshWaiting = false;
  /** An empty deck is asked again at a deck:refresh, or after this time. */
  private deckRetryAt = 0;
  /** The deck request in flight: one at a time, as in the app. */
  private deckRequest: Promise<void> | null = null;
  /** Cards swiped while `deckRequest` was out: its answer may still hold them. */
  private swipedDuringRequest: Set<number> | null = null;
  readonly conversations = new Map<number, Conversation>();
  /** client_ids sent and not yet acknowledged: sent again after a reconnect. */
  readonly unacked = new Set<string>();
  private typingIn: number | null = null;
  busy = false;
  /** When its socket last closed and last connected, and its last catch-up: what a lost overlay is read against. */
  disconnectedAt: number | null = null;
  connectedAt: number | null = null;
  lastCatchUp: { from: number; to: number | null; listed: number } | null = null;
  /** Where each thread stood when `sync` was heard: its catch-up, a moment later, starts there. */
  private syncFrom: Map<number, number> | null = null;
  /** Its connections that have ended: an answer, or a give-up, belongs to the connection it was asked on. */
  connectionsEnded = 0;
  /** `presence:list` asked on this connection and not answered yet: the drain waits for them. */
  presencePending = 0;

  constructor(
    readonly index: number,
    readonly account: Account,
    readonly base: URL,
    private readonly party: Party,
  ) {
    this.socket = new LeanSocket(base.origin, { token: account.token }, {
      reconnect: { minDelayMs: 500, maxDelayMs: 5000 },
      events: SOCKET_EVENTS,
      onEvent: (_socket, name, payload) => this.onEvent(name, payload),
      onConnect: () => this.onConnect(),
      onDisconnect: (_socket, reason) => this.onDisconnect(reason),
      onReconnectError: (_socket, failure) =>
        party.tally.error(failure instanceof ConnectError ? `socket connect_error ${failure.message}` : 'socket reconnect failed'),
    });
  }

  /** At the party, or on the way in: its phone should be online by the end (not one whose arrival never came). */
  get came() {
    return this.connectedOnce || this.arriving;
  }

  /** The attendee arrives (its phone connects, it checks in, it starts) at a random moment of the party's first `ms`. */
  arriveWithin(ms: number) {
    this.party.wheel.schedule(this.index, ARRIVE, between(0, ms));
  }

  /** The wheel's call: this attendee's action now due. */
  act(action: number) {
    if (this.party.stopping) return;
    if (action === SWIPE) void this.swipe();
    else if (action === CHAT) this.chat();
    else if (action === SEND) this.send();
    else if (action === LEAVE) this.leave();
    else if (action === RECONNECT) void this.comeBack();
    else if (action === ARRIVE) void this.arrive();
    else if (action === SYNC) this.caughtUpAfterSync();
    else if (action === REFRESH) {
      this.refreshWaiting = false;
      this.deckStale = true;
    }
  }

  /** The attendee is there (connected and checked in): the first card within 5 s, the first message later. */
  startActing() {
    const { wheel, partyMs } = this.party;
    wheel.schedule(this.index, SWIPE, between(0, 5 * SECOND));
    wheel.schedule(this.index, CHAT, between(5, 20) * SECOND);
    // Leaves happen in the first 80 % of the party, after the arrival, so that everyone is back before it ends.
    if (Math.random() < this.party.leaveShare) {
      const sinceStart = performance.now() - this.party.partyStarted;
      const leaveAt = between(Math.max(0.1 * partyMs, sinceStart + 2 * SECOND), 0.8 * partyMs);
      wheel.schedule(this.index, LEAVE, leaveAt - sinceStart);
    }
  }

  /**
   * An attendee arriving during the party (`arriveOverSeconds`), as a phone does: the app opens (its
   * socket connects), the door's QR is scanned (check-in), and the app reads its conversations: matches
   * made while it was closed, by a guest of an earlier run on this event, are in the lists.
   */
  async arrive() {
    const { party } = this;
    if (party.ended || this.arrivalUnderWay) return;
    this.arriving = true;
    this.arrivalUnderWay = true;
    try {
      if (!this.connectedOnce) await this.socket.connect();
      await party.checkIn(this.base, this.account.token);
    } catch (failure) {
      party.tally.error(`arrival ${failure instanceof ConnectError ? `socket connect_error ${failure.message}` : (failure as Error).message}`);
      if (!party.stopping) party.wheel.schedule(this.index, ARRIVE, 2 * SECOND);
      else this.inDrainAgain(() => this.arrive());
      return;
    } finally {
      this.arrivalUnderWay = false;
    }
    party.tally.counts.checkIns += 1;
    void this.catchUp();
    this.startActing();
  }

  /**
   * Comes back after a leave (or, in the drain, after a failed return): the socket connects again, and
   * `onConnect` does what the app does then.
   */
  async comeBack() {
    const { party } = this;
    if (!this.away || party.ended || this.returnUnderWay) return;
    this.returnUnderWay = true;
    try {
      await this.socket.connect();
      this.away = false;
    } catch (failure) {
      party.tally.error(failure instanceof ConnectError ? `socket connect_error ${failure.message}` : 'socket reconnect failed');
      if (!party.stopping) party.wheel.schedule(this.index, RECONNECT, 2 * SECOND);
      else this.inDrainAgain(() => this.comeBack());
    } finally {
      this.returnUnderWay = false;
    }
  }

  /** Whether all it did has been answered: online (if it came), nothing in flight, nothing unacknowledged. */
  get settled() {
    return (this.online || !this.came) && !this.busy && this.unacked.size === 0 && this.presencePending === 0;
  }

  // ------------------------------------------------------------ swiping

  /** A REST call during the party: failures are counted, never thrown. */
  private async call<T>(method: string, route: string, path: string, json?: unknown) {
    const { rest, tally } = this.party;
    try {
      const reply = await rest.request<T>(this.base, method, route, path, { token: this.account.token, json });
      if (reply.status >= 400) tally.error(`${route} ${reply.status}`);
      return reply;
    } catch (failure) {
      tally.error(failure instanceof NetworkError ? `${route} no answer` : `${route} ${(failure as Error).message}`);
      return null;
    }
  }

  private async swipe() {
    const { party } = this;
    if (!this.online || this.busy) return party.wheel.schedule(this.index, SWIPE, between(2, 5) * SECOND);
    this.busy = true;
    try {
      if (this.deckStale) {
        this.deckStale = false;
        await this.askDeck();
      } else if (this.deck.length === 0 && (this.deckRequest || performance.now() >= this.deckRetryAt)) {
        await this.askDeck();
      }
      const other = this.deck.shift();
      if (other === undefined) return;
      this.swipedDuringRequest?.add(other);
      // Mostly likes: people at a party are there to meet.
      const roll = Math.random();
      const { likeShare, tally } = party;
      const response = roll < likeShare ? 'like' : roll < likeShare + (1 - likeShare) * 0.625 ? 'dislike' : 'skip';
      tally.counts.swipes += 1;
      if (response === 'like') tally.counts.likes += 1;
      const likedAt = performance.now();
      const reply = await this.call<{ match: boolean; conversation_id: number | null }>('POST', 'POST /api/matching/', '/api/matching/', {
        response,
        other,
      });
      if (reply?.status === 200 && reply.body.match && reply.body.conversation_id !== null) this.completed(other, reply.body.conversation_id, likedAt);
      // As the app: the next cards are asked for while a few are left, once the reaction is answered,
      // so that the deck does not run dry between pages; the swipes go on meanwhile.
      if (this.deck.length <= DECK_REFILL_AT && !party.stopping) void this.askDeck();
    } finally {
      this.busy = false;
      if (!party.stopping) party.wheel.schedule(this.index, SWIPE, between(2, 5) * SECOND);
    }
  }

  /**
   * The deck's next cards, asked for as the app asks (client/stores/deck.ts): one request at a time,
   * its cards queued behind the deck less those already there or swiped while it was out.
   */
  private askDeck(): Promise<void> {
    this.deckRequest ??= (async () => {
      this.deckRetryAt = performance.now() + 30 * SECOND;
      this.swipedDuringRequest = new Set();
      try {
        const reply = await this.call<{ results: Array<{ id: number }> }>('GET', 'GET /api/users/matching-profiles/', '/api/users/matching-profiles/');
        if (reply?.status === 200) {
          const known = new Set([...this.deck, ...this.swipedDuringRequest]);
          for (const card of reply.body.results) if (!known.has(card.id)) this.deck.push(card.id);
        }
      } finally {
        this.deckRequest = null;
        this.swipedDuringRequest = null;
      }
    })();
    return this.deckRequest;
  }

  /** A conversation the phone has just heard of, with `otherId`: nothing seen or fetched in it yet. */
  private listConversation(conversationId: number, otherId: number): Conversation {
    const conversation: Conversation = { id: conversationId, other: otherId, thread: new Thread(), fetched: null };
    this.conversations.set(conversationId, conversation);
    return conversation;
  }

  /** This like completed a pair: the other person's phone should show the overlay. */
  private completed(otherId: number, conversationId: number, likedAt: number) {
    const { tally, overlays, byId } = this.party;
    tally.counts.matches += 1;
    if (!this.conversations.has(conversationId)) this.listConversation(conversationId, otherId);
    // Someone not of this party (an earlier run's guest) has no phone here to time.
    overlays.liked(conversationId, this.account.id, byId.has(otherId) ? otherId : null, likedAt);
  }

  // ------------------------------------------------------------ chatting

  private chat() {
    this.party.wheel.schedule(this.index, CHAT, between(5, 20) * SECOND);
    if (!this.online || this.typingIn !== null || this.conversations.size === 0) return;
    const conversations = [...this.conversations.keys()];
    const conversationId = conversations[Math.floor(Math.random() * conversations.length)]!;
    this.typingIn = conversationId;
    this.socket.emit('typing', { conversation_id: conversationId });
    this.party.wheel.schedule(this.index, SEND, between(1, 3) * SECOND);
  }

  private send() {
    const conversationId = this.typingIn;
    this.typingIn = null;
    if (conversationId === null || !this.online) return;
    const { tally } = this.party;
    const conversation = this.conversations.get(conversationId)!;
    const clientId = randomUUID();
    tally.seq += 1;
    tally.messages.set(clientId, { recipient: conversation.other, conversationId, seq: tally.seq, at: 0, answered: false, acked: false, delivered: false });
    tally.counts.sent += 1;
    this.unacked.add(clientId);
    this.emitMessage(clientId);
  }

  private emitMessage(clientId: string) {
    const { tally } = this.party;
    const message = tally.messages.get(clientId)!;
    message.at = performance.now();
    message.answered = false;
    const emitted = this.socket.emit(
      'message:send',
      { conversation_id: message.conversationId, content: `Hello! (${message.seq})`, client_id: clientId },
      (reply: Ack<{ message: Message }>) => {
        message.answered = true;
        if (reply.ok) {
          if (!this.unacked.delete(clientId)) return;
          tally.counts.acknowledged += 1;
          message.acked = true;
          if (message.delivered || !this.party.byId.has(message.recipient)) tally.messages.delete(clientId);
          return;
        }
        // Shutting down: sent again after the reconnect (same client_id).
        if (reply.error.code === 'unavailable') return;
        this.unacked.delete(clientId);
        tally.messages.delete(clientId);
        tally.counts.refused += 1;
        tally.error(`message:send ${reply.error.code}`);
        if (reply.error.code === 'throttled') this.throttledOnce();
      },
    );
    // Not emitted (the socket is down): sent again at the reconnect.
    if (emitted) this.party.unanswered.sent(this, clientId, message.at);
  }

  private throttledOnce() {
    const { party } = this;
    if (party.throttleTold) return;
    party.throttleTold = true;
    party.log(`the server throttled a simulated phone: ${THROTTLE_HINT}`);
  }

  // ------------------------------------------------------------ leaving, and coming back

  private leave() {
    if (!this.online) return;
    this.away = true;
    this.socket.close();
    this.party.wheel.schedule(this.index, RECONNECT, between(2, 10) * SECOND);
  }

  /** The drain: what failed is tried again as during the party, 2 s later, until it is over (its end closes every socket). */
  private inDrainAgain(again: () => Promise<void>) {
    const { party } = this;
    if (party.ended) return;
    const timer = setTimeout(() => {
      party.drainRetries.delete(timer);
      void again();
    }, 2 * SECOND);
    party.drainRetries.add(timer);
  }

  private onDisconnect(reason: DisconnectReason) {
    const { tally } = this.party;
    this.online = false;
    this.disconnectedAt = performance.now();
    tally.connected -= 1;
    // Its acknowledgements go with the connection: the app's ask fails, and the next connect asks again.
    this.connectionsEnded += 1;
    this.presencePending = 0;
    if (this.away) return;
    tally.counts.drops += 1;
    if (reason === 'io server disconnect') tally.counts.serverDisconnects += 1;
  }

  private onConnect() {
    const { tally } = this.party;
    this.online = true;
    this.connectedAt = performance.now();
    tally.connected += 1;
    this.askPresence();
    if (!this.connectedOnce) {
      this.connectedOnce = true;
      return;
    }
    tally.counts.reconnects += 1;
    tally.reconnect.record(this.socket.handshakeMs);
    // What a phone does after a reconnect: send again what was not acknowledged, fetch what it missed.
    for (const clientId of this.unacked) {
      tally.resent.add(clientId);
      this.emitMessage(clientId);
    }
    void this.catchUp();
    void this.askAfterReconnect();
  }

  /** As the app at every connect: which of its matches are online (the dots), then `presence` events keep it. */
  private askPresence() {
    const { tally } = this.party;
    const ask: PresenceAsk = { attendee: this, connection: this.connectionsEnded, at: performance.now(), open: true };
    const emitted = this.socket.emit('presence:list', {}, (reply: Ack<{ online: number[] }>) => {
      // Given up already: the app has stopped waiting for it.
      if (!ask.open) return;
      ask.open = false;
      this.presencePending -= 1;
      if (!reply.ok) return tally.error(`presence:list ${reply.error.code}`);
      tally.presenceList.record(performance.now() - ask.at);
    });
    if (!emitted) return;
    this.presencePending += 1;
    this.party.unanswered.asked(ask);
  }

  /** After `sync` (the servers' Redis came back), at its moment within the spread: as after a reconnect, and who is online. */
  private caughtUpAfterSync() {
    const from = this.syncFrom ?? undefined;
    this.syncFrom = null;
    if (!this.online) return;
    void this.catchUp(from);
    void this.askAfterReconnect();
    this.askPresence();
  }

  /**
   * What else the app reads once its socket is back (client/stores/realtime.ts), so that a party's
   * reconnects weigh on the server as a room of phones coming back does: where it is checked in, the
   * deck afresh (who arrived meanwhile) and the likes left beside it.
   */
  private async askAfterReconnect() {
    await Promise.all([
      this.call('GET', 'GET /api/events/current/', '/api/events/current/'),
      this.askDeck(),
      this.call('GET', 'GET /api/matching/allowance/', '/api/matching/allowance/'),
    ]);
  }

  /** Where each thread stands now: the last message heard in it with none missing before it. */
  private cursors() {
    return new Map([...this.conversations.values()].map((conversation) => [conversation.id, conversation.thread.heardTo]));
  }

  /** The client's catch-up after a reconnect: new matches, then messages after the last one held. */
  private async catchUp(from = this.cursors()) {
    const { tally, overlays } = this.party;
    // As the app does: each thread from where it stood when the socket came back (or `sync` was
    // heard), with none missing before it. What the socket brings meanwhile may have overtaken a
    // message still on its way, so it is no cursor here.
    const progress = (this.lastCatchUp = { from: performance.now(), to: null as number | null, listed: 0 });
    for (const list of ['empty', 'started'] as const) {
      const reply = await this.call<{ results: Array<{ id: number; other_user_id: number }> }>(
        'GET',
        `GET /api/conversations/${list}/`,
        `/api/conversations/${list}/`,
      );
      if (reply?.status !== 200) continue;
      progress.listed += 1;
      for (const summary of reply.body.results) {
        if (this.conversations.has(summary.id)) continue;
        this.listConversation(summary.id, summary.other_user_id);
        overlays.learned(summary.id, this.account.id);
      }
    }
    progress.to = performance.now();
    for (const conversation of this.conversations.values()) {
      const fetched = (conversation.fetched ??= new Set());
      let after = from.get(conversation.id) ?? 0;
      for (;;) {
        const reply = await this.call<{ results: Message[] }>(
          'GET',
          'GET /api/conversations/:id/messages/?after',
          `/api/conversations/${conversation.id}/messages/?after=${after}&limit=100`,
        );
        if (reply?.status !== 200) break;
        for (const message of reply.body.results) {
          after = Math.max(after, message.id);
          if (message.sender === this.account.id) continue;
          fetched.add(message.id);
          const sent = message.client_id ? tally.messages.get(message.client_id) : undefined;
          if (sent && !sent.delivered) {
            sent.delivered = true;
            tally.counts.recovered += 1;
            if (sent.acked) tally.messages.delete(message.client_id!);
          }
        }
        conversation.thread.fetched(after);
        if (reply.body.results.length < 100) break;
      }
    }
  }

  // ------------------------------------------------------------ what the socket brings

  private onEvent(name: string, payload: unknown) {
    if (name === 'message:new') return this.received(payload as MessageNew);
    if (name === 'match:new') return this.matched(payload as { conversation_id: number; user: MatchUser });
    if (name === 'deck:refresh') {
      // The app fetches at a random moment within the server's window, once for every refresh heard meanwhile.
      if (this.refreshWaiting) return;
      this.refreshWaiting = true;
      this.party.wheel.schedule(this.index, REFRESH, Math.random() * (payload as { within_ms: number }).within_ms);
    } else if (name === 'sync') {
      // Every phone hears it at once: the app fetches at a random moment within SYNC_SPREAD_MS, from
      // where its threads stood then. A second one heard meanwhile is covered by the first.
      if (this.syncFrom) return;
      this.syncFrom = this.cursors();
      this.party.wheel.schedule(this.index, SYNC, Math.random() * SYNC_SPREAD_MS);
    }
  }

  private received({ conversation_id: conversationId, message, previous_id: previousId }: MessageNew) {
    const { tally } = this.party;
    const mine = message.sender === this.account.id;
    let conversation = this.conversations.get(conversationId);
    if (!conversation) {
      if (mine) return;
      // A conversation this phone had not heard of: a match made while its socket was down that the
      // catch-up has not listed yet (its first news, for the overlays), or one of an earlier run's.
      conversation = this.listConversation(conversationId, message.sender);
      this.party.overlays.learned(conversationId, this.account.id);
    }
    // Its own messages too: the thread is heard with none missing, whoever wrote them.
    const news = conversation.thread.pushed(message.id, previousId);
    if (mine) return;
    if (!news) {
      // Fetched by the catch-up and pushed too, or pushed again for its resend: the client shows it once.
      if (conversation.fetched?.has(message.id) || (message.client_id && tally.resent.has(message.client_id))) return;
      tally.counts.duplicated += 1;
      tally.error('message:new seen twice');
      return;
    }
    if (!message.client_id) return;
    const sent = tally.messages.get(message.client_id);
    if (!sent || sent.delivered) {
      // A client_id already delivered under another id: stored twice.
      if (sent || /^[0-9a-f-]{36}$/.test(message.client_id)) {
        tally.counts.duplicated += 1;
        tally.error('message stored twice (one client_id, two ids)');
      }
      return;
    }
    sent.delivered = true;
    tally.counts.delivered += 1;
    tally.deliveredIn(performance.now() - sent.at);
    if (sent.acked) tally.messages.delete(message.client_id);
  }

  private matched({ conversation_id: conversationId, user }: { conversation_id: number; user: MatchUser }) {
    if (this.conversations.has(conversationId)) return;
    this.listConversation(conversationId, user.id);
    this.party.overlays.heard(conversationId, this.account.id, performance.now());
  }
}
