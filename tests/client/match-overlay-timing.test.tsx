// @vitest-environment jsdom
/**
 * How long "You like each other!" shows, as `match:new` brings it: DECK_MATCH_OVERLAY_MS counted from
 * when the page is in view, so that a match heard with the phone away is still there to see on coming
 * back, with its dot on Chats as well. Matches made in quick succession show one after the other, each for
 * its full time. Held (the keyboard on it), its count pauses, and goes on from there when let go.
 * It comes with the other's photo in place: loaded and decoded first, or after MATCH_PHOTO_WAIT_MS
 * without it when it is slow to come (a failed one does not hold it).
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DECK_MATCH_OVERLAY_MS } from '../../shared/constants';
import type { ServerToClientEvents } from '../../shared/events';
import { en } from '../../shared/i18n/en';
import { hear as hearOnSocket } from '../helpers/heard-socket';
import { comeBack } from '../helpers/page-visibility';

const api = vi.hoisted(() => ({ emptyConversations: vi.fn(), startedConversations: vi.fn(), likesYou: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { MatchOverlay } = await import('../../client/components/MatchOverlay');
const { initLanguage, useMessages } = await import('../../client/lib/i18n');
const { appMessages } = await import('../../client/lib/messages-app');
const { useConversations } = await import('../../client/stores/conversations');
const { MATCH_PHOTO_WAIT_MS, useDeck } = await import('../../client/stores/deck');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');

function App() {
  useMessages(appMessages);
  return (
    <>
      <h1>Deck</h1>
      <MatchOverlay />
    </>
  );
}

/** A server event, heard as React hears it. */
function hear<E extends keyof ServerToClientEvents>(event: E, payload: Parameters<ServerToClientEvents[E]>[0]) {
  act(() => hearOnSocket(event, payload));
}

const matchWith = (conversationId: number, name: string, image: string | null = null) => ({ conversation_id: conversationId, user: { id: 100 + conversationId, name, image } });
/** Who the overlay on screen is a match with, if one shows. */
const shownWith = () => screen.queryByRole('alertdialog')?.querySelector('#match-text')?.textContent ?? null;
const wait = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
/** Long enough for one overlay to go and the next to come: far less than one's time on screen. */
const A_MOMENT = 20;

/**
 * Each test of the suite with the app on its deck page, hearing the socket, on fake timers from then on
 * (`hushErrors`: with the console's errors silenced meanwhile); all of it put back after.
 */
function theAppHearing({ hushErrors = false } = {}) {
  beforeEach(async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    render(
      <Suspense fallback={null}>
        <App />
      </Suspense>,
    );
    await screen.findByRole('heading', { name: 'Deck' });
    vi.useFakeTimers();
    if (hushErrors) vi.spyOn(console, 'error').mockImplementation(() => {});
    api.emptyConversations.mockResolvedValue({ results: [] });
    api.startedConversations.mockResolvedValue({ results: [] });
    startRealtime('token');
  });
  afterEach(() => {
    stopRealtime();
    cleanup();
    comeBack();
    useDeck.getState().reset();
    useConversations.getState().reset();
    vi.useRealTimers();
    vi.resetAllMocks();
    if (hushErrors) vi.mocked(console.error).mockRestore();
    localStorage.clear();
  });
}

