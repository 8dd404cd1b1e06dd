// @vitest-environment jsdom
/**
 * What the deck says. Empty, in town: no more profiles. At an event, the deck is
 * the room, so it says which of its cases this is: nobody else has come yet, nobody new there for the
 * user now (others are in the room: seen already, or none fits, which the client cannot tell apart),
 * or the event is over and nobody new will come. With cards, to a screen reader: the decision just
 * made and who is on the card now.
 */
import { act, cleanup, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EVENT_AFTER_PARTY_HOURS } from '../../shared/constants';
import { enApp } from '../../shared/i18n/en-app';
import { esApp } from '../../shared/i18n/es-app';
import type { PublicEvent } from '../../shared/schemas/events';
import { publicEvent } from '../helpers/public-event';
import { renderAt } from '../helpers/render-at';

const api = vi.hoisted(() => ({ deck: vi.fn(), likeAllowance: vi.fn(), react: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { Home } = await import('../../client/pages/app/Home');
const { initLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');
const { useDeck } = await import('../../client/stores/deck');
const { useEvents } = await import('../../client/stores/events');

const hour = 3_600_000;

const renderDeck = () => renderAt('/app/home/', <Suspense fallback={null}><Home /></Suspense>);

async function emptyDeckSays(event: PublicEvent | null): Promise<string | null> {
  useEvents.setState({ current: event });
  renderDeck();
  // Past the deck's loading line (a status too), once its first page has come back empty.
  const said = await waitFor(() => {
    const empty = document.querySelector('.deck-empty');
    if (!empty) throw new Error('the deck has not come back empty yet');
    return empty;
  });
  // Read out by the deck's live region, which holds them.
  expect(screen.getByTestId('deck-now').textContent).toBe(said.textContent);
  // Once: the page does not show them, nor a screen reader read them, twice.
  expect(screen.getAllByText(said.textContent!)).toHaveLength(1);
  return said.textContent;
}

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  api.deck.mockResolvedValue({ results: [], next: null });
  api.likeAllowance.mockReturnValue(new Promise(() => {}));
});
afterEach(() => {
  cleanup();
  useDeck.getState().reset();
  useEvents.setState({ current: undefined });
  localStorage.clear();
  vi.resetAllMocks();
});

/** The link to the profile's preferences under the empty deck's words, if there is one. */
const preferencesLink = () => screen.queryByRole('link', { name: enApp['deck.changePreferences'] })?.getAttribute('href') ?? null;

describe('an empty deck', () => {
  it('in town: no more profiles, try changing your preferences, with the way there', async () => {
    expect(await emptyDeckSays(null)).toBe(enApp['deck.empty']);
    expect(preferencesLink()).toBe('/app/profile/#preferences');
  });

  it('at an event where the user is alone: nobody else yet, and preferences would not help', async () => {
    expect(await emptyDeckSays(publicEvent({ attendee_count: 1 }))).toBe(enApp['deck.emptyAtEvent']);
    expect(preferencesLink()).toBeNull();
  });

  it('at an event with others in the room: nobody new for the user, with the preferences as a way out', async () => {
    expect(await emptyDeckSays(publicEvent({ attendee_count: 12 }))).toBe(enApp['deck.emptyAtEventNoFit']);
    // Most often she has seen everyone who fits: the words do not blame preferences that may be fine.
    for (const words of [enApp['deck.emptyAtEventNoFit'], esApp['deck.emptyAtEventNoFit']]) expect(words).not.toMatch(/prefer/i);
    expect(preferencesLink()).toBe('/app/profile/#preferences');
  });

  it('says in Spanish that newcomers show up by themselves, not that "people who are alone" do', () => {
    for (const key of ['deck.emptyAtEvent', 'deck.emptyAtEventNoFit'] as const) {
      expect(esApp[key]).not.toMatch(/\bsol[oa]s\b/);
      expect(esApp[key]).toMatch(/automáticamente/);
    }
  });

  it('at an event that has ended: nobody new will come', async () => {
    const ended = { status: 'after', starts_at: new Date(Date.now() - 6 * hour).toISOString(), ends_at: new Date(Date.now() - hour).toISOString() } as const;
    expect(await emptyDeckSays(publicEvent({ attendee_count: 12, ...ended }))).toBe(enApp['deck.emptyAtEndedEvent']);
  });
});

describe('a deck that empties, to a screen reader', () => {
  it('says its words in a live region that was there before the last card left (one put in with its words is not read out)', async () => {
    useEvents.setState({ current: null });
    api.deck.mockResolvedValueOnce({ results: [{ id: 1, name: 'Ana', age: 29, bio: '', image: null }], next: null });
    api.react.mockResolvedValue({ match: false, conversation_id: null });
    renderDeck();
    await screen.findByTestId('swipe-card');
    const liveRegions = () => [...document.querySelectorAll('[aria-live], [role=status], [role=alert], [role=log]')];
    const before = liveRegions();
    act(() => screen.getByRole('button', { name: enApp['deck.dislike'] }).click());
    await waitFor(() => expect(document.querySelector('.deck-empty')).not.toBeNull());
    const saying = liveRegions().filter((region) => region.textContent?.includes(enApp['deck.empty']));
    expect(saying).toHaveLength(1);
    expect(before).toContain(saying[0]);
  });

  it('says the decision on the last card before its words, as it says one on any other', async () => {
    useEvents.setState({ current: null });
    api.deck.mockResolvedValueOnce({ results: [{ id: 1, name: 'Ana', age: 29, bio: '', image: null }], next: null });
    api.react.mockResolvedValue({ match: false, conversation_id: null });
    renderDeck();
    const now = await screen.findByTestId('deck-now');
    act(() => screen.getByRole('button', { name: enApp['deck.skip'] }).click());
    await waitFor(() => expect(now.textContent).toBe(`You skipped Ana. ${enApp['deck.empty']}`));
    expect(document.querySelector('.deck-empty')?.textContent).toBe(enApp['deck.empty']);
  });

  it('says it in Spanish, after an arrow key on the card', async () => {
    localStorage.setItem('language_code', 'es');
    await initLanguage();
    useEvents.setState({ current: null });
    api.deck.mockResolvedValueOnce({ results: [{ id: 1, name: 'Ana', age: 29, bio: '', image: null }], next: null });
    api.react.mockResolvedValue({ match: false, conversation_id: null });
    renderDeck();
    const now = await screen.findByTestId('deck-now');
    const card = screen.getByTestId('swipe-card');
    card.focus();
    act(() => void card.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true })));
    await waitFor(() => expect(now.textContent).toBe(`Has dado like a Ana. ${esApp['deck.empty']}`));
  });

  it('does not say a decision made before, when the card that followed it is taken away and the deck empties', async () => {
    useEvents.setState({ current: null });
    api.deck.mockResolvedValueOnce({ results: [{ id: 1, name: 'Ana', age: 29, bio: '', image: null }, { id: 2, name: 'Ben', age: 31, bio: '', image: null }], next: null });
    api.react.mockResolvedValue({ match: false, conversation_id: null });
    renderDeck();
    const now = await screen.findByTestId('deck-now');
    act(() => screen.getByRole('button', { name: enApp['deck.dislike'] }).click());
    await waitFor(() => expect(now.textContent).toBe('You disliked Ana. Ben, 31'));
    // Ben answered on another phone (or blocked): gone with no decision here.
    act(() => useDeck.getState().forget(2));
    expect(now.textContent).toBe(enApp['deck.empty']);
  });
});

