/**
 * Events, live: event rooms and the coalesced `event:count` / `deck:refresh`, on one instance and
 * on two instances joined by Redis, with real Socket.IO clients.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_CODE_ALPHABET, EVENT_WATCHES_PER_SOCKET } from '../../shared/constants';
import { rowsOf } from '../../server/db/client';
import { leaveEvent } from '../../server/features/events/service';
import { type EventCountPayload, rooms } from '../../shared/events';
import { checkIn, makeEvent, setEventTimes } from '../helpers/events';
import { makeCompletedUser, makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { backends, serverPerSuite, startTwoInstances, type TestServer, type TwoInstances } from '../helpers/server';
import { freePort } from '../helpers/ports';
import { hasPostgres, hasRedis, hasRedisServerBinary, ownRedis, REDIS_URL } from '../helpers/services';
import { type ClientSocket, connect, record, socketsClosedAfterEach, waitFor, waitUntil } from '../helpers/socket';

/** Every `event:count` and `deck:refresh` a socket receives, with when it arrived. */
function timeline(socket: ClientSocket) {
  const counts: Array<{ at: number; payload: EventCountPayload }> = [];
  const refreshes: number[] = [];
  const windows: number[] = [];
  socket.on('event:count', (payload) => counts.push({ at: performance.now(), payload }));
  socket.on('deck:refresh', ({ within_ms }) => {
    refreshes.push(performance.now());
    windows.push(within_ms);
  });
  return { counts, refreshes, windows };
}

const HOUR = 3_600_000;

/**
 * The coalescing windows of this file's servers: the product's 1 s and 5 s (the defaults) shortened in
 * the same proportion, so that the tests that wait a window out, or a trailing send, wait less.
 */
const COUNT_INTERVAL_MS = 500;
const REFRESH_INTERVAL_MS = 2500;
const intervals = { eventCountIntervalMs: COUNT_INTERVAL_MS, deckRefreshIntervalMs: REFRESH_INTERVAL_MS };

const gaps = (times: number[]) => times.slice(1).map((time, i) => time - times[i]!);

/**
 * A socket told at most once per `interval`: over `elapsed` ms it can have received at most
 * elapsed / interval + 1 messages, and two of them never arrive much closer than the interval (the
 * slack is for delivery jitter on a busy machine, far below what an uncoalesced burst would show).
 */
function expectCoalesced(times: number[], interval: number, elapsed: number) {
  expect(times.length).toBeGreaterThan(0);
  expect(times.length).toBeLessThanOrEqual(Math.floor(elapsed / interval) + 1);
  for (const gap of gaps(times)) expect(gap).toBeGreaterThan(interval * 0.5);
}

