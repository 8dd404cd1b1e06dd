import { EVENT_AFTER_PARTY_HOURS } from '../../shared/constants';
import type { Message } from '../../shared/schemas/conversations';
import type { PublicEvent } from '../../shared/schemas/events';
import { trackUnsent } from '../lib/analytics';
import { logFailure } from '../lib/api';
import { formatTime, withHourArticle } from '../lib/format';
import { t, ti, useLanguage } from '../lib/i18n';
import { onChatPage, pagePath } from '../lib/page-path';
import { connectSocket, disconnectSocket, isConnected, onConnect, onEvent, onFirstConnect, onReconnect, onRefused, useConnection } from '../lib/socket';
import { toast } from '../lib/toast';
import { refreshWhenVisible } from '../lib/when-visible';
import { chatToastKey, useChat } from './chat';
import { useConversations } from './conversations';
import { useDeck } from './deck';
import { currentReadSince, heardOfEvent, useEvents } from './events';
import { useLikes } from './likes';
import { usePlan } from './plan';
import { usePresence } from './presence';
import { useProfile } from './profile';
import { conversationEnded, personGone, useSafety } from './safety';
import { endRevokedSession, onSignOut, onTokenReplaced, sessionCheck, useSession } from './session';

let stops: Array<() => void> = [];

/**
 * Every client hears `sync` at the same moment (Redis came back): each fetches within this spread,
 * so that the catch-up requests do not all land on the servers in the same instant.
 */
const SYNC_SPREAD_MS = 2000;

/** The least time between two reads of the user when the app comes back into view. */
const USER_REFRESH_MS = 30_000;

/** The deck's fetch after a `deck:refresh`, waiting for its moment within the server's window. */
let deckRefresh: ReturnType<typeof setTimeout> | undefined;

/**
 * New people at my event: fresh cards behind the one on screen, fetched at a random moment within
 * the window the server gives, so that a room of phones does not ask in the same second. One fetch
 * covers every refresh heard while it waits. The news of another room (an event I host, one I have
 * just left) is not mine: it neither refreshes the deck nor holds back the news of my own.
 */
function refreshDeckWithin(eventId: number, withinMs: number) {
  if (deckRefresh !== undefined || useEvents.getState().current?.id !== eventId) return;
  deckRefresh = setTimeout(() => {
    deckRefresh = undefined;
    if (useEvents.getState().current?.id === eventId && useDeck.getState().queue !== null) void useDeck.getState().refresh();
  }, Math.random() * withinMs);
}

/** When the connection was last lost (`performance.now()`): what was pushed since then did not arrive. */
let lostAt = -Infinity;
/**
 * The chats' cursors at that moment: the catch-up fetches after them, not after the chat's last
 * message now, which may be one of ours sent over HTTP meanwhile, stored after the partner's we missed.
 */
let lostCursors: Record<number, number> = {};

/**
 * Fetches what may have been missed while events could not reach this tab since the moment `missedFrom`
 * (messages after `from`, see `useChat`).
 */
function catchUp(missedFrom: number, from?: Record<number, number>) {
  catchUpEvent(missedFrom);
  // The account as it is now: an `account:changed` (a plan bought on another phone) may have been
  // missed. A user not known from the server yet is asked for by the connect itself (`retryUser`).
  const { user, fromDevice, loadUser } = useSession.getState();
  if (user && !fromDevice) void loadUser();
  // And the plan, where held: a cancellation on another phone leaves `has_subscription` as it was.
  planAgain();
  if (useDeck.getState().queue !== null) {
    void useDeck.getState().refresh();
    // The likes left beside it: some came back meanwhile, or were spent on another device. And what
    // undo would bring back, on either plan (the free plan's offer names them): a decision made on
    // another phone meanwhile moved it.
    void usePlan.getState().loadAllowance();
    void usePlan.getState().loadUndo();
  }
  // "Likes you" and the blocked, where held: a like, an undo or an unblock may have been missed.
  if (useLikes.getState().count !== null) void useLikes.getState().load();
  if (useSafety.getState().lists.blocked.items) useSafety.getState().load('blocked').catch((error: unknown) => logFailure('Could not load the blocked', error));
  catchUpChats(from);
}

/**
 * Where I am, read again: the event may have changed or ended since `missedFrom`. Not for a user not
 * known yet (an app opened with no network): AppRoot asks once their profile is known to be complete,
 * and a read sent since covers what was missed.
 */
function catchUpEvent(missedFrom: number) {
  if (useSession.getState().user?.is_profile_completed && !currentReadSince(missedFrom)) void useEvents.getState().loadCurrent();
}

