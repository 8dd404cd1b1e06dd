import type { CurrentUser } from '../../shared/schemas/users';
import { readCache, writeCache } from '../lib/device-cache';
import { showLanguage, useLanguage } from '../lib/i18n';
import { reloadWhenServerAnswers } from '../lib/new-build';
import { ACCOUNT_LANGUAGE_KEY, getStoredLanguage, getToken, LANGUAGE_KEY } from '../lib/storage';
import { keepUserWith, useSession } from './session';

/**
 * What only the signed-in app needs of the device beside the session (the landing page has the
 * session store, and none of this).
 *
 * The user is kept with the token it was loaded with: another tab may have signed in as someone else
 * since, and its user is not this session's.
 */
interface KeptUser {
  token: string;
  user: CurrentUser;
}
function keep(token: string, user: CurrentUser) {
  if (token === getToken()) writeCache('user', { token, user } satisfies KeptUser);
}
keepUserWith({
  keep,
  kept(token) {
    const kept = readCache<KeptUser>('user');
    return kept?.token === token ? kept.user : null;
  },
});
// Read before this loaded, by a page outside the app (the e-mail link's, verified there): kept now, or
// the next opening would show the user as they were (the banner asking to verify, until the answer).
const { token, user, fromDevice } = useSession.getState();
if (token && user && !fromDevice) keep(token, user);

// Another tab switched the language (Settings, the top bar), or read the account's: this one speaks it
// too, as it follows the theme (index.html). A copy this older tab cannot load went out with its build (the other tab
// runs a newer one): it reloads into the new build, in that language, once the server answers, as a
// switch made here does (components/ErrorBoundary.tsx), keeping its own language until then.
window.addEventListener('storage', (event) => {
  if (event.storageArea !== window.localStorage || (event.key !== LANGUAGE_KEY && event.key !== ACCOUNT_LANGUAGE_KEY)) return;
  const language = getStoredLanguage();
  if (language !== useLanguage.getState().language) showLanguage(language).catch(() => reloadWhenServerAnswers());
});
