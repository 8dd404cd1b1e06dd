import { Redirect, Route, Switch } from 'wouter';
import '../../../lib/messages-moderation';
import '../../../lib/messages-safety';
import '../../../moderation.css';
import { Queue } from './Queue';
import { ReportView } from './ReportView';

/** /app/moderation/: the report queue and one report (SAFETY.md, "Moderation"); AppRoot lets moderators in only. */
export function Moderation() {
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
