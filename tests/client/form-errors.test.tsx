// @vitest-environment jsdom
/**
 * A refused form says each field's problem once: the label names the field only, the error line is
 * its description, and the focus taken to the first wrong field is what says it (no alert as well).
 */
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../../client/lib/api';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { toast, useToasts } from '../../client/lib/toast';
import { EditProfile } from '../../client/pages/app/EditProfile';
import { Register } from '../../client/pages/Register';
import { useProfile } from '../../client/stores/profile';
import { useSession } from '../../client/stores/session';
import { BIO_MAX_LENGTH, NAME_MAX_LENGTH } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';
import { pasteAsBrowser } from '../helpers/paste';

/** What a control's `aria-describedby` points at says. */
const description = (control: HTMLElement) =>
  (control.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent)
    .filter(Boolean)
    .join(' ');

beforeEach(async () => {
  localStorage.clear();
  await initLanguage();
});
afterEach(() => {
  cleanup();
  toast.dismiss();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** A profile being completed: no bio and no photo yet. */
const profileNamed = (name: string) => ({
  name,
  bio: '',
  gender: 'female' as const,
  date_of_birth: '1995-04-02',
  image: null,
  image2: null,
  image3: null,
  image4: null,
  image5: null,
  image6: null,
  genders_to_match: ['male' as const],
  min_matching_age: 18,
  max_matching_age: 40,
  version: 'v1',
});

describe('a refused form', () => {
  it('names the register form’s fields by their labels alone, and says their errors once, from the first of them', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ username: [SERVER_MESSAGES.email_taken.es], password2: [SERVER_MESSAGES.passwords_differ.es] }, { status: 400 })),
    );
    renderAt('/register/', <Register />);
    fireEvent.submit(document.querySelector('form')!);
    await screen.findByText(SERVER_MESSAGES.email_taken.es);

    const email = screen.getByRole('textbox', { name: es['auth.email'] });
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(description(email)).toBe(SERVER_MESSAGES.email_taken.es);
    await waitFor(() => expect(document.activeElement).toBe(email));
    expect(description(screen.getByLabelText(es['register.password2']))).toBe(SERVER_MESSAGES.passwords_differ.es);
    expect(screen.queryAllByRole('alert')).toEqual([]);
  });

  it('ties the missing photo’s line to Add photo, which takes the focus, with no alert beside the toast', async () => {
    function Page() {
      useMessages(appMessages);
      return <EditProfile />;
    }
    useSession.setState({ token: 'token', user: currentUser() });
    const save = vi.fn(async () => {
      throw new ValidationError({ bio: [SERVER_MESSAGES.blank.es] });
    });
    useProfile.setState({
      profile: profileNamed('Ana'),
      load: async () => {},
      save,
    });
    renderAt('/app/profile/', <Page />);
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: es['profile.save'] })));
    expect(save).toHaveBeenCalled();

    const addPhoto = screen.getByTestId('photo-input');
    expect(addPhoto.getAttribute('aria-invalid')).toBe('true');
    expect(description(addPhoto)).toBe(es['profile.needPhoto']);
    await waitFor(() => expect(document.activeElement).toBe(addPhoto));
    const bio = screen.getByRole('textbox', { name: es['profile.bio'] });
    expect(description(bio)).toBe(SERVER_MESSAGES.blank.es);
    expect(screen.queryAllByRole('alert')).toEqual([]);
  });

  it('says which photo the server refused (one swept while the form stood open a day), until the photos change', async () => {
    function Page() {
      useMessages(appMessages);
      return <EditProfile />;
    }
    useSession.setState({ token: 'token', user: currentUser() });
    useProfile.setState({
      profile: { ...profileNamed('Ana'), bio: 'Hola', image: '/media/a.webp', image2: '/media/b.webp' },
      load: async () => {},
      save: async () => {
        throw new ValidationError({ image2: [SERVER_MESSAGES.invalid_image.es] });
      },
    });
    renderAt('/app/profile/', <Page />);
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: es['profile.save'] })));
    const addPhoto = screen.getByTestId('photo-input');
    expect(description(addPhoto)).toBe(es['profile.photoError'].replace('{n}', '2').replace('{message}', SERVER_MESSAGES.invalid_image.es));
    // Taken out: what was said of photo 2 would now be said of another.
    fireEvent.click(screen.getByRole('button', { name: es['profile.removePhoto'].replace('{n}', '2') }));
    expect(description(addPhoto)).toBe('');
  });
});

