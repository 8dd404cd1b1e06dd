import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProfileInput } from '../../shared/schemas/users';
import { EVENT_ERRORS } from '../../shared/schemas/events';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { rowsOf } from '../../server/db/client';
import { QR_EARLY_SECONDS, QR_WINDOW_SECONDS } from '../../shared/constants';
import {
  CHECK_IN_LOCK_SPACE,
  currentQr,
  findEventByCode,
  findEventById,
  isValidQrToken,
  issueJoinPass,
  qrToken,
  qrWindowAt,
} from '../../server/features/events/service';
import { ENDED_CONVERSATION_MESSAGES_KEPT_MS, purgeEndedConversations } from '../../server/features/safety/service';
import { birthDateForAge, makeCompletedUser, makeUser, markEmailVerified, type TestUser } from '../helpers/factories';
import { checkIn, makeEvent, setEventTimes, tokenFor } from '../helpers/events';
import { type ApiResponse, client } from '../helpers/http';
import { subscribeThroughTestCheckout } from '../helpers/plan';
import { racesOnPostgres } from '../helpers/lock-holder';
import { backends, serverPerSuite } from '../helpers/server';
import { hasPostgres } from '../helpers/services';
import { banThroughModeration, makeModerator } from '../helpers/safety';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const DATE_TIME_FORMAT = SERVER_MESSAGES.date_time_format.en;
const PUBLIC_KEYS = ['attendee_count', 'code', 'ends_at', 'id', 'join_mode', 'name', 'starts_at', 'status', 'venue'];