describe.each(backends)('event rooms on one instance (%s)', (backend) => {
  const sockets = socketsClosedAfterEach();
  const connectAs = (user: TestUser) => sockets.connect(server.url, user.token);

  const server = serverPerSuite({ backend, config: intervals });

  it('lets the organizer, and only the organizer, watch the live count', async () => {
    const organizer = await makeUser(server);
    const stranger = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const host = await connectAs(organizer);
    expect(await host.emitWithAck('event:watch', { event_id: event.id })).toEqual({ ok: true, count: 0 });
    const prying = await connectAs(stranger);
    expect(await prying.emitWithAck('event:watch', { event_id: event.id })).toEqual({ ok: false, error: { code: 'not_found', message: 'Not found.' } });
    const bad = await prying.emitWithAck('event:watch', { event_id: 'x' as unknown as number });
    expect(bad.ok).toBe(false);

    const counted = waitFor(host, 'event:count', (p) => p.event_id === event.id);
    const strangerEvents = record(prying);
    const guest = await makeUser(server);
    await checkIn(server, guest, event.code);
    expect(await counted).toEqual({ event_id: event.id, count: 1 });
    expect(strangerEvents).toEqual([]);
  });

  it('puts an attendee\'s sockets in the room on check-in and on connect, and takes them out on leaving', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const host = await connectAs(organizer);
    await host.emitWithAck('event:watch', { event_id: event.id });
    const [ana, ben, cal] = [await makeUser(server), await makeUser(server), await makeUser(server)];

    // Connected before the check-in: joined by it.
    const anaSocket = await connectAs(ana);
    const anaHears = waitFor(anaSocket, 'event:count', (p) => p.count === 1);
    const anaRefresh = waitFor(anaSocket, 'deck:refresh');
    await checkIn(server, ana, event.code);
    await anaHears;
    expect(await anaRefresh).toEqual({ event_id: event.id, within_ms: REFRESH_INTERVAL_MS });

    // Checked in before connecting: joined on connect.
    await checkIn(server, ben, event.code);
    const benSocket = await connectAs(ben);
    const benEvents = record(benSocket);
    // The server joins the room just after the handshake: a count it sends later reaches the socket.
    const benHears = waitFor(benSocket, 'event:count', (p) => p.count === 3, 8000);
    await waitUntilInRoom(server, event.id, 3);
    await checkIn(server, cal, event.code);
    await benHears;

    // Ana leaves: her socket is out at once; the host (and Ben) hear the new count, Ana does not.
    const anaAfter = record(anaSocket);
    const hostHears = waitFor(host, 'event:count', (p) => p.count === 2, 8000);
    expect((await client(server.url).post('/api/events/leave/', { token: ana.token })).status).toBe(204);
    await hostHears;
    await waitUntil(() => benEvents.some((e) => e.event === 'event:count' && (e.payload as EventCountPayload).count === 2), 8000, 'Ben to hear the count of 2');
    expect(anaAfter.filter((e) => e.event === 'event:count')).toEqual([]);
  });

  it('keeps a connecting socket out of the room of an event its user left while the socket read where they are', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const ana = await makeUser(server);
    await checkIn(server, ana, event.code);
    await connectAs(ana);
    await waitUntilInRoom(server, event.id, 1);
    const socket = [...server.app.io.of('/').sockets.values()].find((s) => s.data.user.id === ana.id)!;
    const room = rooms.event(event.id);

    // As a socket that has just connected: it reads Ana's event, and her leave commits and lands while
    // it does (the answer may have been read before the leave committed, and still name the event).
    socket.leave(room);
    const reading = server.app.eventLive.socketConnected(socket);
    expect(await leaveEvent(server.app.db, ana.id)).toBe(event.id);
    server.app.eventLive.left(ana.id, event.id);
    (await reading)();
    expect(socket.rooms.has(room)).toBe(false);

    // A move of hers that comes with no read on its way is followed as before: she is back in.
    await checkIn(server, ana, event.code);
    expect(socket.rooms.has(room)).toBe(true);
  });

  it('puts a phone where its user is when a leave from their other tab, committed after their check-in, is applied before it', async () => {
    const organizer = await makeUser(server);
    const [first, second] = [await makeEvent(server, organizer), await makeEvent(server, organizer)];
    const ana = await makeUser(server);
    await checkIn(server, ana, first.code);
    const phone = await connectAs(ana);
    await waitUntilInRoom(server, first.id, 1);
    const socket = [...server.app.io.of('/').sockets.values()].find((s) => s.data.user.id === ana.id)!;
    const isIn = (eventId: number) => socket.rooms.has(rooms.event(eventId));

    // One tab checks her in to the second event; its move is held between its commit and its turn on
    // the sockets, as two answers from the database read in the other order would hold it.
    const live = server.app.eventLive;
    const checkedIn = live.checkedIn;
    let heldMove = () => {};
    live.checkedIn = (...move) => {
      heldMove = () => void checkedIn(...move);
      return Promise.resolve();
    };
    try {
      await checkIn(server, ana, second.code);
    } finally {
      live.checkedIn = checkedIn;
    }
    // Her other tab leaves, committed after the check-in; its move goes first, the check-in's after it.
    const leftSync = waitFor(phone, 'sync');
    expect((await client(server.url).post('/api/events/leave/', { token: ana.token })).status).toBe(204);
    await leftSync;
    const readAgain = waitFor(phone, 'sync');
    heldMove();

    // She is at no event: her phone is in neither room, and hears nothing of the second event; told
    // to read again where she is, it no longer shows the second event its check-in answered.
    await waitUntil(() => !isIn(first.id) && !isIn(second.id), 5000, 'her phone to be out of both rooms');
    await readAgain;
    const heard = record(phone);
    const host = await connectAs(organizer);
    await host.emitWithAck('event:watch', { event_id: second.id });
    const counted = waitFor(host, 'event:count', (p) => p.event_id === second.id && p.count === 1, 8000);
    await checkIn(server, await makeUser(server), second.code);
    await counted;
    expect(heard.filter((e) => e.event === 'event:count')).toEqual([]);
  });

  it('tells the room to refresh its decks when someone leaves, by the leave or a check-in elsewhere, naming no one', async () => {
    const organizer = await makeUser(server);
    const elsewhere = await makeEvent(server, organizer);
    const ways: Record<string, (user: TestUser) => Promise<unknown>> = {
      'the leave': async (user) => expect((await client(server.url).post('/api/events/leave/', { token: user.token })).status).toBe(204),
      'a check-in elsewhere': (user) => checkIn(server, user, elsewhere.code),
    };
    for (const [way, leave] of Object.entries(ways)) {
      // An event for each way, so that no refresh sent before is a window to wait out.
      const event = await makeEvent(server, organizer);
      const [ana, ben] = [await makeCompletedUser(server), await makeCompletedUser(server)];
      for (const user of [ana, ben]) await checkIn(server, user, event.code);
      // Ben's phone connects after the arrivals, whose pushes found nobody in the room to tell.
      const benSocket = await connectAs(ben);
      await waitUntilInRoom(server, event.id, 1);
      expect(await deckIds(server, ben), way).toContain(ana.id);
      const heard = record(benSocket);
      // Within one window, as an arrival reaches the decks.
      const refreshed = waitFor(benSocket, 'deck:refresh', () => true, REFRESH_INTERVAL_MS + 3000);

      await leave(ana);
      expect(await refreshed, way).toEqual({ event_id: event.id, within_ms: REFRESH_INTERVAL_MS });
      expect(await deckIds(server, ben), way).not.toContain(ana.id);
      await waitUntil(() => heard.some((e) => e.event === 'event:count'), 5000, `Ben to hear the count after ${way}`);
      // All the room hears of it is the count and that its deck changed: nothing names who went.
      expect([...heard].sort((a, b) => a.event.localeCompare(b.event)), way).toEqual([
        { event: 'deck:refresh', payload: { event_id: event.id, within_ms: REFRESH_INTERVAL_MS } },
        { event: 'event:count', payload: { event_id: event.id, count: 1 } },
      ]);
    }
  });

  it('tells every phone of an attendee of a check-in made on one of them by the event’s count, and of a leave by sync', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const ana = await makeUser(server);
    const phones = [await connectAs(ana), await connectAs(ana)];
    const heard = phones.map(record);
    const counted = phones.map((phone) => waitFor(phone, 'event:count', (p) => p.event_id === event.id));
    await checkIn(server, ana, event.code);
    await Promise.all(counted);
    // No catch-up for a check-in: at the doors, every phone would fetch its deck twice.
    expect(heard.map((events) => events.filter((e) => e.event === 'sync'))).toEqual([[], []]);
    const left = phones.map((phone) => waitFor(phone, 'sync'));
    expect((await client(server.url).post('/api/events/leave/', { token: ana.token })).status).toBe(204);
    await Promise.all(left);
  });

  it('tells the attendees and the host screens of an event deleted before it started that it is, and the attendees to read again', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    // Check-in opens an hour before the start: Ana is in, half an hour early; the organizer watches.
    await setEventTimes(server, event.id, { startsAt: new Date(Date.now() + HOUR / 2), endsAt: new Date(Date.now() + 3 * HOUR) });
    const ana = await makeUser(server);
    await checkIn(server, ana, event.code);
    const [anaSocket, host] = [await connectAs(ana), await connectAs(organizer)];
    await host.emitWithAck('event:watch', { event_id: event.id });
    await waitUntilInRoom(server, event.id, 2);
    const toldAna = waitFor(anaSocket, 'sync');
    const toldHost = waitFor(host, 'event:deleted');
    const anaEvents = record(anaSocket);
    const hostEvents = record(host);

    expect((await client(server.url).delete(`/api/events/${event.id}/`, { token: organizer.token })).status).toBe(204);
    await Promise.all([toldAna, toldHost]);
    // Told why first: her phone says the event is off before it reads again where she is.
    expect(anaEvents.filter((e) => e.event === 'event:deleted' || e.event === 'sync')).toEqual([
      { event: 'event:deleted', payload: { event_id: event.id } },
      { event: 'sync', payload: undefined },
    ]);
    expect((await client(server.url).get('/api/events/current/', { token: ana.token })).body).toMatchObject({ event: null });
    // The room is empty, and the organizer's host screen (not at the event) is told the event is gone,
    // at once rather than at its next code, and that it was their doing, but not to read again:
    // nothing else of it changed.
    expect(await server.app.io.in(`event:${event.id}`).fetchSockets()).toEqual([]);
    expect(hostEvents.filter((e) => e.event === 'sync' || e.event === 'event:deleted')).toEqual([
      { event: 'event:deleted', payload: { event_id: event.id, by_you: true } },
    ]);
  });

  it('tells the organizer checked in to their own event, deleted from their other phone, that it was their doing', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    await setEventTimes(server, event.id, { startsAt: new Date(Date.now() + HOUR / 2), endsAt: new Date(Date.now() + 3 * HOUR) });
    const ana = await makeUser(server);
    await checkIn(server, ana, event.code);
    await checkIn(server, organizer, event.code);
    const [anaSocket, phone] = [await connectAs(ana), await connectAs(organizer)];
    await waitUntilInRoom(server, event.id, 2);
    const toldAna = waitFor(anaSocket, 'sync');
    const toldPhone = waitFor(phone, 'sync');
    const anaEvents = record(anaSocket);
    const phoneEvents = record(phone);

    expect((await client(server.url).delete(`/api/events/${event.id}/`, { token: organizer.token })).status).toBe(204);
    await Promise.all([toldAna, toldPhone]);
    // Their phone at it reads again as Ana's does, but is not told as she is that "the organizer" canceled it.
    expect(phoneEvents.filter((e) => e.event === 'event:deleted' || e.event === 'sync')).toEqual([
      { event: 'event:deleted', payload: { event_id: event.id, by_you: true } },
      { event: 'sync', payload: undefined },
    ]);
    expect(anaEvents.filter((e) => e.event === 'event:deleted')).toEqual([{ event: 'event:deleted', payload: { event_id: event.id } }]);
  });

  it('tells the room of the event as it is now when the organizer changes or ends it, and no one else', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const [ana, outsider] = [await makeUser(server), await makeUser(server)];
    await checkIn(server, ana, event.code);
    const [anaSocket, host, elsewhere] = [await connectAs(ana), await connectAs(organizer), await connectAs(outsider)];
    await host.emitWithAck('event:watch', { event_id: event.id });
    await waitUntilInRoom(server, event.id, 2);
    const outsiderHeard = record(elsewhere);

    const renamed = [anaSocket, host].map((socket) => waitFor(socket, 'event:changed'));
    const later = new Date(Date.parse(event.ends_at) + HOUR).toISOString();
    const patched = await client(server.url).patch(`/api/events/${event.id}/`, { token: organizer.token, json: { name: 'Late party', ends_at: later } });
    expect(patched.status).toBe(200);
    const { is_organizer: _, ...publicView } = patched.body;
    // The organizer's host screen hears that it was their doing; Ana, only what it is now.
    expect(await Promise.all(renamed)).toEqual([{ event: publicView }, { event: publicView, by_you: true }]);
    expect(publicView).toMatchObject({ name: 'Late party', ends_at: later, status: 'open', attendee_count: 1 });

    const ended = Promise.all([waitFor(anaSocket, 'event:changed'), waitFor(host, 'event:changed')]);
    expect((await client(server.url).post(`/api/events/${event.id}/end/`, { token: organizer.token })).status).toBe(200);
    const [toAna, toHost] = await ended;
    expect(toAna.event).toMatchObject({ id: event.id, name: 'Late party', status: 'after' });
    expect(toHost).toEqual({ event: toAna.event, by_you: true });
    // A refused change tells nobody anything: Ana's next news is her own leave's `sync`.
    const heardByAna = record(anaSocket);
    expect((await client(server.url).patch(`/api/events/${event.id}/`, { token: organizer.token, json: { name: 'x' } })).status).toBe(409);
    const left = waitFor(anaSocket, 'sync');
    expect((await client(server.url).post('/api/events/leave/', { token: ana.token })).status).toBe(204);
    await left;
    expect(heardByAna.map((e) => e.event)).not.toContain('event:changed');
    expect(outsiderHeard.filter((e) => e.event === 'event:changed')).toEqual([]);
  });

  it('counts a banned attendee out of the event at once', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const host = await connectAs(organizer);
    await host.emitWithAck('event:watch', { event_id: event.id });
    // The troll's profile is complete: a report reaches only whom the reporter may see.
    const [troll, guest] = [await makeCompletedUser(server), await makeUser(server)];
    const bothIn = waitFor(host, 'event:count', (p) => p.count === 2, 8000);
    await checkIn(server, troll, event.code);
    await checkIn(server, guest, event.code);
    await bothIn;
    const oneLeft = waitFor(host, 'event:count', (p) => p.count === 1, 8000);
    await banThroughModeration(server, await makeModerator(server), troll);
    expect(await oneLeft).toEqual({ event_id: event.id, count: 1 });
  });

  it('keeps the organizer\'s host screen in the room when the organizer leaves the event as an attendee', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const host = await connectAs(organizer);
    await host.emitWithAck('event:watch', { event_id: event.id });
    // Each wait is set before the change it waits for: a count can come before the request's answer.
    const arrived = waitFor(host, 'event:count', (p) => p.count === 1, 8000);
    await checkIn(server, organizer, event.code);
    await arrived;
    const gone = waitFor(host, 'event:count', (p) => p.count === 0, 8000);
    expect((await client(server.url).post('/api/events/leave/', { token: organizer.token })).status).toBe(204);
    await gone;
    const guest = await makeUser(server);
    const guestArrived = waitFor(host, 'event:count', (p) => p.count === 1, 8000);
    await checkIn(server, guest, event.code);
    expect(await guestArrived).toEqual({ event_id: event.id, count: 1 });
  });

  it('takes a closed host screen out of the room, event by event, but not a checked-in organizer\'s', async () => {
    const organizer = await makeUser(server);
    const [event, other] = [await makeEvent(server, organizer), await makeEvent(server, organizer)];
    const host = await connectAs(organizer);
    // The sockets in an event's room on this instance, by id.
    const inRoom = (eventId: number) => [...(server.app.io.of('/').adapter.rooms.get(rooms.event(eventId)) ?? [])];

    expect(await host.emitWithAck('event:watch', { event_id: event.id })).toEqual({ ok: true, count: 0 });
    expect(inRoom(event.id)).toEqual([host.id]);
    expect(await host.emitWithAck('event:unwatch', { event_id: event.id })).toEqual({ ok: true });
    expect(inRoom(event.id)).toEqual([]);
    // Not watching it (again, or never): nothing to undo.
    expect(await host.emitWithAck('event:unwatch', { event_id: event.id })).toEqual({ ok: true });
    expect((await host.emitWithAck('event:unwatch', { event_id: 'x' as unknown as number })).ok).toBe(false);
    // Closed from the screen, the next check-in's count goes to nobody there.
    const heard = record(host);
    await checkIn(server, await makeUser(server), event.code);
    const watcher = await connectAs(organizer);
    const counted = waitFor(watcher, 'event:count', (p) => p.count === 2, 8000);
    await watcher.emitWithAck('event:watch', { event_id: event.id });
    await checkIn(server, await makeUser(server), event.code);
    await counted;
    expect(heard.filter((e) => e.event === 'event:count')).toEqual([]);
    expect(await watcher.emitWithAck('event:unwatch', { event_id: event.id })).toEqual({ ok: true });

    // Another event watched beside it (the organizer's list of events): each is left as it is unwatched.
    await host.emitWithAck('event:watch', { event_id: event.id });
    await host.emitWithAck('event:watch', { event_id: other.id });
    expect([inRoom(event.id), inRoom(other.id)]).toEqual([[host.id], [host.id]]);
    await host.emitWithAck('event:unwatch', { event_id: event.id });
    expect([inRoom(event.id), inRoom(other.id)]).toEqual([[], [host.id]]);
    await host.emitWithAck('event:unwatch', { event_id: other.id });

    // Closed as it opened, the watch still reading its event as the unwatch comes: out all the same.
    const both = [host.emitWithAck('event:watch', { event_id: event.id }), host.emitWithAck('event:unwatch', { event_id: event.id })];
    expect(await Promise.all(both)).toEqual([{ ok: true, count: 2 }, { ok: true }]);
    expect(inRoom(event.id)).toEqual([]);

    // The organizer checked in there: the socket stays in the room as their other phones do, and a leave
    // takes it out.
    await checkIn(server, organizer, event.code);
    await host.emitWithAck('event:watch', { event_id: event.id });
    await host.emitWithAck('event:unwatch', { event_id: event.id });
    expect(inRoom(event.id).sort()).toEqual([host.id, watcher.id].sort());
    expect((await client(server.url).post('/api/events/leave/', { token: organizer.token })).status).toBe(204);
    expect(inRoom(event.id)).toEqual([]);
  });

  it('tells one socket the counts of each of the events it watches, and stops watching the one watched longest past the limit', async () => {
    const organizer = await makeUser(server);
    const [event, other] = [await makeEvent(server, organizer), await makeEvent(server, organizer)];
    const host = await connectAs(organizer);
    // The organizer's list of events, open: both going on, both watched.
    expect(await host.emitWithAck('event:watch', { event_id: event.id })).toEqual({ ok: true, count: 0 });
    expect(await host.emitWithAck('event:watch', { event_id: other.id })).toEqual({ ok: true, count: 0 });
    const counted = [waitFor(host, 'event:count', (p) => p.event_id === event.id), waitFor(host, 'event:count', (p) => p.event_id === other.id)];
    await checkIn(server, await makeUser(server), event.code);
    await checkIn(server, await makeUser(server), other.code);
    expect(await Promise.all(counted)).toEqual([
      { event_id: event.id, count: 1 },
      { event_id: other.id, count: 1 },
    ]);

    // More of the organizer's events than a socket may watch (past the limit of events created a day):
    // the first watched goes, the others stay.
    const more = rowsOf<{ id: number }>(
      await server.app.db.execute(sql`
        insert into events (code, name, starts_at, ends_at, join_mode, organizer_id, qr_secret)
        select (select string_agg(substr(${EVENT_CODE_ALPHABET}, 1 + floor(random() * 31)::int, 1), '') from generate_series(1, 6) where g > 0),
          'More', now() - interval '1 hour', now() + interval '3 hours', 'code', ${organizer.id}, 'secret'
        from generate_series(1, ${EVENT_WATCHES_PER_SOCKET - 1}) g
        returning id`),
    ).map((row) => row.id);
    for (const id of more) expect((await host.emitWithAck('event:watch', { event_id: id })).ok).toBe(true);
    const hosted = () => [event.id, other.id, ...more].filter((id) => server.app.io.of('/').adapter.rooms.get(rooms.eventHost(id))?.has(host.id!));
    expect(hosted()).toEqual([other.id, ...more]);
  });

  it('coalesces a burst of check-ins and leaves: at most one count and one refresh per window, the last count exact', { timeout: 60_000 }, async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const host = await connectAs(organizer);
    await host.emitWithAck('event:watch', { event_id: event.id });
    const first = await makeUser(server);
    await checkIn(server, first, event.code);
    const watcher = await connectAs(first);
    await waitUntilInRoom(server, event.id, 2);
    const hostSeen = timeline(host);
    const attendeeSeen = timeline(watcher);

    const crowd: TestUser[] = [];
    for (let i = 0; i < 24; i++) crowd.push(await makeUser(server));
    const leave = (user: TestUser) => client(server.url).post('/api/events/leave/', { token: user.token });
    const started = performance.now();
    // In waves: the burst lasts a few seconds, long enough for several windows. From the second wave
    // on, one of the wave before leaves as the others arrive: a departure asks for a refresh too.
    for (let wave = 0; wave < 4; wave++) {
      const leaving = wave > 0 ? [leave(crowd[(wave - 1) * 6]!)] : [];
      await Promise.all([...crowd.slice(wave * 6, wave * 6 + 6).map((user) => checkIn(server, user, event.code)), ...leaving]);
    }
    await Promise.all([
      waitFor(host, 'event:count', (p) => p.count === 22, 8000).catch(() => undefined),
      waitFor(watcher, 'deck:refresh', () => true, REFRESH_INTERVAL_MS + 3000).catch(() => undefined),
    ]);
    // Whatever was still due has come by now (a trailing refresh at most one window after the last one).
    await waitForQuiet(attendeeSeen, REFRESH_INTERVAL_MS + 1000);
    const elapsed = performance.now() - started;

    for (const seen of [hostSeen, attendeeSeen]) {
      expect(seen.counts.at(-1)?.payload).toEqual({ event_id: event.id, count: 22 });
      expectCoalesced(seen.counts.map((c) => c.at), COUNT_INTERVAL_MS, elapsed);
    }
    expectCoalesced(attendeeSeen.refreshes, REFRESH_INTERVAL_MS, elapsed);
    // A small room: the phones spread their fetches over the plain window.
    expect(new Set(attendeeSeen.windows)).toEqual(new Set([REFRESH_INTERVAL_MS]));
    // 24 arrivals and 3 departures, a handful of messages.
    expect(attendeeSeen.counts.length).toBeLessThan(24);
  });
});

