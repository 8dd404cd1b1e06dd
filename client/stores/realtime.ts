import { connectSocket, disconnectSocket, onEvent, onReconnect, onRefused } from '../lib/socket';
import { useChat } from './chat';
import { useConversations } from './conversations';
import { likesInFlight, rememberMatch, useDeck } from './deck';
import { conversationEnded } from './safety';
import { endRevokedSession, onSignOut, onTokenReplaced, useSession } from './session';

let stops: Array<() => void> = [];

/** Connects the signed-in tab and routes every server event to its store's action. */
export function startRealtime(token: string) {
  if (stops.length) return;
  connectSocket(token);
  const me = () => useSession.getState().user?.id;
  stops = [
    onEvent('message:new', ({ conversation_id, message }) => {
      useChat.getState().receive(conversation_id, message);
      useConversations.getState().noteMessage(conversation_id, message, message.sender === me());
    }),
    onEvent('match:new', ({ conversation_id, user }) => {
      if (useConversations.getState().empty) void useConversations.getState().load();
      // Our own like completed the pair: the HTTP answer shows the overlay.
      if (likesInFlight.has(user.id)) return;
      if (!rememberMatch(conversation_id)) return;
      useDeck.getState().forget(user.id);
      useDeck.getState().showMatch({ conversationId: conversation_id, name: user.name, image: user.image });
    }),
    onEvent('typing', ({ conversation_id, user_id }) => {
      if (user_id !== me()) useChat.getState().typing(conversation_id);
    }),
    onEvent('message:read', ({ conversation_id, user_id, last_read_id }) => {
      if (user_id !== me()) useChat.getState().partnerRead(conversation_id, last_read_id);
    }),
    onEvent('match:removed', ({ conversation_id }) => conversationEnded(conversation_id)),
    onReconnect(() => {
      // A conversation that ended while we were away answers 404: it ends here too.
      void useChat
        .getState()
        .catchUp()
        .then((gone) => gone.forEach(conversationEnded));
      if (useConversations.getState().empty) void useConversations.getState().load();
    }),
    // The token is no longer good (signed out on another device): this tab signs out too.
    onRefused(endRevokedSession),
  ];
}

export function stopRealtime() {
  for (const stop of stops) stop();
  stops = [];
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
