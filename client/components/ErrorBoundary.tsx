import { Component, type ReactNode } from 'react';
import { t } from '../lib/i18n';

/** When the page last reloaded itself for a missing script (session storage): once, not in a loop. */
const RELOADED_KEY = 'reloaded_for_new_build_at';
const RELOAD_AGAIN_AFTER_MS = 30_000;

/** A script of the build that could not be loaded: Chromium's, Firefox's and Safari's words for it. */
const MISSING_SCRIPT = /dynamically imported module|Importing a module script failed/i;

/**
 * Reloads the page, once: a new version went out while this page was open, and the old one's scripts
 * are no longer on the server. With no network a reload would only show the browser's own error.
 */
export function reloadForNewBuild(): boolean {
  if (!navigator.onLine) return false;
  try {
    const last = Number(window.sessionStorage.getItem(RELOADED_KEY));
    if (Date.now() - last < RELOAD_AGAIN_AFTER_MS) return false;
    window.sessionStorage.setItem(RELOADED_KEY, String(Date.now()));
  } catch {
    // No session storage (private mode): reloading could loop, so the screen below offers it instead.
    return false;
  }
  window.location.reload();
  return true;
}

/**
 * What an error while showing a page leaves on screen: never a blank page. A missing script of the
 * build reloads the page once; anything else says so and offers a reload.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.error('The page failed to render', error);
    if (error instanceof Error && MISSING_SCRIPT.test(error.message)) reloadForNewBuild();
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <main className="center-page" role="alert">
        <h1 className="page-error-title">{t('error.generic')}</h1>
        <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
          {t('error.reload')}
        </button>
      </main>
    );
  }
}
