import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { EventInputBody, OrganizerEvent } from '../../shared/schemas/events';
import { rowsOf } from '../../server/db/client';
import { qrToken, qrWindowAt } from '../../server/features/events/service';
import type { TestUser } from './factories';
import { client } from './http';
import type { TestServer } from './server';

const HOUR = 3_600_000;

/** An event open now (started an hour ago, ends in three), created by `organizer` over the API. */
export async function makeEvent(
  server: TestServer,
  organizer: TestUser,
  overrides: Partial<EventInputBody> = {},
): Promise<OrganizerEvent> {
  const now = Date.now();
  const created = await client(server.url).post('/api/events/', {
    token: organizer.token,
    json: {
      name: 'Rooftop party',
      venue: 'The roof',
      starts_at: new Date(now - HOUR).toISOString(),
      ends_at: new Date(now + 3 * HOUR).toISOString(),
      join_mode: 'code',
      ...overrides,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/**
 * Moves an event in time (fixture only: the API never accepts an event in the past), so that the
 * window, the after-party and the lapse can be tested without waiting hours.
 */
export async function setEventTimes(server: TestServer, eventId: number, times: { startsAt: Date; endsAt: Date }) {
  await server.app.db.execute(
    sql`update events set starts_at = ${times.startsAt.toISOString()}::timestamptz, ends_at = ${times.endsAt.toISOString()}::timestamptz where id = ${eventId}`,
  );
}

/** The QR token of an event for the window `windowsAgo` before the current one (0: now). */
export async function tokenFor(server: TestServer, eventId: number, windowsAgo = 0): Promise<string> {
  const [row] = rowsOf<{ qr_secret: string }>(await server.app.db.execute(sql`select qr_secret from events where id = ${eventId}`));
  return qrToken({ id: eventId, qrSecret: row!.qr_secret }, qrWindowAt(Date.now()) - windowsAgo);
}

/** Checks a user in over the API and expects it to work. */
export async function checkIn(server: TestServer, user: TestUser, code: string, body: { token?: string; pass?: string } = {}) {
  const reply = await client(server.url).post(`/api/events/${code}/check-in/`, { token: user.token, json: body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as { event: OrganizerEvent };
}
