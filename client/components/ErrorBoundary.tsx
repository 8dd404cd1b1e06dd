import { Component, type ReactNode } from 'react';
import { serverAnswers } from '../lib/api';
import { t } from '../lib/i18n';
import { PageLoading } from './Loading';

/** When the page last reloaded itself for a missing script (session storage): once, not in a loop. */
const RELOADED_KEY = 'reloaded_for_new_build_at';
const RELOAD_AGAIN_AFTER_MS = 30_000;
/**
 * While the server does not answer, it is asked again this often: a phone that stayed online through
 * a restart of the server (a new version going out) hears no `online` event to try again by.
 */
const ASK_AGAIN_MS = 5000;

/** A script (or its style sheet) of the build that could not be loaded: Chromium's, Firefox's, Safari's and Vite's words for it. */
const MISSING_SCRIPT = /dynamically imported module|Importing a module script failed|Unable to preload/i;
const isMissingScript = (error: unknown) => error instanceof Error && MISSING_SCRIPT.test(error.message);

/**
 * Reloads the page, once: a new version went out while this page was open, and the old one's scripts
 * are no longer on the server. With no network a reload would only show the browser's own error.
 */
function reloadForNewBuild(): boolean {
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

/** What is on screen: the page, or in its place the server being asked, "no connection", or an error. */
type Screen = 'page' | 'checking' | 'offline' | 'failed';

/**
 * What an error while showing a page leaves on screen: never a blank page. A script of the build that
 * did not load reloads the page once if the server answers (a new version is out, the old scripts are
 * gone); if it does not, the network is down: "no connection", and a try again (by hand, when the
 * phone is back online, and by itself every few seconds) that reloads once the server answers. A
 * reload with no network would only show the browser's own error. While the server is asked the
 * page is still loading, as far as anyone can tell: nothing has gone wrong yet. Anything else says so
 * and offers a reload.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, { screen: Screen }> {
  override state: { screen: Screen } = { screen: 'page' };
  private askAgain?: ReturnType<typeof setTimeout>;

  static getDerivedStateFromError(error: unknown): { screen: Screen } {
    if (!isMissingScript(error)) return { screen: 'failed' };
    // A phone that knows it is offline is said so at once, not after the server fails to answer.
    return { screen: navigator.onLine ? 'checking' : 'offline' };
  }

  override componentDidCatch(error: unknown) {
    console.error('The page failed to render', error);
    if (isMissingScript(error)) void this.check();
  }

  override componentWillUnmount() {
    window.removeEventListener('online', this.check);
    clearTimeout(this.askAgain);
  }

  /**
   * Reloads once the server answers (a script that did not load is then gone); until then "no
   * connection", asked again when the phone is back online and every ASK_AGAIN_MS meanwhile.
   */
  check = async () => {
    const answers = await serverAnswers();
    // Reloading: what is on screen stays until the page goes.
    if (answers && reloadForNewBuild()) return;
    this.setState({ screen: answers ? 'failed' : 'offline' });
    if (answers) return;
    window.addEventListener('online', this.check);
    // One timer however many checks overlap (a tap on Try again while one is on its way).
    clearTimeout(this.askAgain);
    this.askAgain = setTimeout(this.check, ASK_AGAIN_MS);
  };

  override render() {
    const { screen } = this.state;
    if (screen === 'page') return this.props.children;
    if (screen === 'checking') return <PageLoading />;
    const offline = screen === 'offline';
    return (
      <main className="center-page" role="alert">
        <h1 className="page-error-title">{t(offline ? 'error.network' : 'error.generic')}</h1>
        <button type="button" className="btn btn-primary" onClick={offline ? this.check : () => window.location.reload()}>
          {t(offline ? 'error.retry' : 'error.reload')}
        </button>
      </main>
    );
  }
}
