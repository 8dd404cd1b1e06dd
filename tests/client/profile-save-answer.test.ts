// @vitest-environment jsdom
/**
 * A profile save the server stored is a saved profile, whatever happens to the reads after it: the
 * save's own answer is the profile as stored (API: "200 with the saved profile"). Reading it again
 * over a network that drops just then made a stored save say "No connection", and the next tap be
 * refused as a change made on another device.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useProfile } from '../../client/stores/profile';
import { useSession } from '../../client/stores/session';
import type { OwnProfile, ProfileInput } from '../../shared/schemas/users';
import { currentUser } from '../helpers/current-user';

afterEach(() => {
  vi.unstubAllGlobals();
  useProfile.getState().reset();
});

const stored: OwnProfile = {
  name: 'Ana', bio: 'Hi', gender: 'female', date_of_birth: '1995-04-02',
  image: '/media/a.webp', image2: null, image3: null, image4: null, image5: null, image6: null,
  genders_to_match: ['male'], min_matching_age: 18, max_matching_age: 40, version: 'v2',
};

describe('a profile save stored, and the network gone right after', () => {
  it('is saved: the store holds the profile the save answered', async () => {
    useSession.setState({ token: 'token', user: currentUser() });
    useProfile.setState({ profile: { ...stored, bio: 'Before', version: 'v1' } });
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
      asked.push(`${init.method} ${path}`);
      if (init.method === 'PUT') return Response.json(stored);
      if (path === '/api/users/me/') return Response.json(currentUser());
      throw new TypeError('Failed to fetch');
    });
    const { version: _, ...input } = stored;
    await expect(useProfile.getState().save(input as ProfileInput)).resolves.toBeUndefined();
    expect(useProfile.getState().profile).toEqual(stored);
    expect(asked[0]).toBe('PUT /api/users/me/profile/');
  });
});
