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

/**
 * The `presence` events heard while a list is on its way, one map per list. Such an event can be newer
 * than the list: the instances answer for their own sockets, and one that answered before a match
 * connected there tells of it before the slowest has answered.
 */
const heardMeanwhile = new Set<Map<number, boolean>>();

/** Who of my matches is online: a dot on their avatar in the matches list and the chat header. */
export const usePresence = create<PresenceState>()((set) => ({
  online: new Set(),
  async refresh() {
    const sameSession = sessionCheck();
    const heard = new Map<number, boolean>();
    heardMeanwhile.add(heard);
    try {
      const online = new Set(await listOnlinePartners());
      for (const [userId, now] of heard) {
        if (now) online.add(userId);
        else online.delete(userId);
      }
      if (sameSession()) set({ online });
    } catch (error) {
      // Offline again, or the server is busy: the next connect asks again.
      console.error('Could not load who is online', error);
    } finally {
      heardMeanwhile.delete(heard);
    }
  },
  update(userId, online) {
    for (const heard of heardMeanwhile) heard.set(userId, online);
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
