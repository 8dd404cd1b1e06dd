import { useEffect, useReducer } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { moderationMessages } from '../../../lib/messages-moderation';
import { safetyMessages } from '../../../lib/messages-safety';
import '../../../moderation.css';
import { Queue } from './Queue';
import { ReportView } from './ReportView';
import { useMessages } from '../../../lib/i18n';

/** How often the queue and a report render again: their "5 minutes ago" is at most this late. */
const AGE_TICK_MS = 10_000;

/** /app/moderation/: the report queue and one report; AppRoot lets moderators in only. */
export function Moderation() {
  useMessages(moderationMessages);
  useMessages(safetyMessages);
  // The page under it renders again with this: how long ago a report was made moves while a moderator
  // keeps the page open, not only when something else renders it.
  const [, tick] = useReducer((ticks: number) => ticks + 1, 0);
  useEffect(() => {
    const timer = setInterval(tick, AGE_TICK_MS);
    return () => clearInterval(timer);
  }, []);
  return (
    <Switch>
      <Route path={/^\/app\/moderation\/?$/} component={Queue} />
      <Route path={/^\/app\/moderation\/reports\/(?<id>\d+)\/?$/}>{(params) => <ReportView key={params.id} id={Number(params.id)} />}</Route>
      <Route>
        <Redirect to="/app/moderation/" replace />
      </Route>
    </Switch>
  );
}
