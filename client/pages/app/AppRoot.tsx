import { lazy, Suspense, useEffect } from 'react';
import { REGISTERED_TOAST, toast } from '../../lib/toast';
import { Redirect, Route, Router, Switch, useLocation } from 'wouter';
import { afterOverlays } from '../../lib/back-closes';
import { AppShell } from '../../components/AppShell';
import { Loading } from '../../components/Loading';
import { trackAppOpened } from '../../lib/analytics';
import { allowedWithIncompleteProfile, gateAppRoute } from '../../lib/gating';
import { useMessages } from '../../lib/i18n';
import { getPendingJoin, pendingJoinRefusal } from '../../lib/pending-join';
import { registerServiceWorker } from '../../lib/service-worker';
import { refreshWhenVisible } from '../../lib/when-visible';
import { joinPendingEvent, useEvents } from '../../stores/events';
import { useConversations } from '../../stores/conversations';
import { startRealtime } from '../../stores/realtime';
// The user kept on the device, and the tabs that follow one session: the signed-in app's only.
import '../../stores/device';
import { useSession } from '../../stores/session';
import { Chat } from './Chat';
import { Home } from './Home';
import { Matches } from './Matches';
import { ProfileView } from './ProfileView';
import { Subscribe, TestPortal } from './Subscribe';
import { TestCheckout } from './TestCheckout';
import '../../app.css';
import { appMessages } from '../../lib/messages-app';

// The date picker and slider are only needed on the edit page.
const EditProfile = lazy(() => import('./EditProfile').then((module) => ({ default: module.EditProfile })));
// Events: each page its own chunk; the host screen's chart is another, loaded by it.
const Events = lazy(() => import('../events/Events').then((module) => ({ default: module.Events })));
const NewEvent = lazy(() => import('../events/NewEvent').then((module) => ({ default: module.NewEvent })));
const EditEvent = lazy(() => import('../events/EditEvent').then((module) => ({ default: module.EditEvent })));
const HostScreen = lazy(() => import('../events/HostScreen').then((module) => ({ default: module.HostScreen })));

const Settings = lazy(() => import('./Settings').then((module) => ({ default: module.Settings })));
const Admin = lazy(() => import('./Admin').then((module) => ({ default: module.Admin })));
// "Likes you" is fetched when first opened.
const Likes = lazy(() => import('./Likes').then((module) => ({ default: module.Likes })));
const Blocked = lazy(() => import('./Blocked').then((module) => ({ default: module.Blocked })));
const EndedChats = lazy(() => import('./EndedChats').then((module) => ({ default: module.EndedChats })));
// Moderators only: nobody else downloads the queue, its store or its copy.
const Moderation = lazy(() => import('./moderation/Moderation').then((module) => ({ default: module.Moderation })));

/**
 * The event the visitor set out to join from its QR link or page, before signing up or in: checked
 * in as soon as the profile is complete, then straight to the event's deck.
 */
function usePendingJoin(ready: boolean) {
  const [, navigate] = useLocation();
  useEffect(() => {
    if (!ready) return;
    const join = () => {
      const pending = getPendingJoin();
      if (!pending) return;
      joinPendingEvent()
        .then((event) => {
          if (!event) return;
          // At another event: the event's page asks whether to leave it.
          if (event === 'ask') return navigate(`/e/${pending.code}`, { replace: true });
          // The deck's event bar says where they are now; the profile's "saved" would only cover it. In
          // the place of the page they were on (the deck the login led to, or the profile just
          // completed): Back then leaves the deck.
          toast.dismiss();
          navigate('/app/home/', { replace: true });
        })
        .catch((error: unknown) => toast.error(pendingJoinRefusal(error, pending.name)));
    };
    join();
    // Not answered (the network dropped): the join was kept, and goes through once the network is back.
    window.addEventListener('online', join);
    return () => window.removeEventListener('online', join);
  }, [ready, navigate]);
}

/** Everything under /app/: a token, then (once known) a completed profile, then the page. */
export function AppRoot() {
  useMessages(appMessages);
  const [location] = useLocation();
  const token = useSession((state) => state.token);
  const user = useSession((state) => state.user);
  const loadUser = useSession((state) => state.loadUser);

  useEffect(() => {
    if (token && user === undefined) void loadUser();
  }, [token, user, loadUser]);
  useEffect(() => {
    if (!token) return;
    toast.dismiss(REGISTERED_TOAST);
    startRealtime(token);
    registerServiceWorker();
  }, [token]);
  useEffect(() => {
    if (!token) return;
    trackAppOpened();
    return refreshWhenVisible(trackAppOpened);
  }, [token]);
  const completed = user?.is_profile_completed === true;
  useEffect(() => {
    if (completed) void useEvents.getState().loadCurrent();
  }, [completed]);
  usePendingJoin(completed);
  // The notice of a chat that ended belongs to the list it led back to; it goes once the user moves on.
  useEffect(() => {
    if (!/^\/app\/matches\/?$/.test(location)) useConversations.getState().dismissEndedNotice();
  }, [location]);

  const redirect = gateAppRoute(location, token, user);
  if (redirect) return <Redirect to={redirect} replace />;
  // Until the user is known, only the pages an incomplete profile may see are safe to show.
  const waiting = user === undefined && !allowedWithIncompleteProfile(location);

  // Its own router for the pages' navigations: they wait for a sheet's history entry to go (`afterOverlays`).
  return (
    <Router aroundNav={afterOverlays}>
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
              <Route path={/^\/app\/events\/?$/} component={Events} />
              <Route path={/^\/app\/events\/new\/?$/} component={NewEvent} />
              <Route path={/^\/app\/events\/(?<id>\d+)\/edit\/?$/}>{(params) => <EditEvent key={params.id} id={Number(params.id)} />}</Route>
              <Route path={/^\/app\/events\/(?<id>\d+)\/host\/?$/}>{(params) => <HostScreen key={params.id} id={Number(params.id)} />}</Route>
              <Route path={/^\/app\/settings\/?$/} component={Settings} />
              <Route path={/^\/app\/admin\/?$/} component={Admin} />
              <Route path={/^\/app\/subscribe\/test-checkout\/(?<id>cs_local_[\w-]+)\/?$/}>
                {(params) => <TestCheckout key={params.id} id={params.id!} />}
              </Route>
              <Route path={/^\/app\/subscribe\/test-portal\/?$/} component={TestPortal} />
              <Route path={/^\/app\/settings\/blocked\/?$/} component={Blocked} />
              <Route path={/^\/app\/settings\/ended\/?$/} component={EndedChats} />
              <Route path={/^\/app\/moderation(\/.*)?$/}>{() => (user?.is_moderator ? <Moderation /> : <Redirect to="/app/home/" replace />)}</Route>
              <Route>
                <Redirect to="/app/home/" replace />
              </Route>
            </Switch>
          </Suspense>
        )}
      </AppShell>
    </Router>
  );
}