describe('an empty deck at the lapse of the attendance (the after-party over)', () => {
  it('says it is in town again, from that moment, and reads the general deck', async () => {
    // The after-party ends in three seconds: then the user is at no event.
    const endsAt = Date.now() - EVENT_AFTER_PARTY_HOURS * hour + 3000;
    const lapsing = publicEvent({ status: 'after', attendee_count: 12, starts_at: new Date(endsAt - 4 * hour).toISOString(), ends_at: new Date(endsAt).toISOString() });
    expect(await emptyDeckSays(lapsing)).toBe(enApp['deck.emptyAtEndedEvent']);
    expect(api.deck).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(document.querySelector('.deck-empty')?.textContent).toBe(enApp['deck.empty']), { timeout: 8000 });
    expect(preferencesLink()).toBe('/app/profile/#preferences');
    await waitFor(() => expect(api.deck).toHaveBeenCalledTimes(2));
  });

  it('says so in Spanish too', async () => {
    localStorage.setItem('language_code', 'es');
    await initLanguage();
    const lapsed = publicEvent({ status: 'after', starts_at: new Date(Date.now() - 30 * hour).toISOString(), ends_at: new Date(Date.now() - 26 * hour).toISOString() });
    expect(await emptyDeckSays(lapsed)).toBe(esApp['deck.empty']);
  });
});

