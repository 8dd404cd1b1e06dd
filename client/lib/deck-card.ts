/**
 * The deck's card on top (SwipeCard), as the page finds it: where the keyboard's place goes back to
 * when what held it goes (a card decided, the match overlay closed). Not the card shown behind it.
 */
export const SWIPE_CARD = '.swipe-card[data-card-id]';
