import { create } from 'zustand';
import { listOnlinePartners } from '../lib/socket';
import { onSignOut, sessionCheck } from './session';

interface PresenceState {
  /** Matches connected right now (any device, any instance). */
  online: ReadonlySet<number>;
  /** The whole list from the server: at every connect, and when told to catch up. */
  refresh: () => Promise<void>;
  /** A `presence` event. */
  update: (userId: number, online: boolean) => void;
  reset: () => void;
}

/** Who of my matches is online: a dot on their avatar in the matches list and the chat header. */
export const usePresence = create<PresenceState>()((set) => ({
  online: new Set(),
  async refresh() {
    const sameSession = sessionCheck();
    try {
      const online = await listOnlinePartners();
      if (sameSession()) set({ online: new Set(online) });
    } catch (error) {
      // Offline again, or the server is busy: the next connect asks again.
      console.error('Could not load who is online', error);
    }
  },
  update(userId, online) {
    set((state) => {
      if (state.online.has(userId) === online) return state;
      const next = new Set(state.online);
      if (online) next.add(userId);
      else next.delete(userId);
      return { online: next };
    });
  },
  reset() {
    set({ online: new Set() });
  },
}));

onSignOut(() => usePresence.getState().reset());