describe('a profile saved', () => {
  it('puts away what the form said before, not the toast of a chat message that came meanwhile', async () => {
    function Page() {
      useMessages(appMessages);
      return <EditProfile />;
    }
    useSession.setState({ token: 'token', user: currentUser() });
    useProfile.setState({
      profile: { ...profileNamed('Ana'), bio: 'Here for the music.', image: '/media/ana.jpg' },
      load: async () => {},
      save: vi.fn(async () => {}),
    });
    renderAt('/app/profile/', <Page />);
    const save = await screen.findByRole('button', { name: es['profile.save'] });
    act(() => {
      toast.error(SERVER_MESSAGES.blank.es, { key: 'profile-form' });
      toast.message('Te espero fuera.', { title: 'Jon', href: '/app/chat/7', key: 'chat-7' });
    });
    await act(async () => fireEvent.click(save));
    await waitFor(() => expect(useToasts.getState().toasts.map((item) => item.message)).toEqual([es['profile.saved'], 'Te espero fuera.']));
  });
});

describe('the server’s lines on the auth forms, in English', () => {
  it('keep "e-mail" whole at the end of a line, as the app’s own copy does', async () => {
    // Signed out: the register page sends a signed-in user to the app.
    useSession.setState({ token: null, user: null });
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) =>
        String(url).endsWith('/api/auth/register/')
          ? Response.json({ username: [SERVER_MESSAGES.email_taken.en], password: [SERVER_MESSAGES.password_like_email.en] }, { status: 400 })
          : Response.json({}),
      ),
    );
    renderAt('/register/', <Register />);
    const email = await screen.findByRole('textbox', { name: en['auth.email'] });
    fireEvent.submit(document.querySelector('form')!);
    await waitFor(() => expect(email.getAttribute('aria-invalid')).toBe('true'));
    // "...too similar to the e-" / "mail address." on a 360 px phone: the plain hyphen is where a line may break.
    expect(description(email)).toBe('A user with that e\u2011mail already exists.');
    expect(description(screen.getByLabelText(en['auth.password']))).toBe('The password is too similar to the e\u2011mail address.');
  });
});

describe('a paste into the profile', () => {
  it('keeps as many emoji of a pasted name and bio as the server takes, one character each', async () => {
    function Page() {
      useMessages(appMessages);
      return <EditProfile />;
    }
    useSession.setState({ token: 'token', user: currentUser() });
    useProfile.setState({
      profile: profileNamed(''),
      load: async () => {},
      save: async () => {},
    });
    renderAt('/app/profile/', <Page />);
    const name = (await screen.findByRole('textbox', { name: es['profile.name'] })) as HTMLInputElement;
    // 60 emoji, 120 UTF-16 units: the first 50 are a name the server takes.
    pasteAsBrowser(name, '🌸'.repeat(60));
    expect(name.value).toBe('🌸'.repeat(NAME_MAX_LENGTH));
    const bio = screen.getByRole('textbox', { name: es['profile.bio'] }) as HTMLTextAreaElement;
    pasteAsBrowser(bio, 'Hola ');
    pasteAsBrowser(bio, '😀'.repeat(BIO_MAX_LENGTH));
    expect(bio.value).toBe(`Hola ${'😀'.repeat(BIO_MAX_LENGTH - 5)}`);
  });
});
