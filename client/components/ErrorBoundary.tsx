import { Component, type ReactNode } from 'react';
import { t } from '../lib/i18n';
import { reloadWhenServerAnswers } from '../lib/new-build';
import { PageLoading } from './Loading';

/** A script (or its style sheet) of the build that could not be loaded: Chromium's, Firefox's, Safari's and Vite's words for it. */
const MISSING_SCRIPT = /dynamically imported module|Importing a module script failed|Unable to preload/i;
const isMissingScript = (error: unknown) => error instanceof Error && MISSING_SCRIPT.test(error.message);

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
  private asking?: ReturnType<typeof reloadWhenServerAnswers>;

  static getDerivedStateFromError(error: unknown): { screen: Screen } {
    if (!isMissingScript(error)) return { screen: 'failed' };
    // A phone that knows it is offline is said so at once, not after the server fails to answer.
    return { screen: navigator.onLine ? 'checking' : 'offline' };
  }

  override componentDidCatch(error: unknown) {
    console.error('The page failed to render', error);
    // Reloads once the server answers (a script that did not load is then gone); until then "no
    // connection", asked again when the phone is back online and every few seconds meanwhile.
    if (isMissingScript(error)) this.asking ??= reloadWhenServerAnswers((answered) => this.setState({ screen: answered ? 'failed' : 'offline' }));
  }

  override componentWillUnmount() {
    this.asking?.stop();
  }

  check = () => void this.asking?.check();

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
