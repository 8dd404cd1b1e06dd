// @vitest-environment jsdom
/** `onChatPage`: the one test of "in this chat" that the match overlay and the message toast share. */
import { afterEach, describe, expect, it } from 'vitest';
import { onChatPage, pagePath } from '../../client/lib/page-path';

const at = (path: string) => window.history.replaceState(null, '', path);

describe('the page on screen', () => {
  afterEach(() => at('/'));

  it.each(['/app/chat/7', '/app/chat/7/'])('is the chat of conversation 7 at %s', (path) => {
    at(path);
    expect(pagePath()).toBe('/app/chat/7');
    expect(onChatPage(7)).toBe(true);
  });

  it.each(['/app/chat/70', '/app/chat/7/x', '/app/matches/', '/'])('is not the chat of conversation 7 at %s', (path) => {
    at(path);
    expect(onChatPage(7)).toBe(false);
  });
});