describe.each(backends)('events on %s', (backend) => {
  const server = serverPerSuite({ backend });

  const api = () => client(server.url);
  const current = async (user: TestUser) => {
    const asked = Date.now();
    const reply = await api().get('/api/events/current/', { token: user.token });
    expect(reply.status).toBe(200);
    // The server's time as it answered: the app's clock for events.
    expect(Date.parse(reply.body.now)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(reply.body.now)).toBeLessThanOrEqual(Date.now());
    return reply.body.event as { id: number; attendee_count: number; status: string } | null;
  };
  /** The public page's event, its `now` checked and left out. */
  const publicView = async (code: string) => {
    const asked = Date.now();
    const reply = await api().get(`/api/events/${code}/`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    // The server's time as it answered: the clock of a visitor not signed in.
    const { now, ...event } = reply.body;
    expect(Date.parse(now)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(now)).toBeLessThanOrEqual(Date.now());
    expect(new Date(now).toISOString()).toBe(now);
    return event;
  };
  const deckIds = async (user: TestUser) => {
    const page = await api().get('/api/users/matching-profiles/?limit=100', { token: user.token });
    expect(page.status).toBe(200);
    return new Set<number>(page.body.results.map((card: { id: number }) => card.id));
  };
  const react = async (from: TestUser, to: TestUser, response: 'like' | 'dislike' | 'skip') => {
    const reply = await api().post('/api/matching/', { token: from.token, json: { response, other: to.id } });
    expect(reply.status).toBe(200);
    return reply.body as { match: boolean; conversation_id: number | null };
  };

  describe('creating and reading', () => {
    it('creates an event for its organizer: a code of the alphabet, the organizer view, and a public view with counts only', async () => {
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer, { name: '  Rooftop party  ', venue: 'The roof' });
      expect(Object.keys(event).sort()).toEqual([...PUBLIC_KEYS, 'is_organizer'].sort());
      expect(event).toMatchObject({ name: 'Rooftop party', venue: 'The roof', join_mode: 'code', status: 'open', attendee_count: 0, is_organizer: true });
      expect(event.code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$/);

      const seen = await publicView(event.code);
      expect(Object.keys(seen).sort()).toEqual(PUBLIC_KEYS);
      // Typed by hand: any case, spaces around.
      expect(await publicView(event.code.toLowerCase())).toEqual(seen);
      expect(await publicView(`%20${event.code}%20`)).toEqual(seen);
      for (const code of ['ZZZZZ2', 'ABC', 'ABCDEF1', 'OOOOOO', '../../x', 'x'.repeat(90)]) {
        if (code === event.code) continue;
        const reply = await api().get(`/api/events/${encodeURIComponent(code)}/`);
        expect(reply.status, code).toBe(404);
        expect(reply.body).toEqual({ detail: 'Not found.' });
      }
    });

    it('reads an event by id and by code as its row holds it, times to the millisecond', async () => {
      const organizer = await makeUser(server);
      const startsAt = new Date(Math.floor(Date.now() / 1000) * 1000 - HOUR + 123);
      const endsAt = new Date(startsAt.getTime() + 3 * HOUR + 876);
      const event = await makeEvent(server, organizer, { starts_at: startsAt.toISOString(), ends_at: endsAt.toISOString() });
      const guest = await makeCompletedUser(server);
      await checkIn(server, guest, event.code);
      const [row] = rowsOf<{ starts_ms: string; ends_ms: string; created_ms: string }>(
        await server.app.db.execute(sql`
          select (extract(epoch from starts_at) * 1000)::text as starts_ms,
            (extract(epoch from ends_at) * 1000)::text as ends_ms, (extract(epoch from created_at) * 1000)::text as created_ms
          from events where id = ${event.id}`),
      );
      const expected = {
        id: event.id,
        code: event.code,
        name: 'Rooftop party',
        venue: 'The roof',
        startsAt,
        endsAt,
        joinMode: event.join_mode,
        organizerId: organizer.id,
        qrSecret: expect.any(String),
        createdAt: new Date(Math.floor(Number(row!.created_ms))),
        openCount: 1,
      };
      expect([Number(row!.starts_ms), Number(row!.ends_ms)]).toEqual([startsAt.getTime(), endsAt.getTime()]);
      expect(await findEventById(server.app.db, event.id)).toEqual(expected);
      expect(await findEventByCode(server.app.db, event.code)).toEqual(expected);
      expect(await findEventById(server.app.db, event.id + 1000)).toBeNull();
      expect(await findEventByCode(server.app.db, 'ZZZZZZ')).toBeNull();
    });

    it('checks no rule against a time whose format is wrong: its field says so, and only that', async () => {
      const organizer = await makeUser(server);
      const at = (offset: number) => new Date(Date.now() + offset).toISOString();
      // A day that no month has, or a year past what a date holds: a lenient reading would make 2 March
      // of the first, a time too far or too long of the second, and add issues of the time it made.
      const cases: Array<[string, object, Record<string, string[]>]> = [
        ['30 February', { starts_at: '2026-02-30T00:00:00Z', ends_at: at(HOUR) }, { starts_at: [DATE_TIME_FORMAT] }],
        ['year 275760', { starts_at: at(HOUR), ends_at: '+275760-09-13T00:00:00.000Z' }, { ends_at: [DATE_TIME_FORMAT] }],
        // No time at all is not a time in the wrong format.
        ['no start, a null end', {}, { starts_at: ['This field is required.'], ends_at: ['This field may not be null.'] }],
        ['a start as a number', { starts_at: Date.now(), ends_at: at(HOUR) }, { starts_at: [DATE_TIME_FORMAT] }],
      ];
      for (const [label, times, errors] of cases) {
        const reply = await api().post('/api/events/', { token: organizer.token, json: { name: 'Party', join_mode: 'qr', ends_at: null, ...times } });
        expect([reply.status, reply.body], label).toEqual([400, errors]);
      }
      const event = await makeEvent(server, organizer, { starts_at: at(2 * HOUR), ends_at: at(3 * HOUR) });
      const cleared = await api().patch(`/api/events/${event.id}/`, { token: organizer.token, json: { starts_at: null } });
      expect([cleared.status, cleared.body]).toEqual([400, { starts_at: ['This field may not be null.'] }]);
    });

    it('says the format a time must have: seconds and an offset (or Z) are required, not optional', async () => {
      const organizer = await makeUser(server);
      const ends_at = new Date(Date.now() + HOUR).toISOString();
      for (const [language, format] of [
        ['en', 'Datetime has wrong format. Use this format instead: YYYY-MM-DDThh:mm:ss[.uuuuuu] followed by Z or an offset (+HH:MM or -HH:MM).'],
        ['es', 'La fecha y hora tienen un formato incorrecto. Usa este formato: AAAA-MM-DDThh:mm:ss[.uuuuuu] seguido de Z o de un desfase (+HH:MM o -HH:MM).'],
      ]) {
        // What the old copy called optional: the seconds, then the offset.
        for (const starts_at of ['2030-01-01T10:00+01:00', '2030-01-01T10:00:00']) {
          const reply = await api().post('/api/events/', {
            token: organizer.token,
            headers: { 'accept-language': language! },
            json: { name: 'Party', join_mode: 'qr', starts_at, ends_at },
          });
          expect([reply.status, reply.body], `${language} ${starts_at}`).toEqual([400, { starts_at: [format] }]);
        }
      }
    });

    it('refuses bad input with every bad field at once, and strangers with a 401', async () => {
      const organizer = await makeUser(server);
      const now = Date.now();
      const post = (json: unknown) => api().post('/api/events/', { token: organizer.token, json });
      const bad = await post({ name: ' ', venue: 'x'.repeat(201), starts_at: 'tomorrow', ends_at: new Date(now + HOUR).toISOString(), join_mode: 'door' });
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body).sort()).toEqual(['join_mode', 'name', 'starts_at', 'venue']);

      const at = (offset: number) => new Date(now + offset).toISOString();
      const cases: Array<[string, unknown, Record<string, string[]>]> = [
        ['end before start', { starts_at: at(2 * HOUR), ends_at: at(HOUR) }, { ends_at: ['The end must be after the start.'] }],
        ['longer than 48 h', { starts_at: at(HOUR), ends_at: at(50 * HOUR) }, { ends_at: ['An event lasts at most 48 hours.'] }],
        ['over already', { starts_at: at(-3 * HOUR), ends_at: at(-HOUR) }, { ends_at: ['The end must be in the future.'] }],
        ['more than a year ahead', { starts_at: at(400 * 24 * HOUR), ends_at: at(400 * 24 * HOUR + HOUR) }, { starts_at: ['The start must be within a year from now.'] }],
      ];
      for (const [label, times, errors] of cases) {
        const reply = await post({ name: 'Party', join_mode: 'qr', ...(times as object) });
        expect(reply.status, label).toBe(400);
        expect(reply.body, label).toEqual(errors);
      }
      // In the reader's language, like every field error; a name of zero-width characters shows nothing.
      const spanish = await api().post('/api/events/', {
        token: organizer.token,
        headers: { 'accept-language': 'es' },
        json: { name: '\u200b\u200b', join_mode: 'qr', starts_at: 'mañana', ends_at: at(-HOUR) },
      });
      expect(spanish.status).toBe(400);
      expect(spanish.body).toEqual({
        name: ['Este campo no puede estar vacío.'],
        starts_at: ['La fecha y hora tienen un formato incorrecto. Usa este formato: AAAA-MM-DDThh:mm:ss[.uuuuuu] seguido de Z o de un desfase (+HH:MM o -HH:MM).'],
        ends_at: ['El final tiene que estar en el futuro.'],
      });
      const ends = await api().post('/api/events/', {
        token: organizer.token,
        headers: { 'accept-language': 'es' },
        json: { name: 'Fiesta', join_mode: 'qr', starts_at: at(2 * HOUR), ends_at: at(HOUR) },
      });
      expect(ends.body).toEqual({ ends_at: ['El final tiene que ser posterior al inicio.'] });
      for (const body of ['{', '[]', 'null']) {
        const reply = await api().post('/api/events/', { token: organizer.token, body, headers: { 'content-type': 'application/json' } });
        expect(reply.status, body).toBe(400);
      }
      expect((await api().post('/api/events/', { json: {} })).status).toBe(401);
      expect((await api().get('/api/events/current/')).status).toBe(401);
      expect((await api().post('/api/events/leave/')).status).toBe(401);
    });

    it('lists my events newest first, and only mine', async () => {
      const organizer = await makeUser(server);
      const other = await makeUser(server);
      const first = await makeEvent(server, organizer, { name: 'First' });
      const second = await makeEvent(server, organizer, { name: 'Second' });
      await makeEvent(server, other, { name: 'Not mine' });
      const mine = await api().get('/api/events/mine/', { token: organizer.token });
      expect(mine.status).toBe(200);
      expect(mine.body.results.map((event: { id: number }) => event.id)).toEqual([second.id, first.id]);
      expect(mine.body.results[0].is_organizer).toBe(true);
      const paged = await api().get('/api/events/mine/?limit=1', { token: organizer.token });
      expect(paged.body.results.map((event: { id: number }) => event.id)).toEqual([second.id]);
      const rest = await api().get(`/api/events/mine/?limit=1&cursor=${paged.body.next}`, { token: organizer.token });
      expect(rest.body.results.map((event: { id: number }) => event.id)).toEqual([first.id]);
      expect(rest.body.next).toBeNull();
    });

    it('answers 404 on every organizer path to anyone but the organizer', async () => {
      const organizer = await makeUser(server);
      const stranger = await makeUser(server);
      const event = await makeEvent(server, organizer);
      for (const [method, path] of [
        ['GET', `/api/events/${event.id}/qr/`],
        ['GET', `/api/events/${event.id}/stats/`],
        ['POST', `/api/events/${event.id}/end/`],
        ['DELETE', `/api/events/${event.id}/`],
        ['PATCH', `/api/events/${event.id}/`],
        ['PATCH', '/api/events/999999/'],
        ['GET', '/api/events/999999/qr/'],
        ['GET', '/api/events/abc/stats/'],
      ] as const) {
        const reply = await api().request(method, path, { token: stranger.token, json: method === 'PATCH' ? { name: 'Mine now' } : undefined });
        expect(reply.status, `${method} ${path}`).toBe(404);
        expect(reply.body).toEqual({ detail: 'Not found.' });
      }
      expect((await api().get(`/api/events/${event.id}/qr/`, { token: organizer.token })).status).toBe(200);
    });
  });

  describe('the rotating QR and the join pass', () => {
    it('draws the current token as a link and an SVG, accepts it and the previous window, and nothing older', async () => {
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer, { join_mode: 'qr' });
      const qr = await api().get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      expect(qr.status).toBe(200);
      expect(qr.headers.get('cache-control')).toBe('no-store');
      expect(qr.body.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(qr.body.url).toBe(`${server.url}/e/${event.code}?t=${qr.body.token}`);
      expect(qr.body.svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      const expires = Date.parse(qr.body.expires_at);
      expect(expires).toBeGreaterThan(Date.now() + 60_000);
      // Two windows at most, and the seconds before a turn in which the next one is handed out.
      expect(expires).toBeLessThanOrEqual(Date.now() + 120_000 + QR_EARLY_SECONDS * 1000);
      // The same end as a time left from the answer, for a screen whose clock is off the server's.
      expect(qr.body.expires_in_ms).toBeGreaterThan(60_000);
      expect(qr.body.expires_in_ms).toBeLessThanOrEqual(120_000 + QR_EARLY_SECONDS * 1000);
      expect(Math.abs(Date.parse(qr.body.expires_at) - qr.body.expires_in_ms - Date.now())).toBeLessThan(5000);

      const pass = (token: string, code = event.code) => api().post(`/api/events/${code}/pass/`, { json: { token } });
      const granted = await pass(qr.body.token);
      expect(granted.status).toBe(200);
      expect(granted.body.pass).toMatch(/^[A-Za-z0-9_-]+$/);
      const passExpiry = Date.parse(granted.body.expires_at) - Date.now();
      expect(passExpiry).toBeGreaterThan(29 * MINUTE);
      expect(passExpiry).toBeLessThanOrEqual(30 * MINUTE);
      expect(granted.body.expires_in_ms).toBe(30 * MINUTE);

      expect((await pass(await tokenFor(server, event.id, 1))).status).toBe(200);
      const other = await makeEvent(server, organizer, { join_mode: 'qr' });
      const flip = (token: string, at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
      for (const [label, token] of [
        ['two windows old', await tokenFor(server, event.id, 2)],
        ['another event', await tokenFor(server, other.id)],
        ['tampered', flip(qr.body.token, 5)],
        // Its last character's spare bits: the same bytes, another spelling.
        ['respelled', flip(qr.body.token, 21)],
        ['not a token', 'hello'],
        ['a pass instead', granted.body.pass],
      ] as const) {
        const reply = await pass(token);
        expect(reply.status, label).toBe(403);
        expect(reply.body, label).toEqual({ detail: EVENT_ERRORS.qrExpired, code: 'qr_expired' });
      }
      expect((await pass('x'.repeat(5000))).status).toBe(400);
      expect((await api().post(`/api/events/${event.code}/pass/`, { json: {} })).status).toBe(400);
      expect((await pass(qr.body.token, 'ZZZZZZ')).status).toBe(404);
    });

    it('hands out the next window’s code a few seconds before the turn, good from then through the window after', async () => {
      const organizer = await makeUser(server);
      const event = (await findEventById(server.app.db, (await makeEvent(server, organizer, { join_mode: 'qr' })).id))!;
      const window = QR_WINDOW_SECONDS * 1000;
      const early = QR_EARLY_SECONDS * 1000;
      const turn = (qrWindowAt(Date.now()) + 1) * window;
      const valid = (token: string, at: number) => isValidQrToken(event, token, at);

      // Until then, the current window's.
      const current = await currentQr(event, server.url, turn - early - 1);
      expect(current.expires_at).toBe(new Date(turn + window).toISOString());
      // Then the next one's, which the host screen swaps in before the turn: taken from that moment
      // (a guest scans it at once), through the window after the turn, and no longer.
      const next = await currentQr(event, server.url, turn - early);
      expect(next.token).not.toBe(current.token);
      expect(next.expires_at).toBe(new Date(turn + 2 * window).toISOString());
      expect([turn - early - 1, turn - early, turn + 2 * window - 1, turn + 2 * window].map((at) => valid(next.token, at))).toEqual([false, true, true, false]);
      // The one it replaced stays good through the window after the turn, as before.
      expect([turn - 1, turn + window - 1, turn + window].map((at) => valid(current.token, at))).toEqual([true, true, false]);
    });

    it('hands out no code once the event has ended: 409 ended, as the door says', async () => {
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer, { join_mode: 'qr' });
      const qr = () => api().get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      expect((await qr()).status).toBe(200);
      expect((await api().post(`/api/events/${event.id}/end/`, { token: organizer.token })).status).toBe(200);
      const refused = await qr();
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ detail: EVENT_ERRORS.ended, code: 'ended' });
      // Still the organizer's only: anyone else is told of no event.
      expect((await api().get(`/api/events/${event.id}/qr/`, { token: (await makeUser(server)).token })).status).toBe(404);
    });
  });

  describe('checking in', () => {
    it('lets a code event in by the code alone, and asks a QR event for proof of presence', async () => {
      const organizer = await makeUser(server);
      const guest = await makeCompletedUser(server);
      const open = await makeEvent(server, organizer, { join_mode: 'code' });
      const checked = await checkIn(server, guest, open.code.toLowerCase());
      expect(Object.keys(checked.event).sort()).toEqual(PUBLIC_KEYS);
      expect(checked.event).toMatchObject({ id: open.id, status: 'open', attendee_count: 1 });
      expect((await current(guest))?.id).toBe(open.id);

      const door = await makeEvent(server, organizer, { join_mode: 'qr' });
      const refused = await api().post(`/api/events/${door.code}/check-in/`, { token: guest.token, json: {} });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: 'Scan the code at the event to check in.', code: 'qr_required' });
      const noBody = await api().post(`/api/events/${door.code}/check-in/`, { token: guest.token });
      expect(noBody.status).toBe(403);
      // Refused: still where they were.
      expect((await current(guest))?.id).toBe(open.id);

      await checkIn(server, guest, door.code, { token: await tokenFor(server, door.id) });
      expect((await current(guest))?.id).toBe(door.id);
    });

    it('lets the organizer into their own QR event by its code alone, which holds for nobody else', async () => {
      const organizer = await makeCompletedUser(server);
      const door = await makeEvent(server, organizer, { join_mode: 'qr' });
      const forged = await api().post(`/api/events/${door.code}/check-in/`, { token: organizer.token, json: { token: 'AAAAAAAAAAAAAAAAAAAAAA' } });
      expect([forged.status, forged.body.code]).toEqual([403, 'qr_required']);
      expect(await current(organizer)).toBeNull();

      const checked = await checkIn(server, organizer, door.code);
      expect(checked.event).toMatchObject({ id: door.id, attendee_count: 1 });
      expect((await current(organizer))?.id).toBe(door.id);
      const guest = await makeCompletedUser(server);
      expect((await api().post(`/api/events/${door.code}/check-in/`, { token: guest.token, json: {} })).status).toBe(403);
    });

    it('accepts a pass for its own event only, and never a tampered, foreign or expired one (403, never 5xx)', async () => {
      const organizer = await makeUser(server);
      const door = await makeEvent(server, organizer, { join_mode: 'qr' });
      const elsewhere = await makeEvent(server, organizer, { join_mode: 'qr' });
      const passFor = async (eventId: number, code: string) =>
        (await api().post(`/api/events/${code}/pass/`, { json: { token: await tokenFor(server, eventId) } })).body.pass as string;
      const good = await passFor(door.id, door.code);
      const foreign = await passFor(elsewhere.id, elsewhere.code);
      const expired = server.app.sealer.seal('event-pass', { event: door.id }, { expiresAt: new Date(Date.now() - 1000) });
      const cursorLike = server.app.sealer.seal('cursor:deck', { event: door.id });
      const tampered = good.slice(0, 10) + (good[10] === 'A' ? 'B' : 'A') + good.slice(11);

      const guest = await makeCompletedUser(server);
      for (const [label, body] of [
        ['pass of another event', { pass: foreign }],
        ['expired pass', { pass: expired }],
        ['sealed for another purpose', { pass: cursorLike }],
        ['tampered pass', { pass: tampered }],
        ['garbage', { pass: '%%%' }],
        ['old token', { token: await tokenFor(server, door.id, 2) }],
        ['good pass, bad token', { pass: good, token: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      ] as const) {
        const reply = await api().post(`/api/events/${door.code}/check-in/`, { token: guest.token, json: body });
        expect(reply.status, label).toBe(403);
        expect(reply.body, label).toEqual({ detail: EVENT_ERRORS.qrRequired, code: 'qr_required' });
      }
      expect(await current(guest)).toBeNull();
      // A forged credential is refused at a code event too, though the code alone would do.
      const codeEvent = await makeEvent(server, organizer, { join_mode: 'code' });
      expect((await api().post(`/api/events/${codeEvent.code}/check-in/`, { token: guest.token, json: { pass: foreign } })).status).toBe(403);
      expect((await api().post(`/api/events/${door.code}/check-in/`, { token: guest.token, json: { pass: 5 } })).status).toBe(400);

      const reply = await checkIn(server, guest, door.code, { pass: good });
      expect(reply.event.id).toBe(door.id);

      // Once the organizer's account is deleted, the event lets nobody in by QR, with a pass issued before either.
      const before = await passFor(elsewhere.id, elsewhere.code);
      expect((await api().delete('/api/users/me/', { token: organizer.token, json: { password: organizer.password } })).status).toBe(204);
      const late = await makeCompletedUser(server);
      const refused = await api().post(`/api/events/${elsewhere.code}/check-in/`, { token: late.token, json: { pass: before } });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: EVENT_ERRORS.qrRequired, code: 'qr_required' });
    });

    it('opens one hour before the start and closes at the end, with its error codes', async () => {
      const organizer = await makeUser(server);
      const guest = await makeCompletedUser(server);
      const event = await makeEvent(server, organizer, { starts_at: new Date(Date.now() + 2 * HOUR).toISOString(), ends_at: new Date(Date.now() + 5 * HOUR).toISOString() });
      expect(event.status).toBe('upcoming');
      const early = await api().post(`/api/events/${event.code}/check-in/`, { token: guest.token, json: {} });
      expect(early.status).toBe(409);
      expect(early.body).toEqual({ detail: EVENT_ERRORS.notOpen, code: 'not_open' });

      await setEventTimes(server, event.id, { startsAt: new Date(Date.now() + 50 * MINUTE), endsAt: new Date(Date.now() + 3 * HOUR) });
      expect((await publicView(event.code)).status).toBe('open');
      await checkIn(server, guest, event.code);

      const late = await makeCompletedUser(server);
      await setEventTimes(server, event.id, { startsAt: new Date(Date.now() - 3 * HOUR), endsAt: new Date(Date.now() - MINUTE) });
      expect((await publicView(event.code)).status).toBe('after');
      const ended = await api().post(`/api/events/${event.code}/check-in/`, { token: late.token, json: {} });
      expect(ended.status).toBe(409);
      expect(ended.body).toEqual({ detail: EVENT_ERRORS.ended, code: 'ended' });
      expect((await api().post('/api/events/ZZZZZZ/check-in/', { token: late.token, json: {} })).status).toBe(404);
    });

    it('keeps one current event per user: checking in elsewhere leaves the first, again changes nothing', async () => {
      const organizer = await makeUser(server);
      const guest = await makeCompletedUser(server);
      const first = await makeEvent(server, organizer);
      const second = await makeEvent(server, organizer);
      await checkIn(server, guest, first.code);
      const again = await checkIn(server, guest, first.code, { token: 'not even looked at' });
      expect(again.event.attendee_count).toBe(1);
      expect((await publicView(first.code)).attendee_count).toBe(1);

      await checkIn(server, guest, second.code);
      expect((await current(guest))?.id).toBe(second.id);
      expect((await publicView(first.code)).attendee_count).toBe(0);
      expect((await publicView(second.code)).attendee_count).toBe(1);

      // Both at once: the database keeps one.
      const racer = await makeCompletedUser(server);
      const replies = await Promise.all([first, second, first, second].map((event) =>
        api().post(`/api/events/${event.code}/check-in/`, { token: racer.token, json: {} })));
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
      const rows = rowsOf<{ n: number }>(
        await server.app.db.execute(sql`select count(*)::int as n from attendances where user_id = ${racer.id} and left_at is null`),
      );
      expect(Number(rows[0]!.n)).toBe(1);
    });

    it('leaves at once (204, also when not checked in), and the after-party lapses on its own', async () => {
      const organizer = await makeUser(server);
      const guest = await makeCompletedUser(server);
      const event = await makeEvent(server, organizer);
      expect((await api().post('/api/events/leave/', { token: guest.token })).status).toBe(204);
      await checkIn(server, guest, event.code);
      const left = await api().post('/api/events/leave/', { token: guest.token });
      expect(left.status).toBe(204);
      expect(left.body).toBe('');
      expect(await current(guest)).toBeNull();
      expect((await publicView(event.code)).attendee_count).toBe(0);

      // Checked in again, the event ends: the after-party keeps them there for 24 hours.
      await checkIn(server, guest, event.code);
      await setEventTimes(server, event.id, { startsAt: new Date(Date.now() - 25 * HOUR), endsAt: new Date(Date.now() - 23 * HOUR) });
      expect(await current(guest)).toMatchObject({ id: event.id, status: 'after', attendee_count: 1 });
      await setEventTimes(server, event.id, { startsAt: new Date(Date.now() - 27 * HOUR), endsAt: new Date(Date.now() - 25 * HOUR) });
      expect(await current(guest)).toBeNull();
      expect(await publicView(event.code)).toMatchObject({ status: 'closed', attendee_count: 0 });
      // A lapsed attendance does not stand in the way of the next event.
      const next = await makeEvent(server, organizer);
      await checkIn(server, guest, next.code);
      expect((await current(guest))?.id).toBe(next.id);
    });

    it('lets an organizer end an event early and delete one only before it starts', async () => {
      const organizer = await makeUser(server);
      const guest = await makeCompletedUser(server);
      const event = await makeEvent(server, organizer);
      await checkIn(server, guest, event.code);
      const ended = await api().post(`/api/events/${event.id}/end/`, { token: organizer.token });
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ id: event.id, status: 'after', is_organizer: true, attendee_count: 1 });
      expect(Math.abs(Date.parse(ended.body.ends_at) - Date.now())).toBeLessThan(60_000);
      const late = await makeCompletedUser(server);
      expect((await api().post(`/api/events/${event.code}/check-in/`, { token: late.token, json: {} })).body.code).toBe('ended');
      // The after-party goes on for those inside.
      expect((await current(guest))?.id).toBe(event.id);
      const started = await api().delete(`/api/events/${event.id}/`, { token: organizer.token });
      expect(started.status).toBe(409);

      const upcoming = await makeEvent(server, organizer, { starts_at: new Date(Date.now() + 30 * MINUTE).toISOString() });
      await checkIn(server, guest, upcoming.code);
      expect((await api().post(`/api/events/${upcoming.id}/end/`, { token: organizer.token })).body.status).toBe('after');
      const later = await makeEvent(server, organizer, { starts_at: new Date(Date.now() + 5 * HOUR).toISOString(), ends_at: new Date(Date.now() + 6 * HOUR).toISOString() });
      // Not open yet: nothing to end (it would become a night that never was, and past deleting).
      const early = await api().post(`/api/events/${later.id}/end/`, { token: organizer.token });
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('not_open');
      expect((await api().get(`/api/events/${later.code}/`)).body).toMatchObject({ status: 'upcoming', starts_at: later.starts_at, ends_at: later.ends_at });
      expect((await api().delete(`/api/events/${later.id}/`, { token: organizer.token })).status).toBe(204);
      expect((await api().get(`/api/events/${later.code}/`)).status).toBe(404);
    });
  });

  describe('changing an event', () => {
    const patch = (organizer: TestUser, id: number, json: unknown, headers?: Record<string, string>) =>
      api().patch(`/api/events/${id}/`, { token: organizer.token, json, headers });

    it('changes any field before the start, each alone or together, and keeps the rest', async () => {
      const organizer = await makeUser(server);
      const startsAt = Date.now() + 5 * HOUR;
      const event = await makeEvent(server, organizer, {
        join_mode: 'qr',
        starts_at: new Date(startsAt).toISOString(),
        ends_at: new Date(startsAt + 4 * HOUR).toISOString(),
      });
      const secret = (await findEventById(server.app.db, event.id))?.qrSecret;
      const renamed = await patch(organizer, event.id, { name: '  Terrace party ' });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      expect(renamed.body).toEqual({ ...event, name: 'Terrace party' });

      const moved = new Date(startsAt + 24 * HOUR);
      const changed = await patch(organizer, event.id, {
        venue: 'The terrace',
        starts_at: moved.toISOString(),
        ends_at: new Date(moved.getTime() + 6 * HOUR).toISOString(),
        join_mode: 'code',
      });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(changed.body).toEqual({
        ...event,
        name: 'Terrace party',
        venue: 'The terrace',
        starts_at: moved.toISOString(),
        ends_at: new Date(moved.getTime() + 6 * HOUR).toISOString(),
        join_mode: 'code',
      });
      // Everyone reads it so, by the same code; the QR's secret stays (a printed QR keeps working).
      expect(await publicView(event.code)).toMatchObject({ name: 'Terrace party', venue: 'The terrace', join_mode: 'code', status: 'upcoming' });
      expect((await findEventById(server.app.db, event.id))?.qrSecret).toBe(secret);
      // An empty venue clears it, as one that shows nothing does; nothing sent changes nothing.
      expect((await patch(organizer, event.id, { venue: '\u200b\u2066\u2069' })).body.venue).toBe('');
      expect(await publicView(event.code)).toMatchObject({ venue: '' });
      expect((await patch(organizer, event.id, { venue: 'The terrace' })).body.venue).toBe('The terrace');
      expect((await patch(organizer, event.id, { venue: '' })).body.venue).toBe('');
      expect((await patch(organizer, event.id, {})).body).toEqual({ ...changed.body, venue: '' });
    });

    it('checks the times with the ones kept, and refuses bad input with nothing changed', async () => {
      const organizer = await makeUser(server);
      const startsAt = Date.now() + 2 * HOUR;
      const event = await makeEvent(server, organizer, {
        starts_at: new Date(startsAt).toISOString(),
        ends_at: new Date(startsAt + 3 * HOUR).toISOString(),
      });
      const at = (offset: number) => new Date(startsAt + offset).toISOString();
      const cases: Array<[string, unknown, Record<string, string[]>]> = [
        ['the end before the start kept', { ends_at: at(-HOUR) }, { ends_at: ['The end must be after the start.'] }],
        ['the start after the end kept', { starts_at: at(4 * HOUR) }, { ends_at: ['The end must be after the start.'] }],
        ['longer than 48 h with the start kept', { ends_at: at(50 * HOUR) }, { ends_at: ['An event lasts at most 48 hours.'] }],
        ['more than a year ahead', { starts_at: at(400 * 24 * HOUR), ends_at: at(400 * 24 * HOUR + HOUR) }, { starts_at: ['The start must be within a year from now.'] }],
        ['every bad field at once', { name: ' ', venue: 'x'.repeat(201), starts_at: 'tomorrow', join_mode: 'door' }, {}],
      ];
      for (const [label, json, errors] of cases) {
        const reply = await patch(organizer, event.id, json);
        expect(reply.status, label).toBe(400);
        if (Object.keys(errors).length > 0) expect(reply.body, label).toEqual(errors);
        else expect(Object.keys(reply.body).sort(), label).toEqual(['join_mode', 'name', 'starts_at', 'venue']);
      }
      for (const body of ['{', '[]', 'null', '"name"']) {
        const reply = await api().patch(`/api/events/${event.id}/`, { token: organizer.token, body, headers: { 'content-type': 'application/json' } });
        expect(reply.status, body).toBe(400);
      }
      const spanish = await patch(organizer, event.id, { ends_at: at(-HOUR) }, { 'accept-language': 'es' });
      expect(spanish.body).toEqual({ ends_at: ['El final tiene que ser posterior al inicio.'] });
      const { is_organizer: _, ...unchanged } = event;
      expect(await publicView(event.code)).toEqual(unchanged);
      expect((await api().patch(`/api/events/${event.id}/`, { json: { name: 'x' } })).status).toBe(401);
    });

    it('moves the start within check-in\'s hour once it has opened, never so late that it would close again', async () => {
      const organizer = await makeUser(server);
      const startsAt = Date.now() + 30 * MINUTE;
      const event = await makeEvent(server, organizer, { starts_at: new Date(startsAt).toISOString(), ends_at: new Date(startsAt + 3 * HOUR).toISOString() });
      const guest = await makeCompletedUser(server);
      await checkIn(server, guest, event.code);

      const tooLate = await patch(organizer, event.id, { starts_at: new Date(startsAt + 2 * HOUR).toISOString() });
      expect(tooLate.status).toBe(400);
      expect(tooLate.body).toEqual({ starts_at: ['Check-in has opened: the start can be at most 60 minutes from now.'] });
      const later = new Date(startsAt + 20 * MINUTE).toISOString();
      const moved = await patch(organizer, event.id, { starts_at: later });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body).toMatchObject({ starts_at: later, status: 'open', attendee_count: 1 });
      expect((await current(guest))?.id).toBe(event.id);
    });

    it('keeps the start once the event has started, still lets the rest change, and nothing once it is over', async () => {
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer);
      const guest = await makeCompletedUser(server);
      await checkIn(server, guest, event.code);

      const moved = await patch(organizer, event.id, { starts_at: new Date(Date.now() + HOUR).toISOString() });
      expect(moved.status).toBe(400);
      expect(moved.body).toEqual({ starts_at: ['The event has started: its start can no longer change.'] });
      // The same start sent back is no change; the end, the name and the door may move.
      const later = new Date(Date.parse(event.ends_at) + HOUR).toISOString();
      const changed = await patch(organizer, event.id, { starts_at: event.starts_at, ends_at: later, name: 'Late party', join_mode: 'qr' });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(changed.body).toMatchObject({ starts_at: event.starts_at, ends_at: later, name: 'Late party', join_mode: 'qr', attendee_count: 1 });
      // Those inside stay; the door now asks for the QR.
      expect((await current(guest))?.id).toBe(event.id);
      const late = await makeCompletedUser(server);
      expect((await api().post(`/api/events/${event.code}/check-in/`, { token: late.token, json: {} })).body.code).toBe('qr_required');
      // An end in the past is refused like at creation: ending is its own action.
      expect((await patch(organizer, event.id, { ends_at: new Date(Date.now() - 60_000).toISOString() })).body).toEqual({
        ends_at: ['The end must be in the future.'],
      });

      expect((await api().post(`/api/events/${event.id}/end/`, { token: organizer.token })).status).toBe(200);
      const over = await publicView(event.code);
      const refused = await patch(organizer, event.id, { name: 'Again', ends_at: new Date(Date.now() + HOUR).toISOString() });
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ detail: EVENT_ERRORS.ended, code: 'ended' });
      expect(await publicView(event.code)).toEqual(over);
    });
  });

  describe('the deck while checked in', () => {
    /** A profile of someone `age` years old who wants `band`: every test has an age band of its own. */
    const person = (age: number, band: [number, number], overrides: Partial<ProfileInput> = {}): Partial<ProfileInput> => ({
      date_of_birth: birthDateForAge(age),
      min_matching_age: band[0],
      max_matching_age: band[1],
      gender: 'male',
      genders_to_match: ['female'],
      ...overrides,
    });

    it('holds exactly the fitting attendees of my event, with every rule of the deck, and leaving returns the general deck at once', async () => {
      const band: [number, number] = [81, 82];
      const viewer = await makeCompletedUser(server, person(81, band, { gender: 'female', genders_to_match: ['male'] }));
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer);
      const elsewhere = await makeEvent(server, organizer);

      const make = (overrides: Partial<ProfileInput> = {}) => makeCompletedUser(server, person(82, band, overrides));
      const [inside, liker, skipped, outsideFits, atOtherEvent, wrongGender, disliked, blocker, leaver] = [
        await make(), await make(), await make(), await make(), await make(),
        await make({ gender: 'non_binary' }), await make(), await make(), await make(),
      ];
      // In the room but outside my age range, or with me outside theirs: the fit holds within an event too.
      const tooOld = await makeCompletedUser(server, person(83, band));
      const notIntoMe = await makeCompletedUser(server, person(82, [85, 86]));
      for (const user of [viewer, inside, liker, skipped, wrongGender, disliked, blocker, leaver, tooOld, notIntoMe]) {
        await checkIn(server, user, event.code);
      }
      await checkIn(server, atOtherEvent!, elsewhere.code);
      await react(liker!, viewer, 'like');
      await react(viewer, skipped!, 'skip');
      await react(viewer, disliked!, 'dislike');
      await server.app.db.execute(sql`insert into blocks (blocker_id, blocked_id) values (${blocker!.id}, ${viewer.id})`);

      const scoped = await api().get('/api/users/matching-profiles/?limit=100', { token: viewer.token });
      const order = scoped.body.results.map((card: { id: number }) => card.id) as number[];
      // The deck's order is kept: who liked me mixed in among the unseen, then the skipped.
      expect(order.slice(0, 3).sort()).toEqual([liker!.id, inside!.id, leaver!.id].sort());
      expect(order.slice(3)).toEqual([skipped!.id]);
      expect(await deckIds(viewer)).toEqual(new Set([liker!.id, inside!.id, leaver!.id, skipped!.id]));
      // The attendees' own decks are scoped too: someone at another event sees none of us.
      expect((await deckIds(atOtherEvent!)).has(viewer.id)).toBe(false);

      // Leaving takes effect at once, both ways.
      expect((await api().post('/api/events/leave/', { token: leaver!.token })).status).toBe(204);
      expect(await deckIds(viewer)).toEqual(new Set([liker!.id, inside!.id, skipped!.id]));
      // Their own deck is the general one again, where anyone may be, wherever they are.
      expect((await deckIds(leaver!)).has(viewer.id)).toBe(true);
      // Coming back reopens their attendance and puts them in the event's deck again; moving to
      // another event takes them out of it. Both at once.
      await checkIn(server, leaver!, event.code);
      await checkIn(server, inside!, elsewhere.code);
      expect(await deckIds(viewer)).toEqual(new Set([liker!.id, leaver!.id, skipped!.id]));
      expect((await api().post('/api/events/leave/', { token: viewer.token })).status).toBe(204);
      expect(await deckIds(viewer)).toEqual(new Set([liker!.id, inside!.id, skipped!.id, outsideFits!.id, atOtherEvent!.id, leaver!.id]));
    });

    it('pages through the event deck with a cursor across its tiers, and is an empty page where nobody fits', async () => {
      const band: [number, number] = [87, 88];
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer);
      const viewer = await makeCompletedUser(server, person(87, band, { gender: 'female', genders_to_match: ['male'] }));
      const alone = await makeCompletedUser(server, person(87, band, { gender: 'female', genders_to_match: ['male'] }));
      const others: TestUser[] = [];
      for (let i = 0; i < 6; i++) others.push(await makeCompletedUser(server, person(88, band)));
      for (const user of [viewer, ...others]) await checkIn(server, user, event.code);
      await react(others[0]!, viewer, 'like');
      await react(viewer, others[1]!, 'skip');

      const whole = await api().get('/api/users/matching-profiles/?limit=100', { token: viewer.token });
      const expected = whole.body.results.map((card: { id: number }) => card.id) as number[];
      expect(new Set(expected)).toEqual(new Set(others.map((other) => other.id)));
      expect(expected.at(-1)).toBe(others[1]!.id);
      const withoutLiker = (ids: number[]) => ids.filter((id) => id !== others[0]!.id);
      for (const limit of [1, 4]) {
        const seen: number[] = [];
        let query = `?limit=${limit}`;
        for (;;) {
          const page = await api().get(`/api/users/matching-profiles/${query}`, { token: viewer.token });
          expect(page.status).toBe(200);
          seen.push(...page.body.results.map((card: { id: number }) => card.id));
          if (!page.body.next) break;
          query = `?limit=${limit}&cursor=${page.body.next}`;
        }
        // Who liked me is mixed in within each page; everyone else keeps the deck's order.
        expect([...seen].sort(), `limit ${limit}: no gaps, no repeats`).toEqual([...expected].sort());
        expect(withoutLiker(seen), `limit ${limit}`).toEqual(withoutLiker(expected));
      }

      // Checked in where nobody fits: an empty page, not the town's people.
      const empty = await makeEvent(server, organizer);
      await checkIn(server, alone, empty.code);
      const page = await api().get('/api/users/matching-profiles/', { token: alone.token });
      expect(page.status).toBe(200);
      expect(page.body).toEqual({ results: [], next: null });
      // Reacted to everyone in the room but the one skipped: only they are left.
      for (const other of [others[0]!, ...others.slice(2)]) await react(viewer, other, 'dislike');
      expect(await deckIds(viewer)).toEqual(new Set([others[1]!.id]));
    });

    it('brings a card back by undo only while its person may be in my deck: not one who left the room, nor one passed over before I came', async () => {
      const band: [number, number] = [89, 90];
      const ana = await makeCompletedUser(server, person(89, band, { gender: 'female', genders_to_match: ['male'] }));
      const ben = await makeCompletedUser(server, person(90, band));
      const cal = await makeCompletedUser(server, person(90, band));
      await subscribeThroughTestCheckout(server, ana);
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer);
      const undo = () => api().post('/api/matching/undo/', { token: ana.token, json: {} });
      const undoable = async () => (await api().get('/api/matching/undo/', { token: ana.token })).body.card?.id ?? null;

      // Passed over in the general deck; then Ana checks in, and Cal is not there.
      await react(ana, cal, 'skip');
      await checkIn(server, ana, event.code);
      expect(await undoable()).toBeNull();
      expect((await undo()).body.code).toBe('nothing_to_undo');

      // Skipped in the room, Ben leaves it: his card is not brought back into the room's deck.
      await checkIn(server, ben, event.code);
      await react(ana, ben, 'skip');
      expect(await undoable()).toBe(ben.id);
      expect((await api().post('/api/events/leave/', { token: ben.token })).status).toBe(204);
      expect(await undoable()).toBeNull();
      expect((await undo()).status).toBe(409);
      // Back in the room, he is undoable again; and out of it, Ana back in the general deck may undo him too.
      await checkIn(server, ben, event.code);
      expect((await undo()).body).toMatchObject({ undone: 'skip', card: { id: ben.id } });
      await react(ana, ben, 'skip');
      expect((await api().post('/api/events/leave/', { token: ben.token })).status).toBe(204);
      expect((await api().post('/api/events/leave/', { token: ana.token })).status).toBe(204);
      expect((await undo()).body).toMatchObject({ undone: 'skip', card: { id: ben.id } });
    });

    it('records the event of a match made there; the match and its chat outlive the event', async () => {
      const band: [number, number] = [84, 85];
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer);
      const ana = await makeCompletedUser(server, person(84, band, { gender: 'female', genders_to_match: ['male'] }));
      const ben = await makeCompletedUser(server, person(85, band));
      const cal = await makeCompletedUser(server, person(85, band));
      for (const user of [ana, ben, cal]) await checkIn(server, user, event.code);
      await react(ana, ben, 'like');
      const matched = await react(ben, ana, 'like');
      expect(matched.match).toBe(true);
      // Cal likes Ana before the event is over; Ana likes back after Cal left: not made there.
      await react(cal, ana, 'like');
      await api().post('/api/events/leave/', { token: cal.token });
      const elsewhere = await react(ana, cal, 'like');
      expect(elsewhere.match).toBe(true);
      const sent = await api().post(`/api/conversations/${matched.conversation_id}/messages/`, { token: ana.token, json: { content: 'See you at the bar?' } });
      expect(sent.status).toBe(201);

      const stats = await api().get(`/api/events/${event.id}/stats/`, { token: organizer.token });
      expect(stats.status).toBe(200);
      // Ana's like of Cal, given after Cal left, was not given there.
      expect(stats.body).toMatchObject({ attendee_count: 2, checked_in_total: 3, likes: 3, matches: 1, conversations_started: 1 });
      const slots = stats.body.timeline as Array<{ at: string; check_ins: number; matches: number }>;
      expect(slots.reduce((sum, slot) => sum + slot.check_ins, 0)).toBe(3);
      expect(slots.reduce((sum, slot) => sum + slot.matches, 0)).toBe(1);
      expect(slots.every((slot) => new Date(slot.at).getUTCMinutes() % 15 === 0)).toBe(true);
      // From the opening of check-in (an hour before the start, an hour ago) until now: 9 slots of 15 minutes.
      expect(slots.length).toBeGreaterThanOrEqual(8);
      expect(slots.length).toBeLessThanOrEqual(10);

      // Long after the event, the match and its messages are still there.
      await setEventTimes(server, event.id, { startsAt: new Date(Date.now() - 50 * HOUR), endsAt: new Date(Date.now() - 26 * HOUR) });
      expect(await current(ana)).toBeNull();
      const started = await api().get('/api/conversations/started/', { token: ana.token });
      expect(started.body.results.map((c: { id: number }) => c.id)).toContain(matched.conversation_id);
      const history = await api().get(`/api/conversations/${matched.conversation_id}/messages/`, { token: ben.token });
      expect(history.body.results.map((m: { content: string }) => m.content)).toEqual(['See you at the bar?']);
      expect((await api().get(`/api/events/${event.id}/stats/`, { token: organizer.token })).body).toMatchObject({ attendee_count: 0, matches: 1 });
    });

    it('counts a like at the event where it was given, not at every event the two have been to', async () => {
      const band: [number, number] = [86, 87];
      const organizer = await makeUser(server);
      const [first, next] = [await makeEvent(server, organizer), await makeEvent(server, organizer)];
      const eva = await makeCompletedUser(server, person(86, band, { gender: 'female', genders_to_match: ['male'] }));
      const dan = await makeCompletedUser(server, person(87, band));
      const stats = async (event: { id: number }) => (await api().get(`/api/events/${event.id}/stats/`, { token: organizer.token })).body;
      // Both at the first party, then both at the next one, where Dan likes Eva.
      for (const user of [eva, dan]) await checkIn(server, user, first.code);
      for (const user of [eva, dan]) await checkIn(server, user, next.code);
      await react(dan, eva, 'like');
      expect(await stats(next)).toMatchObject({ likes: 1, matches: 0 });
      expect(await stats(first)).toMatchObject({ likes: 0, matches: 0 });
      // Back at the first party (the same attendance, reopened), Eva likes him back: a match made there.
      for (const user of [eva, dan]) await checkIn(server, user, first.code);
      expect((await react(eva, dan, 'like')).match).toBe(true);
      expect(await stats(first)).toMatchObject({ likes: 1, matches: 1 });
      expect(await stats(next)).toMatchObject({ likes: 1, matches: 0 });
    });

    it('keeps the night\'s counts when guests delete their accounts and ended chats are purged, each counted once', async () => {
      const band: [number, number] = [88, 89];
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer);
      const fay = await makeCompletedUser(server, person(88, band, { gender: 'female', genders_to_match: ['male'] }));
      const gil = await makeCompletedUser(server, person(89, band));
      const hal = await makeCompletedUser(server, person(89, band));
      for (const user of [fay, gil, hal]) await checkIn(server, user, event.code);
      // Fay and Gil match and talk; Fay and Hal match and talk, and Hal unmatches her.
      await react(fay, gil, 'like');
      const kept = (await react(gil, fay, 'like')).conversation_id!;
      await react(fay, hal, 'like');
      const ended = (await react(hal, fay, 'like')).conversation_id!;
      for (const id of [kept, ended]) {
        expect((await api().post(`/api/conversations/${id}/messages/`, { token: fay.token, json: { content: 'Hi!' } })).status).toBe(201);
      }
      type Stats = { attendee_count: number; timeline: Array<{ at: string; check_ins: number; matches: number }> } & Record<string, unknown>;
      const stats = async () => {
        const reply = await api().get(`/api/events/${event.id}/stats/`, { token: organizer.token });
        expect(reply.status).toBe(200);
        return reply.body as Stats;
      };
      // The figures of the night: the slots with something in them (a slot more may open as the test runs).
      const history = ({ timeline, ...rest }: Stats) => ({ ...rest, timeline: timeline.filter((slot) => slot.check_ins + slot.matches > 0) });
      expect(await stats()).toMatchObject({ checked_in_total: 3, likes: 4, matches: 2, conversations_started: 2 });
      expect((await api().delete(`/api/conversations/${ended}/`, { token: hal.token })).status).toBe(204);
      const before = await stats();
      // An unmatch takes back the like of the one who ended it, and nothing else.
      expect(before).toMatchObject({ attendee_count: 3, checked_in_total: 3, likes: 3, matches: 2, conversations_started: 2 });
      expect(before.timeline.reduce((sum, slot) => sum + slot.check_ins, 0)).toBe(3);
      expect(before.timeline.reduce((sum, slot) => sum + slot.matches, 0)).toBe(2);

      // Thirty days on, the ended chat's messages go; the chat was still started there.
      await server.app.db.execute(sql`update conversations set ended_at = now() - interval '31 days' where id = ${ended}`);
      expect(await purgeEndedConversations(server.app.db, new Date(Date.now() - ENDED_CONVERSATION_MESSAGES_KEPT_MS))).toBeGreaterThanOrEqual(1);
      expect(history(await stats())).toEqual(history(before));

      // Gil deletes his account, then Fay hers, then Hal his: their rows go, the counts stay, none twice.
      const leave = async (user: TestUser) =>
        expect((await api().delete('/api/users/me/', { token: user.token, json: { password: user.password } })).status).toBe(204);
      await leave(gil);
      expect(history(await stats())).toEqual(history({ ...before, attendee_count: 2 }));
      await leave(fay);
      expect(history(await stats())).toEqual(history({ ...before, attendee_count: 1 }));
      await leave(hal);
      expect(history(await stats())).toEqual(history({ ...before, attendee_count: 0 }));
      // Their rows are gone, as deletion requires: the figures are the anonymous tallies'.
      const [left] = rowsOf<{ n: number }>(
        await server.app.db.execute(sql`select (select count(*) from attendances where event_id = ${event.id})
          + (select count(*) from reactions where event_id = ${event.id})
          + (select count(*) from conversations where event_id = ${event.id}) as n`),
      );
      expect(Number(left!.n)).toBe(0);
    });

    it('keeps on the timeline the check-ins from before a start moved later while check-in was open', async () => {
      const organizer = await makeUser(server);
      // Check-in opened half an hour ago; a guest came in then.
      const event = await makeEvent(server, organizer, {
        starts_at: new Date(Date.now() + 30 * MINUTE).toISOString(),
        ends_at: new Date(Date.now() + 4 * HOUR).toISOString(),
      });
      const guest = await makeCompletedUser(server);
      await checkIn(server, guest, event.code);
      await server.app.db.execute(sql`update attendances set checked_in_at = now() - interval '30 minutes' where event_id = ${event.id}`);
      // The band is late: the start moves on by almost half an hour, check-in staying open.
      const moved = await api().patch(`/api/events/${event.id}/`, {
        token: organizer.token,
        json: { starts_at: new Date(Date.now() + 59 * MINUTE).toISOString() },
      });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      const stats = (await api().get(`/api/events/${event.id}/stats/`, { token: organizer.token })).body;
      expect(stats.checked_in_total).toBe(1);
      const slots = stats.timeline as Array<{ at: string; check_ins: number }>;
      expect(slots.reduce((sum, slot) => sum + slot.check_ins, 0)).toBe(1);
    });

    it('starts the timeline of an event ended in its check-in hour when its door opened, not an hour before its end', async () => {
      const organizer = await makeUser(server);
      // Check-in opened half an hour ago; a guest came in; the organizer ends it before its start.
      const startsAt = Date.now() + 30 * MINUTE;
      const event = await makeEvent(server, organizer, { starts_at: new Date(startsAt).toISOString(), ends_at: new Date(Date.now() + 4 * HOUR).toISOString() });
      await checkIn(server, await makeCompletedUser(server), event.code);
      const ended = await api().post(`/api/events/${event.id}/end/`, { token: organizer.token });
      expect(ended.body.status).toBe('after');
      const stats = (await api().get(`/api/events/${event.id}/stats/`, { token: organizer.token })).body;
      const slots = stats.timeline as Array<{ at: string; check_ins: number }>;
      // No empty slots from before the door opened: the first is the one it opened in.
      const quarter = 15 * MINUTE;
      expect(slots[0]!.at).toBe(new Date(Math.floor((startsAt - HOUR) / quarter) * quarter).toISOString());
      expect(slots.reduce((sum, slot) => sum + slot.check_ins, 0)).toBe(1);
    });

    it('draws the timeline over the event\'s own hours, and after its end only as far as something happened', async () => {
      const band: [number, number] = [91, 92];
      const organizer = await makeUser(server);
      const event = await makeEvent(server, organizer);
      const ana = await makeCompletedUser(server, person(91, band, { gender: 'female', genders_to_match: ['male'] }));
      const ben = await makeCompletedUser(server, person(92, band));
      for (const user of [ana, ben]) await checkIn(server, user, event.code);
      // The night was from ten hours ago to six hours ago; they came in at its start.
      const quarter = 15 * MINUTE;
      const end = Math.floor((Date.now() - 6 * HOUR) / quarter) * quarter;
      await setEventTimes(server, event.id, { startsAt: new Date(end - 4 * HOUR), endsAt: new Date(end) });
      await server.app.db.execute(sql`update attendances set checked_in_at = ${new Date(end - 4 * HOUR).toISOString()}::timestamptz where event_id = ${event.id}`);
      const timeline = async () => {
        const stats = await api().get(`/api/events/${event.id}/stats/`, { token: organizer.token });
        expect(stats.status).toBe(200);
        return stats.body.timeline as Array<{ at: string; check_ins: number; matches: number }>;
      };
      // From the opening of check-in (an hour before the start) to the end: not on through six empty hours to now.
      const night = await timeline();
      expect(night[0]!.at).toBe(new Date(end - 5 * HOUR).toISOString());
      expect(night.at(-1)!.at).toBe(new Date(end).toISOString());
      expect(night.reduce((sum, slot) => sum + slot.check_ins, 0)).toBe(2);

      // They match in the after-party, two hours after the end: the timeline goes on as far as that.
      await react(ana, ben, 'like');
      expect((await react(ben, ana, 'like')).match).toBe(true);
      await server.app.db.execute(sql`update conversations set created_at = ${new Date(end + 2 * HOUR + 5 * MINUTE).toISOString()}::timestamptz where event_id = ${event.id}`);
      const after = await timeline();
      expect(after.slice(0, night.length)).toEqual(night);
      expect(after.at(-1)).toEqual({ at: new Date(end + 2 * HOUR).toISOString(), check_ins: 0, matches: 1 });
      expect(after.length).toBe(night.length + 8);
    });
  });

  describe('limits', () => {
    it('throttles event creation per user per day, check-ins and changes per user per hour', async () => {
      const organizer = await makeUser(server);
      // Forms sent with a mistake (an end before the start, a blank name) are answered and not counted.
      const start = Date.now() + HOUR;
      for (const json of [
        { name: 'Backwards', starts_at: new Date(start).toISOString(), ends_at: new Date(start - HOUR).toISOString(), join_mode: 'code' },
        { name: '   ', starts_at: new Date(start).toISOString(), ends_at: new Date(start + HOUR).toISOString(), join_mode: 'code' },
      ]) {
        for (let i = 0; i < 6; i++) expect((await api().post('/api/events/', { token: organizer.token, json })).status).toBe(400);
      }
      for (let i = 0; i < 10; i++) await makeEvent(server, organizer, { name: `Party ${i}` });
      const refused = await api().post('/api/events/', { token: organizer.token, json: { name: 'One more', starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + HOUR).toISOString(), join_mode: 'code' } });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);

      const other = await makeUser(server);
      const [a, b] = [await makeEvent(server, other), await makeEvent(server, other)];
      const guest = await makeCompletedUser(server);
      for (let i = 0; i < 30; i++) await checkIn(server, guest, (i % 2 ? a : b).code);
      const tooMany = await api().post(`/api/events/${a.code}/check-in/`, { token: guest.token, json: {} });
      expect(tooMany.status).toBe(429);
      expect(tooMany.headers.get('retry-after')).toBeTruthy();

      // Each change goes out to the whole room: 60 an hour per organizer; a refused body is not one.
      for (let i = 0; i < 5; i++) expect((await api().patch(`/api/events/${a.id}/`, { token: other.token, json: { name: '' } })).status).toBe(400);
      for (let i = 0; i < 60; i++) expect((await api().patch(`/api/events/${a.id}/`, { token: other.token, json: { name: `Party ${i}` } })).status).toBe(200);
      const oneMore = await api().patch(`/api/events/${a.id}/`, { token: other.token, json: { name: 'Party 60' } });
      expect(oneMore.status).toBe(429);
      expect((await api().get(`/api/events/${a.code}/`)).body.name).toBe('Party 59');
    });
  });
});

