// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LANGUAGE } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { Suspense } from 'react';
import { LanguageSwitcher } from '../../client/components/LanguageSwitcher';
import { initLanguage, loadMessages, t, useLanguage, useMessages, useT } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { api } from '../../client/lib/api';
import { clearStorage, setToken } from '../../client/lib/storage';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { Landing } from '../../client/pages/Landing';

beforeEach(() => {
  localStorage.clear();
  document.documentElement.lang = '';
});
afterEach(cleanup);

describe('language', () => {
  it('is Spanish when nothing is stored, and <html lang> says so', async () => {
    expect(DEFAULT_LANGUAGE).toBe('es');
    await initLanguage();
    expect(useLanguage.getState().language).toBe('es');
    expect(document.documentElement.lang).toBe('es');
    expect(t('login.title')).toBe(es['login.title']);
  });

  it('follows a switch made in another tab of the app (the storage event)', async () => {
    await import('../../client/stores/device');
    await initLanguage();
    expect(useLanguage.getState().language).toBe('es');
    // What another tab's switch does here: the stored value changes, and this tab hears of it.
    localStorage.setItem('language_code', 'en');
    window.dispatchEvent(new StorageEvent('storage', { key: 'language_code', newValue: 'en', storageArea: localStorage }));
    await vi.waitFor(() => expect(document.documentElement.lang).toBe('en'));
    expect(useLanguage.getState().language).toBe('en');
    // Another key changes nothing.
    localStorage.setItem('language_code', 'es');
    window.dispatchEvent(new StorageEvent('storage', { key: 'theme', newValue: 'dark', storageArea: localStorage }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(useLanguage.getState().language).toBe('en');
  });

  it('falls back to Spanish for an unknown stored value', async () => {
    localStorage.setItem('language_code', 'fr');
    await initLanguage();
    expect(useLanguage.getState().language).toBe('es');
  });

  it('uses the stored choice', async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    expect(useLanguage.getState().language).toBe('en');
    expect(document.documentElement.lang).toBe('en');
    expect(t('login.title')).toBe('Log in to your account');
  });

  it('switching stores localStorage.language_code, updates <html lang> and re-renders the page', async () => {
    await initLanguage();
    render(<Landing />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(es['landing.hero.title']);
    await act(() => useLanguage.getState().setLanguage('en'));
    expect(localStorage.getItem('language_code')).toBe('en');
    expect(document.documentElement.lang).toBe('en');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(en['landing.hero.title']);
    expect(screen.getAllByRole('button', { name: 'EN, English' })[0]!.getAttribute('aria-pressed')).toBe('true');
  });

  it('survives logout, which clears the rest of local storage', async () => {
    await initLanguage();
    render(<LanguageSwitcher />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'EN, English' })));
    setToken('secret');
    clearStorage();
    expect(localStorage.getItem('auth_token')).toBeNull();
    expect(localStorage.getItem('language_code')).toBe('en');
  });

  it('takes the account’s language at sign-in where none was chosen on the device, and opens in it next time', async () => {
    await initLanguage();
    const me = vi.spyOn(api, 'me').mockResolvedValue(currentUser({ language: 'en' }));
    useSession.getState().signIn('token');
    await useSession.getState().loadUser();
    await vi.waitFor(() => expect(document.documentElement.lang).toBe('en'));
    expect(useLanguage.getState().language).toBe('en');
    // Not a choice of the device's: the account's next answer is followed too, and a reload opens in it.
    expect(localStorage.getItem('language_code')).toBeNull();
    await initLanguage();
    expect(useLanguage.getState().language).toBe('en');
    me.mockResolvedValue(currentUser({ language: 'es' }));
    await useSession.getState().loadUser();
    await vi.waitFor(() => expect(useLanguage.getState().language).toBe('es'));
    useSession.getState().signOut({ alreadyRevoked: true });
    me.mockRestore();
  });

  it('keeps the language chosen on the device whatever the account’s', async () => {
    localStorage.setItem('language_code', 'es');
    await initLanguage();
    const me = vi.spyOn(api, 'me').mockResolvedValue(currentUser({ language: 'en' }));
    useSession.getState().signIn('token');
    await useSession.getState().loadUser();
    await initLanguage();
    expect(useLanguage.getState().language).toBe('es');
    expect(document.documentElement.lang).toBe('es');
    useSession.getState().signOut({ alreadyRevoked: true });
    me.mockRestore();
  });

  it('goes with the account at sign-out: the next person on a shared phone gets the device’s language, not the last account’s', async () => {
    await initLanguage();
    const me = vi.spyOn(api, 'me').mockResolvedValue(currentUser({ language: 'en' }));
    useSession.getState().signIn('token');
    await useSession.getState().loadUser();
    await vi.waitFor(() => expect(useLanguage.getState().language).toBe('en'));
    // None was chosen on the phone: English came from the account only, and leaves with it, now and at the next opening.
    useSession.getState().signOut({ alreadyRevoked: true });
    await vi.waitFor(() => expect(document.documentElement.lang).toBe('es'));
    expect(useLanguage.getState().language).toBe('es');
    await initLanguage();
    expect(useLanguage.getState().language).toBe('es');
    me.mockRestore();
  });

  it('keeps the language chosen on the device through a sign-out, whatever the account’s', async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    const me = vi.spyOn(api, 'me').mockResolvedValue(currentUser({ language: 'es' }));
    useSession.getState().signIn('token');
    await useSession.getState().loadUser();
    useSession.getState().signOut({ alreadyRevoked: true });
    expect(useLanguage.getState().language).toBe('en');
    await initLanguage();
    expect(useLanguage.getState().language).toBe('en');
    me.mockRestore();
  });

  it('loads a part in the reader\'s language only, and a switch shows the new one once its copy is there', async () => {
    await initLanguage();
    const shown: string[] = [];
    function Probe() {
      useMessages(appMessages);
      const text = useT()('app.logout');
      shown.push(text);
      return <p>{text}</p>;
    }
    render(
      <Suspense fallback={<p>loading</p>}>
        <Probe />
      </Suspense>,
    );
    await screen.findByText(es['app.logout']);
    // The English part is not there until the switch asks for it; meanwhile the page stays Spanish.
    expect(t('app.logout')).toBe(es['app.logout']);
    const switching = act(() => useLanguage.getState().setLanguage('en'));
    expect(useLanguage.getState().language).toBe('es');
    await switching;
    expect(screen.getByText(en['app.logout'])).toBeTruthy();
    expect(document.documentElement.lang).toBe('en');
    // Never a key on screen, and the fallback only before the first load.
    expect(shown.every((text) => text === es['app.logout'] || text === en['app.logout'])).toBe(true);
  });

  it('fetches a part again at the next switch when its load failed, instead of failing again from memory', async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    // The Spanish copy's chunk does not come (no network, or a server restarting for a new version).
    const spanish = vi.fn((): Promise<Record<string, string>> => Promise.reject(new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/es-x.js')));
    loadMessages({ en: async () => ({}), es: spanish });
    await expect(useLanguage.getState().setLanguage('es')).rejects.toThrow(TypeError);
    expect(useLanguage.getState().language).toBe('en');

    // It comes now: the next switch asks for it again, and shows it.
    spanish.mockImplementation(async () => ({}));
    await useLanguage.getState().setLanguage('es');
    expect(spanish).toHaveBeenCalledTimes(2);
    expect(useLanguage.getState().language).toBe('es');
  });

  it('opens in Spanish when an English reader\'s copy does not come, not as a blank page, and switches once it does', async () => {
    // A module graph of its own, whose English public copy's chunk does not load (no network, or a
    // server restarting for a new version between the page and its chunks).
    vi.resetModules();
    vi.doMock('../../shared/i18n/en-public', () => {
      throw new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/en-public-x.js');
    });
    const i18n = await import('../../client/lib/i18n');
    localStorage.setItem('language_code', 'en');
    await i18n.initLanguage();
    expect(i18n.useLanguage.getState().language).toBe('es');
    expect(document.documentElement.lang).toBe('es');
    expect(i18n.t('login.title')).toBe(es['login.title']);
    // The reader's choice is kept for the next opening.
    expect(localStorage.getItem('language_code')).toBe('en');

    // The chunk comes now: a tap on EN asks for it again.
    vi.doUnmock('../../shared/i18n/en-public');
    await i18n.useLanguage.getState().setLanguage('en');
    expect(i18n.t('login.title')).toBe(en['login.title']);
    vi.resetModules();
  });

  it('has every English key translated into Spanish, with the same placeholders', () => {
    for (const key of Object.keys(en) as Array<keyof typeof en>) {
      expect(es[key], key).toBeTruthy();
      const holes = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
      expect(holes(es[key]), key).toEqual(holes(en[key]));
    }
  });

  it('keeps the English copy word for word', () => {
    expect(en['deck.loading']).toBe('Loading profiles…');
    expect(en['deck.empty']).toBe('No more profiles found. Try changing your preferences or come back later.');
    expect(en['deck.match.title']).toBe('You like each other!');
    expect(en['matches.search']).toBe('Search matches and conversations…');
    expect(en['matches.noConversations']).toBe('You have no conversations yet');
    expect(en['register.success']).toBe('Your registration was processed correctly. You may now log in.');
    expect(en['profile.photos']).toBe('Photos (Max 6)');
    expect(en['subscribe.perMonthAnnually']).toBe('month (paid annually)');
  });
});