describe('the match overlay’s time on screen', () => {
  theAppHearing({ hushErrors: true });

  it('counts its time from when the page comes into view, not from a match heard with the phone away', async () => {
    comeBack('hidden');
    hear('match:new', matchWith(7, 'Pablo'));
    await wait(60_000);
    expect(shownWith()).toContain('Pablo');
    expect(useConversations.getState().newMatches).toEqual([7]);

    comeBack();
    await wait(DECK_MATCH_OVERLAY_MS - 1);
    expect(shownWith()).toContain('Pablo');
    await wait(1);
    expect(shownWith()).toBeNull();
    // Seen now: its dot on Chats stays until the chats are looked at, and it does not show again.
    expect(useConversations.getState().newMatches).toEqual([7]);
    hear('match:new', matchWith(7, 'Pablo'));
    expect(shownWith()).toBeNull();
  });

  it('counts again from the start when the page goes out of view before its time is up', async () => {
    hear('match:new', matchWith(7, 'Pablo'));
    await wait(DECK_MATCH_OVERLAY_MS - 500);
    comeBack('hidden');
    await wait(10_000);
    comeBack();
    await wait(DECK_MATCH_OVERLAY_MS - 1);
    expect(shownWith()).toContain('Pablo');
    await wait(1);
    expect(shownWith()).toBeNull();
  });

  it('pauses its count while held and closes after only what was left of it once let go', async () => {
    hear('match:new', matchWith(7, 'Pablo'));
    await wait(DECK_MATCH_OVERLAY_MS / 2);
    const sendMessage = screen.getByRole('link', { name: en['deck.match.chat'] });
    // Tab on it: held while the keyboard is there.
    fireEvent.keyDown(sendMessage, { key: 'Tab' });
    await wait(DECK_MATCH_OVERLAY_MS * 10);
    expect(shownWith()).toContain('Pablo');
    // The focus gone from it: the other half of its time, not all of it again.
    act(() => sendMessage.blur());
    await wait(DECK_MATCH_OVERLAY_MS / 2 - 1);
    expect(shownWith()).toContain('Pablo');
    await wait(1);
    expect(shownWith()).toBeNull();
  });

  it('counts its time in as many goes as it is held and let go', async () => {
    hear('match:new', matchWith(7, 'Pablo'));
    await wait(DECK_MATCH_OVERLAY_MS / 4);
    act(() => useDeck.getState().holdMatch(true));
    act(() => useDeck.getState().holdMatch(false));
    await wait(DECK_MATCH_OVERLAY_MS / 4);
    act(() => useDeck.getState().holdMatch(true));
    await wait(60_000);
    act(() => useDeck.getState().holdMatch(false));
    // Half of it counted in two goes: the other half is left.
    await wait(DECK_MATCH_OVERLAY_MS / 2 - 1);
    expect(shownWith()).toContain('Pablo');
    await wait(1);
    expect(shownWith()).toBeNull();
  });

  it('shows matches made in quick succession one after the other, each for its full time', async () => {
    hear('match:new', matchWith(7, 'Pablo'));
    await wait(300);
    hear('match:new', matchWith(8, 'Hugo'));
    await wait(DECK_MATCH_OVERLAY_MS - 300 - 1);
    expect(shownWith()).toContain('Pablo');
    // The next one a moment after: the overlay goes and comes again, as another match's.
    await wait(A_MOMENT);
    expect(shownWith()).toContain('Hugo');
    // Shown as anew: the keyboard's place is on its own "Send a message".
    expect(document.activeElement).toBe(screen.getByRole('link', { name: en['deck.match.chat'] }));
    expect(screen.getByRole('link', { name: en['deck.match.chat'] }).getAttribute('href')).toBe('/app/chat/8');
    await wait(DECK_MATCH_OVERLAY_MS - 2 * A_MOMENT);
    expect(shownWith()).toContain('Hugo');
    await wait(2 * A_MOMENT);
    expect(shownWith()).toBeNull();
  });

  it('shows a match waiting for its turn once, and not at all when it ends before then', async () => {
    hear('match:new', matchWith(7, 'Pablo'));
    hear('match:new', matchWith(8, 'Hugo'));
    hear('match:new', matchWith(9, 'Iván'));
    // Heard again (a read of the lists finds it too): it is already waiting.
    hear('match:new', matchWith(8, 'Hugo'));
    // Hugo unmatched (or blocked) while Pablo's overlay showed.
    hear('match:removed', { conversation_id: 8 });
    await wait(DECK_MATCH_OVERLAY_MS + A_MOMENT);
    expect(shownWith()).toContain('Iván');
    await wait(DECK_MATCH_OVERLAY_MS);
    expect(shownWith()).toBeNull();
    await wait(DECK_MATCH_OVERLAY_MS * 3);
    expect(shownWith()).toBeNull();
  });

  it('closes the match showing when it ends, though its time is not up, and shows the next', async () => {
    // Heard with the phone away: it waits there for the user to see it.
    comeBack('hidden');
    hear('match:new', matchWith(7, 'Pablo'));
    hear('match:new', matchWith(8, 'Hugo'));
    await wait(60_000);
    expect(shownWith()).toContain('Pablo');
    // Pablo unmatched (or blocked) meanwhile: his chat is gone, and nobody likes anybody any more.
    hear('match:removed', { conversation_id: 7 });
    comeBack();
    await wait(A_MOMENT);
    expect(shownWith()).toContain('Hugo');
    // Seen on another phone: closed here too.
    hear('match:seen', { conversation_ids: [8], seen: 'overlay' });
    expect(shownWith()).toBeNull();
  });

  it('shows the next one as soon as the one showing is closed', async () => {
    hear('match:new', matchWith(7, 'Pablo'));
    hear('match:new', matchWith(8, 'Hugo'));
    act(() => useDeck.getState().hideMatch());
    await wait(A_MOMENT);
    expect(shownWith()).toContain('Hugo');
    await wait(DECK_MATCH_OVERLAY_MS);
    expect(shownWith()).toBeNull();
  });
});