describe('a big event\'s deck refreshes', () => {
  const sockets = socketsClosedAfterEach();
  // Two fetches a second is this instance's budget, so that a few phones make a big event.
  const fetchesPerSecond = 2;
  const server = serverPerSuite({ config: { ...intervals, deckRefreshFetchesPerSecond: fetchesPerSecond } });

  it('come less often than a small event\'s, with a window that holds the fetches they set off to the budget', { timeout: 60_000 }, async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const phones = 8;
    const users: TestUser[] = [];
    for (let i = 0; i < phones; i++) {
      users.push(await makeUser(server));
      await checkIn(server, users.at(-1)!, event.code);
    }
    // All in before any phone connects: their arrivals told nobody, so no refresh has opened a window yet
    // and the next arrival's is the first. A check-in's leading refresh is a 0 ms timer set before its
    // answer; this one, set after the last answer, runs after it.
    await nextTimerTurn();
    const attendees: ClientSocket[] = [];
    for (const user of users) attendees.push(await sockets.connect(server.url, user.token));
    await waitUntilInRoom(server, event.id, phones);
    const seen = timeline(attendees[0]!);

    // Two arrivals a moment apart: the first is told at once, the second one window later.
    const [first, second] = [await makeUser(server), await makeUser(server)];
    const started = performance.now();
    await checkIn(server, first, event.code);
    // At once: its 0 ms timer, set before the check-in's answer, has run by the next timer turn, so the
    // refresh comes before the answer to a round trip on the phone's socket begun then (one socket's
    // packets keep their order). Told a window later, it would come after.
    await nextTimerTurn();
    await attendees[0]!.emitWithAck('presence:list', {});
    expect(seen.refreshes).toHaveLength(1);
    await checkIn(server, second, event.code);
    await waitUntil(() => seen.refreshes.length === 2, 20_000, 'the second refresh');

    // 8 phones at 2 fetches a second: a 4 s window, where a small event's is 2.5 s.
    const windowMs = (phones * 1000) / fetchesPerSecond;
    expect(seen.windows).toEqual([windowMs, windowMs]);
    // The window opened when the first was sent, after `started`: a slower machine only widens this (the
    // slack is for Node's timers, which count from the loop's time, read before the check-in's handler ran).
    expect(seen.refreshes[1]! - started).toBeGreaterThan(windowMs * 0.9);
  });
});

