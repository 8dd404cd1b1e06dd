// @vitest-environment jsdom
/**
 * What a guest typed in the register form or the profile form comes back after a reload, or after the
 * phone discarded the locked tab (it reloads when they come back): kept in the tab's session storage,
 * never a password, and gone once the form is sent or the user signs out. A reload here is the page
 * unmounted and mounted again: session storage stays, as the browser keeps it.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Route, Router } from 'wouter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { toast } from '../../client/lib/toast';
import { EditProfile } from '../../client/pages/app/EditProfile';
import { Register } from '../../client/pages/Register';
import { useProfile } from '../../client/stores/profile';
import { useSession } from '../../client/stores/session';
import type { OwnProfile } from '../../shared/schemas/users';
import { en } from '../../shared/i18n/en';
import { currentUser } from '../helpers/current-user';
import { inEnglishPages } from '../helpers/english-pages';
import { renderAt } from '../helpers/render-at';

let registered = false;
inEnglishPages((url) => (url.endsWith('/api/auth/register/') ? ((registered = true), Response.json({}, { status: 201 })) : Response.json({})));
beforeEach(() => {
  registered = false;
  sessionStorage.clear();
});
afterEach(() => {
  toast.dismiss();
  vi.restoreAllMocks();
});

const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);
const type = (label: string, value: string) => fireEvent.change(field(label), { target: { value } });

describe('the register form', () => {
  function openRegister() {
    cleanup();
    window.history.replaceState(null, '', '/register/');
    render(
      <Router>
        <Route path="/register/" component={Register} />
      </Router>,
    );
    return screen.findByRole('heading', { name: en['register.title'] });
  }

  it('gives back what was typed after a reload, but not the passwords', async () => {
    await openRegister();
    type(en['register.firstName'], 'Ana');
    type(en['register.lastName'], 'Ruiz');
    type(en['auth.email'], 'ana@example.com');
    type(en['auth.password'], 'party-time-2026');
    type(en['register.password2'], 'party-time-2026');

    await openRegister();
    expect(field(en['register.firstName']).value).toBe('Ana');
    expect(field(en['register.lastName']).value).toBe('Ruiz');
    expect(field(en['auth.email']).value).toBe('ana@example.com');
    expect(field(en['auth.password']).value).toBe('');
    expect(field(en['register.password2']).value).toBe('');
    expect(JSON.stringify(sessionStorage)).not.toContain('party-time-2026');
  });

  it('starts empty again once the account is made', async () => {
    await openRegister();
    type(en['register.firstName'], 'Ana');
    type(en['auth.email'], 'ana@example.com');
    await act(async () => fireEvent.submit(document.querySelector('form')!));
    expect(registered).toBe(true);

    await openRegister();
    expect(field(en['register.firstName']).value).toBe('');
    expect(field(en['auth.email']).value).toBe('');
  });
});

describe('the profile form', () => {
  const saved: OwnProfile = {
    name: 'Ana', bio: 'Hi', gender: 'female', date_of_birth: '1995-04-02',
    image: '/media/a.webp', image2: null, image3: null, image4: null, image5: null, image6: null,
    genders_to_match: ['male'], min_matching_age: 18, max_matching_age: 40, version: 'v1',
  };
  function Page() {
    useMessages(appMessages);
    return <EditProfile />;
  }
  /** The profile page opened (again), over the profile as the server has it. */
  function openProfile(profile = saved) {
    cleanup();
    useProfile.setState({ profile, load: async () => {}, save: async (input) => void useProfile.setState({ profile: { ...saved, ...input, version: 'v2' } }) });
    renderAt('/app/profile/', <Page />);
    return screen.findByRole('button', { name: en['profile.save'] });
  }
  beforeEach(() => {
    localStorage.setItem('auth_token', 'token');
    useSession.setState({ token: 'token', user: currentUser({ is_profile_completed: false }) });
  });

  it('gives back the changes made after a reload, over the profile as it was saved', async () => {
    await openProfile();
    type(en['profile.name'], 'Ana María');
    fireEvent.change(screen.getByLabelText(en['profile.bio']), { target: { value: 'Here for the music' } });

    await openProfile();
    expect(field(en['profile.name']).value).toBe('Ana María');
    expect(screen.getByLabelText<HTMLTextAreaElement>(en['profile.bio']).value).toBe('Here for the music');
  });

  it('gives back only the changes made here over a save made on another device meanwhile, and says so', async () => {
    await openProfile();
    type(en['profile.name'], 'Ana María');

    // Reloaded after the other phone saved a new bio: that bio is not put back to the one this form was filled with.
    await openProfile({ ...saved, bio: 'Back from the beach', version: 'v3' });
    expect(field(en['profile.name']).value).toBe('Ana María');
    expect(screen.getByLabelText<HTMLTextAreaElement>(en['profile.bio']).value).toBe('Back from the beach');
    expect(screen.getByRole('status').textContent).toContain(en['profile.changedElsewhere']);
  });

  it('are not given to another session, which a tab the phone discarded meanwhile opens in', async () => {
    await openProfile();
    type(en['profile.name'], 'Ana María');
    // Discarded with the phone locked: it heard neither the sign-out nor the next user's sign-in made
    // in another tab, and opens again in that user's session, with the session storage it had.
    cleanup();
    localStorage.setItem('auth_token', 'next-token');
    useSession.setState({ token: 'next-token', user: currentUser({ id: 2 }) });
    await openProfile();
    expect(field(en['profile.name']).value).toBe('Ana');
  });

  it('keeps them through a session the server ended, for the same user signing in again only', async () => {
    await openProfile();
    type(en['profile.name'], 'Ana María');
    // Ended from another device (its password changed there), as the chat drafts are kept: the page
    // goes to the login page after the sign-out, then the same user signs in again in this tab.
    useSession.getState().signOut({ alreadyRevoked: true, keepOutbox: true });
    cleanup();
    useSession.getState().signIn('token-2');
    useSession.setState({ user: currentUser({ is_profile_completed: false }) });
    await openProfile();
    expect(field(en['profile.name']).value).toBe('Ana María');

    // Ended again, and someone else signs in here: not theirs.
    cleanup();
    useSession.getState().signOut({ alreadyRevoked: true, keepOutbox: true });
    useSession.getState().signIn('token-3');
    useSession.setState({ user: currentUser({ id: 2 }) });
    await openProfile();
    expect(field(en['profile.name']).value).toBe('Ana');
  });

  it('drops those kept for a user once someone else is known signed in here, as the chat drafts are', async () => {
    await openProfile();
    type(en['profile.name'], 'Ana María');
    cleanup();
    useSession.getState().signOut({ alreadyRevoked: true, keepOutbox: true });
    // A shared phone: someone else signs in, and the server says who.
    useSession.getState().signIn('token-2');
    expect(sessionStorage.getItem('draft:profile')).not.toBeNull();
    useSession.setState({ user: currentUser({ id: 2 }) });
    expect(sessionStorage.getItem('draft:profile')).toBeNull();
  });

  it('drops them once they are saved, or the user signs out', async () => {
    await openProfile();
    type(en['profile.name'], 'Ana María');
    await act(async () => fireEvent.submit(document.querySelector('form')!));
    useProfile.setState({ profile: saved });
    await openProfile();
    expect(field(en['profile.name']).value).toBe('Ana');

    type(en['profile.name'], 'Ana María');
    // Signed out with the page gone already (a reload onto the login page, a sign-out from the menu).
    cleanup();
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.setState({ token: 'token', user: currentUser() });
    await openProfile();
    expect(field(en['profile.name']).value).toBe('Ana');
  });
});
