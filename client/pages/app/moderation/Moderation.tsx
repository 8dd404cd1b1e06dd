import { Redirect, Route, Switch } from 'wouter';
import { moderationMessages } from '../../../lib/messages-moderation';
import { safetyMessages } from '../../../lib/messages-safety';
import '../../../moderation.css';
import { Queue } from './Queue';
import { ReportView } from './ReportView';
import { useMessages } from '../../../lib/i18n';

/** /app/moderation/: the report queue and one report; AppRoot lets moderators in only. */
export function Moderation() {
  useMessages(moderationMessages);
  useMessages(safetyMessages);
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
