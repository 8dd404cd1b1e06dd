// @vitest-environment jsdom
/**
 * A screen whose load failed says why: "No connection" only when no answer came (or the device says it
 * is offline), and, when the server answered with its own error (a 5xx), that something went wrong, with
 * Try again: waiting to be back online would not mend it. fetch is faked: a 500/503 answer, or none.
 */
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import type { MessageKey } from '../../shared/i18n/en';
import { ApiError, NetworkError, Throttled } from '../../client/lib/api';
import { initLanguage } from '../../client/lib/i18n';
import { loadFailure } from '../../client/lib/socket';
import '../../client/lib/messages-app';
import { Chat } from '../../client/pages/app/Chat';
import { EditProfile } from '../../client/pages/app/EditProfile';
import { Likes } from '../../client/pages/app/Likes';
import { Matches } from '../../client/pages/app/Matches';
import { ProfileView } from '../../client/pages/app/ProfileView';
import { Subscribe } from '../../client/pages/app/Subscribe';
import { Events } from '../../client/pages/events/Events';
import { HostScreen } from '../../client/pages/events/HostScreen';
import { Moderation } from '../../client/pages/app/moderation/Moderation';
import { useChat } from '../../client/stores/chat';
import { useConversations } from '../../client/stores/conversations';
import { useLikes } from '../../client/stores/likes';
import { usePlan } from '../../client/stores/plan';
import { useProfile } from '../../client/stores/profile';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

/** Every request is answered with the server's own error. */
const serverFails = (status: number) =>
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify({ detail: 'Internal server error.' }), { status, headers: { 'Content-Type': 'application/json' } })),
  );
/** No request gets an answer: the network is gone. */
const noNetwork = () =>
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    }),
  );

const tryAgain = () => screen.queryByRole('button', { name: en['app.retry'] });

/** The server-error copy and Try again are shown; the offline copy is not. */
async function expectServerError(offline: MessageKey) {
  expect(await screen.findByText(en['error.generic'])).toBeTruthy();
  expect(screen.queryByText(en[offline])).toBeNull();
  expect(tryAgain()).toBeTruthy();
}

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser() });
  // The screens log what failed: expected here.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  useSession.getState().signOut();
  useChat.getState().reset();
  useConversations.getState().reset();
  useLikes.getState().reset();
  usePlan.getState().reset();
  useProfile.getState().reset();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('loadFailure', () => {
  it('is offline for no answer, or a device that says it has no network, and the server’s otherwise', () => {
    expect(loadFailure(new NetworkError(0, 'Failed to fetch'))).toBe('offline');
    expect(loadFailure(new ApiError(500, 'HTTP 500'))).toBe('server');
    expect(loadFailure(new ApiError(503, 'HTTP 503'))).toBe('server');
    expect(loadFailure(new Throttled(429, 'Slow down'))).toBe('server');
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    expect(loadFailure(new ApiError(503, 'HTTP 503'))).toBe('offline');
  });
});

describe('someone’s profile (ProfileView)', () => {
  it.each([500, 503])('says something went wrong, with Try again, when the server answers %i', async (status) => {
    serverFails(status);
    renderAt('/app/', <ProfileView id={5} />);
    await expectServerError('profileView.offline');
    expect(screen.queryByText(en['profileView.notFound'])).toBeNull();
  });

  it('still says there is no connection when no answer comes', async () => {
    noNetwork();
    renderAt('/app/', <ProfileView id={5} />);
    expect(await screen.findByText(en['profileView.offline'])).toBeTruthy();
    expect(screen.queryByText(en['error.generic'])).toBeNull();
    expect(tryAgain()).toBeTruthy();
  });

  it('opens the profile on Try again once the server answers', async () => {
    serverFails(500);
    renderAt('/app/', <ProfileView id={5} />);
    await expectServerError('profileView.offline');
    const profile = { id: 5, name: 'Ben', age: 31, gender: 'male', genre: 'Man', bio: 'Hi', image: null, image2: null, image3: null, image4: null, image5: null, image6: null };
    vi.stubGlobal('fetch', vi.fn(async () => Response.json(profile)));
    fireEvent.click(tryAgain()!);
    expect(await screen.findByRole('heading', { name: /Ben/ })).toBeTruthy();
  });

  it('says so in Spanish, the default language', async () => {
    localStorage.setItem('language_code', 'es');
    await initLanguage();
    serverFails(500);
    renderAt('/app/', <ProfileView id={5} />);
    expect(await screen.findByText(es['error.generic'])).toBeTruthy();
    expect(screen.queryByText(es['profileView.offline'])).toBeNull();
    expect(screen.getByRole('button', { name: es['app.retry'] })).toBeTruthy();
  });
});

