// @vitest-environment jsdom
import { cleanup, render } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PublicEvent } from '../../shared/schemas/events';
import { currentUser } from '../helpers/current-user';
import { later } from '../helpers/later';

const api = vi.hoisted(() => ({ currentEvent: vi.fn(), checkIn: vi.fn(), leaveEvent: vi.fn(), event: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
const deckLoad = vi.hoisted(() => vi.fn(async () => {}));
vi.mock('../../client/stores/deck', () => ({ useDeck: { getState: () => ({ load: deckLoad, queue: [] }) } }));

const { enterEvent, heardOfEvent, joinPendingEvent, useEvents } = await import('../../client/stores/events');
const { getPendingJoin, clearPendingJoin, pendingJoinRefusal, setPendingJoin } = await import('../../client/lib/pending-join');
const { useLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');
const { ApiError, NotFound } = await import('../../client/lib/api');
const { useSession } = await import('../../client/stores/session');
const { readCache } = await import('../../client/lib/device-cache');
const terrace = { id: 7, name: 'Terrace Night' } as PublicEvent;

describe('the events store, when its reads and its changes cross', () => {
  afterEach(() => {
    useEvents.getState().reset();
    vi.resetAllMocks();
  });

  it('keeps the live count when the organizer’s change, counted before the last arrival, comes after its count', async () => {
    api.checkIn.mockResolvedValueOnce({ event: { ...terrace, attendee_count: 1, status: 'open' } });
    await useEvents.getState().checkIn('N42FM2');
    // Ben came in on this phone's instance (its count at once); the organizer's rename, made on another
    // instance as he did and counted without him, reaches it through Redis after that count.
    useEvents.getState().setCount(terrace.id, 2);
    useEvents.getState().changed({ ...terrace, name: 'Late party', attendee_count: 1, status: 'open' });
    expect(useEvents.getState().current).toMatchObject({ name: 'Late party', attendee_count: 2 });
  });

  it('keeps the check-in when a read of where we are, asked before it, is answered after it', async () => {
    const read = later<{ event: PublicEvent | null }>();
    api.currentEvent.mockReturnValueOnce(read.promise);
    api.checkIn.mockResolvedValueOnce({ event: terrace });

    const loading = useEvents.getState().loadCurrent();
    await useEvents.getState().checkIn('N42FM2');
    // The read was answered before the check-in took effect: nowhere.
    read.resolve({ event: null });
    await loading;
    expect(useEvents.getState().current).toEqual(terrace);
    expect(api.currentEvent).toHaveBeenCalledTimes(1);
  });

  it('keeps the leaving when a read asked before it lands after it', async () => {
    api.checkIn.mockResolvedValueOnce({ event: terrace });
    await useEvents.getState().checkIn('N42FM2');
    const read = later<{ event: PublicEvent | null }>();
    api.currentEvent.mockReturnValueOnce(read.promise);
    api.leaveEvent.mockResolvedValueOnce(undefined);

    const loading = useEvents.getState().loadCurrent();
    await useEvents.getState().leave();
    read.resolve({ event: terrace });
    await loading;
    expect(useEvents.getState().current).toBeNull();
  });

  it('asks again when the change it crossed failed, so that where we are is known', async () => {
    const first = later<{ event: PublicEvent | null }>();
    api.currentEvent.mockReturnValueOnce(first.promise).mockResolvedValueOnce({ event: null });
    const refused = later<never>();
    api.checkIn.mockReturnValueOnce(refused.promise);

    const loading = useEvents.getState().loadCurrent();
    const checkingIn = useEvents.getState().checkIn('N42FM2', { pass: 'expired' });
    first.resolve({ event: null });
    refused.reject(new Error('This pass has expired.'));
    await expect(checkingIn).rejects.toThrow('This pass has expired.');
    await loading;
    expect(api.currentEvent).toHaveBeenCalledTimes(2);
    expect(useEvents.getState().current).toBeNull();
  });

  it('takes a read that crossed nothing as it comes', async () => {
    api.currentEvent.mockResolvedValueOnce({ event: terrace });
    await useEvents.getState().loadCurrent();
    expect(useEvents.getState().current).toEqual(terrace);
  });

  it('keeps the newer of two reads when the older is answered last', async () => {
    // The app's read as it opens, then the first connect's, after the organizer ended the event.
    const older = later<{ event: PublicEvent | null }>();
    const newer = later<{ event: PublicEvent | null }>();
    api.currentEvent.mockReturnValueOnce(older.promise).mockReturnValueOnce(newer.promise);
    const first = useEvents.getState().loadCurrent();
    const second = useEvents.getState().loadCurrent();
    const ended = { ...terrace, status: 'after' } as PublicEvent;
    newer.resolve({ event: ended });
    await second;
    older.resolve({ event: terrace });
    await first;
    expect(useEvents.getState().current).toEqual(ended);
  });

  it('takes the older read’s answer when the newer one fails before it comes', async () => {
    const older = later<{ event: PublicEvent | null }>();
    api.currentEvent.mockReturnValueOnce(older.promise).mockRejectedValueOnce(new Error('offline'));
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    const first = useEvents.getState().loadCurrent();
    await useEvents.getState().loadCurrent();
    older.resolve({ event: terrace });
    await first;
    expect(useEvents.getState().current).toEqual(terrace);
    quiet.mockRestore();
  });

  it('takes the older read’s answer when the newer one fails after it came', async () => {
    const older = later<{ event: PublicEvent | null }>();
    const newer = later<{ event: PublicEvent | null }>();
    api.currentEvent.mockReturnValueOnce(older.promise).mockReturnValueOnce(newer.promise);
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    const first = useEvents.getState().loadCurrent();
    const second = useEvents.getState().loadCurrent();
    older.resolve({ event: terrace });
    newer.reject(new Error('offline'));
    await Promise.all([first, second]);
    expect(useEvents.getState().current).toEqual(terrace);
    quiet.mockRestore();
  });
});

describe('news of an event this tab does not know it is at', () => {
  afterEach(() => {
    useEvents.getState().reset();
    vi.resetAllMocks();
  });

  it('reads where I am again after a check-in on another phone, and the deck with it; once a minute at most per event', async () => {
    useEvents.setState({ current: null });
    api.currentEvent.mockResolvedValueOnce({ event: terrace });
    await heardOfEvent(terrace.id);
    expect(useEvents.getState().current).toEqual(terrace);
    expect(deckLoad).toHaveBeenCalledTimes(1);
    // Its next counts are news of where I am.
    await heardOfEvent(terrace.id);
    expect(api.currentEvent).toHaveBeenCalledTimes(1);
    // An event I am not at (an organizer's host screen): asked about once, not at every count.
    api.currentEvent.mockResolvedValue({ event: terrace });
    await heardOfEvent(8);
    await heardOfEvent(8);
    expect(api.currentEvent).toHaveBeenCalledTimes(2);
    expect(deckLoad).toHaveBeenCalledTimes(1);
  });

  it('reads again when I check in there again on another phone, a minute not yet gone since I left', async () => {
    useEvents.setState({ current: null });
    api.currentEvent.mockResolvedValueOnce({ event: terrace });
    await heardOfEvent(terrace.id);
    // Left on that phone: this tab's socket hears `sync` and reads where I am, nowhere.
    api.currentEvent.mockResolvedValueOnce({ event: null });
    await useEvents.getState().loadCurrent();
    expect(useEvents.getState().current).toBeNull();
    // In again a moment later: its count is news of where I am.
    api.currentEvent.mockResolvedValueOnce({ event: terrace });
    await heardOfEvent(terrace.id);
    expect(useEvents.getState().current).toEqual(terrace);
    expect(deckLoad).toHaveBeenCalledTimes(2);
  });

  it('waits for this tab’s own check-in to answer instead', async () => {
    useEvents.setState({ current: null });
    const checkingIn = later<{ event: PublicEvent }>();
    api.checkIn.mockReturnValueOnce(checkingIn.promise);
    const going = useEvents.getState().checkIn('N42FM2');
    await heardOfEvent(terrace.id);
    expect(api.currentEvent).not.toHaveBeenCalled();
    checkingIn.resolve({ event: terrace });
    await going;
    expect(useEvents.getState().current).toEqual(terrace);
  });
});

describe('the organizer’s changes to my event', () => {
  const ME = 5;
  afterEach(() => {
    useEvents.getState().reset();
    useSession.getState().signOut();
    localStorage.clear();
    vi.resetAllMocks();
  });
  const atTerrace = { ...terrace, venue: 'Roof', starts_at: '2026-11-30T20:00:00.000Z', ends_at: '2026-12-01T02:00:00.000Z', status: 'open', attendee_count: 3 } as PublicEvent;

  it('shows my event as changed, ignores other events, and keeps the change for an opening with no network', async () => {
    useSession.getState().signIn('token');
    useSession.setState({ user: { id: ME } as never });
    api.checkIn.mockResolvedValueOnce({ event: atTerrace });
    await useEvents.getState().checkIn('N42FM2');
    expect(readCache<PublicEvent>('event', ME)?.name).toBe('Terrace Night');

    // A live count is not worth a write; the organizer's change is.
    const write = vi.spyOn(Storage.prototype, 'setItem');
    useEvents.getState().setCount(terrace.id, 4);
    expect(write).not.toHaveBeenCalled();
    useEvents.getState().changed({ ...atTerrace, id: 99, name: 'Elsewhere' });
    expect(useEvents.getState().current?.name).toBe('Terrace Night');
    const renamed = { ...atTerrace, name: 'Terrace Night, Upstairs', ends_at: '2026-12-01T03:00:00.000Z', attendee_count: 4 };
    useEvents.getState().changed(renamed);
    expect(useEvents.getState().current).toEqual(renamed);
    expect(readCache<PublicEvent>('event', ME)).toEqual(renamed);
    write.mockRestore();
  });
});

describe('a code typed to get in', () => {
  afterEach(() => {
    clearPendingJoin();
    useSession.setState({ user: undefined });
    useEvents.getState().reset();
    vi.resetAllMocks();
  });

  it('checks in at once with a complete profile', async () => {
    useSession.setState({ user: currentUser() });
    api.checkIn.mockResolvedValue({ event: terrace });
    await enterEvent('ABC234', 'Terrace Night');
    expect(api.checkIn).toHaveBeenCalledWith('ABC234', {});
    expect(getPendingJoin()).toBeNull();
  });

  it('keeps the place, named after the event, for a profile still to write', async () => {
    useSession.setState({ user: currentUser({ is_profile_completed: false }) });
    await enterEvent('ABC234', 'Terrace Night');
    expect(getPendingJoin()).toMatchObject({ code: 'ABC234', name: 'Terrace Night' });
    expect(api.checkIn).not.toHaveBeenCalled();
  });
});

describe('a join kept through a login that found the account at another event', () => {
  const at = { event: { ...terrace, code: 'XYZ789' } };
  afterEach(() => {
    clearPendingJoin();
    vi.resetAllMocks();
  });

  it('is asked about on its page while the event is open', async () => {
    setPendingJoin({ code: 'ABC234', pass: 'kept', expiresAt: Date.now() + 60_000 });
    api.currentEvent.mockResolvedValue(at);
    api.event.mockResolvedValue({ code: 'ABC234', status: 'open' });
    expect(await joinPendingEvent()).toBe('ask');
    expect(getPendingJoin()?.code).toBe('ABC234');
  });

  it.each([
    ['not open yet', () => api.event.mockResolvedValue({ code: 'ABC234', status: 'upcoming' })],
    ['ended', () => api.event.mockResolvedValue({ code: 'ABC234', status: 'after' })],
    ['gone', () => api.event.mockRejectedValue(new NotFound(404, 'Not found.'))],
  ])('is dropped, with nothing to ask, once the event is %s', async (_, answer) => {
    setPendingJoin({ code: 'ABC234', pass: 'kept', expiresAt: Date.now() + 60_000 });
    api.currentEvent.mockResolvedValue(at);
    answer();
    expect(await joinPendingEvent()).toBeNull();
    expect(getPendingJoin()).toBeNull();
    expect(api.checkIn).not.toHaveBeenCalled();
  });
});

describe('a join kept through sign-up and profile, checked in once the profile is saved', () => {
  afterEach(() => {
    clearPendingJoin();
    useEvents.getState().reset();
    vi.resetAllMocks();
  });

  it('is kept when the check-in gets no answer, and goes through on the next try', async () => {
    setPendingJoin({ code: 'ABC234', pass: 'kept', expiresAt: Date.now() + 60_000 });
    api.currentEvent.mockResolvedValue({ event: null });
    api.checkIn.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await expect(joinPendingEvent()).rejects.toThrow('Failed to fetch');
    expect(getPendingJoin()).toMatchObject({ code: 'ABC234', pass: 'kept' });

    api.checkIn.mockResolvedValueOnce({ event: terrace });
    expect(await joinPendingEvent()).toEqual(terrace);
    expect(api.checkIn).toHaveBeenLastCalledWith('ABC234', { pass: 'kept' });
    expect(getPendingJoin()).toBeNull();
  });

  it('is dropped when the check-in is refused', async () => {
    setPendingJoin({ code: 'ABC234', pass: 'kept', expiresAt: Date.now() + 60_000 });
    api.currentEvent.mockResolvedValue({ event: null });
    api.checkIn.mockRejectedValueOnce(new ApiError(409, 'The event has ended.', 'ended'));
    await expect(joinPendingEvent()).rejects.toThrow('The event has ended.');
    expect(getPendingJoin()).toBeNull();
  });

  it('names the event that ended while they signed up, in English and Spanish', async () => {
    setPendingJoin({ code: 'ABC234', name: 'Terrace Night', pass: 'kept', expiresAt: Date.now() + 60_000 });
    api.currentEvent.mockResolvedValue({ event: null });
    api.checkIn.mockRejectedValueOnce(new ApiError(409, 'This event has ended.', 'ended'));
    const refusal = await joinPendingEvent().catch((error: unknown) => error);
    const said = () => {
      const { container } = render(createElement('p', null, pendingJoinRefusal(refusal, 'Terrace Night')));
      return container.textContent;
    };
    await useLanguage.getState().setLanguage('en');
    expect(said()).toBe('Terrace Night has ended: no one new can join it.');
    await useLanguage.getState().setLanguage('es');
    expect(said()).toBe('Terrace Night ha terminado: ya no puede entrar nadie más.');
    cleanup();
  });
});
