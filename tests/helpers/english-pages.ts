/**
 * jsdom tests of the public pages in English: `fetch` answered by `answer` (by default `{}`, the Google
 * button's configuration), and the page put back after each test (rendered tree, stubs, storage,
 * address).
 */
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { initLanguage } from '../../client/lib/i18n';

export function inEnglishPages(answer: (url: string) => Response = () => Response.json({})) {
  beforeEach(async () => {
    vi.stubGlobal('fetch', vi.fn(async (url: string) => answer(String(url))));
    localStorage.setItem('language_code', 'en');
    await initLanguage();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    localStorage.clear();
    window.history.replaceState(null, '', '/');
  });
}
