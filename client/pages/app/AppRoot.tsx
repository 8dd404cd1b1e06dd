import { lazy, Suspense, useEffect } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { AppShell } from '../../components/AppShell';
import { Loading } from '../../components/Loading';
import { trackOnce } from '../../lib/analytics';
import { allowedWithIncompleteProfile, gateAppRoute } from '../../lib/gating';
import { useConversations } from '../../stores/conversations';
import { startRealtime } from '../../stores/realtime';
import { useSession } from '../../stores/session';
import { Chat } from './Chat';
import { Home } from './Home';
import { Matches } from './Matches';
import { ProfileView } from './ProfileView';
import { Subscribe, TestPortal } from './Subscribe';
import { TestCheckout } from './TestCheckout';
import '../../app.css';
import '../../lib/messages-app';

// The date picker and slider are only needed on the edit page.
const EditProfile = lazy(() => import('./EditProfile').then((module) => ({ default: module.EditProfile })));
const Settings = lazy(() => import('./Settings').then((module) => ({ default: module.Settings })));
const Admin = lazy(() => import('./Admin').then((module) => ({ default: module.Admin })));
// "Likes you" is fetched when first opened.
const Likes = lazy(() => import('./Likes').then((module) => ({ default: module.Likes })));
const Blocked = lazy(() => import('./Blocked').then((module) => ({ default: module.Blocked })));
// Moderators only: nobody else downloads the queue, its store or its copy.
const Moderation = lazy(() => import('./moderation/Moderation').then((module) => ({ default: module.Moderation })));

/** Everything under /app/: a token, then (once known) a completed profile, then the page. */
export function AppRoot() {
  const [location] = useLocation();
  const token = useSession((state) => state.token);
  const user = useSession((state) => state.user);
  const loadUser = useSession((state) => state.loadUser);

  useEffect(() => {
    if (token && user === undefined) void loadUser();
  }, [token, user, loadUser]);
  useEffect(() => {
    if (!token) return;
    startRealtime(token);
    trackOnce('app_opened');
  }, [token]);
  // The notice of a chat that ended belongs to the list it led back to; it goes once the user moves on.
  useEffect(() => {
    if (!/^\/app\/matches\/?$/.test(location)) useConversations.getState().dismissEndedNotice();
  }, [location]);

  const redirect = gateAppRoute(location, token, user);
  if (redirect) return <Redirect to={redirect} replace />;
  // Until the user is known, only the pages an incomplete profile may see are safe to show.
  const waiting = user === undefined && !allowedWithIncompleteProfile(location);

  return (
    <AppShell>
      {waiting ? (
        <Loading />
      ) : (
        <Suspense fallback={<Loading />}>
          <Switch>
            <Route path={/^\/app\/home\/?$/} component={Home} />
            <Route path={/^\/app\/matches\/?$/} component={Matches} />
            <Route path={/^\/app\/likes\/?$/} component={Likes} />
            <Route path={/^\/app\/chat\/(?<id>\d+)\/?$/}>{(params) => <Chat key={params.id} id={Number(params.id)} />}</Route>
            <Route path={/^\/app\/profiles\/(?<id>\d+)\/?$/}>{(params) => <ProfileView key={params.id} id={Number(params.id)} />}</Route>
            <Route path={/^\/app\/profile\/?$/} component={EditProfile} />
            <Route path={/^\/app\/subscribe\/?$/} component={Subscribe} />
            <Route path={/^\/app\/settings\/?$/} component={Settings} />
            <Route path={/^\/app\/admin\/?$/} component={Admin} />
            <Route path={/^\/app\/subscribe\/test-checkout\/(?<id>cs_local_[\w-]+)\/?$/}>
              {(params) => <TestCheckout key={params.id} id={params.id!} />}
            </Route>
            <Route path={/^\/app\/subscribe\/test-portal\/?$/} component={TestPortal} />
            <Route path={/^\/app\/settings\/blocked\/?$/} component={Blocked} />
            <Route path={/^\/app\/moderation(\/.*)?$/}>{() => (user?.is_moderator ? <Moderation /> : <Redirect to="/app/home/" replace />)}</Route>
            <Route>
              <Redirect to="/app/home/" replace />
            </Route>
          </Switch>
        </Suspense>
      )}
    </AppShell>
  );
}