/** Past the timers due now: a 0 ms timer set after another runs after it (in-process servers share the loop). */
function nextTimerTurn() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Until the event's room holds this many sockets on this instance (the join after a handshake is async). */
async function waitUntilInRoom(server: TestServer, eventId: number, sockets: number) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = await server.app.io.in(`event:${eventId}`).fetchSockets();
    if (found.length >= sockets) return;
    if (Date.now() > deadline) throw new Error(`the room of event ${eventId} never held ${sockets} sockets`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The user's phone connects to `server` while `move` (a check-in or a leave of theirs on another
 * instance) is made: its handshake is held once it has read where they are, until `server` has applied
 * the move, so that the move comes before the socket is connected. With what the phone heard from the start.
 */
async function connectedDuringMove(
  server: TestServer,
  user: TestUser,
  move: () => Promise<unknown>,
): Promise<{ phone: ClientSocket; heard: ReturnType<typeof record> }> {
  const live = server.app.eventLive;
  const { socketConnected, movedElsewhere } = live;
  let applied = () => {};
  const appliedHere = new Promise<void>((resolve) => (applied = resolve));
  live.movedElsewhere = (moved) => {
    const done = movedElsewhere(moved);
    if (moved.userId === user.id) applied();
    return done;
  };
  let reached = () => {};
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  live.socketConnected = async (socket) => {
    const follow = await socketConnected(socket);
    reached();
    await released;
    return follow;
  };
  try {
    let heard: ReturnType<typeof record> = [];
    const connecting = connect(server.url, user.token, { listen: (socket) => (heard = record(socket)) });
    await atHold;
    await move();
    await appliedHere;
    release();
    return { phone: await connecting, heard };
  } finally {
    live.socketConnected = socketConnected;
    live.movedElsewhere = movedElsewhere;
  }
}

