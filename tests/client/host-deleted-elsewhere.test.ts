// @vitest-environment jsdom
/**
 * A host screen left at the door follows what the organizer does to the event from another screen
 * at once, not at its next code (a minute on): deleted, it says the event is gone and stops showing
 * a code; ended, it shows the event as over. "My events" shows its counts live too. Against the real
 * server, over a real socket.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import { createElement } from 'react';
import { sql } from 'drizzle-orm';
import { rooms } from '../../shared/events';
import { checkIn, makeEvent, setEventTimes } from '../helpers/events';
import { closeTab, connectTab, fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';
import { makeUser, type TestUser } from '../helpers/factories';
import { renderAt } from '../helpers/render-at';
import { comeBack } from '../helpers/page-visibility';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { openHostScreen, useHost } = await import('../../client/stores/host');
const { useEvents } = await import('../../client/stores/events');
const { Events } = await import('../../client/pages/events/Events');
const { initLanguage } = await import('../../client/lib/i18n');

const HOUR = 3_600_000;
/** Far below the QR's minute: only the socket can have said it this soon. */
const AT_ONCE = { timeout: 3000 };

let server: TestServer;
let me: TestUser;
let stop = () => {};

beforeAll(async () => void ({ server, me } = await startTabServer()));
afterAll(() => server?.close());
afterEach(() => {
  stop();
  stop = () => {};
  cleanup();
  closeTab();
  vi.useRealTimers();
});

/**
 * The host screen of a new event of mine, its code shown and its count watched over the socket; with
 * `checkedIn`, I am at it too, as this tab knows.
 */
async function hostScreenOf(times: { starts_at: string; ends_at: string }, { checkedIn = false } = {}) {
  fetchFrom(server);
  await signInTab(server, me);
  await connectTab(me.token);
  const event = await makeEvent(server, me, { name: 'Verbena', ...times });
  if (checkedIn) {
    await useEvents.getState().checkIn(event.code);
    expect(useEvents.getState().current).toMatchObject({ id: event.id });
  }
  stop = openHostScreen(event.id);
  await vi.waitFor(() => expect(useHost.getState()).toMatchObject({ event: { id: event.id }, qr: expect.anything(), count: checkedIn ? 1 : 0 }), { timeout: 5000 });
  return event;
}

it('says an event deleted from the organizer’s other phone is gone at once, its code no longer shown', async () => {
  const event = await hostScreenOf({ starts_at: new Date(Date.now() + 2 * HOUR).toISOString(), ends_at: new Date(Date.now() + 5 * HOUR).toISOString() });
  expect((await client(server.url).delete(`/api/events/${event.id}/`, { token: me.token })).status).toBe(204);
  await vi.waitFor(() => expect(useHost.getState()).toMatchObject({ deleted: true, qr: null, event: { name: 'Verbena' } }), AT_ONCE);
});

it('leaves, in the host screen’s tab, an event of mine I was at, deleted from my other phone', async () => {
  // Check-in opens an hour before the start: I am in, and it can still be deleted.
  const times = { starts_at: new Date(Date.now() + HOUR / 2).toISOString(), ends_at: new Date(Date.now() + 3 * HOUR).toISOString() };
  const event = await hostScreenOf(times, { checkedIn: true });
  expect((await client(server.url).delete(`/api/events/${event.id}/`, { token: me.token })).status).toBe(204);
  // This tab's socket, in the host room, hears `event:deleted` only: its guests' `sync` is not for it.
  await vi.waitFor(() => expect(useEvents.getState().current).toBeNull(), AT_ONCE);
  expect(useHost.getState()).toMatchObject({ deleted: true, qr: null });
});

