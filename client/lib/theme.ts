import { readStorage, THEME_KEY } from './storage';

/**
 * The theme chosen on this device: the phone's own setting (`system`), light or dark. Applied by
 * index.html's script, before the first paint and on `themechange` (and in other tabs, on `storage`).
 */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

export function storedTheme(): Theme {
  const stored = readStorage(THEME_KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

export function chooseTheme(theme: Theme) {
  if (theme === 'system') window.localStorage.removeItem(THEME_KEY);
  else window.localStorage.setItem(THEME_KEY, theme);
  window.dispatchEvent(new Event('themechange'));
}
