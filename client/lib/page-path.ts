/** The path of the page on screen, without a trailing slash: `/app/chat/7/` is the page `/app/chat/7`. */
export const pagePath = () => window.location.pathname.replace(/\/$/, '');

/** Whether the page on screen is this conversation's chat. */
export const onChatPage = (conversationId: number | null) => pagePath() === `/app/chat/${conversationId}`;
