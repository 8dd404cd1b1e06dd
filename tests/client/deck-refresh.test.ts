// @vitest-environment jsdom
/**
 * The deck's refresh as `deck:refresh` reaches a tab that hears two events' rooms: an organizer's tab
 * that showed the host screen of one event stays in its room while its user is at another. The news
 * of the event the user is at refreshes the deck, whatever the other room said first.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hear } from '../helpers/heard-socket';
import { publicEvent } from '../helpers/public-event';

vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useDeck } = await import('../../client/stores/deck');
const { useEvents } = await import('../../client/stores/events');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');

describe('a deck:refresh', () => {
  let refresh: ReturnType<typeof vi.fn<() => Promise<void>>>;
  beforeEach(() => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    startRealtime('token');
    useEvents.setState({ current: publicEvent({ id: 1 }) });
    refresh = vi.fn<() => Promise<void>>(async () => {});
    useDeck.setState({ queue: [], refresh });
  });
  afterEach(() => {
    stopRealtime();
    useEvents.getState().reset();
    useDeck.getState().reset();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('of my event refreshes the deck though one of an event I only host came just before', async () => {
    // The hosted event is big: its window is long.
    hear('deck:refresh', { event_id: 2, within_ms: 40_000 });
    hear('deck:refresh', { event_id: 1, within_ms: 5000 });
    await vi.advanceTimersByTimeAsync(40_000);
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('refreshes once for every refresh of my event heard while it waits', async () => {
    hear('deck:refresh', { event_id: 1, within_ms: 5000 });
    hear('deck:refresh', { event_id: 1, within_ms: 5000 });
    await vi.advanceTimersByTimeAsync(5000);
    expect(refresh).toHaveBeenCalledTimes(1);
  });
});
