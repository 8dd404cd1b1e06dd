/**
 * Machine codes an error body may carry beside its `detail`: `{ "detail": "...", "code": "..." }`.
 * A code names a condition a client must tell apart from others with the same status (to show in its
 * own words, or to act on); the `detail` stays the server's sentence for people. The client decides
 * by status and code, never by the words. A feature adds its codes here, and the client's copy for
 * them in `client/lib/errors.ts`. (No zod here: the client's first chunk imports this list.)
 */
export const ERROR_CODES = [
  // Checkout.
  'already_subscribed',
  'payments_not_configured',
  'payments_unavailable',
  'checkout_canceled',
  'checkout_complete',
  // The paid plan.
  'subscription_required',
  'daily_likes_exhausted',
  'nothing_to_undo',
  // Events: why a check-in was refused: a QR event without proof of presence, a QR token
  // that is no longer good for a pass, check-in before the window or after the end.
  'qr_required',
  'qr_expired',
  'not_open',
  'ended',
  // Profile: saved from a version another device has changed since.
  'profile_changed',
  // Matching: a like from someone whose own profile is not complete yet.
  'profile_incomplete',
  // A banned account: refused at login, and on a session the ban ended (the phone was away then).
  'account_suspended',
  // A request signed in just before its account was deleted (from another phone), which found it gone:
  // 401, the session ended with the account. Only a token that was a real session of it is told so.
  'account_deleted',
  // The mail server did not take an e-mail the user waits for (a new verification link).
  'mail_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