describe('public lookups are throttled per address', () => {
  const server = serverPerSuite({
    config: {
      limits: {
        'event:lookup': { max: 3, windowMs: 60_000 },
        'event:lookup:ip': { max: 3, windowMs: 60_000 },
        'event:pass:ip': { max: 2, windowMs: 60_000 },
      },
    },
  });

  it('answers 429 with Retry-After past the limit, per person signed in, per address otherwise', async () => {
    const api = client(server.url);
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.get(`/api/events/${event.code}/`, { token: organizer.token })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Signed out, or with a token that is no good: the address's own count.
    const anonymous = [];
    for (let i = 0; i < 4; i++) anonymous.push((await api.get(`/api/events/${event.code}/`, { token: i % 2 ? 'not-a-token' : undefined })).status);
    expect(anonymous).toEqual([200, 200, 200, 429]);
    const passes = [];
    for (let i = 0; i < 3; i++) passes.push((await api.post(`/api/events/${event.code}/pass/`, { json: { token: 'AAAAAAAAAAAAAAAAAAAAAA' } })).status);
    expect(passes).toEqual([403, 403, 429]);
  });
});

/**
 * The doors open: every phone is behind the venue's one Wi-Fi address. The crowd's check-ins and
 * its signed-in phones' lookups count per person; only anonymous requests count per address, within
 * a budget a venue's crowd does not use up; and one person hammering is still refused.
 */
