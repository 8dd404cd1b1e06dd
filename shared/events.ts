/**
 * The realtime contract (docs/socket-events.md): event names and payloads, shared by the server's
 * `Server<ClientToServerEvents, ServerToClientEvents>` and the client's socket.
 */
import { CONVERSATIONS_PAGE_SIZE, MATCH_SEEN, type Reaction } from './constants';
import { Id } from './schemas/common';
import { type Message, MessageInput } from './schemas/conversations';
import type { PublicEvent } from './schemas/events';
import type { UndoResult } from './schemas/plan';
import { message, z } from './schemas/zod';
import { hasLoneSurrogate } from './well-formed-text';

export const MessageSendPayload = z.object({
  conversation_id: Id,
  // PostgreSQL text cannot hold U+0000: refused here as DRF does, instead of failing at the insert; half
  // of a surrogate pair would be stored as U+FFFD, the sender's text changed without a word.
  content: MessageInput.shape.content
    .refine((value) => !value.includes('\u0000'), message('null_characters'))
    .refine((value) => !hasLoneSurrogate(value), message('malformed_text')),
  client_id: z.uuid(),
});
export type MessageSendPayload = z.infer<typeof MessageSendPayload>;

export const TypingPayload = z.object({ conversation_id: Id });
export type TypingPayload = z.infer<typeof TypingPayload>;

export const MessageReadPayload = z.object({
  conversation_id: Id,
  last_read_id: z.number().int().min(0).max(2_147_483_647),
});
export type MessageReadPayload = z.infer<typeof MessageReadPayload>;

/** Matches I have seen on this phone: their overlay, or the chats (`MATCH_SEEN`). */
export const MatchSeenPayload = z.object({
  conversation_ids: z.array(Id).min(1).max(CONVERSATIONS_PAGE_SIZE),
  seen: z.enum(MATCH_SEEN),
});
export type MatchSeenPayload = z.infer<typeof MatchSeenPayload>;

export const PresenceListPayload = z.object({});
export type PresenceListPayload = z.infer<typeof PresenceListPayload>;

/** The organizer's host screen asks for its event's live count. */
export const EventWatchPayload = z.object({ event_id: Id });
export type EventWatchPayload = z.infer<typeof EventWatchPayload>;

/** The host screen closed: its socket stops hearing the event it watched. */
export const EventUnwatchPayload = z.object({ event_id: Id });
export type EventUnwatchPayload = z.infer<typeof EventUnwatchPayload>;

export interface EventCountPayload {
  event_id: number;
  count: number;
}

export interface AckError {
  /** `unavailable`: the instance is shutting down; send again once reconnected (same client_id). */
  code: 'validation' | 'not_found' | 'throttled' | 'unauthorized' | 'unavailable' | 'internal';
  message: string;
  fields?: Record<string, string[]>;
  /** `throttled`: seconds until the limit lets the send through (the REST answer's `Retry-After`). */
  retry_after?: number;
}
export type Ack<T extends object = object> = ({ ok: true } & T) | { ok: false; error: AckError };

export interface MatchUser {
  id: number;
  name: string;
  image: string | null;
}

