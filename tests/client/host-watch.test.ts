// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OrganizerEvent } from '../../shared/schemas/events';
import { comeBack } from '../helpers/page-visibility';

/** The socket as the host screen sees it: connected or not, and what it was asked to watch. */
const socket = vi.hoisted(() => ({
  connected: false,
  connectListeners: new Set<() => void>(),
  watched: [] as number[],
  unwatched: [] as number[],
  connect() {
    this.connected = true;
    for (const listener of this.connectListeners) listener();
  },
}));
vi.mock('../../client/lib/socket', () => ({
  isConnected: () => socket.connected,
  onConnect: (listener: () => void) => {
    socket.connectListeners.add(listener);
    return () => socket.connectListeners.delete(listener);
  },
  onReconnect: () => () => {},
  onEvent: () => () => {},
  // A watch answers once connected; before that, it is given up (an ack that did not come in time).
  watchEvent: async (id: number) => {
    if (!socket.connected) return null;
    socket.watched.push(id);
    return 41;
  },
  unwatchEvent: (id: number) => socket.unwatched.push(id),
}));

const event = { id: 7, name: 'Fiesta', is_organizer: true };
const api = vi.hoisted(() => ({ myEvents: vi.fn(), eventQr: vi.fn(), eventStats: vi.fn(), deleteEvent: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { deleteHostedEvent, openHostScreen, useHost } = await import('../../client/stores/host');
const { ApiError, NotFound } = await import('../../client/lib/api');

function answers() {
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  api.eventQr.mockResolvedValue({ token: 't', url: 'u', svg: '<svg/>', expires_at: new Date(Date.now() + 60_000).toISOString(), expires_in_ms: 60_000 });
  api.eventStats.mockResolvedValue({ attendee_count: 40, checked_in_total: 40, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
}

describe('the host screen’s live count', () => {
  let stop = () => {};
  afterEach(() => {
    stop();
    socket.connected = false;
    socket.connectListeners.clear();
    socket.watched = [];
    socket.unwatched = [];
    vi.resetAllMocks();
  });

  it('watches the event at the first connect when the event was known before it (a slow network)', async () => {
    answers();
    stop = openHostScreen(7);
    await vi.waitFor(() => expect(useHost.getState().event).toEqual(event));
    expect(socket.watched).toEqual([]);
    socket.connect();
    await vi.waitFor(() => expect(useHost.getState().count).toBe(41));
    expect(socket.watched).toEqual([7]);
  });

  it('watches it once the event is known, when the socket connected first', async () => {
    answers();
    socket.connect();
    stop = openHostScreen(7);
    await vi.waitFor(() => expect(useHost.getState().count).toBe(41));
    expect(socket.watched).toEqual([7]);
  });

  it('stops watching the event when the screen closes, so that the tab hears its news no more', async () => {
    answers();
    socket.connect();
    stop = openHostScreen(7);
    await vi.waitFor(() => expect(useHost.getState().count).toBe(41));
    expect(socket.unwatched).toEqual([]);
    stop();
    stop = () => {};
    expect(socket.unwatched).toEqual([7]);
  });
});

describe('the host screen’s count with no socket', () => {
  let stop = () => {};
  afterEach(() => {
    stop();
    vi.useRealTimers();
    vi.resetAllMocks();
  });

  it('follows the stats while the socket cannot connect (a network that lets no WebSocket through)', async () => {
    vi.useFakeTimers();
    answers();
    stop = openHostScreen(7);
    await vi.waitFor(() => expect(useHost.getState().count).toBe(40));
    // People keep coming in; no count can come over the socket, and the stats read them.
    api.eventStats.mockResolvedValue({ attendee_count: 52, checked_in_total: 55, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(useHost.getState().stats?.attendee_count).toBe(52);
    expect(useHost.getState().count).toBe(52);
  });
});

describe('the host screen of an event deleted elsewhere', () => {
  let stop = () => {};
  afterEach(() => {
    stop();
    vi.resetAllMocks();
  });

  it('says the event is gone at its next code, instead of keeping one that lets nobody in', async () => {
    api.myEvents.mockResolvedValue({ results: [event], next: null });
    api.eventQr.mockResolvedValue({ token: 't', url: 'u', svg: '<svg/>', expires_at: new Date(Date.now() + 60_000).toISOString(), expires_in_ms: 60_000 });
    api.eventStats.mockResolvedValue({ attendee_count: 0, checked_in_total: 0, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
    stop = openHostScreen(7);
    await vi.waitFor(() => expect(useHost.getState().qr).not.toBeNull());
    // Deleted from the organizer's phone: the laptop's next code (here: back in view) is refused.
    api.eventQr.mockRejectedValue(new NotFound(404, 'Not found.'));
    comeBack();
    await vi.waitFor(() => expect(useHost.getState()).toMatchObject({ event, deleted: true, qr: null }));
  });
});

describe('deleting an event from the host screen', () => {
  afterEach(() => vi.resetAllMocks());

  it('is done when another of the organizer’s screens deleted it first, and fails on any other refusal', async () => {
    useHost.setState({ event: event as OrganizerEvent });
    api.deleteEvent.mockRejectedValue(new NotFound(404, 'Not found.'));
    await deleteHostedEvent(7);
    expect(useHost.getState().event).toBeNull();
    useHost.setState({ event: event as OrganizerEvent });
    api.deleteEvent.mockRejectedValue(new ApiError(500, 'Internal server error.'));
    await expect(deleteHostedEvent(7)).rejects.toThrow('Internal server error.');
    expect(useHost.getState().event).toEqual(event);
  });
});
