// @vitest-environment jsdom
/**
 * The photos changed on two devices at once: the form that saves last keeps the photos the other
 * device added (a save deletes every photo it leaves out, for good) and drops the ones it removed
 * (deleted on the server with that save: kept here, they would only make this save refused).
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** A photo picked here goes up at once, as `/media/mine<n>.webp`. */
vi.mock('../../client/lib/api-app', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../client/lib/api-app')>();
  let uploaded = 0;
  return { api: { ...original.api, upload: async () => ({ url: `/media/mine${++uploaded}.webp` }) } };
});
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { toast } from '../../client/lib/toast';
import { EditProfile } from '../../client/pages/app/EditProfile';
import { useProfile } from '../../client/stores/profile';
import { useSession } from '../../client/stores/session';
import type { OwnProfile, ProfileInput } from '../../shared/schemas/users';
import { en } from '../../shared/i18n/en';
import { MAX_PHOTOS } from '../../shared/constants';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

beforeEach(async () => {
  localStorage.clear();
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  toast.dismiss();
  vi.restoreAllMocks();
});

const withPhotos = (version: string, photos: string[]): OwnProfile => ({
  name: 'Ana',
  bio: 'Hi',
  gender: 'female',
  date_of_birth: '1995-04-02',
  image: photos[0] ?? null,
  image2: photos[1] ?? null,
  image3: photos[2] ?? null,
  image4: photos[3] ?? null,
  image5: photos[4] ?? null,
  image6: photos[5] ?? null,
  genders_to_match: ['male'],
  min_matching_age: 18,
  max_matching_age: 40,
  version,
});

function Page() {
  useMessages(appMessages);
  return <EditProfile />;
}

/** The form open on this device over `photos`; `save` records what it sends. */
async function openForm(photos: string[]) {
  useSession.setState({ token: 'token', user: currentUser() });
  const sent: ProfileInput[] = [];
  useProfile.setState({
    profile: withPhotos('v1', photos),
    load: async () => {},
    save: async (input) => void sent.push(input),
  });
  renderAt('/app/profile/', <Page />);
  await screen.findByRole('button', { name: en['profile.save'] });
  return sent;
}

const shown = () =>
  Array.from(screen.getByTestId('photo-grid').querySelectorAll('.photo-slot:not(.photo-add) img')).map((img) => img.getAttribute('src')!.replace('?size=thumb', ''));
const photosSent = (input: ProfileInput) => [input.image, input.image2, input.image3, input.image4, input.image5, input.image6];

describe('photos changed here and on another device', () => {
  it('keeps a photo added on the other device when one is removed here, and saves both changes', async () => {
    const sent = await openForm(['/media/a.webp', '/media/b.webp']);
    fireEvent.click(screen.getByRole('button', { name: en['profile.removePhoto'].replace('{n}', '2') }));
    expect(shown()).toEqual(['/media/a.webp']);

    // The phone adds a photo and saves: its news comes to this form, whose photos were changed here.
    act(() => useProfile.setState({ profile: withPhotos('v2', ['/media/a.webp', '/media/b.webp', '/media/c.webp']) }));
    expect(shown()).toEqual(['/media/a.webp', '/media/c.webp']);

    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['profile.save'] })));
    expect(photosSent(sent[0]!)).toEqual(['/media/a.webp', '/media/c.webp', null, null, null, null]);
  });

  it('drops a photo the other device removed (deleted with its save) from the order made here', async () => {
    const sent = await openForm(['/media/a.webp', '/media/b.webp', '/media/c.webp']);
    fireEvent.click(screen.getByRole('button', { name: en['profile.makePrimary'].replace('{n}', '3') }));
    expect(shown()).toEqual(['/media/c.webp', '/media/a.webp', '/media/b.webp']);

    act(() => useProfile.setState({ profile: withPhotos('v2', ['/media/a.webp', '/media/c.webp']) }));
    expect(shown()).toEqual(['/media/c.webp', '/media/a.webp']);

    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['profile.save'] })));
    expect(photosSent(sent[0]!)).toEqual(['/media/c.webp', '/media/a.webp', null, null, null, null]);
  });

  it('keeps the first six when both devices added photos past six, and says the other device’s extras go with the save', async () => {
    URL.createObjectURL = () => 'blob:preview';
    URL.revokeObjectURL = () => {};
    const sent = await openForm(['/media/a.webp', '/media/b.webp', '/media/c.webp', '/media/d.webp']);
    const png = (name: string) => new File(['x'], name, { type: 'image/png' });
    await act(async () => fireEvent.change(screen.getByTestId('photo-input'), { target: { files: [png('1.png'), png('2.png')] } }));
    expect(shown()).toEqual(['/media/a.webp', '/media/b.webp', '/media/c.webp', '/media/d.webp', '/media/mine1.webp', '/media/mine2.webp']);

    // The phone added two photos too, and saved.
    act(() => useProfile.setState({ profile: withPhotos('v2', ['/media/a.webp', '/media/b.webp', '/media/c.webp', '/media/d.webp', '/media/e.webp', '/media/f.webp']) }));
    expect(shown()).toEqual(['/media/a.webp', '/media/b.webp', '/media/c.webp', '/media/d.webp', '/media/mine1.webp', '/media/mine2.webp']);
    expect(screen.getByRole('status').textContent).toContain(en['profile.photosLeftOut'].replace('{max}', String(MAX_PHOTOS)));

    await act(async () => fireEvent.click(screen.getByRole('button', { name: en['profile.save'] })));
    expect(photosSent(sent[0]!)).toEqual(['/media/a.webp', '/media/b.webp', '/media/c.webp', '/media/d.webp', '/media/mine1.webp', '/media/mine2.webp']);
  });
});
