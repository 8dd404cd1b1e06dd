import { lazy, Suspense, useEffect, useState } from 'react';
import { Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import type { Language } from '../shared/constants';
import { PAGES } from '../shared/pages';
import { ErrorBoundary } from './components/ErrorBoundary';
import { PageLoading } from './components/Loading';
import { useLanguage } from './lib/i18n';
import { Landing } from './pages/Landing';
import { Login } from './pages/Login';

// The landing page ships alone; everything else is fetched when its route is first opened.
const Register = lazy(() => import('./pages/Register').then((module) => ({ default: module.Register })));
const Privacy = lazy(() => import('./pages/Privacy').then((module) => ({ default: module.Privacy })));
/**
 * The app's copy, fetched beside AppRoot's chunk: AppRoot shows nothing without it, and would ask for
 * it only once its own chunk had come and run (client/lib/messages-app.ts, whose import then finds it).
 */
const appCopy: Record<Language, () => Promise<unknown>> = {
  en: () => import('../shared/i18n/en-app'),
  es: () => import('../shared/i18n/es-app'),
};
const AppRoot = lazy(() => {
  // A load that fails fails again where messages-app.ts imports it, and is shown from there.
  appCopy[useLanguage.getState().language]().catch(() => undefined);
  return import('./pages/app/AppRoot').then((module) => ({ default: module.AppRoot }));
});
const Logout = lazy(() => import('./pages/Logout').then((module) => ({ default: module.Logout })));
const EventPage = lazy(() => import('./pages/events/EventPage').then((module) => ({ default: module.EventPage })));
const AccountLinks = lazy(() => import('./pages/AccountLinks').then((module) => ({ default: module.AccountLinks })));
const NotFound = lazy(() => import('./pages/NotFound').then((module) => ({ default: module.NotFound })));
const Toaster = lazy(() => import('./components/Toaster').then((module) => ({ default: module.Toaster })));

/**
 * Toasts are mounted once the visitor leaves the landing page, when the browser is idle, so the
 * toast library's styles and render never compete with the first paint of a page.
 */
function useToasterNeeded(location: string) {
  const [needed, setNeeded] = useState(false);
  useEffect(() => {
    if (needed || location === '/') return;
    const idle = window.requestIdleCallback ?? ((callback: () => void) => window.setTimeout(callback, 200));
    const cancel = window.cancelIdleCallback ?? window.clearTimeout;
    const handle = idle(() => setNeeded(true), { timeout: 1500 });
    return () => cancel(handle);
  }, [location, needed]);
  return needed;
}

function SubscribeAlias() {
  const search = useSearch();
  return <Redirect to={`/app/subscribe/${search ? `?${search}` : ''}`} replace />;
}

export function App() {
  const [location] = useLocation();
  const toaster = useToasterNeeded(location);

  useEffect(() => {
    if (!window.location.hash) window.scrollTo(0, 0);
  }, [location]);

  return (
    <ErrorBoundary>
      <Suspense fallback={<PageLoading />}>
        <Switch>
          <Route path={PAGES.landing} component={Landing} />
          <Route path={PAGES.login} component={Login} />
          <Route path={PAGES.register} component={Register} />
          <Route path={PAGES.privacy} component={Privacy} />
          <Route path={PAGES.accountLinks} component={AccountLinks} />
          <Route path={PAGES.logout} component={Logout} />
          <Route path={PAGES.subscribe} component={SubscribeAlias} />
          <Route path={PAGES.app} component={AppRoot} />
          <Route path={PAGES.event}>{(params) => <EventPage key={params.code} code={params.code ?? ""} />}</Route>
          <Route>
            <NotFound />
          </Route>
        </Switch>
      </Suspense>
      {toaster && (
        <Suspense fallback={null}>
          <Toaster />
        </Suspense>
      )}
    </ErrorBoundary>
  );
}