/** The ids in the user's deck, as their phone fetches it (the first page, enough for a test's event). */
/** The organizer renames the event through `at`: `phone` hears it, within `timeoutMs`. */
async function hearsRename(phone: ClientSocket, at: TestServer, organizer: TestUser, eventId: number, timeoutMs?: number) {
  const renamed = waitFor(phone, 'event:changed', (p) => p.event.id === eventId, timeoutMs);
  expect((await client(at.url).patch(`/api/events/${eventId}/`, { token: organizer.token, json: { name: 'Late party' } })).status).toBe(200);
  expect((await renamed).event.name).toBe('Late party');
}

async function deckIds(server: TestServer, user: TestUser) {
  const page = await client(server.url).get('/api/users/matching-profiles/?limit=100', { token: user.token });
  expect(page.status).toBe(200);
  return page.body.results.map((card: { id: number }) => card.id) as number[];
}

/** Until `ms` have passed with nothing new on this timeline. */
async function waitForQuiet(seen: ReturnType<typeof timeline>, ms: number) {
  for (;;) {
    const total = seen.counts.length + seen.refreshes.length;
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (seen.counts.length + seen.refreshes.length === total) return;
  }
}

const clusterReady = (await hasPostgres()) && (await hasRedis());

describe.skipIf(!clusterReady)('event rooms across two instances over Redis', () => {
  let cluster: TwoInstances;
  const sockets = socketsClosedAfterEach();
  const connectTo = (server: TestServer, user: TestUser) => sockets.connect(server.url, user.token);
  beforeAll(async () => {
    cluster = await startTwoInstances({ redisUrl: REDIS_URL, config: intervals });
  });
  afterAll(() => cluster.close());

  it('joins a socket on the other instance at check-in, and leaving takes it out there too', async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    const host = await connectTo(one, organizer);
    await host.emitWithAck('event:watch', { event_id: event.id });
    const ana = await makeUser(one);
    const anaOnTwo = await connectTo(two, ana);
    const anaHears = waitFor(anaOnTwo, 'event:count', (p) => p.count === 1, 8000);
    const anaRefresh = waitFor(anaOnTwo, 'deck:refresh', () => true, 8000);
    // The check-in lands on instance one; Ana's socket is on two.
    await checkIn(one, ana, event.code);
    await anaHears;
    await anaRefresh;

    const anaAfter = record(anaOnTwo);
    // Each count listened for before its move: a second after the last one, it is sent at once, and
    // may come ahead of the move's answer.
    const emptied = waitFor(host, 'event:count', (p) => p.count === 0, 8000);
    await client(one.url).post('/api/events/leave/', { token: ana.token });
    await emptied;
    const ben = await makeUser(two);
    const benCounted = waitFor(host, 'event:count', (p) => p.count === 1, 8000);
    await checkIn(two, ben, event.code);
    await benCounted;
    // Her socket, out of the room, hears none of what the room is told of her leave or of Ben's arrival.
    expect(anaAfter.filter((e) => e.event === 'event:count' || e.event === 'deck:refresh')).toEqual([]);
  });

  it('puts a phone where its user is when their moves reach its instance out of order', async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const [first, second] = [await makeEvent(one, organizer), await makeEvent(one, organizer)];
    const ana = await makeUser(one);
    const anaOnTwo = await connectTo(two, ana);
    const socket = [...two.app.io.of('/').sockets.values()].find((s) => s.data.user.id === ana.id)!;
    const isIn = (eventId: number) => socket.rooms.has(rooms.event(eventId));

    // She checks in to the first event on instance one, then to the second on instance two; the first
    // check-in's move reaches instance two only now, after the second's (a race between instances):
    // her phone there is still at the second event, not moved back to the first.
    await checkIn(one, ana, first.code);
    await waitUntil(() => isIn(first.id), 5000, 'her phone to join the first event');
    await checkIn(two, ana, second.code);
    expect(isIn(second.id) && !isIn(first.id)).toBe(true);
    two.app.eventLive.movedElsewhere({ userId: ana.id, from: null, to: first.id });
    await waitUntil(() => isIn(second.id) && !isIn(first.id), 5000, 'her phone to be at the second event only');

    // Likewise a leave overtaken by her check-in: her phone stays in the room of the event she is at,
    // and hears what its organizer says of it.
    two.app.eventLive.movedElsewhere({ userId: ana.id, from: second.id, to: null });
    await waitUntil(() => isIn(second.id), 5000, 'her phone to be back at the second event');
    await hearsRename(anaOnTwo, one, organizer, second.id, 8000);
  });

  it('follows a check-in made on the other instance while her phone is still connecting, and tells the phone to read again', async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    const ana = await makeUser(one);
    const { phone, heard } = await connectedDuringMove(two, ana, () => checkIn(one, ana, event.code));
    sockets.keep(phone);
    const socket = [...two.app.io.of('/').sockets.values()].find((s) => s.data.user.id === ana.id)!;

    // Told to read again once it is in the room: the organizer's change from then on reaches it.
    await waitUntil(() => heard.some((e) => e.event === 'sync'), 5000, 'her phone to be told to read again');
    expect(socket.rooms.has(rooms.event(event.id))).toBe(true);
    await hearsRename(phone, one, organizer, event.id, 8000);

    // Likewise a leave: her tablet, connecting as she leaves, had read that she was there; it ends out of the room.
    const leave = () => client(one.url).post('/api/events/leave/', { token: ana.token });
    const { phone: tablet, heard: tabletHeard } = await connectedDuringMove(two, ana, leave);
    sockets.keep(tablet);
    const tabletSocket = two.app.io.of('/').sockets.get(tablet.id!)!;
    await waitUntil(() => !tabletSocket.rooms.has(rooms.event(event.id)), 5000, 'her tablet to be out of the room');
    await waitUntil(() => tabletHeard.some((e) => e.event === 'sync'), 5000, 'her tablet to be told to read again');
  });

  it('tells the room nothing of an end or a change from the organizer\'s other screen that changes nothing', async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    const ana = await makeUser(one);
    await checkIn(one, ana, event.code);
    const anaOnTwo = await connectTo(two, ana);
    await waitUntilInRoom(two, event.id, 1);
    const heard = record(anaOnTwo);
    const api = (server: TestServer) => client(server.url);

    // The organizer's host screens on both instances: one ends it, and the other (or a retry) again.
    const ended = waitFor(anaOnTwo, 'event:changed', (p) => p.event.status === 'after', 8000);
    expect((await api(one).post(`/api/events/${event.id}/end/`, { token: organizer.token })).status).toBe(200);
    await ended;
    const again = await api(two).post(`/api/events/${event.id}/end/`, { token: organizer.token });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('after');

    // A form saved as it was, on an event still going.
    const other = await makeEvent(one, organizer);
    await checkIn(two, ana, other.code);
    await waitUntil(() => heard.some((e) => e.event === 'event:count' && (e.payload as EventCountPayload).event_id === other.id), 8000, 'her phone in the new room');
    const same = { name: other.name, venue: other.venue, ends_at: other.ends_at, join_mode: other.join_mode };
    expect((await api(two).patch(`/api/events/${other.id}/`, { token: organizer.token, json: same })).status).toBe(200);
    expect((await api(two).patch(`/api/events/${other.id}/`, { token: organizer.token, json: {} })).status).toBe(200);
    // Then a real change, from the same instance: the only news Ana's phone has had since the end.
    const renamed = waitFor(anaOnTwo, 'event:changed', (p) => p.event.name === 'Late party', 8000);
    expect((await api(two).patch(`/api/events/${other.id}/`, { token: organizer.token, json: { name: 'Late party' } })).status).toBe(200);
    await renamed;
    expect(heard.filter((e) => e.event === 'event:changed').map((e) => (e.payload as { event: { name: string; status: string } }).event)).toEqual([
      expect.objectContaining({ id: event.id, status: 'after' }),
      expect.objectContaining({ id: other.id, name: 'Late party' }),
    ]);
  });

  it('holds the rate per socket and the exact final count with check-ins spread over both instances', { timeout: 60_000 }, async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    const attendees = [await makeUser(one), await makeUser(two)];
    await checkIn(one, attendees[0]!, event.code);
    await checkIn(two, attendees[1]!, event.code);
    const sockets = [await connectTo(one, attendees[0]!), await connectTo(two, attendees[1]!), await connectTo(two, attendees[0]!)];
    const host = await connectTo(two, organizer);
    await host.emitWithAck('event:watch', { event_id: event.id });
    // Joined on connect, on both instances.
    await waitUntilInRoom(one, event.id, 4);
    const seen = [...sockets, host].map(timeline);

    const crowd: TestUser[] = [];
    for (let i = 0; i < 20; i++) crowd.push(await makeUser(i % 2 ? one : two));
    const started = performance.now();
    for (let wave = 0; wave < 4; wave++) {
      await Promise.all(crowd.slice(wave * 5, wave * 5 + 5).map((user, i) => checkIn(i % 2 ? one : two, user, event.code)));
    }
    await Promise.all([...sockets, host].map((socket) => waitFor(socket, 'event:count', (p) => p.count === 22, 8000).catch(() => undefined)));
    await waitForQuiet(seen[0]!, REFRESH_INTERVAL_MS + 1000);
    const elapsed = performance.now() - started;
    for (const timelineOf of seen) {
      expect(timelineOf.counts.at(-1)?.payload).toEqual({ event_id: event.id, count: 22 });
      expectCoalesced(timelineOf.counts.map((c) => c.at), COUNT_INTERVAL_MS, elapsed);
    }
    for (const timelineOf of seen.slice(0, 3)) expectCoalesced(timelineOf.refreshes, REFRESH_INTERVAL_MS, elapsed);
  });
});

