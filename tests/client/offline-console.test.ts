// @vitest-environment jsdom
/**
 * A phone offline is expected: the app's calls that fail for it say so on screen, not as errors in
 * the console (a reload offline logged ~40). A call with no answer while online, or the server's own
 * error, is still logged. fetch is faked; `navigator.onLine` says whether the phone is offline.
 */
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { usePlan } from '../../client/stores/plan';
import { useConfig } from '../../client/stores/config';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { stubFetchOffline } from '../helpers/no-network';

const online = (value: boolean) => vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(value);

/** The loads a reload of the app makes, from the session store, the config's and the plan's. */
async function loadAll() {
  await useSession.getState().loadUser();
  await useConfig.getState().load();
  await usePlan.getState().loadAllowance();
  await usePlan.getState().loadSubscription();
}

let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  useSession.setState({ token: 'token', user: currentUser() });
  errors = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  usePlan.getState().reset();
  useSession.setState({ token: null, user: undefined });
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('a load that fails', () => {
  it('logs nothing while the phone is offline', async () => {
    online(false);
    stubFetchOffline();
    await loadAll();
    expect(errors).not.toHaveBeenCalled();
  });

  it('logs a call with no answer while the phone is online', async () => {
    online(true);
    stubFetchOffline();
    await loadAll();
    expect(errors.mock.calls.map((call) => call[0])).toEqual([
      'Could not load the current user',
      'Could not load the client config',
      'Could not load the likes left',
      'Could not load the subscription',
    ]);
  });

  it('logs the server’s own error', async () => {
    online(true);
    vi.stubGlobal('fetch', vi.fn(async () => Response.json({ detail: 'Internal server error.' }, { status: 500 })));
    await usePlan.getState().loadSubscription();
    expect(errors).toHaveBeenCalledWith('Could not load the subscription', expect.anything());
  });
});