/** Runs `count` requests, `at` a time, and answers their statuses. */
async function statusesOf(count: number, request: (i: number) => Promise<ApiResponse>, at = 50) {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += at) {
    const batch = await Promise.all(Array.from({ length: Math.min(at, count - start) }, (_, i) => request(start + i)));
    statuses.push(...batch.map((reply) => reply.status));
  }
  return statuses;
}

/** A 429 as the limits answer it: in the envelope, with when to try again. */
function throttled(reply: ApiResponse) {
  expect(reply.status).toBe(429);
  expect(reply.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds\.$/) });
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('a rush at the doors, every phone behind one address', () => {
  const server = serverPerSuite();

  const venue = { 'x-forwarded-for': '203.0.113.7' };
  const api = () => client(server.url);

  it('lets 300 phones scan, open the event page and watch its count within a minute; 40 people check in', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer, { join_mode: 'qr' });
    const token = await tokenFor(server, event.id);
    // Scanned: the pass first, then the page, which asks the count again twice a minute.
    const passes = await statusesOf(300, () => api().post(`/api/events/${event.code}/pass/`, { json: { token }, headers: venue }));
    expect(passes.filter((status) => status !== 200)).toEqual([]);
    const lookups = await statusesOf(900, () => api().get(`/api/events/${event.code}/`, { headers: venue }));
    expect(lookups.filter((status) => status !== 200)).toEqual([]);

    // Signed in (more than the per-person limit of one hour's check-ins): each checks in and watches the count.
    const guests = await Promise.all(Array.from({ length: 40 }, () => makeUser(server)));
    const pass = (await api().post(`/api/events/${event.code}/pass/`, { json: { token }, headers: venue })).body.pass;
    const checkIns = await statusesOf(40, (i) =>
      api().post(`/api/events/${event.code}/check-in/`, { token: guests[i]!.token, json: { pass }, headers: venue }),
    );
    expect(checkIns.filter((status) => status !== 200)).toEqual([]);
    const watched = await statusesOf(120, (i) => api().get(`/api/events/${event.code}/`, { token: guests[i % 40]!.token, headers: venue }));
    expect(watched.filter((status) => status !== 200)).toEqual([]);
    expect((await api().get(`/api/events/${event.code}/`, { headers: venue })).body.attendee_count).toBe(40);
  });

  it('still refuses one person hammering check-in or the event page, with 429 and Retry-After, and no one else', async () => {
    const organizer = await makeUser(server);
    const event = await makeEvent(server, organizer);
    const [hammer, neighbour] = await Promise.all([makeUser(server), makeUser(server)]);
    const checkInAs = (user: TestUser) => api().post(`/api/events/${event.code}/check-in/`, { token: user.token, json: {}, headers: venue });
    // 30 check-ins an hour (server/lib/limits.ts); again to the current event is a 200 that changes nothing.
    expect((await statusesOf(30, () => checkInAs(hammer), 10)).filter((status) => status !== 200)).toEqual([]);
    throttled(await checkInAs(hammer));
    expect((await checkInAs(neighbour)).status).toBe(200);

    const lookUpAs = (user: TestUser) => api().get(`/api/events/${event.code}/`, { token: user.token, headers: venue });
    const looked = await statusesOf(61, () => lookUpAs(hammer), 10);
    expect(looked.filter((status) => status === 200).length).toBeLessThan(61);
    throttled(await lookUpAs(hammer));
    expect((await lookUpAs(neighbour)).status).toBe(200);
    expect((await api().get(`/api/events/${event.code}/`, { headers: venue })).status).toBe(200);
  });
});

