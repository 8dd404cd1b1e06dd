/**
 * The world a client test of the chat page runs in: signed in as `me`, in English, the server answering
 * every request with `answer(url)` as JSON (or as that Response, for an error; once it settles, if a promise), and a ResizeObserver that hears of a size only from `resized` (jsdom lays nothing out);
 * each test's chats, lists and session put away after it.
 */
import { act, cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { initLanguage } from '../../client/lib/i18n';
import { useChat } from '../../client/stores/chat';
import { useConversations } from '../../client/stores/conversations';
import { useSession } from '../../client/stores/session';
import { currentUser } from './current-user';

/** What each resize observer of the page observes, and what it calls. */
const observing = new Map<ResizeObserverCallback, Set<Element>>();

class LaidOutByTheTest {
  readonly #callback: ResizeObserverCallback;
  constructor(callback: ResizeObserverCallback) {
    this.#callback = callback;
    observing.set(callback, new Set());
  }
  observe(element: Element) {
    observing.get(this.#callback)?.add(element);
  }
  disconnect() {
    observing.delete(this.#callback);
  }
}

/** `element` laid out at another size (the test's `clientHeight`): its observers hear of it, as a browser's would. */
export function resized(element: Element) {
  act(() => {
    for (const [callback, elements] of observing) if (elements.has(element)) callback([], null as unknown as ResizeObserver);
  });
}

export function chatPageWorld(me: number, answer: (url: string) => unknown) {
  beforeEach(async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    useSession.setState({ token: 'token', user: currentUser({ id: me }) });
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL) => {
        const body = await answer(String(input));
        return body instanceof Response ? body : new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }),
    );
    vi.stubGlobal('ResizeObserver', LaidOutByTheTest);
  });
  afterEach(() => {
    cleanup();
    useSession.getState().signOut();
    useChat.getState().reset();
    useConversations.getState().reset();
    vi.unstubAllGlobals();
    observing.clear();
    localStorage.clear();
  });
}
