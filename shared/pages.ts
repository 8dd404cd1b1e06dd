/**
 * The client's pages outside the signed-in app, by the paths its router matches. The server reads the
 * same patterns: a path none of them matches is a page not found, served with a 404 (the client shows
 * its not-found page either way), so that a mistyped link is not indexed or bookmarked as a page.
 * Under `/app` the app's own router sends an unknown path to the deck.
 */
export const PAGES = {
  landing: /^\/$/,
  login: /^\/login\/?$/,
  register: /^\/register\/?$/,
  privacy: /^\/privacy\/?$/,
  accountLinks: /^\/(forgot-password|reset-password|verify-email)\/?$/,
  logout: /^\/logout\/?$/,
  subscribe: /^\/subscribe\/?$/,
  app: /^\/app(\/.*)?$/,
  event: /^\/e\/(?<code>[^/]+)\/?$/,
} as const;

/** Whether a path (without its query) is one of the client's pages. */
export function isPage(pathname: string): boolean {
  return Object.values(PAGES).some((pattern) => pattern.test(pathname));
}
