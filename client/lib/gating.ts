/** The signed-in app's gates (only AppRoot loads this; login and register have theirs in use-auth-form.ts). */
import type { CurrentUser } from '../../shared/schemas/users';

/**
 * /app/ routes an incomplete profile may still open (its own form, others' profiles, the subscribe page
 * with its test checkout and portal), the account's own pages and the events': anyone may change their
 * password, take their data or leave without completing a profile first, an organizer needs no dating
 * profile to host a party (a code typed there waits for the profile, `waitsForProfile`), and a
 * moderator none to see the activity page.
 */
export function allowedWithIncompleteProfile(path: string): boolean {
  return (
    /^\/app\/(subscribe|profile|subscribe\/test-portal|settings|admin)\/?$/.test(path) ||
    /^\/app\/(profiles|subscribe\/test-checkout)\/[^/]+\/?$/.test(path) ||
    /^\/app\/events(\/.*)?$/.test(path)
  );
}

/**
 * Where an /app/ path must send the visitor instead, or null to show it. The user may still be
 * loading (undefined): only the token decides then.
 */
export function gateAppRoute(path: string, token: string | null, user: CurrentUser | null | undefined): string | null {
  if (!token) return '/login/';
  if (!user) return null;
  if (user.is_profile_completed === false && !allowedWithIncompleteProfile(path)) return '/app/profile/';
  return null;
}