describe('a deck with cards, to a screen reader', () => {
  const card = (id: number, name: string, age: number) => ({ id, name, age, bio: '', image: null });

  it('says the decision and the name and age of the card that comes up after it, and nothing while one leaves', async () => {
    useEvents.setState({ current: null });
    api.deck.mockResolvedValue({ results: [card(1, 'Ana', 29), card(2, 'Ben', 31)], next: null });
    api.react.mockResolvedValue({ match: false, conversation_id: null });
    renderDeck();
    const now = await screen.findByTestId('deck-now');
    expect(now.getAttribute('aria-live')).toBe('polite');
    expect(now.textContent).toBe('Ana, 29');
    act(() => screen.getByRole('button', { name: enApp['deck.dislike'] }).click());
    expect(now.textContent).toBe('');
    await waitFor(() => expect(now.textContent).toBe('You disliked Ana. Ben, 31'));
    // The same element all along: a live region replaced with its content is not read out.
    expect(screen.getByTestId('deck-now')).toBe(now);
  });

  it('says each decision in Spanish, and none with a card brought back (an undo)', async () => {
    localStorage.setItem('language_code', 'es');
    await initLanguage();
    useEvents.setState({ current: null });
    api.deck.mockResolvedValue({ results: [card(1, 'Ana', 29), card(2, 'Ben', 31), card(3, 'Cleo', 27), card(4, 'Dan', 33)], next: null });
    api.react.mockResolvedValue({ match: false, conversation_id: null });
    renderDeck();
    const now = await screen.findByTestId('deck-now');
    const steps = [
      ['deck.like', 'Has dado like a Ana. Ben, 31'],
      ['deck.dislike', 'Has dicho que no a Ben. Cleo, 27'],
      ['deck.skip', 'Has saltado a Cleo. Dan, 33'],
    ] as const;
    for (const [button, said] of steps) {
      act(() => screen.getByRole('button', { name: esApp[button] }).click());
      await waitFor(() => expect(now.textContent).toBe(said));
    }
    act(() => useDeck.getState().restore(card(3, 'Cleo', 27)));
    expect(now.textContent).toBe('Cleo, 27');
  });

  it('says the name on the card once as it gets the focus, with the age, the bio and what it does', async () => {
    useEvents.setState({ current: null });
    api.deck.mockResolvedValue({ results: [{ ...card(1, 'Ana', 29), bio: 'Salsa and sea' }], next: null });
    renderDeck();
    await screen.findByTestId('swipe-card');
    expect(screen.getByRole('button', { name: `Ana 29 Salsa and sea ${enApp['deck.openCard']}` })).toBe(screen.getByTestId('swipe-card'));
  });

  it('keeps a right-to-left name to its own direction in what it says (an isolate: the words are text)', async () => {
    useEvents.setState({ current: null });
    api.deck.mockResolvedValue({ results: [card(1, 'مريم 2!', 29), card(2, 'שירה 7', 31)], next: null });
    api.react.mockResolvedValue({ match: false, conversation_id: null });
    renderDeck();
    const now = await screen.findByTestId('deck-now');
    expect(now.textContent).toBe('\u2068مريم 2!\u2069, 29');
    act(() => screen.getByRole('button', { name: enApp['deck.like'] }).click());
    await waitFor(() => expect(now.textContent).toBe('You liked \u2068مريم 2!\u2069. \u2068שירה 7\u2069, 31'));
  });
});
