// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LANGUAGE } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { LanguageSwitcher } from '../../client/components/LanguageSwitcher';
import { initLanguage, t, useLanguage } from '../../client/lib/i18n';
import { clearStorage, setToken } from '../../client/lib/storage';
import { Landing } from '../../client/pages/Landing';

beforeEach(() => {
  localStorage.clear();
  document.documentElement.lang = '';
});
afterEach(cleanup);

describe('language', () => {
  it('is Spanish when nothing is stored, and <html lang> says so', () => {
    expect(DEFAULT_LANGUAGE).toBe('es');
    initLanguage();
    expect(useLanguage.getState().language).toBe('es');
    expect(document.documentElement.lang).toBe('es');
    expect(t('login.title')).toBe(es['login.title']);
  });

  it('falls back to Spanish for an unknown stored value', () => {
    localStorage.setItem('language_code', 'fr');
    initLanguage();
    expect(useLanguage.getState().language).toBe('es');
  });

  it('uses the stored choice', () => {
    localStorage.setItem('language_code', 'en');
    initLanguage();
    expect(useLanguage.getState().language).toBe('en');
    expect(document.documentElement.lang).toBe('en');
    expect(t('login.title')).toBe('Log in to your account');
  });

  it('switching stores localStorage.language_code, updates <html lang> and re-renders the page', () => {
    initLanguage();
    render(<Landing />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(es['landing.hero.title']);
    fireEvent.click(screen.getAllByRole('button', { name: 'English' })[0]!);
    expect(localStorage.getItem('language_code')).toBe('en');
    expect(document.documentElement.lang).toBe('en');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(en['landing.hero.title']);
    expect(screen.getAllByRole('button', { name: 'English' })[0]!.getAttribute('aria-pressed')).toBe('true');
  });

  it('survives logout, which clears the rest of local storage', () => {
    initLanguage();
    render(<LanguageSwitcher />);
    act(() => fireEvent.click(screen.getByRole('button', { name: 'English' })));
    setToken('secret');
    clearStorage();
    expect(localStorage.getItem('auth_token')).toBeNull();
    expect(localStorage.getItem('language_code')).toBe('en');
  });

  it('has every English key translated into Spanish, with the same placeholders', () => {
    for (const key of Object.keys(en) as Array<keyof typeof en>) {
      expect(es[key], key).toBeTruthy();
      const holes = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
      expect(holes(es[key]), key).toEqual(holes(en[key]));
    }
  });

  it('keeps the spec copy word for word in English, with its typo fixed', () => {
    expect(en['deck.loading']).toBe('Loading profiles...');
    expect(en['deck.empty']).toBe('No more profiles found. Try changing your preferences or come back later.');
    expect(en['deck.match.title']).toBe('You like each other!');
    expect(en['matches.search']).toBe('Search matches and conversations...');
    expect(en['matches.noConversations']).toBe('You have no conversations yet');
    expect(en['register.success']).toBe('Your registration was processed correctly. You may now log in.');
    expect(en['profile.photos']).toBe('Photos (Max 6)');
    expect(en['subscribe.perMonthAnnually']).toBe('month (paid annually)');
  });
});