describe.skipIf(!clusterReady)('a check-in on one instance, for a phone on another that hears Redis late', () => {
  let cluster: TwoInstances;
  const sockets = socketsClosedAfterEach();
  beforeAll(async () => {
    // Instance two hears Redis 150 ms late: a move told to it reaches it well after the check-in that made it committed.
    cluster = await startTwoInstances({ redisUrl: REDIS_URL, slowLinkOfTwo: { replyDelayMs: 150 }, config: intervals });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('is answered once her phone there is in the room, and the organizer\'s change right after reaches it', async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    const ana = await makeUser(one);
    const anaOnTwo = await sockets.connect(two.url, ana.token);
    const socket = [...two.app.io.of('/').sockets.values()].find((s) => s.data.user.id === ana.id)!;
    const counted = waitFor(anaOnTwo, 'event:count', (p) => p.event_id === event.id && p.count === 1);

    await checkIn(one, ana, event.code);
    expect(socket.rooms.has(rooms.event(event.id))).toBe(true);
    await hearsRename(anaOnTwo, one, organizer, event.id);
    await counted;
  });
});

describe.skipIf(!clusterReady)('a phone connecting to an instance whose subscriptions reach Redis late', () => {
  let cluster: TwoInstances;
  const sockets = socketsClosedAfterEach();
  beforeAll(async () => {
    // What instance two asks of Redis reaches it 400 ms late: its subscription to a room takes effect
    // well after it asked, and what the other instance publishes to the room before then passes it by.
    cluster = await startTwoInstances({ redisUrl: REDIS_URL, slowLinkOfTwo: { requestDelayMs: 400 }, config: intervals });
  }, 30_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('is told it is connected once it hears its event\'s room, so the organizer\'s change right after reaches it', async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    const ana = await makeUser(one);
    await checkIn(one, ana, event.code);

    // Connected, her phone catches up on the event as it is: a change from then on must reach it.
    const anaOnTwo = await sockets.connect(two.url, ana.token);
    await hearsRename(anaOnTwo, one, organizer, event.id);
  });

  it('tells a phone that connected as she checked in elsewhere to read again only once it hears its event\'s room', async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    const ana = await makeUser(one);
    const { phone, heard } = await connectedDuringMove(two, ana, () => checkIn(one, ana, event.code));
    sockets.keep(phone);

    // Put in the event's room once connected, then told to read again: a change from then on must reach it.
    await waitUntil(() => heard.some((e) => e.event === 'sync'), 5000, 'her phone to be told to read again');
    await hearsRename(phone, one, organizer, event.id);
  });
});