describe('a chat', () => {
  it('says something went wrong, with Try again, when the server answers 500', async () => {
    serverFails(500);
    renderAt('/app/', <Chat id={7} />);
    await expectServerError('chat.offline');
    expect(screen.queryByText(en['chat.notFound'])).toBeNull();
  });

  it('still says there is no connection when no answer comes', async () => {
    noNetwork();
    renderAt('/app/', <Chat id={7} />);
    expect(await screen.findByText(en['chat.offline'])).toBeTruthy();
    expect(screen.queryByText(en['error.generic'])).toBeNull();
    expect(tryAgain()).toBeTruthy();
  });

  it('says the chat is not available, with no Try again, when the server answers that it is not there', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Response.json({ detail: 'Not found.' }, { status: 404 })));
    renderAt('/app/', <Chat id={7} />);
    expect(await screen.findByText(en['chat.notFound'])).toBeTruthy();
    expect(tryAgain()).toBeNull();
    // A chat that ended while the reader was away is an answer, not a failure: nothing for the console.
    expect(console.error).not.toHaveBeenCalled();
  });
});

describe('the profile editor', () => {
  it('says something went wrong, with Try again, when the server answers 503', async () => {
    serverFails(503);
    renderAt('/app/', <EditProfile />);
    await expectServerError('profile.offline');
  });

  it('still says there is no connection when no answer comes', async () => {
    noNetwork();
    renderAt('/app/', <EditProfile />);
    expect(await screen.findByText(en['profile.offline'])).toBeTruthy();
    expect(tryAgain()).toBeTruthy();
  });
});

describe('Likes you', () => {
  it('says something went wrong, with Try again, when the server answers 500', async () => {
    serverFails(500);
    renderAt('/app/', <Likes />);
    await expectServerError('likes.offline');
  });

  it('still says there is no connection when no answer comes', async () => {
    noNetwork();
    renderAt('/app/', <Likes />);
    expect(await screen.findByText(en['likes.offline'])).toBeTruthy();
    expect(tryAgain()).toBeTruthy();
  });
});

describe('the matches and chats lists', () => {
  it('say something went wrong, with Try again, when the server answers 500, and not that there is nobody', async () => {
    serverFails(500);
    renderAt('/app/', <Matches />);
    await expectServerError('matches.offline');
    expect(screen.queryByText(en['matches.offlineChats'])).toBeNull();
    expect(screen.queryByText(en['matches.noMatches'])).toBeNull();
    expect(screen.queryByText(en['matches.noConversations'])).toBeNull();
  });

  it('still say there is no connection when no answer comes', async () => {
    noNetwork();
    renderAt('/app/', <Matches />);
    expect(await screen.findByText(en['matches.offline'])).toBeTruthy();
    expect(screen.getByText(en['matches.offlineChats'])).toBeTruthy();
    expect(screen.queryByText(en['error.generic'])).toBeNull();
  });
});

