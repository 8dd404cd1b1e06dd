import { expect } from 'vitest';
import { setRole } from '../../server/features/moderation/service';
import type { ProfileInput } from '../../shared/schemas/users';
import { makeCompletedUser, makeUser, type TestUser } from './factories';
import { client } from './http';
import type { TestServer } from './server';

/**
 * A user made a moderator the only way there is: the admin command's own function, on the server's
 * database. With a profile, a completed one (the web app asks for it before any page of /app/).
 */
export async function makeModerator(server: TestServer, profile?: Partial<ProfileInput>): Promise<TestUser> {
  const moderator = profile ? await makeCompletedUser(server, profile, { firstName: 'Mod' }) : await makeUser(server, { firstName: 'Mod' });
  expect(await setRole(server.app.db, moderator.email, 'moderator')).toBe('changed');
  return moderator;
}

/** Bans `user` through the real flow: someone reports them, a moderator resolves the report with a ban. */
export async function banThroughModeration(server: TestServer, moderator: TestUser, user: TestUser, reporter?: TestUser) {
  const api = client(server.url);
  const by = reporter ?? (await makeCompletedUser(server));
  const reported = await api.post('/api/reports/', { token: by.token, json: { user_id: user.id, reason: 'spam' } });
  expect([200, 201], JSON.stringify(reported.body)).toContain(reported.status);
  const resolved = await api.post(`/api/moderation/reports/${reported.body.id}/resolve/`, {
    token: moderator.token,
    json: { action: 'ban' },
  });
  expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
  return reported.body.id as number;
}