it('shows an event ended from the organizer’s other phone as over at once', async () => {
  const event = await hostScreenOf({ starts_at: new Date(Date.now() - HOUR).toISOString(), ends_at: new Date(Date.now() + 3 * HOUR).toISOString() });
  expect((await client(server.url).post(`/api/events/${event.id}/end/`, { token: me.token })).status).toBe(200);
  await vi.waitFor(() => expect(useHost.getState().event).toMatchObject({ status: 'after' }), AT_ONCE);
  expect(useHost.getState().deleted).toBe(false);
});

it('says an event ended where no news of it came is over at its next code, instead of showing a code', async () => {
  const event = await hostScreenOf({ starts_at: new Date(Date.now() - HOUR).toISOString(), ends_at: new Date(Date.now() + 3 * HOUR).toISOString() });
  // Ended while nothing could reach this screen (written as it was, nothing said over the socket).
  await setEventTimes(server, event.id, { startsAt: new Date(Date.now() - HOUR), endsAt: new Date(Date.now() - 1000) });
  expect(useHost.getState().event).toMatchObject({ status: 'open' });
  // Shown again: the screen asks for a fresh code, which the server no longer hands out.
  comeBack();
  await vi.waitFor(() => expect(useHost.getState()).toMatchObject({ qr: null, event: { id: event.id, status: 'after' } }), AT_ONCE);
});

it('reads the event and its count again when told to catch up (Redis back): what was missed meanwhile shows', async () => {
  const event = await hostScreenOf({ starts_at: new Date(Date.now() - HOUR).toISOString(), ends_at: new Date(Date.now() + 3 * HOUR).toISOString() });
  // A guest came in and the event was ended from another screen while no news could reach this one
  // (an outage of Redis between the instances): written as they were, nothing said over the socket.
  const guest = await makeUser(server);
  await server.app.db.execute(sql`insert into attendances (event_id, user_id) values (${event.id}, ${guest.id})`);
  await setEventTimes(server, event.id, { startsAt: new Date(Date.now() - HOUR), endsAt: new Date(Date.now() - 1000) });
  expect(useHost.getState()).toMatchObject({ count: 0, event: { status: 'open' } });
  // Redis is back: every socket is told to catch up.
  server.app.io.emit('sync');
  await vi.waitFor(() => expect(useHost.getState()).toMatchObject({ count: 1, event: { id: event.id, status: 'after' } }), AT_ONCE);
});

it('shows the live count as it is at once when the laptop wakes, its socket dropped while it slept', async () => {
  // The screen's wake check, every 5 s, on a fake clock; the rest (the socket, the server) on the real one.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const event = await hostScreenOf({ starts_at: new Date(Date.now() - HOUR).toISOString(), ends_at: new Date(Date.now() + 3 * HOUR).toISOString() });
  // The lid closed: the server, its pings unanswered, dropped the screen's socket, which does not know
  // it yet (it still counts itself connected). A guest comes in meanwhile, the count passing it by.
  server.app.io.in(rooms.user(me.id)).socketsLeave([rooms.event(event.id), rooms.eventHost(event.id)]);
  await checkIn(server, await makeUser(server), event.code);
  // Woken an hour on: the wake check's next turn sees the clock far ahead of its last one.
  const woke = Date.now() + HOUR;
  const clock = vi.spyOn(Date, 'now').mockReturnValue(woke);
  vi.advanceTimersByTime(5000);
  clock.mockRestore();
  await vi.waitFor(() => expect(useHost.getState().count).toBe(1), AT_ONCE);
});

it('keeps the counts of My events live while it is open, as people come in', async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  fetchFrom(server);
  await signInTab(server, me);
  await connectTab(me.token);
  const event = await makeEvent(server, me, { name: 'Romería' });
  renderAt('/app/events/', createElement(Events));
  const line = () => screen.getByText('Romería').closest('.my-event')!.querySelector('.muted')!.textContent;
  await vi.waitFor(() => expect(line()).toMatch(/0\schecked\sin/), { timeout: 5000 });
  await checkIn(server, await makeUser(server), event.code);
  await vi.waitFor(() => expect(line()).toMatch(/1\schecked\sin/), AT_ONCE);
});