export interface ServerToClientEvents {
  /**
   * `previous_id`: the message stored just before it in the conversation (null for its first). Pushes
   * can arrive out of order (batched sends, another instance's): one that does not follow on from the
   * newest message a client holds tells it that one between is still to come, or was missed. Absent
   * from an instance of an older version (a rolling deploy): the client cannot tell, and reads again.
   */
  'message:new': (payload: { conversation_id: number; message: Message; previous_id?: number | null }) => void;
  /**
   * A like completed a pair: to both, each told about the other. `by_you` only to the one whose like
   * made it: on their other phones it is the latest decision, which leaves nothing to undo.
   */
  'match:new': (payload: { conversation_id: number; user: MatchUser; by_you?: true }) => void;
  typing: (payload: { conversation_id: number; user_id: number }) => void;
  'message:read': (payload: { conversation_id: number; user_id: number; last_read_id: number }) => void;
  presence: (payload: { user_id: number; online: boolean }) => void;
  /** Current attendees of an event, to its room: at most one per second per event, exact after a burst. */
  'event:count': (payload: EventCountPayload) => void;
  /**
   * People came to the event or left it: the attendees' decks fetch fresh cards, which hold the newcomers
   * and no longer the leavers, each at a random moment within `within_ms` (so that a room of phones does
   * not ask at once). It names no one. At most one per `within_ms` per event, which is 5 s or longer at
   * a big event.
   */
  'deck:refresh': (payload: { event_id: number; within_ms: number }) => void;
  /**
   * The organizer changed the event (its name, place, times or how people check in) or ended it early:
   * to its room, the event as it is now, so the attendees' phones stop showing what it was. `by_you`,
   * to every socket of the organizer's only, as with `event:deleted`: their phones show it quietly.
   */
  'event:changed': (payload: { event: PublicEvent; by_you?: true }) => void;
  /**
   * The organizer deleted the event (before it started): to its attendees and host screens, then `sync`
   * to the attendees to read again where they are. `by_you`, to every socket of the organizer's only
   * (one checked in to their own event too): it was their own doing, which the screen that deleted it
   * said, so their other phones drop it quietly, where a guest's say the organizer canceled it.
   */
  'event:deleted': (payload: { event_id: number; by_you?: true }) => void;
  /**
   * A conversation ended (block, unmatch, report, ban, deletion): it is gone for both. `by_you` only to
   * the one who blocked, reported or unmatched: their other phones drop it quietly, where the other
   * person's say it ended (the payload alone, whatever the reason).
   */
  'match:removed': (payload: { conversation_id: number; by_you?: true }) => void;
  /**
   * A block (or a report, which blocks), to both people's sockets: `user_id` is out of reach now, so
   * their card leaves the deck and their profile closes, as their conversation does (`match:removed`).
   * `by_you` only to the one who blocked or reported: it was their own doing (their other phones drop
   * the offer to report that person). A ban or a deletion says the same, without `by_you`, to everyone
   * whose phone may show them: their card in a deck, their like in "likes you".
   */
  'person:gone': (payload: { user_id: number; by_you?: true }) => void;
  /**
   * I unblocked `user_id`, on this or another of my phones or tabs: they are no longer gone here (their
   * profile opens again, they leave the list of blocked people). Never told to the one unblocked.
   */
  'person:unblocked': (payload: { user_id: number }) => void;
  /**
   * I saw these matches on one of my phones or tabs (`seen`: their overlay, or the chats): the others
   * show their overlay no more, and after the chats no dot for them either.
   */
  'match:seen': (payload: MatchSeenPayload) => void;
  /**
   * I liked, disliked or skipped `user_id` (`response`; no match), on this or another of my phones or
   * tabs: their card leaves every deck of mine, and, but for a skip ("later", not an answer), they
   * leave "likes you".
   */
  'deck:answered': (payload: { user_id: number; response: Reaction }) => void;
  /**
   * I took back my last pass (`POST /api/matching/undo/`), on this or another of my phones or tabs:
   * its answer, the pass and the card. The person is in every deck of mine again and, a dislike taken
   * back, in "likes you" again if they like me: what `deck:answered` took away comes back.
   */
  'deck:undone': (payload: UndoResult) => void;
  /**
   * The signed-in user's own account changed elsewhere (their plan started or ended, their e-mail was
   * confirmed): fetch it again. No payload: `GET /api/users/me/` is the one source of the user, and a
   * copy carried here could arrive after a newer change and undo it on screen.
   */
  'account:changed': () => void;
  /**
   * The user was banned: their sessions end now (the socket drops next). The phone says so, instead of
   * a session closed for no reason it can tell.
   */
  'account:suspended': () => void;
  /**
   * The account was deleted (in the app, on another phone, or by the operator): their sessions end now
   * (the socket drops next). The phone says so, and keeps nothing of the account on the device.
   */
  'account:deleted': () => void;
  /**
   * Events may have been missed without the socket dropping (the instances lost each other for a
   * while): fetch what is new, as after a reconnect.
   */
  sync: () => void;
}

export interface ClientToServerEvents {
  'message:send': (payload: MessageSendPayload, ack: (reply: Ack<{ message: Message }>) => void) => void;
  typing: (payload: TypingPayload, ack?: (reply: Ack) => void) => void;
  'message:read': (payload: MessageReadPayload, ack?: (reply: Ack) => void) => void;
  'match:seen': (payload: MatchSeenPayload, ack?: (reply: Ack) => void) => void;
  /** Which of my matches are online right now (after that, `presence` events keep it current). */
  'presence:list': (payload: PresenceListPayload, ack: (reply: Ack<{ online: number[] }>) => void) => void;
  /** The organizer's host screen joins its event's room; the ack carries the count now. */
  'event:watch': (payload: EventWatchPayload, ack: (reply: Ack<{ count: number }>) => void) => void;
  /** The host screen closed: out of the event's room, unless its user is checked in there. */
  'event:unwatch': (payload: EventUnwatchPayload, ack?: (reply: Ack) => void) => void;
}

/** Room names come from here only. */
export const rooms = {
  user: (id: number) => `user:${id}`,
  /** Every socket of the event's current attendees, and its organizer's host screens. */
  event: (id: number) => `event:${id}`,
  /** Host screens only: a marker that keeps them in `event(id)` when the organizer leaves as an attendee. */
  eventHost: (id: number) => `event:${id}:host`,
} as const;