describe.skipIf(!clusterReady || !hasRedisServerBinary())('event rooms across a Redis outage under two instances', () => {
  let redis: ReturnType<typeof ownRedis>;
  let cluster: TwoInstances;
  const sockets = socketsClosedAfterEach();
  beforeAll(async () => {
    redis = ownRedis(await freePort());
    await redis.start();
    cluster = await startTwoInstances({ redisUrl: redis.url, config: intervals });
  });
  afterAll(async () => {
    await cluster?.close();
    await redis?.stop();
  });
  const redisCheck = async (server: TestServer) => (await client(server.url).get('/readyz')).body.checks?.redis;

  it('puts the phones of those who checked in or left on another instance meanwhile in their rooms once Redis is back', { timeout: 30_000 }, async () => {
    const { one, two } = cluster;
    const organizer = await makeUser(one);
    const event = await makeEvent(one, organizer);
    const [ana, ben, cal] = [await makeUser(one), await makeUser(one), await makeUser(one)];
    await checkIn(one, ben, event.code);
    const [anaOnTwo, benOnTwo] = [await sockets.connect(two.url, ana.token), await sockets.connect(two.url, ben.token)];
    await waitUntilInRoom(two, event.id, 1);
    const socketOf = (user: TestUser) => [...two.app.io.of('/').sockets.values()].find((s) => s.data.user.id === user.id)!;
    const inRoom = (user: TestUser) => socketOf(user).rooms.has(rooms.event(event.id));

    await redis.stop();
    await waitUntil(async () => (await redisCheck(one)) === 'failing' && (await redisCheck(two)) === 'failing', 5000, 'both instances to lose Redis');
    // Ana checks in and Ben leaves through instance one; instance two, where their phones are, never hears it.
    await checkIn(one, ana, event.code);
    expect((await client(one.url).post('/api/events/leave/', { token: ben.token })).status).toBe(204);
    const synced = Promise.all([waitFor(anaOnTwo, 'sync', () => true, 15_000), waitFor(benOnTwo, 'sync', () => true, 15_000)]);
    await redis.start();
    await synced;

    // Told to read again where they are, their phones are also where the server sends the event's news.
    await waitUntil(() => inRoom(ana) && !inRoom(ben), 5000, 'Ana\'s phone in the room and Ben\'s out of it');
    const anaHears = waitFor(anaOnTwo, 'event:count', (p) => p.count === 2, 8000);
    await checkIn(one, cal, event.code);
    await anaHears;
  });
});
