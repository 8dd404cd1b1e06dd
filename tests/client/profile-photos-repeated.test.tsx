// @vitest-environment jsdom
/**
 * A profile that holds one photo in two of its fields (a save through the API, or an older seeded
 * demo profile) shows that photo once: not twice in the gallery, and not as two elements under one
 * React key (which React may drop or duplicate on the next render).
 */
import { cleanup, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { photosOf } from '../../client/lib/profile-fields';
import { ProfileView } from '../../client/pages/app/ProfileView';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

const ana = {
  id: 5, name: 'Ana', age: 29, gender: 'female', genre: 'Woman', bio: 'Hi',
  image: '/media/a.webp', image2: '/media/a.webp', image3: '/media/b.webp', image4: null, image5: '/media/a.webp', image6: null,
};

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('a profile with a repeated photo', () => {
  it('lists each photo once, in the order of its fields', () => {
    expect(photosOf(ana)).toEqual(['/media/a.webp', '/media/b.webp']);
    expect(photosOf({ ...ana, image: null, image2: null, image3: null, image5: null })).toEqual([]);
  });

  it('shows each photo once in the gallery, with no repeated key', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    useSession.setState({ token: 'token', user: currentUser() });
    vi.stubGlobal('fetch', vi.fn(async () => Response.json(ana)));
    renderAt('/app/profiles/5/', <ProfileView id={5} />);
    await screen.findByRole('heading', { name: /Ana/ });

    expect(screen.getAllByRole('button', { name: /^Photo \d of \d$/ }).map((dot) => dot.getAttribute('aria-label'))).toEqual([
      'Photo 1 of 2',
      'Photo 2 of 2',
    ]);
    expect(errors.mock.calls.filter((call) => String(call[0]).includes('same key'))).toEqual([]);
  });
});
