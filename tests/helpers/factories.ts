import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { users } from '../../server/db/schema';
import type { ProfileInput } from '../../shared/schemas/users';
import { client } from './http';
import { imageDataUri } from './images';
import type { TestServer } from './server';

export interface TestUser {
  id: number;
  email: string;
  password: string;
  token: string;
  firstName: string;
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}${randomBytes(3).toString('hex')}`;

/** Registers and logs in a new user over HTTP. */
export async function makeUser(
  server: TestServer,
  overrides: { email?: string; firstName?: string; lastName?: string; password?: string } = {},
): Promise<TestUser> {
  const api = client(server.url);
  const email = overrides.email ?? `user-${unique()}@example.com`;
  const password = overrides.password ?? `Quiet-Party-${unique()}`;
  const firstName = overrides.firstName ?? 'Alex';
  const registered = await api.post('/api/auth/register/', {
    json: { first_name: firstName, last_name: overrides.lastName ?? 'Tester', username: email, password, password2: password },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const login = await api.post('/api/auth/', { json: { username: email, password } });
  expect(login.status).toBe(200);
  return { id: registered.body.id, email: registered.body.email, password, token: login.body.token, firstName };
}

/** A date of birth for someone who is `age` years old today. */
export function birthDateForAge(age: number, today = new Date()): string {
  const date = new Date(Date.UTC(today.getUTCFullYear() - age, today.getUTCMonth(), today.getUTCDate()));
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

export async function validProfile(overrides: Partial<ProfileInput> = {}): Promise<ProfileInput> {
  return {
    name: 'Alex',
    bio: 'Here for the music.',
    gender: 'female',
    date_of_birth: birthDateForAge(28),
    image: await imageDataUri(),
    genders_to_match: ['male', 'female', 'non_binary'],
    min_matching_age: 18,
    max_matching_age: 100,
    ...overrides,
  };
}

/** A user whose profile is complete (so they appear in decks), saved through the real API. */
export async function makeCompletedUser(
  server: TestServer,
  profile: Partial<ProfileInput> = {},
  account: Parameters<typeof makeUser>[1] = {},
): Promise<TestUser> {
  const user = await makeUser(server, account);
  const saved = await client(server.url).put('/api/users/me/profile/', {
    token: user.token,
    json: await validProfile(profile),
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  return user;
}

/** Marks a user's e-mail verified, as its link would (for tests about something else than verifying). */
export async function markEmailVerified(server: TestServer, userId: number) {
  await server.app.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
}
