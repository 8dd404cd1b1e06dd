// @vitest-environment jsdom
import { act, cleanup, render, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { navigate } from 'wouter/use-browser-location';
import { App } from '../../client/App';
import { AppShell, isNavActive } from '../../client/components/AppShell';
import { allowedWithIncompleteProfile, gateAppRoute } from '../../client/lib/gating';
import { gatePublicAuthRoute } from '../../client/lib/use-auth-form';
import { disconnectSocket } from '../../client/lib/socket';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { useConversations } from '../../client/stores/conversations';
import type { ConversationSummary } from '../../shared/schemas/conversations';
import { useSession } from '../../client/stores/session';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { currentUser } from '../helpers/current-user';
import { comeBack } from '../helpers/page-visibility';
import { renderAt } from '../helpers/render-at';

describe('gateAppRoute', () => {
  it('sends visitors without a token to /login/', () => {
    expect(gateAppRoute('/app/home/', null, undefined)).toBe('/login/');
    expect(gateAppRoute('/app/profile/', null, undefined)).toBe('/login/');
  });

  it.each(['/app/home/', '/app/home', '/app/matches/', '/app/chat/12'])('sends an incomplete profile from %s to /app/profile/', (path) => {
    expect(gateAppRoute(path, 'token', currentUser({ is_profile_completed: false }))).toBe('/app/profile/');
  });

  it.each([
    '/app/subscribe/',
    '/app/profile/',
    '/app/profile',
    '/app/profiles/12',
    '/app/settings/',
    '/app/admin/',
    // An organizer hosts without a dating profile.
    '/app/events/',
    '/app/events/new/',
    '/app/events/7/host/',
    '/app/events/7/edit/',
  ])('lets an incomplete profile open %s', (path) => {
    expect(allowedWithIncompleteProfile(path)).toBe(true);
    expect(gateAppRoute(path, 'token', currentUser({ is_profile_completed: false }))).toBeNull();
  });

  it('lets a completed profile anywhere, and waits (no redirect) while the user loads', () => {
    expect(gateAppRoute('/app/chat/3', 'token', currentUser())).toBeNull();
    expect(gateAppRoute('/app/home/', 'token', undefined)).toBeNull();
  });

  it('skips login and register when a token is stored', () => {
    expect(gatePublicAuthRoute('token')).toBe('/app/home/');
    expect(gatePublicAuthRoute(null)).toBeNull();
  });
});

describe('<App> routing', () => {
  beforeEach(async () => {
    localStorage.clear();
    await initLanguage();
  });
  afterEach(() => {
    cleanup();
    disconnectSocket();
    useSession.setState({ token: null, user: undefined });
  });

  it('redirects /app/home/ to /login/ without a token', async () => {
    window.history.replaceState(null, '', '/app/home/');
    render(<App />);
    await waitFor(() => expect(window.location.pathname).toBe('/login/'), { timeout: 5000 });
  });

  it('redirects an incomplete profile from /app/matches/ to /app/profile/', async () => {
    localStorage.setItem('auth_token', 'token');
    useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
    window.history.replaceState(null, '', '/app/matches/');
    render(<App />);
    await waitFor(() => expect(window.location.pathname).toBe('/app/profile/'), { timeout: 5000 });
  });

  it('sends a stored token from /login/ straight to the app, and /register too', async () => {
    localStorage.setItem('auth_token', 'token');
    useSession.setState({ token: 'token', user: currentUser() });
    window.history.replaceState(null, '', '/register');
    render(<App />);
    await waitFor(() => expect(window.location.pathname).toBe('/app/home/'), { timeout: 5000 });
  });

  it('highlights the bottom navigation by path prefix', async () => {
    localStorage.setItem('auth_token', 'token');
    useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
    window.history.replaceState(null, '', '/app/subscribe/');
    const view = render(<App />);
    await waitFor(() => expect(view.container.querySelector('.bottom-nav')).not.toBeNull(), { timeout: 5000 });
    expect(view.container.querySelectorAll('.bottom-nav a[aria-current="page"]')).toHaveLength(0);
  });
  it('names a page outside the app in the tab’s title by its heading, in the language on screen, and the landing page by the brand', async () => {
    window.history.replaceState(null, '', '/login/');
    const view = render(<App />);
    await waitFor(() => expect(document.title).toBe(`${es['login.title']} · Eventmatch`), { timeout: 5000 });
    await act(() => useLanguage.getState().setLanguage('en'));
    await waitFor(() => expect(document.title).toBe(`${en['login.title']} · Eventmatch`));

    act(() => navigate('/no-such-page/'));
    await waitFor(() => expect(document.title).toBe(`${en['notFound.title']} · Eventmatch`), { timeout: 5000 });
    act(() => navigate('/'));
    await waitFor(() => expect(view.container.querySelector('main h1')?.textContent).toBe(en['landing.hero.title']));
    expect(document.title).toBe('Eventmatch');
  });

  it('offers the language switch on a page that is not there, as on the other public pages', async () => {
    window.history.replaceState(null, '', '/no-such-page/');
    const view = render(<App />);
    await waitFor(() => expect(view.container.querySelector('main h1')?.textContent).toBe(es['notFound.title']), { timeout: 5000 });
    const english = view.getByRole('button', { name: `EN, ${es['language.en']}` });
    act(() => english.click());
    await waitFor(() => expect(view.container.querySelector('main h1')?.textContent).toBe(en['notFound.title']));
    expect(view.getByRole('link', { name: en['notFound.link'] }).getAttribute('href')).toBe('/');
    await act(() => useLanguage.getState().setLanguage('es'));
  });

  it('names the section on screen in the tab’s title, with the unread count, and gives the title back when it goes', async () => {
    localStorage.setItem('auth_token', 'token');
    useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
    window.history.replaceState(null, '', '/app/profile/');
    const view = render(<App />);
    await waitFor(() => expect(document.title).toBe(`${es['app.nav.profile']} · Eventmatch`), { timeout: 5000 });

    act(() => useConversations.setState({ started: [{ id: 4, unread_count: 3 } as ConversationSummary] }));
    expect(document.title).toBe(`(3) ${es['app.nav.profile']} · Eventmatch`);

    view.unmount();
    expect(document.title).toBe('Eventmatch');
    useConversations.setState({ started: null });
  });

  it('counts the open chat’s messages until they are read, the page in sight or not', async () => {
    localStorage.setItem('auth_token', 'token');
    useSession.setState({ token: 'token', user: currentUser() });
    const chat = (id: number, unread: number): ConversationSummary =>
      ({ id, name: `Ana ${id}`, image: null, other_user_id: id + 100, last_message: 'Hola', last_activity: '2026-12-03T09:00:00Z', unread_count: unread });
    useConversations.setState({ started: [chat(4, 2), chat(5, 1)] });
    const chats = `${es['app.nav.chats']} · Eventmatch`;
    // The shell alone, around the chat's place: nothing reads its messages, so they count.
    const view = renderAt('/app/chat/4', <AppShell>{null}</AppShell>);
    await waitFor(() => expect(document.title).toBe(`(3) ${chats}`), { timeout: 5000 });

    try {
      act(() => comeBack('hidden'));
      expect(document.title).toBe(`(3) ${chats}`);
      act(() => comeBack('visible'));
      expect(document.title).toBe(`(3) ${chats}`);
    } finally {
      view.unmount();
      useConversations.setState({ started: null });
    }
  });
});

describe('isNavActive', () => {
  it('matches by prefix, and never counts someone else\'s profile as "Profile"', () => {
    expect(isNavActive('/app/home/', ['/app/home'])).toBe(true);
    expect(isNavActive('/app/homework', ['/app/home'])).toBe(false);
    expect(isNavActive('/app/chat/4', ['/app/matches', '/app/chat'])).toBe(true);
    expect(isNavActive('/app/profile/', ['/app/profile'])).toBe(true);
    expect(isNavActive('/app/profiles/9', ['/app/profile'])).toBe(false);
  });
});
