// @vitest-environment jsdom
/**
 * A page whose script cannot load (pages are fetched when first opened): the server is asked
 * (`/healthz`). No answer is a network that is down: "No connection" and Try again, and again by
 * itself when the phone is back online and every few seconds meanwhile (a server restarting for a new
 * version: a phone online all along hears no `online` event); the page reloads only once the server
 * answers (a reload with no network shows the browser's own error). An answer is a new build whose
 * old scripts are gone: a reload at once. fetch is faked (an answer, or none); a reload shows as the
 * mark it leaves in session storage, as jsdom cannot navigate.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { lazy, Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { ErrorBoundary } from '../../client/components/ErrorBoundary';
import { LanguageSwitcher } from '../../client/components/LanguageSwitcher';
import { initLanguage, loadMessages } from '../../client/lib/i18n';
import { noNetwork } from '../helpers/no-network';

const RELOADED_KEY = 'reloaded_for_new_build_at';
const reloaded = () => window.sessionStorage.getItem(RELOADED_KEY) !== null;
const fetch = vi.fn<typeof globalThis.fetch>();
const answers = () => fetch.mockImplementation(async () => Response.json({ status: 'ok' }));

/** A page whose script fails to load, as Chromium says it. */
function openPageWithNoScript() {
  const Page = lazy(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/app-more-x.js')));
  render(
    <ErrorBoundary>
      <Suspense fallback={null}>
        <Page />
      </Suspense>
    </ErrorBoundary>,
  );
}

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  vi.stubGlobal('fetch', fetch);
  vi.spyOn(console, 'error').mockImplementation(() => {});
  window.sessionStorage.clear();
});
afterEach(() => {
  cleanup();
  fetch.mockReset();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('a page whose script does not load', () => {
  it('says "No connection" when the server does not answer, and reloads only once it does', async () => {
    fetch.mockImplementation(noNetwork);
    openPageWithNoScript();
    await screen.findByRole('heading', { name: en['error.network'] });
    expect(fetch).toHaveBeenCalledWith('/healthz', expect.objectContaining({ signal: expect.any(AbortSignal) }));
    expect(reloaded()).toBe(false);

    // Tried again by hand, still no answer: it stays, no reload.
    fireEvent.click(screen.getByRole('button', { name: en['error.retry'] }));
    await act(async () => {});
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(screen.getByRole('heading', { name: en['error.network'] })).toBeTruthy();
    expect(reloaded()).toBe(false);

    // Back online, the server answers: the page reloads by itself.
    answers();
    await act(async () => window.dispatchEvent(new Event('online')));
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(reloaded()).toBe(true);
  });

  it('says "No connection" at once when the phone knows it is offline, before the server is asked', async () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    // The server's answer never comes: what is on screen cannot be waiting for it.
    fetch.mockImplementation(() => new Promise(() => {}));
    openPageWithNoScript();
    expect(await screen.findByRole('heading', { name: en['error.network'] })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: en['error.generic'] })).toBeNull();
    expect(screen.getByRole('button', { name: en['error.retry'] })).toBeTruthy();
    expect(reloaded()).toBe(false);
  });

  it('stays a page loading while the server is asked, not an error yet', async () => {
    let answer!: (response: Response) => void;
    fetch.mockImplementation(() => new Promise((resolve) => (answer = resolve)));
    openPageWithNoScript();
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledOnce());
    expect(screen.getByRole('status').textContent).toBe(en['app.loading']);
    expect(screen.queryByRole('alert')).toBeNull();

    // The server answers when the page has reloaded for the new build already: it says so, with Reload.
    window.sessionStorage.setItem(RELOADED_KEY, String(Date.now()));
    await act(async () => answer(Response.json({ status: 'ok' })));
    expect(screen.getByRole('heading', { name: en['error.generic'] })).toBeTruthy();
    expect(screen.getByRole('button', { name: en['error.reload'] })).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('asks the server again by itself while the phone stays online, and reloads once it is back (a restart)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      fetch.mockImplementation(noNetwork);
      openPageWithNoScript();
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(screen.getByRole('heading', { name: en['error.network'] })).toBeTruthy();
      expect(fetch).toHaveBeenCalledOnce();

      // Still down a while later: asked again, still "No connection", no reload.
      await act(() => vi.advanceTimersByTimeAsync(5000));
      expect(fetch).toHaveBeenCalledTimes(2);
      expect(screen.getByRole('heading', { name: en['error.network'] })).toBeTruthy();
      // A tap on Try again meanwhile does not start a second round of asking.
      fireEvent.click(screen.getByRole('button', { name: en['error.retry'] }));
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(fetch).toHaveBeenCalledTimes(3);
      await act(() => vi.advanceTimersByTimeAsync(5000));
      expect(fetch).toHaveBeenCalledTimes(4);
      expect(reloaded()).toBe(false);

      // The server is back (the phone never went offline, so no `online` event): the page reloads.
      answers();
      await act(() => vi.advanceTimersByTimeAsync(5000));
      expect(reloaded()).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts a server that does not answer within 4 s as no connection', async () => {
    fetch.mockImplementation(
      (_url, init) => new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason))),
    );
    openPageWithNoScript();
    expect(await screen.findByRole('heading', { name: en['error.network'] }, { timeout: 6000 })).toBeTruthy();
    expect(reloaded()).toBe(false);
  });

  it('reloads at once when the server answers: a new build is out', async () => {
    answers();
    openPageWithNoScript();
    await vi.waitFor(() => expect(reloaded()).toBe(true));
    // Until the page goes, it is still loading.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('status').textContent).toBe(en['app.loading']);
  });

  it('reloads into the new build when a switch of language finds the copy it needs gone', async () => {
    answers();
    // A part of the copy the page uses, whose Spanish chunk went out with the old build.
    loadMessages({
      en: async () => ({}),
      es: () => Promise.reject(new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/es-app-x.js')),
    });
    render(
      <ErrorBoundary>
        <LanguageSwitcher />
      </ErrorBoundary>,
    );
    fireEvent.click(screen.getByRole('button', { name: /^ES,/ }));
    // The choice is kept for the page the reload brings.
    expect(localStorage.getItem('language_code')).toBe('es');
    await vi.waitFor(() => expect(reloaded()).toBe(true));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('reloads into the new build when following another tab’s switch of language finds the copy gone', async () => {
    await import('../../client/stores/device');
    // A part of the copy this old tab uses, whose Spanish chunk went out with its build.
    loadMessages({
      en: async () => ({}),
      es: () => Promise.reject(new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/es-events-x.js')),
    });
    // The server restarting for the new version: no answer yet, the tab stays as it is.
    fetch.mockImplementation(noNetwork);
    localStorage.setItem('language_code', 'es');
    window.dispatchEvent(new StorageEvent('storage', { key: 'language_code', newValue: 'es', storageArea: localStorage }));
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledWith('/healthz', expect.anything()));
    await act(async () => {});
    expect(reloaded()).toBe(false);

    // It answers: the tab reloads into the new build, in the language the other tab chose.
    answers();
    await act(async () => window.dispatchEvent(new Event('online')));
    await vi.waitFor(() => expect(reloaded()).toBe(true));
    expect(localStorage.getItem('language_code')).toBe('es');
  });

  it('is not reloaded blindly when a preload of a page fails', async () => {
    await import('../../client/App');
    const event = new Event('vite:preloadError', { cancelable: true });
    window.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(false);
    expect(reloaded()).toBe(false);
  });
});