/**
 * Newcomers at the door: scan, then sign up and in, every phone behind the venue's one address. With
 * the scan's join pass, the ways in count per event; without one, or with one that is no good, per
 * address as ever; a login's per (account, address) count holds either way. Scaled to a tenth: 3 a
 * minute per address (30 in production), 200 per event (2,000), 30 newcomers for the 300; per
 * (account, address) as in production, 10, and a pass's failed logins per address, 12 (60), more than one account's 10.
 */
describe('signing up and in at the door, every phone behind one address', () => {
  const server = serverPerSuite({
    config: {
      loginThrottle: { perIp: 3, perAccount: 10, windowMs: 60_000 },
      limits: {
        'login:event': { max: 200, windowMs: 60_000 },
        'register:event': { max: 200, windowMs: 60_000 },
        'login:door-miss:ip': { max: 12, windowMs: 60_000 },
      },
    },
  });

  const api = () => client(server.url);
  let venues = 0;
  /** A venue's Wi-Fi address of its own for each test: per-address counts do not carry over. */
  const venueAddress = () => ({ 'x-forwarded-for': `203.0.113.${++venues}` });
  let people = 0;
  const newcomer = () => {
    const password = `Velvet-Door-${++people}-Orbit`;
    return { first_name: 'Marta', last_name: 'Quiroga', username: `newcomer-${Date.now().toString(36)}-${people}@example.com`, password, password2: password };
  };
  /** A phone's scan of the door of `event` from `venue`: its pass. */
  async function scan(event: { id: number; code: string }, venue: Record<string, string>) {
    const token = await tokenFor(server, event.id);
    const scanned = await api().post(`/api/events/${event.code}/pass/`, { json: { token }, headers: venue });
    expect(scanned.status).toBe(200);
    return scanned.body.pass as string;
  }
  /** An open QR event and a pass of its door, scanned from `venue`. */
  async function door(organizer: TestUser, venue: Record<string, string>) {
    const event = await makeEvent(server, organizer, { join_mode: 'qr' });
    return { event, pass: await scan(event, venue) };
  }
  /** An organizer whose e-mail is verified: only theirs lends their events' doors. */
  let organizer: TestUser;
  beforeAll(async () => {
    organizer = await makeUser(server);
    await markEmailVerified(server, organizer.id);
  });

  it('lets 300 newcomers with the scan\'s pass sign up and in within the minute; without one, 30 (a tenth of each)', async () => {
    const venue = venueAddress();
    const { event } = await door(organizer, venue);
    // Each phone scans the door: a pass of its own.
    const bodies = Array.from({ length: 30 }, newcomer);
    const passes = await Promise.all(bodies.map(() => scan(event, venue)));
    const registered = await statusesOf(30, (i) => api().post('/api/auth/register/', { json: { ...bodies[i], pass: passes[i] }, headers: venue }), 25);
    expect(registered.filter((status) => status !== 201)).toEqual([]);
    const loggedIn = await statusesOf(30, (i) =>
      api().post('/api/auth/', { json: { username: bodies[i]!.username, password: bodies[i]!.password, pass: passes[i] }, headers: venue }),
      25,
    );
    expect(loggedIn.filter((status) => status !== 200)).toEqual([]);
    // The pass's budget is the event's, not the address's: the address's own is untouched.
    const withoutPass = await statusesOf(3, () => api().post('/api/auth/register/', { json: newcomer(), headers: venue }));
    expect(withoutPass.filter((status) => status !== 201)).toEqual([]);
    throttled(await api().post('/api/auth/register/', { json: newcomer(), headers: venue }));
    const login = (body: ReturnType<typeof newcomer>, extra: object = {}) =>
      api().post('/api/auth/', { json: { username: body.username, password: body.password, ...extra }, headers: venue });
    expect((await statusesOf(3, (i) => login(bodies[i]!))).filter((status) => status !== 200)).toEqual([]);
    throttled(await login(bodies[3]!));
    // And the pass still lets the rest in.
    expect((await login(bodies[4]!, { pass: passes[4] })).status).toBe(200);
    expect((await api().get(`/api/events/${event.code}/`, { headers: venue })).status).toBe(200);
  });

  it('counts a pass that is expired, forged, of an ended event or of a deleted one per address', async () => {
    const venue = venueAddress();
    const { event } = await door(organizer, venue);
    const record = (await findEventById(server.app.db, event.id))!;
    const longAgo = Date.now() - 31 * MINUTE;
    const expired = issueJoinPass(server.app.sealer, record, qrToken({ id: record.id, qrSecret: record.qrSecret! }, qrWindowAt(longAgo)), longAgo).pass;
    const ended = await door(organizer, venue);
    await setEventTimes(server, ended.event.id, { startsAt: new Date(Date.now() - 5 * HOUR), endsAt: new Date(Date.now() - 4 * HOUR) });
    const deleted = await door(organizer, venue);
    await server.app.db.execute(sql`delete from events where id = ${deleted.event.id}`);
    const valid = (await door(organizer, venue)).pass;
    const forged = `${valid.slice(0, -4)}${valid.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const [label, pass] of Object.entries({ expired, forged, ended: ended.pass, deleted: deleted.pass, garbage: 'not-a-pass' })) {
      // Each from an address of its own: its 3 a minute, then 429, while the good pass still gets in.
      const address = venueAddress();
      const register = (body: object) => api().post('/api/auth/register/', { json: { ...newcomer(), ...body }, headers: address });
      expect(await statusesOf(3, () => register({ pass })), label).toEqual([201, 201, 201]);
      throttled(await register({ pass }));
      throttled(await register({}));
      expect((await register({ pass: valid })).status, label).toBe(201);
    }
  });

  it('counts a pass of an event whose organizer has not verified their e-mail per address: a throwaway account lends no door', async () => {
    const venue = venueAddress();
    const unverified = await makeUser(server);
    const { event, pass } = await door(unverified, venue);
    const register = (body: object) => api().post('/api/auth/register/', { json: { ...newcomer(), ...body }, headers: venue });
    expect(await statusesOf(3, () => register({ pass }), 1)).toEqual([201, 201, 201]);
    throttled(await register({ pass }));
    const login = () => api().post('/api/auth/', { json: { username: `nobody-${venues}@example.com`, password: 'Summer-Orbit-2026', pass }, headers: venue });
    expect(await statusesOf(3, login, 1)).toEqual([400, 400, 400]);
    throttled(await login());
    // Verified, the organizer lends it: its passes count per event again.
    await markEmailVerified(server, unverified.id);
    expect((await register({ pass: await scan(event, venue) })).status).toBe(201);
    // Banned, no longer: what their door let in before stays, but no more comes on its budget.
    const pass2 = await scan(event, venue);
    await server.app.db.execute(sql`update users set banned_at = now() where id = ${unverified.id}`);
    throttled(await register({ pass: pass2 }));
  });

  it('counts one pass past its own 10 uses per address: one phone signs up and in, it does not open the door to thousands', async () => {
    const venue = venueAddress();
    const { pass } = await door(organizer, venue);
    const register = (body: object = {}) => api().post('/api/auth/register/', { json: { ...newcomer(), ...body }, headers: venue });
    expect(await statusesOf(10, () => register({ pass }), 1)).toEqual(Array(10).fill(201));
    // Past its uses it is as no pass: the address's own 3, then 429.
    expect(await statusesOf(3, () => register({ pass }), 1)).toEqual([201, 201, 201]);
    throttled(await register({ pass }));
    throttled(await register());
  });

  it('counts a pass\'s failed logins per address past 12 (60) a minute: one password tried across many accounts, then the address\'s 3', async () => {
    const venue = venueAddress();
    const { event } = await door(organizer, venue);
    // Fifteen newcomers sign up and in with passes: more than 12 logins, each let in, none a miss.
    const bodies = Array.from({ length: 15 }, newcomer);
    const passes = await Promise.all(bodies.map(() => scan(event, venue)));
    expect(await statusesOf(15, (i) => api().post('/api/auth/register/', { json: { ...bodies[i], pass: passes[i] }, headers: venue }))).toEqual(Array(15).fill(201));
    const loggedIn = await statusesOf(15, (i) =>
      api().post('/api/auth/', { json: { username: bodies[i]!.username, password: bodies[i]!.password, pass: passes[i] }, headers: venue }),
    );
    expect(loggedIn).toEqual(Array(15).fill(200));
    // A script's passes, one per try: the same password at accounts of the venue, and at accounts that
    // are none. Past 12 misses its passes lift nothing: from there its logins count per address.
    const scripted = await Promise.all(Array.from({ length: 17 }, () => scan(event, venue)));
    const stuff = (i: number) =>
      api().post('/api/auth/', {
        json: { username: i < 4 ? bodies[i]!.username : `nobody-${i}-${venues}@example.com`, password: 'Summer-Orbit-2026', pass: scripted[i] },
        headers: venue,
      });
    expect(await statusesOf(12, stuff, 1)).toEqual(Array(12).fill(400));
    expect(await statusesOf(3, (i) => stuff(12 + i), 1)).toEqual([400, 400, 400]);
    throttled(await stuff(15));
    // So is a newcomer's own login there, pass or not, until the window ends; their sign-up still counts per event.
    throttled(await api().post('/api/auth/', { json: { username: bodies[5]!.username, password: bodies[5]!.password, pass: scripted[16] }, headers: venue }));
    expect((await api().post('/api/auth/register/', { json: { ...newcomer(), pass: scripted[16] }, headers: venue })).status).toBe(201);
  });

  it('still limits guesses at one account per (account, address), pass or not', async () => {
    const venue = venueAddress();
    const { pass } = await door(organizer, venue);
    const owner = newcomer();
    expect((await api().post('/api/auth/register/', { json: { ...owner, pass }, headers: venue })).status).toBe(201);
    const guess = (password: string) => api().post('/api/auth/', { json: { username: owner.username, password, pass }, headers: venue });
    const guesses = await statusesOf(10, (i) => guess(`wrong-guess-${i}`), 1);
    expect(guesses).toEqual(Array(10).fill(400));
    throttled(await guess(owner.password));
    // Another account from the venue is not affected.
    const neighbour = newcomer();
    expect((await api().post('/api/auth/register/', { json: { ...neighbour, pass }, headers: venue })).status).toBe(201);
    expect((await api().post('/api/auth/', { json: { username: neighbour.username, password: neighbour.password, pass }, headers: venue })).status).toBe(200);
  });
});

/** The door's budget is a limit too, each event's its own (scaled down: 5 a minute, 3 per address), past which a pass is as none. */
describe('the door\'s budget per event', () => {
  const server = serverPerSuite({
    config: { loginThrottle: { perIp: 3, perAccount: 10, windowMs: 60_000 }, limits: { 'register:event': { max: 5, windowMs: 60_000 } } },
  });

  it('leaves a pass past it its address\'s allowance, then 429 with Retry-After; other events\' budgets are their own', async () => {
    const api = client(server.url);
    const venue = { 'x-forwarded-for': '198.51.100.9' };
    const organizer = await makeUser(server);
    await markEmailVerified(server, organizer.id);
    const scanOf = async (event: { id: number; code: string }) =>
      (await api.post(`/api/events/${event.code}/pass/`, { json: { token: await tokenFor(server, event.id) }, headers: venue })).body.pass as string;
    const [first, second] = [await makeEvent(server, organizer, { join_mode: 'qr' }), await makeEvent(server, organizer, { join_mode: 'qr' })];
    let n = 0;
    const register = (pass?: string) => {
      const password = `Velvet-Budget-${++n}-Orbit`;
      return api.post('/api/auth/register/', {
        json: { first_name: 'Ana', last_name: 'Ruiz', username: `budget-${Date.now().toString(36)}-${n}@example.com`, password, password2: password, pass },
        headers: venue,
      });
    };
    // Five phones of the first event's door, each with a pass of its own.
    const firstPasses = await Promise.all(Array.from({ length: 8 }, () => scanOf(first)));
    for (const pass of firstPasses.slice(0, 5)) expect((await register(pass)).status).toBe(201);
    // The event's budget used up (by a crowd, or by someone draining it): the next with its pass get
    // their address's own allowance, not a refusal, and then 429.
    for (const pass of firstPasses.slice(5, 8)) expect((await register(pass)).status).toBe(201);
    const refused = await register(firstPasses[0]);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds\.$/) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await register()).status).toBe(429);
    // Another event's budget is its own.
    expect((await register(await scanOf(second))).status).toBe(201);
  });
});

describe.skipIf(!(await hasPostgres()))('a check-in or a match racing the event\'s deletion or end, or a ban, on PostgreSQL', () => {
  /** The test's own connection holds a check-in or a like half-way while the event goes. */
  const races = racesOnPostgres();
  const { hold, stuckOrDone } = races;

  /** The guest's check-in, once it has read its event, waiting for their own check-in lock, taken here until `race` is done. */
  async function heldCheckIn(guest: TestUser, code: string, race: () => Promise<void>) {
    const release = await hold('select pg_advisory_xact_lock($1, $2)', [CHECK_IN_LOCK_SPACE, guest.id]);
    const checking = client(races.server.url).post(`/api/events/${code}/check-in/`, { token: guest.token, json: {} });
    try {
      expect(await stuckOrDone(checking, 1)).toBe(false);
      await race();
    } finally {
      await release();
    }
    return checking;
  }

  it('answers 404, as for an event that never was, and leaves the guest where they were', async () => {
    const api = client(races.server.url);
    const organizer = await makeUser(races.server);
    const guest = await makeCompletedUser(races.server);
    const first = await makeEvent(races.server, organizer);
    await checkIn(races.server, guest, first.code);
    // Check-in is open an hour before the start, and the organizer may delete the event until then.
    const doomed = await makeEvent(races.server, organizer, { starts_at: new Date(Date.now() + 30 * MINUTE).toISOString() });
    const reply = await heldCheckIn(guest, doomed.code, async () => {
      expect((await api.delete(`/api/events/${doomed.id}/`, { token: organizer.token })).status).toBe(204);
    });
    expect([reply.status, reply.body]).toEqual([404, { detail: 'Not found.' }]);
    const current = await api.get('/api/events/current/', { token: guest.token });
    expect(current.body.event).toMatchObject({ id: first.id, attendee_count: 1 });
  });

  it('lets no one in once the organizer has ended the event, though their check-in read it open: 409, where they were', async () => {
    const api = client(races.server.url);
    const organizer = await makeUser(races.server);
    const guest = await makeCompletedUser(races.server);
    const first = await makeEvent(races.server, organizer);
    await checkIn(races.server, guest, first.code);
    const ending = await makeEvent(races.server, organizer);
    const reply = await heldCheckIn(guest, ending.code, async () => {
      expect((await api.post(`/api/events/${ending.id}/end/`, { token: organizer.token })).body.status).toBe('after');
    });
    expect([reply.status, reply.body]).toEqual([409, { detail: EVENT_ERRORS.ended, code: 'ended' }]);
    const current = await api.get('/api/events/current/', { token: guest.token });
    expect(current.body.event).toMatchObject({ id: first.id, attendee_count: 1 });
    expect((await api.get(`/api/events/${ending.code}/`)).body).toMatchObject({ status: 'after', attendee_count: 0 });
  });

  /** `request`, sent while a deletion of the event (as the organizer's DELETE makes it) is under way, and waiting on it; then the deletion commits. */
  async function duringDeletion(eventId: number, request: () => Promise<ApiResponse>) {
    const release = await hold('delete from events where id = $1', [eventId]);
    let sent: Promise<ApiResponse>;
    try {
      sent = request();
      expect(await stuckOrDone(sent, 1)).toBe(false);
    } catch (error) {
      await release();
      throw error;
    }
    await release('commit');
    return sent;
  }


  it('answers 404 to an end racing the event\'s deletion from another of the organizer\'s screens', async () => {
    const organizer = await makeUser(races.server);
    // Open, not started: the one kind of event that can be both ended and deleted.
    const event = await makeEvent(races.server, organizer, { starts_at: new Date(Date.now() + 30 * MINUTE).toISOString(), ends_at: new Date(Date.now() + 6 * HOUR).toISOString() });
    const reply = await duringDeletion(event.id, () => client(races.server.url).post(`/api/events/${event.id}/end/`, { token: organizer.token }));
    expect([reply.status, reply.body]).toEqual([404, { detail: 'Not found.' }]);
  });

  it('answers 404, not "has started", to a deletion racing the same deletion from another of the organizer\'s screens', async () => {
    const api = client(races.server.url);
    const organizer = await makeUser(races.server);
    const event = await makeEvent(races.server, organizer, { starts_at: new Date(Date.now() + 5 * HOUR).toISOString(), ends_at: new Date(Date.now() + 6 * HOUR).toISOString() });
    // Both screens have found the event theirs, and wait for its row.
    const release = await hold('select 1 from events where id = $1 for update', [event.id]);
    const deleting = [0, 1].map(() => api.delete(`/api/events/${event.id}/`, { token: organizer.token }));
    try {
      expect(await stuckOrDone(Promise.all(deleting), 2)).toBe(false);
    } finally {
      await release();
    }
    const replies = await Promise.all(deleting);
    expect(replies.map((reply) => [reply.status, reply.body]).sort()).toEqual([[204, ''], [404, { detail: 'Not found.' }]]);
  });

  it('answers 404, never a 5xx, to a change whose event is deleted from another screen as it is saved', async () => {
    const api = client(races.server.url);
    const organizer = await makeUser(races.server);
    const event = await makeEvent(races.server, organizer, { starts_at: new Date(Date.now() + 5 * HOUR).toISOString(), ends_at: new Date(Date.now() + 6 * HOUR).toISOString() });
    // The change has found the event the organizer's, and waits for its row.
    const releaseRow = await hold('select 1 from events where id = $1 for update', [event.id]);
    const changing = api.patch(`/api/events/${event.id}/`, { token: organizer.token, json: { name: 'Renamed' } });
    let tables: Awaited<ReturnType<typeof hold>> | undefined;
    try {
      expect(await stuckOrDone(changing, 1)).toBe(false);
      // Its read of the event as saved (with its count of attendances) waits here, after the change commits.
      tables = await hold('lock table attendances in access exclusive mode');
    } finally {
      await releaseRow();
    }
    try {
      expect(await stuckOrDone(changing, 1)).toBe(false);
      // Deleted from the other screen meanwhile.
      await tables.run('delete from events where id = $1', [event.id]);
    } finally {
      await tables?.('commit');
    }
    const reply = await changing;
    expect([reply.status, reply.body]).toEqual([404, { detail: 'Not found.' }]);
  });

  it('lets a change waiting for the event\'s row undo no end that came meanwhile', async () => {
    const api = client(races.server.url);
    const organizer = await makeUser(races.server);
    const event = await makeEvent(races.server, organizer);
    // A check-in's attendance holds the event's key (as this holds it): a change waits for it, an end does not.
    const release = await hold('select 1 from events where id = $1 for key share', [event.id]);
    const later = new Date(Date.now() + 2 * HOUR).toISOString();
    const changing = api.patch(`/api/events/${event.id}/`, { token: organizer.token, json: { ends_at: later } });
    try {
      expect(await stuckOrDone(changing, 1)).toBe(false);
      expect((await api.post(`/api/events/${event.id}/end/`, { token: organizer.token })).body.status).toBe('after');
    } finally {
      await release();
    }
    const reply = await changing;
    expect([reply.status, reply.body]).toEqual([409, { detail: EVENT_ERRORS.ended, code: 'ended' }]);
    expect((await api.get(`/api/events/${event.code}/`)).body.status).toBe('after');
  });

  it('makes a match racing the deletion of the event where it is made, at no event, instead of a 404', async () => {
    const api = client(races.server.url);
    const organizer = await makeUser(races.server);
    const ana = await makeCompletedUser(races.server, { gender: 'female', genders_to_match: ['male'] });
    const ben = await makeCompletedUser(races.server, { gender: 'male', genders_to_match: ['female'] });
    // Check-in is open an hour before the start, and the organizer may delete the event until then.
    const event = await makeEvent(races.server, organizer, { starts_at: new Date(Date.now() + 30 * MINUTE).toISOString() });
    await checkIn(races.server, ana, event.code);
    await checkIn(races.server, ben, event.code);
    expect((await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: ben.id } })).body.match).toBe(false);
    // The deletion, its attendances with it, is under way (uncommitted) as Ben's like comes.
    const reply = await duringDeletion(event.id, () => api.post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } }));
    expect([reply.status, reply.body.match]).toEqual([200, true]);
    const [row] = rowsOf<{ event_id: number | null }>(
      await races.server.app.db.execute(sql`select event_id from conversations where id = ${reply.body.conversation_id}`),
    );
    expect(row).toEqual({ event_id: null });
  });

  it('lets no one banned since their request came in check in: the count stays without them', async () => {
    const api = client(races.server.url);
    const organizer = await makeUser(races.server);
    const moderator = await makeModerator(races.server);
    const guest = await makeCompletedUser(races.server);
    const event = await makeEvent(races.server, organizer);
    const reply = await heldCheckIn(guest, event.code, () => banThroughModeration(races.server, moderator, guest).then(() => undefined));
    expect([reply.status, reply.body.code]).toEqual([403, 'account_suspended']);
    expect((await api.get(`/api/events/${event.code}/`)).body.attendee_count).toBe(0);
    const open = rowsOf<{ n: number }>(
      await races.server.app.db.execute(sql`select count(*)::int as n from attendances where user_id = ${guest.id} and left_at is null`),
    );
    expect(Number(open[0]!.n)).toBe(0);
  });

  it('counts a match once when both its people delete their accounts at the same moment', async () => {
    const api = client(races.server.url);
    const organizer = await makeUser(races.server);
    const ana = await makeCompletedUser(races.server, { gender: 'female', genders_to_match: ['male'] });
    const ben = await makeCompletedUser(races.server, { gender: 'male', genders_to_match: ['female'] });
    const event = await makeEvent(races.server, organizer);
    for (const user of [ana, ben]) await checkIn(races.server, user, event.code);
    await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: ben.id } });
    const id = (await api.post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } })).body.conversation_id as number;
    expect((await api.post(`/api/conversations/${id}/messages/`, { token: ana.token, json: { content: 'Hi!' } })).status).toBe(201);
    const figures = async () => {
      const { attendee_count: _, timeline: __, ...rest } = (await api.get(`/api/events/${event.id}/stats/`, { token: organizer.token })).body;
      return rest;
    };
    const night = { checked_in_total: 2, likes: 2, matches: 1, conversations_started: 1 };
    expect(await figures()).toEqual(night);
    const remove = (user: TestUser) => api.delete('/api/users/me/', { token: user.token, json: { password: user.password } });
    // Ana's deletion has counted what was hers and is taking her rows (held at her profile's) when Ben's comes.
    const release = await hold('select 1 from profiles where user_id = $1 for update', [ana.id]);
    let both: Promise<ApiResponse[]>;
    try {
      const hers = remove(ana);
      expect(await stuckOrDone(hers, 1)).toBe(false);
      const his = remove(ben);
      expect(await stuckOrDone(his, 2)).toBe(false);
      both = Promise.all([hers, his]);
    } finally {
      await release();
    }
    expect((await both).map((reply) => reply.status)).toEqual([204, 204]);
    expect(await figures()).toEqual(night);
  });
});
