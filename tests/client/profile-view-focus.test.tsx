// @vitest-environment jsdom
/**
 * A decision from someone's profile, by keyboard (or a screen reader): the keyboard's place is never
 * dropped to the page. The button pressed keeps it while the answer comes, the match's overlay takes
 * it for its moment, and the deck's heading has it once there. fetch is faked: the profile, and the
 * reaction's answer when the test gives it.
 */
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Route, Router, Switch } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { es } from '../../shared/i18n/es';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { ProfileView } from '../../client/pages/app/ProfileView';
import { useDeck } from '../../client/stores/deck';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { later } from '../helpers/later';

const ben = { id: 5, name: 'Ben', age: 31, gender: 'male', genre: 'Man', bio: 'Hi', image: null, image2: null, image3: null, image4: null, image5: null, image6: null };

/** Ben's profile, opened from the deck; the reaction's answer is the test's to give. */
async function openBen() {
  const answer = later<Response>();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string | URL | Request, init?: RequestInit) => (init?.method === 'POST' && String(url).includes('/api/matching/') ? answer.promise : Response.json(ben))),
  );
  const location = memoryLocation({ path: '/app/profiles/5/' });
  render(
    <Router hook={location.hook} searchHook={location.searchHook}>
      <Switch>
        <Route path="/app/profiles/5/">
          <ProfileView id={5} />
        </Route>
        <Route path="/app/home/">
          <h1>{es['app.nav.home']}</h1>
        </Route>
      </Switch>
    </Router>,
  );
  await screen.findByRole('heading', { name: /Ben/ });
  return answer;
}

/** A press from the keyboard: the button has the focus, and its click has no taps (`detail` 0). */
function press(name: string) {
  const button = screen.getByRole('button', { name });
  button.focus();
  fireEvent.click(button, { detail: 0 });
  return button;
}

beforeEach(async () => {
  localStorage.setItem('language_code', 'es');
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser() });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useDeck.getState().reset();
  localStorage.clear();
});

describe('the keyboard’s place on a decision from a profile', () => {
  it('stays on Like while it is sent, goes to the match’s overlay, then to the deck’s heading', async () => {
    const answer = await openBen();
    const like = press(es['profileView.like']);
    await act(async () => {});
    expect(like.getAttribute('aria-disabled')).toBe('true');
    expect(document.activeElement).toBe(like);
    // Busy: a second press sends nothing more.
    fireEvent.click(like, { detail: 0 });

    await act(async () => answer.resolve(Response.json({ match: true, conversation_id: 9 })));
    const overlay = screen.getByRole('alertdialog', { name: es['deck.match.title'] });
    expect(document.activeElement).toBe(overlay);

    const heading = await screen.findByRole('heading', { name: es['app.nav.home'] }, { timeout: 2000 });
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(vi.mocked(fetch).mock.calls.filter(([, init]) => init?.method === 'POST')).toHaveLength(1);
  });

  it('goes from No to the deck’s heading, not to the page', async () => {
    const answer = await openBen();
    const no = press(es['profileView.reject']);
    await act(async () => {});
    expect(document.activeElement).toBe(no);
    await act(async () => answer.resolve(Response.json({ match: false, conversation_id: null })));
    const heading = await screen.findByRole('heading', { name: es['app.nav.home'] });
    await waitFor(() => expect(document.activeElement).toBe(heading));
  });
});