/** The plan read again, where this tab holds it. */
function planAgain() {
  if (usePlan.getState().subscription) void usePlan.getState().loadSubscription();
}

/** A like given on one of my phones (this one too): the free plan's likes left, where held, are read again. */
function likeGiven() {
  const { allowance, loadAllowance } = usePlan.getState();
  if (allowance && !allowance.unlimited) void loadAllowance();
}

/**
 * The chats and the lists of them, from `from` (see `useChat`). A match made meanwhile, which the lists
 * now hold, shows as its `match:new` would have (`useConversations.load`).
 */
function catchUpChats(from?: Record<number, number>) {
  // A conversation that ended while we were away answers 404: it ends here too.
  void useChat
    .getState()
    .catchUp(from)
    .then((gone) => gone.forEach((id) => conversationEnded(id)));
  void useConversations.getState().refresh();
}

/** After `sync`: the messages and lists missed, and who came and went meanwhile. */
function catchUpAll(missedFrom: number, from: Record<number, number>) {
  catchUp(missedFrom, from);
  void usePresence.getState().refresh();
}

/**
 * A message from a match while the user is elsewhere in the app (the deck, a profile): a toast with who
 * wrote and what, that opens the chat; one per conversation, the newest in place of the one before. Not
 * in that chat, nor on the list, which show it themselves, nor on the host screen. A toast raised while the phone is away waits
 * for it to come back (components/Toaster.tsx).
 */
function announce(conversationId: number, message: Message) {
  const path = pagePath();
  if (onChatPage(conversationId) || path === '/app/matches') return;
  // The host screen is shown to the room (a projector, a phone held up at the door): nothing private.
  if (/^\/app\/events\/\d+\/host$/.test(path)) return;
  const name = useConversations.getState().nameOf(conversationId);
  toast.message(message.content, { title: name ?? t('chat.newMessage'), href: `/app/chat/${conversationId}`, key: chatToastKey(conversationId) });
}

/**
 * The organizer changed or ended the event I am at: shown as it is now, and said once in a toast (the
 * bar above the deck has room for the name only). Not to the organizer (`byYou`), at it too or on its
 * screens: they did it themselves, on a screen that shows it.
 */
function eventChanged(event: PublicEvent, byYou?: true) {
  const before = useEvents.getState().current;
  useEvents.getState().changed(event);
  if (byYou || before?.id !== event.id) return;
  const endedNow = before.status === 'open' && event.status !== 'open';
  // A party that runs late (or closes early): its new end said, which the bar above the deck does not show.
  const language = useLanguage.getState().language;
  const retimed = Date.parse(event.ends_at) !== Date.parse(before.ends_at);
  const text = endedNow
    ? ti('deck.event.endedEarly', { name: event.name, hours: EVENT_AFTER_PARTY_HOURS })
    : retimed
      ? ti('deck.event.retimed', { name: event.name, time: withHourArticle(formatTime(event.ends_at, language), language) })
      : ti('deck.event.changed', { name: event.name });
  toast.info(text, { key: `event-${event.id}` });
}

/**
 * Matches the user saw on another phone or tab: their overlay shows here no more (closed if it shows,
 * dropped if it waits its turn); seen in the chats there, their dot on Chats goes too.
 */
function seenElsewhere(ids: number[], inChats: boolean) {
  const deck = useDeck.getState();
  for (const id of ids) {
    deck.rememberMatch(id);
    deck.dropMatch(id);
  }
  if (inChats) useConversations.setState(({ newMatches }) => ({ newMatches: newMatches.filter((id) => !ids.includes(id)) }));
}