describe('a subscriber’s plan page', () => {
  beforeEach(() => useSession.setState({ user: currentUser({ has_subscription: true }) }));

  it('says something went wrong, with Try again, when the server answers 500', async () => {
    serverFails(500);
    renderAt('/app/', <Subscribe />);
    const plan = await screen.findByRole('heading', { name: en['subscribe.current.title'] });
    const page = plan.closest('section')!;
    expect(await within(page).findByText(en['error.generic'])).toBeTruthy();
    expect(within(page).queryByText(en['subscribe.current.offline'])).toBeNull();
    expect(within(page).getByRole('button', { name: en['app.retry'] })).toBeTruthy();
  });

  it('still says there is no connection when no answer comes', async () => {
    noNetwork();
    renderAt('/app/', <Subscribe />);
    expect(await screen.findByText(en['subscribe.current.offline'])).toBeTruthy();
    expect(screen.queryByText(en['error.generic'])).toBeNull();
  });
});

describe('my events', () => {
  it('say something went wrong, with Try again, when the server answers 500', async () => {
    serverFails(500);
    await act(async () => {
      renderAt('/app/', <Events />);
    });
    await expectServerError('events.mine.offline');
  });

  it('still say there is no connection when no answer comes', async () => {
    noNetwork();
    await act(async () => {
      renderAt('/app/', <Events />);
    });
    expect(await screen.findByText(en['events.mine.offline'])).toBeTruthy();
    expect(tryAgain()).toBeTruthy();
  });
});

describe('the host screen', () => {
  it('says something went wrong, with Try again, when the server answers 500', async () => {
    serverFails(500);
    await act(async () => {
      renderAt('/app/', <HostScreen id={7} />);
    });
    await expectServerError('host.offline');
  });

  it('opens on Try again once the server answers', async () => {
    serverFails(500);
    await act(async () => {
      renderAt('/app/', <HostScreen id={7} />);
    });
    await expectServerError('host.offline');
    const startsAt = Date.now() + 86_400_000;
    const event = {
      ...{ id: 7, name: 'Rooftop', venue: '', code: 'K7RM2Q', join_mode: 'code', status: 'upcoming', attendee_count: 0, is_organizer: true },
      ...{ starts_at: new Date(startsAt).toISOString(), ends_at: new Date(startsAt + 3_600_000).toISOString() },
    };
    // The event now; its code and stats still fail, and the screen shows without them.
    vi.stubGlobal('fetch', vi.fn(async (path: string) => (path.includes('/mine/') ? Response.json({ results: [event], next: null }) : Response.json({}, { status: 500 }))));
    fireEvent.click(tryAgain()!);
    expect(await screen.findByRole('heading', { name: 'Rooftop' })).toBeTruthy();
  });

  it('says the night’s numbers could not be loaded while the server fails them, not "Loading…"', async () => {
    const event = {
      ...{ id: 7, name: 'Rooftop', venue: '', code: 'K7RM2Q', join_mode: 'code', status: 'open', attendee_count: 3, is_organizer: true },
      ...{ starts_at: new Date(Date.now() - 3_600_000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() },
    };
    vi.stubGlobal('fetch', vi.fn(async (path: string) => (path.includes('/mine/') ? Response.json({ results: [event], next: null }) : Response.json({}, { status: 500 }))));
    await act(async () => {
      renderAt('/app/', <HostScreen id={7} />);
    });
    expect(await screen.findByText(en['host.statsFailed'])).toBeTruthy();
  });
});

describe('the moderation queue and a report', () => {
  it('offer Try again when the server answers 500, and ask again with it', async () => {
    serverFails(500);
    const { unmount } = renderAt('/app/moderation/', <Moderation />);
    expect(await screen.findByText(en['error.generic'])).toBeTruthy();
    fireEvent.click(tryAgain()!);
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    unmount();
    serverFails(500);
    renderAt('/app/moderation/reports/5/', <Moderation />);
    expect(await screen.findByText(en['error.generic'])).toBeTruthy();
    fireEvent.click(tryAgain()!);
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
  });
});
