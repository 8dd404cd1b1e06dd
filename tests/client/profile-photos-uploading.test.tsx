// @vitest-environment jsdom
/**
 * A photo on its way up is a change to the profile like any other: leaving the page then (a link, the
 * back gesture, a reload) asks first, as it would once the photo is in, instead of losing it unsaid.
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { toast, useToasts } from '../../client/lib/toast';
import { EditProfile } from '../../client/pages/app/EditProfile';
import { useProfile } from '../../client/stores/profile';
import { useSession } from '../../client/stores/session';
import { en } from '../../shared/i18n/en';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

/** A network that takes an upload and never answers (a slow one: the photo is still on its way). */
class PendingUpload {
  static aborted = 0;
  upload = { onprogress: null };
  onabort: (() => void) | null = null;
  open() {}
  setRequestHeader() {}
  send() {}
  abort() {
    PendingUpload.aborted += 1;
    this.onabort?.();
  }
}

beforeEach(async () => {
  localStorage.clear();
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  vi.stubGlobal('XMLHttpRequest', PendingUpload);
  vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:preview');
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  toast.dismiss();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function Page() {
  useMessages(appMessages);
  return (
    <>
      <EditProfile />
      <a href="/app/matches">Chats</a>
    </>
  );
}

/** Ana's profile, one photo in, on the page. */
async function openAna() {
  useSession.setState({ token: 'token', user: currentUser() });
  useProfile.setState({
    profile: {
      name: 'Ana', bio: 'Hi', gender: 'female', date_of_birth: '1995-04-02',
      image: '/media/a.webp', image2: null, image3: null, image4: null, image5: null, image6: null,
      genders_to_match: ['male'], min_matching_age: 18, max_matching_age: 40, version: 'v1',
    },
    load: async () => {},
  });
  renderAt('/app/profile/', <Page />);
  await screen.findByRole('button', { name: en['profile.save'] });
  fireEvent.change(screen.getByTestId('photo-input'), { target: { files: [new File(['x'], 'me.jpg', { type: 'image/jpeg' })] } });
  await screen.findByRole('progressbar');
}

describe('leaving the profile while a photo uploads', () => {
  it('asks first, as with any change not saved', async () => {
    await openAna();

    fireEvent.click(screen.getByRole('link', { name: 'Chats' }));
    expect(await screen.findByRole('dialog', { name: en['profile.discardTitle'] })).toBeTruthy();
  });
});

describe('a photo taken out while it uploads', () => {
  it('stops its upload, says nothing went wrong, and leaves the save free (a slow network, the wrong photo picked)', async () => {
    PendingUpload.aborted = 0;
    await openAna();

    fireEvent.click(screen.getByRole('button', { name: en['profile.removePhoto'].replace('{n}', '2') }));

    expect(PendingUpload.aborted).toBe(1);
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.getByRole('button', { name: en['profile.save'] }).getAttribute('aria-disabled')).toBe('false');
    // Its upload's failure, heard now: not said as one.
    await act(async () => {});
    expect(useToasts.getState().toasts.map((item) => item.message)).toEqual([]);
  });
});
