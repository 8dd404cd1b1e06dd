// @vitest-environment jsdom
/**
 * Settings → Appearance: the theme chosen on this device, stored for index.html's script (which reads
 * localStorage "theme" before the first paint and again on `themechange`). Automatic stores nothing.
 * A sign-in or sign-out keeps it, as it keeps the language.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { initLanguage } from '../../client/lib/i18n';
import { clearStorage } from '../../client/lib/storage';
import { Settings } from '../../client/pages/app/Settings';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

const option = (key: 'system' | 'light' | 'dark') => screen.getByRole('button', { name: es[`settings.appearance.${key}`] });
const pressed = () => (['system', 'light', 'dark'] as const).filter((key) => option(key).getAttribute('aria-pressed') === 'true');

let changes = 0;
const counted = () => {
  changes += 1;
};

beforeEach(async () => {
  localStorage.clear();
  changes = 0;
  window.addEventListener('themechange', counted);
  useSession.setState({ user: currentUser() });
  await initLanguage();
});
afterEach(() => {
  cleanup();
  window.removeEventListener('themechange', counted);
  useSession.setState({ user: null });
});

async function showSettings() {
  render(
    <Suspense fallback={null}>
      <Settings />
    </Suspense>,
  );
  await screen.findByRole('heading', { name: es['settings.appearance.title'] });
}

describe('Settings → Appearance', () => {
  it('follows the phone until told otherwise', async () => {
    await showSettings();
    expect(pressed()).toEqual(['system']);
  });

  it('stores a choice for the page’s script and tells it at once; Automatic stores nothing', async () => {
    await showSettings();
    fireEvent.click(option('dark'));
    expect([localStorage.getItem('theme'), changes, pressed()]).toEqual(['dark', 1, ['dark']]);
    fireEvent.click(option('light'));
    expect([localStorage.getItem('theme'), changes, pressed()]).toEqual(['light', 2, ['light']]);
    fireEvent.click(option('system'));
    expect([localStorage.getItem('theme'), changes, pressed()]).toEqual([null, 3, ['system']]);
  });

  it('shows the choice stored before', async () => {
    localStorage.setItem('theme', 'dark');
    await showSettings();
    expect(pressed()).toEqual(['dark']);
  });
});

describe('clearing the session’s storage', () => {
  it('keeps the theme and the language, and nothing else', () => {
    localStorage.setItem('theme', 'dark');
    localStorage.setItem('language_code', 'en');
    localStorage.setItem('auth_token', 'token');
    localStorage.setItem('cache:deck', '[]');
    clearStorage();
    expect(Object.fromEntries(Object.keys(localStorage).map((key) => [key, localStorage.getItem(key)]))).toEqual({
      theme: 'dark',
      language_code: 'en',
    });
  });
});
