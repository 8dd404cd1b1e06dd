import { create } from 'zustand';
import type { OwnProfile, ProfileInput } from '../../shared/schemas/users';
import { track } from '../lib/analytics';
import { api } from '../lib/api-app';
import { useDeck } from './deck';
import { onSignOut, sessionCheck, useSession } from './session';

interface ProfileState {
  profile: OwnProfile | null;
  load: () => Promise<void>;
  /**
   * Saves, keeps the profile the save answered, and reloads the current user (is_profile_completed may have changed). The
   * save names the version it was made from: one changed on another device since is refused (409).
   */
  save: (input: ProfileInput) => Promise<void>;
  reset: () => void;
}

export const useProfile = create<ProfileState>()((set, get) => ({
  profile: null,
  async load() {
    // Answered once another user has signed in (a slow network, a phone handed on): not theirs.
    const sameSession = sessionCheck();
    const profile = await api.myProfile();
    if (sameSession()) set({ profile });
  },
  async save(input) {
    const wasCompleted = useSession.getState().user?.is_profile_completed;
    const sameSession = sessionCheck();
    const saved = await api.saveProfile({ ...input, version: get().profile?.version });
    if (!sameSession()) return;
    // The answer is the profile as stored: read again, a network gone just then failed a stored save.
    set({ profile: saved });
    await useSession.getState().loadUser();
    if (!sameSession()) return;
    // Who fits may have changed with it (an age, the genders to match): the deck starts over on the next visit.
    useDeck.setState({ queue: null, current: null });
    if (wasCompleted === false && useSession.getState().user?.is_profile_completed) track('profile_completed');
  },
  reset() {
    set({ profile: null });
  },
}));

onSignOut(() => useProfile.getState().reset());