/** Connects the signed-in tab and routes every server event to its store's action. */
export function startRealtime(token: string) {
  if (stops.length) return;
  connectSocket(token);
  const me = () => useSession.getState().user?.id;
  stops = [
    onEvent('message:new', ({ conversation_id, message, previous_id }) => {
      // Sent as the conversation ended (its push crossed the block or unmatch): it is gone here.
      if (useChat.getState().ended[conversation_id]) return;
      // The partner's message held already (pushed again for a resend, or read in a page first): counted and told once.
      const had = message.sender !== me() && useChat.getState().threads[conversation_id]?.messages.some((held) => held.id === message.id);
      useChat.getState().receive(conversation_id, message, previous_id);
      if (had) return;
      // Pushes can overtake each other: one stored before a message already heard is not the last.
      const late = useChat.getState().threads[conversation_id]!.messages.some((held) => held.id > message.id);
      useConversations.getState().noteMessage(conversation_id, message, message.sender === me(), late);
      if (message.sender !== me()) announce(conversation_id, message);
    }),
    onEvent('match:new', ({ conversation_id, user, by_you }) => {
      // Read again after any read on its way: that one may have been asked before the match was made.
      void useConversations.getState().refresh();
      useConversations.getState().noteNewMatches([conversation_id]);
      // Whether the new match is online now: `presence` tells only of changes after this.
      void usePresence.getState().refresh();
      useDeck.getState().heardOfMatch(conversation_id, user);
      useLikes.getState().answered(user.id, true);
      likeGiven();
      // My like that made it (on another phone) is the latest decision, as a like's `deck:answered` is,
      // and leaves nothing to undo, on either plan; theirs changes nothing.
      if (by_you) usePlan.getState().answered(user.id, 'like', null);
    }),
    onEvent('typing', ({ conversation_id, user_id }) => {
      if (user_id !== me()) useChat.getState().typing(conversation_id);
    }),
    onEvent('message:read', ({ conversation_id, user_id, last_read_id }) => {
      if (user_id !== me()) return useChat.getState().partnerRead(conversation_id, last_read_id);
      // Read on one of my phones or tabs (this one too): the unread count here follows, counted from
      // the chat when this tab holds it, else asked of the server.
      const unread = useChat.getState().readUpTo(conversation_id, last_read_id);
      if (unread !== null) useConversations.getState().setUnread(conversation_id, unread);
      else void useConversations.getState().refresh();
    }),
    onEvent('match:seen', ({ conversation_ids, seen }) => seenElsewhere(conversation_ids, seen === 'chats')),
    onEvent('match:removed', ({ conversation_id, by_you }) => conversationEnded(conversation_id, by_you)),
    onEvent('person:gone', ({ user_id, by_you }) => personGone(user_id, by_you)),
    onEvent('person:unblocked', ({ user_id }) => {
      useSafety.getState().unblocked(user_id);
      // Their card may come back (unless a reaction or an unmatch of ours keeps them out): the deck
      // held here is read again behind the card on screen, after any read on its way, which may have
      // been asked before the unblock.
      const { queue, deckRequest } = useDeck.getState();
      if (queue) void Promise.resolve(deckRequest).then(() => useDeck.getState().refresh());
      // Had they liked me, they are in "likes you" again (I never answered): read again where held.
      if (useLikes.getState().count !== null) void useLikes.getState().load();
    }),
    onEvent('deck:answered', ({ user_id, response }) => {
      const deck = useDeck.getState();
      const card = deck.held(user_id);
      const sentHere = [...deck.cardsInFlight].some((sent) => sent.id === user_id);
      deck.forget(user_id);
      // The last card here: the deck is read again, as the phone that decided reads its own, which shows
      // who is left (a skip comes round again there once nobody unseen is) rather than nobody.
      if (card && card === deck.current && !useDeck.getState().current) void useDeck.getState().refresh();
      // Made here or on another phone, it is the one undo would take back now (a like: none).
      usePlan.getState().answered(user_id, response, card, sentHere);
      // A skip is "later": whoever likes me waits for my answer still.
      if (response !== 'skip') useLikes.getState().answered(user_id, false);
      if (response === 'like') likeGiven();
    }),
    onEvent('deck:undone', ({ undone, card }) => {
      useDeck.getState().undone(card);
      // A dislike took them out of "likes you": they are in it again if they like me.
      if (undone === 'dislike' && useLikes.getState().count !== null) void useLikes.getState().load();
      // The pass before it may be offered now.
      usePlan.getState().undone(card.id);
    }),
    // My plan, my e-mail's confirmation or my profile changed on another device (or in Stripe). The plan
    // and the profile are read again each time, where this tab holds them: a change may leave
    // `has_subscription` as it was (a cancellation at the period's end, another billing period), and
    // a profile form open here takes the save (EditProfile.tsx).
    onEvent('account:changed', () => {
      void useSession.getState().loadUser();
      planAgain();
      if (useProfile.getState().profile) void useProfile.getState().load().catch(() => {});
    }),
    // The plan started or ended, whoever read the user that says so: what it decides is read again where
    // this tab holds it, so that the deck's "no likes left" and its like button follow at once, and
    // "likes you" shows the people (the plan's perk) or no longer does.
    useSession.subscribe(({ user }, { user: before }) => {
      if (!user || !before || user.has_subscription === before.has_subscription) return;
      const plan = usePlan.getState();
      if (plan.allowance) void plan.loadAllowance();
      if (plan.subscription) void plan.loadSubscription();
      if (useLikes.getState().count !== null) void useLikes.getState().load();
    }),
    onEvent('presence', ({ user_id, online }) => usePresence.getState().update(user_id, online)),
    onEvent('event:count', ({ event_id, count }) => {
      useEvents.getState().setCount(event_id, count);
      void heardOfEvent(event_id);
    }),
    onEvent('event:changed', ({ event, by_you }) => eventChanged(event, by_you)),
    // Said once: the `sync` that follows reads again where I am (nowhere) and the deck. Not to the
    // organizer (`by_you`), at it too or on its host screen: their screen that deleted it said so.
    onEvent('event:deleted', ({ event_id, by_you }) => {
      const current = useEvents.getState().current;
      if (by_you || current?.id !== event_id) return;
      toast.info(ti('deck.event.deleted', { name: current.name }), { key: `event-${event_id}` });
    }),
    // New people at my event. This is the deck's only refresh: there is no polling.
    onEvent('deck:refresh', ({ event_id, within_ms }) => refreshDeckWithin(event_id, within_ms)),
    () => {
      clearTimeout(deckRefresh);
      deckRefresh = undefined;
    },
    // Offline, who is online is not known: no dot says "Online" beside "Reconnecting…". The next connect asks again.
    useConnection.subscribe((state, previous) => {
      if (previous.connected && !state.connected) usePresence.getState().reset();
      if (state.lost && !previous.lost) {
        lostAt = performance.now();
        lostCursors = useChat.getState().cursors();
      }
      // A network that lets no socket through, or a tab beyond the user's sockets: what waits for the
      // socket goes over HTTP, as that is known and again at each try to connect that fails.
      if (!state.connected && (state.blocked || state.tooMany)) void useChat.getState().sendQueued();
    }),
    onConnect(() => {
      // The server is reachable: a user who could not be loaded (no network at the door) is asked for now.
      useSession.getState().retryUser();
      void usePresence.getState().refresh();
      // What was written with no connection goes out now, and what was done (analytics).
      void useChat.getState().sendQueued();
      trackUnsent();
    }),
    onReconnect(() => catchUp(lostAt, lostCursors)),
    // What the app read as it opened was read before the server had us in our rooms. The chats, their
    // lists and where I am are read again: a message, an ending or the event ended early would show
    // wrong until the next reconnect (the event only if it was read already: AppRoot reads it once
    // the user is known, after this if need be). Not the deck (the heaviest read of an app open) nor
    // the account: a card a moment old mends itself at the next refresh, and the account is read
    // again as the app comes back into view.
    onFirstConnect(() => {
      catchUpEvent(performance.now());
      catchUpChats();
    }),
    onEvent('sync', () => {
      // The cursors of now: messages pushed during the spread must not move the catch-up past what it is for.
      const from = useChat.getState().cursors();
      const missedFrom = performance.now();
      // Not for whoever signs in next, from these cursors, after a sign-out within the spread.
      const sameSession = sessionCheck();
      setTimeout(() => sameSession() && catchUpAll(missedFrom, from), Math.random() * SYNC_SPREAD_MS);
    }),
    // The token is no longer good (signed out on another device, or banned): this tab signs out too.
    onRefused(endRevokedSession),
    // Banned: the socket drops next, and the login page says why.
    onEvent('account:suspended', () => endRevokedSession('account_suspended')),
    // Deleted, here on another phone or by the operator: the socket drops next, and the login page says so.
    onEvent('account:deleted', () => endRevokedSession('account_deleted')),
    // Back in view: the user as the server has them now, in case an `account:changed` was missed while
    // the socket slept with the phone; and who is online, which the socket has to answer in time: one
    // that died while the phone slept, though it still counts as connected, is dropped at once when
    // it does not (`lib/socket.ts`), and connects again and catches up, rather than 45 s on, when the
    // server's pings are missed.
    refreshWhenVisible(() => {
      void useSession.getState().loadUser();
      planAgain();
      if (isConnected()) void usePresence.getState().refresh();
    }, USER_REFRESH_MS),
  ];
}

export function stopRealtime() {
  for (const stop of stops) stop();
  stops = [];
  lostCursors = {};
}

onSignOut(() => {
  stopRealtime();
  disconnectSocket();
});

// The old token's socket is being dropped by the server: connect again with the new one.
onTokenReplaced((token) => {
  stopRealtime();
  disconnectSocket();
  startRealtime(token);
});
