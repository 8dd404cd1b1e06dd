// @vitest-environment jsdom
/**
 * A newcomer whose own profile is not complete may open someone's profile, but a like would match them
 * with a profile nobody can open: the like asks them to finish theirs first, with a link to it, and the
 * profile stays. Passes go through. fetch is faked: the profile, and whatever the like is answered.
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { initLanguage } from '../../client/lib/i18n';
import { useToasts } from '../../client/lib/toast';
import '../../client/lib/messages-app';
import { ProfileView } from '../../client/pages/app/ProfileView';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

const ben = { id: 5, name: 'Ben', age: 31, gender: 'male', genre: 'Man', bio: 'Hi', image: null, image2: null, image3: null, image4: null, image5: null, image6: null };

/** The profile for a GET; `reaction` for the POST of a reaction. Every call is kept. */
function serve(reaction: () => Response) {
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) =>
    init?.method === 'POST' && String(url).includes('/api/matching/') ? reaction() : Response.json(ben),
  );
  vi.stubGlobal('fetch', fetch);
  return fetch;
}
const reactionsSent = (fetch: ReturnType<typeof serve>) =>
  fetch.mock.calls.filter(([url, init]) => init?.method === 'POST' && String(url).includes('/api/matching/'));

const likeButton = () => screen.getByRole('button', { name: en['profileView.like'] });
const completeFirst = () => useToasts.getState().toasts.filter((item) => item.message === en['profileView.completeFirst']);

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useToasts.setState({ toasts: [] });
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('liking from an incomplete profile', () => {
  it('sends nothing and asks for the profile to be finished, with a link to it; the profile stays', async () => {
    useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
    const fetch = serve(() => Response.json({ match: false, conversation_id: null }));
    renderAt('/app/profiles/5/', <ProfileView id={5} />);
    await screen.findByRole('heading', { name: /Ben/ });

    fireEvent.click(likeButton());
    fireEvent.click(likeButton());

    expect(reactionsSent(fetch)).toEqual([]);
    expect(completeFirst()).toEqual([expect.objectContaining({ kind: 'info', href: '/app/profile/' })]);
    expect(screen.getByRole('heading', { name: /Ben/ })).toBeTruthy();
    expect(likeButton()).toHaveProperty('disabled', false);
  });

  it('lets a skip through', async () => {
    useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
    const fetch = serve(() => Response.json({ match: false, conversation_id: null }));
    renderAt('/app/profiles/5/', <ProfileView id={5} />);
    await screen.findByRole('heading', { name: /Ben/ });

    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['profileView.skip'] })));

    expect(reactionsSent(fetch).map(([, init]) => JSON.parse(String(init?.body)))).toEqual([{ response: 'skip', other: 5 }]);
    expect(completeFirst()).toEqual([]);
  });
});
