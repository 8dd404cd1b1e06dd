/**
 * Settings' password change. It ends every session, this tab's token too, and answers the next. That
 * answer may never come though the change was made (lost on the way back, or given up on, `api.ts`):
 * the tab would hold an ended token, and its socket, dropped by the change, would come back refused.
 * So while the change is on its way, a refusal of the token waits for it; and when no answer came, or
 * the token was ended already (by this same change, sent before and its answer lost), the login with
 * the new password says whether it was made: if so, the tab carries on with that session, as with the
 * answer's. A login, limits and all: it opens nothing the password would not open anyway.
 */
import type { ChangePasswordInput } from '../../shared/schemas/account';
import { type ApiError, api, mayPass, refusedByServer } from './api';
import { accountApi } from './api-account';
import { askBeforeSignOut, useSession } from '../stores/session';

/** Made, or maybe: no answer, the server's own error (after its commit, perhaps), or the token gone. */
const mayBeMade = (error: unknown) => !refusedByServer(error) || (error as ApiError).status === 401;

/** Resolves once the tab holds a session of the new password: the change's, or a login's when the change's answer was lost. */
export async function changePassword(input: ChangePasswordInput, email: string): Promise<void> {
  const owner = useSession.getState().token;
  const renewed = ({ token }: { token: string }) => {
    askBeforeSignOut(null);
    if (useSession.getState().token === owner) useSession.getState().replaceToken(token);
  };
  // One login at a time, for the change's own failure and the refusals meanwhile alike.
  let login: Promise<void> | null = null;
  const relogin = () => (login ??= api.login(email, input.password).then(renewed).finally(() => (login = null)));
  const change = accountApi.changePassword(input).then(renewed);
  // Until it is known: a login refused says the change was not made, one unanswered that it may be.
  askBeforeSignOut(() => change.then(() => true, (error) => mayBeMade(error) && relogin().then(() => true, mayPass)));
  try {
    await change;
  } catch (error) {
    if (!mayBeMade(error)) {
      askBeforeSignOut(null);
      throw error;
    }
    // Asked again at a refusal even when this login is refused: a change the server is still on (its
    // answer given up on) may yet be made.
    await relogin().catch(() => Promise.reject(error));
  }
}
