// @vitest-environment jsdom
/**
 * A reaction from someone's profile that did not go through: the profile stays, with its buttons, to
 * decide again, and the person stays on the deck. Refused by the limit on reactions a minute (a 429
 * with Retry-After), it says how long to wait, in the deck's words, not to try again now. fetch is
 * faked: the profile, and the reaction's answer.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { es } from '../../shared/i18n/es';
import type { DeckCard } from '../../shared/schemas/users';
import { initLanguage } from '../../client/lib/i18n';
import { useToasts } from '../../client/lib/toast';
import '../../client/lib/messages-app';
import { ProfileView } from '../../client/pages/app/ProfileView';
import { useDeck } from '../../client/stores/deck';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

const ben = { id: 5, name: 'Ben', age: 31, gender: 'male', genre: 'Man', bio: 'Hi', image: null, image2: null, image3: null, image4: null, image5: null, image6: null };
const benOnTheDeck: DeckCard = { id: 5, name: 'Ben', age: 31, bio: 'Hi', image: null };

/** The profile for a GET; `reaction` for the POST of a reaction. */
function serve(reaction: () => Response) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string | URL | Request, init?: RequestInit) => (init?.method === 'POST' && String(url).includes('/api/matching/') ? reaction() : Response.json(ben))),
  );
}

/** Ben's profile, opened from the deck; the addresses it went to since. */
async function openBen() {
  const location = memoryLocation({ path: '/app/profiles/5/', record: true });
  render(
    <Router hook={location.hook} searchHook={location.searchHook}>
      <ProfileView id={5} />
    </Router>,
  );
  await screen.findByRole('heading', { name: /Ben/ });
  return location.history;
}

const likeButton = () => screen.getByRole('button', { name: es['profileView.like'] });
const errorsSaid = () => useToasts.getState().toasts.filter((item) => item.kind === 'error').map((item) => item.message);

beforeEach(async () => {
  // Spanish, the default: the words the walkthrough read.
  localStorage.setItem('language_code', 'es');
  await initLanguage();
  useToasts.setState({ toasts: [] });
  useSession.setState({ token: 'token', user: currentUser() });
  useDeck.setState({ current: benOnTheDeck, queue: [] });
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useDeck.getState().reset();
  localStorage.clear();
});

describe('a like from a profile that did not go through', () => {
  it('refused by the limit on reactions, says how long to wait, as the deck does, and the profile stays to like again', async () => {
    serve(() =>
      Response.json({ detail: 'Request was throttled. Expected available in 58 seconds.' }, { status: 429, headers: { 'Retry-After': '58' } }),
    );
    const history = await openBen();

    await act(async () => fireEvent.click(likeButton()));

    expect(errorsSaid()).toEqual(['Demasiados intentos. Vuelve a intentarlo en 58 s.']);
    expect(history).toEqual(['/app/profiles/5/']);
    expect(screen.getByRole('heading', { name: /Ben/ })).toBeTruthy();
    expect(likeButton()).toHaveProperty('disabled', false);
    expect(useDeck.getState().current?.id).toBe(ben.id);
  });

  it('with no answer, says it was not sent, to try again', async () => {
    serve(() => {
      throw new TypeError('Failed to fetch');
    });
    const history = await openBen();

    await act(async () => fireEvent.click(likeButton()));

    expect(errorsSaid()).toEqual([es['profileView.notSent']]);
    expect(history).toEqual(['/app/profiles/5/']);
    expect(likeButton()).toHaveProperty('disabled', false);
    expect(useDeck.getState().current?.id).toBe(ben.id);
  });
});