describe('the other’s photo on the match overlay', () => {
  /** The browser's decodes of the images loaded, by address, for the test to settle (jsdom has none). */
  const decodes = new Map<string, { done: () => void; fail: () => void }[]>();
  /** Settles every decode of that address. */
  const decode = (photo: string) => {
    const all = decodes.get(new URL(photo, location.href).href)!;
    return { done: () => all.forEach((one) => one.done()), fail: () => all.forEach((one) => one.fail()) };
  };
  /** Each image loaded, not kept alive by the test: whether the app still holds it. */
  const loaded: WeakRef<HTMLImageElement>[] = [];
  /** The other's photo on the overlay on screen. */
  const photoShown = () => document.querySelectorAll('.match-overlay img')[1]?.getAttribute('src');

  beforeEach(() => {
    HTMLImageElement.prototype.decode = function (this: HTMLImageElement) {
      // The image itself goes in no closure here: only the weak reference holds it.
      const src = this.src;
      loaded.push(new WeakRef(this));
      return new Promise<void>((done, fail) => decodes.set(src, [...(decodes.get(src) ?? []), { done, fail: () => fail(new Error('EncodingError')) }]));
    };
  });
  afterEach(() => {
    decodes.clear();
    loaded.length = 0;
    delete (HTMLImageElement.prototype as Partial<HTMLImageElement>).decode;
  });
  // After the decode's stub (the app's hooks run after it, and are undone before it).
  theAppHearing();

  it('shows as soon as the photo it shows is decoded, and for its full time from then', async () => {
    hear('match:new', matchWith(7, 'Pablo', '/media/pablo.jpg'));
    await wait(MATCH_PHOTO_WAIT_MS / 2);
    expect(shownWith()).toBeNull();
    decode('/media/pablo.jpg?size=thumb').done();
    await wait(0);
    expect(shownWith()).toContain('Pablo');
    // The very address loaded is the one the overlay shows.
    expect(photoShown()).toBe('/media/pablo.jpg?size=thumb');
    await wait(DECK_MATCH_OVERLAY_MS - 1);
    expect(shownWith()).toContain('Pablo');
    await wait(1);
    expect(shownWith()).toBeNull();
  });

  it('shows without waiting any longer for a photo that is slow to come or does not load', async () => {
    hear('match:new', matchWith(7, 'Pablo', '/media/pablo.jpg'));
    await wait(MATCH_PHOTO_WAIT_MS - 1);
    expect(shownWith()).toBeNull();
    await wait(1);
    expect(shownWith()).toContain('Pablo');

    // Offline, or gone from the server: its load fails at once, and so does the wait.
    act(() => useDeck.getState().hideMatch());
    hear('match:new', matchWith(8, 'Hugo', '/media/hugo.jpg'));
    decode('/media/hugo.jpg?size=thumb').fail();
    await wait(0);
    expect(shownWith()).toContain('Hugo');
  });

  it('keeps the order of matches whose photos come in another order, and loads the next one’s meanwhile', async () => {
    hear('match:new', matchWith(7, 'Pablo', '/media/pablo.jpg'));
    hear('match:new', matchWith(8, 'Hugo', '/media/hugo.jpg'));
    hear('match:new', matchWith(9, 'Iván', '/media/ivan.jpg'));
    decode('/media/hugo.jpg?size=thumb').done();
    decode('/media/ivan.jpg?size=thumb').done();
    await wait(0);
    expect(shownWith()).toBeNull();
    // Hugo unmatched while Pablo's photo was on its way: his does not show.
    hear('match:removed', { conversation_id: 8 });
    decode('/media/pablo.jpg?size=thumb').done();
    await wait(0);
    expect(shownWith()).toContain('Pablo');
    await wait(DECK_MATCH_OVERLAY_MS + A_MOMENT);
    // Its photo ready since: no wait.
    expect(shownWith()).toContain('Iván');
    expect(photoShown()).toBe('/media/ivan.jpg?size=thumb');
  });

  it('shows, each in turn, matches waiting at once with one photo (seeded profiles share theirs)', async () => {
    hear('match:new', matchWith(7, 'Ana', '/media/shared.jpg'));
    hear('match:new', matchWith(8, 'Eva', '/media/shared.jpg'));
    hear('match:new', matchWith(9, 'Iván'));
    decode('/media/shared.jpg?size=thumb').done();
    await wait(0);
    expect(shownWith()).toContain('Ana');
    await wait(DECK_MATCH_OVERLAY_MS + A_MOMENT);
    expect(shownWith()).toContain('Eva');
    expect(photoShown()).toBe('/media/shared.jpg?size=thumb');
    await wait(DECK_MATCH_OVERLAY_MS + A_MOMENT);
    expect(shownWith()).toContain('Iván');
  });

  it('shows a match whose photo was loaded before for a match shown or dropped', async () => {
    hear('match:new', matchWith(7, 'Pablo', '/media/pablo.jpg'));
    decode('/media/pablo.jpg?size=thumb').done();
    await wait(0);
    expect(shownWith()).toContain('Pablo');
    hear('match:new', matchWith(8, 'Hugo', '/media/hugo.jpg'));
    hear('match:removed', { conversation_id: 8 });
    act(() => useDeck.getState().hideMatch());
    // Their photos again, in matches of their own.
    hear('match:new', matchWith(17, 'Pablo', '/media/pablo.jpg'));
    hear('match:new', matchWith(18, 'Hugo', '/media/hugo.jpg'));
    await wait(MATCH_PHOTO_WAIT_MS);
    expect(shownWith()).toContain('Pablo');
    expect(screen.getByRole('link', { name: en['deck.match.chat'] }).getAttribute('href')).toBe('/app/chat/17');
    await wait(DECK_MATCH_OVERLAY_MS + A_MOMENT);
    expect(screen.getByRole('link', { name: en['deck.match.chat'] }).getAttribute('href')).toBe('/app/chat/18');
  });

  it('lets go of the photo of a match dropped before its turn', async () => {
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    const { setImmediate: macrotask } = await import('node:timers/promises');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    hear('match:new', matchWith(7, 'Pablo'));
    hear('match:new', matchWith(8, 'Hugo', '/media/hugo.jpg'));
    expect(loaded).toHaveLength(1);
    // Unmatched (or seen on another phone) while Pablo's overlay showed; its photo came since.
    hear('match:removed', { conversation_id: 8 });
    decode('/media/hugo.jpg?size=thumb').done();
    await wait(MATCH_PHOTO_WAIT_MS);
    // Out of the task that made the weak reference, which keeps its image alive till it ends.
    await macrotask();
    gc();
    expect(loaded[0]!.deref()).toBeUndefined();
  });
});
