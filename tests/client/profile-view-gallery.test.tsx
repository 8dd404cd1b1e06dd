// @vitest-environment jsdom
/**
 * Someone's photos on their profile: one its owner removed since the profile was read is deleted from
 * the server, and its address no longer loads. The gallery goes on without it, never showing a broken
 * image; one that failed with the phone offline comes back with the connection. fetch is faked: the profile.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { ProfileView } from '../../client/pages/app/ProfileView';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

const ben = { id: 5, name: 'Ben', age: 31, gender: 'male', genre: 'Man', bio: 'Hi', image: '/media/a.webp', image2: '/media/b.webp', image3: '/media/c.webp', image4: null, image5: null, image6: null };

async function openBen() {
  vi.stubGlobal('fetch', vi.fn(async () => Response.json(ben)));
  const location = memoryLocation({ path: '/app/profiles/5/' });
  render(
    <Router hook={location.hook} searchHook={location.searchHook}>
      <ProfileView id={5} />
    </Router>,
  );
  await screen.findByRole('heading', { name: /Ben/ });
}

const photo = () => screen.getByTestId('gallery').querySelector('img')!;
const dots = () => screen.getByTestId('gallery').querySelectorAll('.dot').length;

beforeEach(async () => {
  localStorage.setItem('language_code', 'es');
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser() });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe("the gallery of someone's profile", () => {
  it('leaves out a photo that no longer loads, and shows the next in its place', async () => {
    await openBen();
    fireEvent.click(screen.getByRole('button', { name: 'Foto siguiente' }));
    expect(photo().getAttribute('src')).toBe('/media/b.webp');

    fireEvent.error(photo());

    expect(photo().getAttribute('src')).toBe('/media/c.webp');
    expect(dots()).toBe(2);
  });

  it('leaves out the last photo too, going back to the first, and brings them back online', async () => {
    await openBen();
    fireEvent.click(screen.getByRole('button', { name: 'Foto anterior' }));
    expect(photo().getAttribute('src')).toBe('/media/c.webp');

    fireEvent.error(photo());
    expect(photo().getAttribute('src')).toBe('/media/a.webp');

    await act(async () => void window.dispatchEvent(new Event('online')));
    expect(dots()).toBe(3);
  });
});
