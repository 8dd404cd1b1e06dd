/// <reference lib="webworker" />
/**
 * The service worker: the app opens with no network (a basement club, a phone in flight mode since the
 * last party), and a page opened with none finds every script it may load later.
 *
 * - Every file of the build (the page, scripts, styles, icons) is stored at install, named by its
 *   hash in the list the build writes into this file. A new build's worker stores the new files,
 *   takes over at once and drops the old ones.
 * - A page is asked of the network first, so an online phone always gets the newest build; with no
 *   network, no answer within NAVIGATION_TIMEOUT_S, or a server error instead of the page, the stored
 *   app page opens instead.
 * - The API, the photos and the socket never pass through here: what the app shows of them is always
 *   the server's (the app itself says when it cannot reach it).
 */
import { cleanupOutdatedCaches, PrecacheFallbackPlugin, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { NetworkOnly } from 'workbox-strategies';
import type { WorkboxPlugin } from 'workbox-core/types';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<string | { url: string; revision: string | null }> };

/** How long a page waits for the network before the stored one opens. */
const NAVIGATION_TIMEOUT_S = 4;

/** What the server answers itself, never with the app's page (server/plugins/client.ts); matched on path and query. */
const SERVER_PATHS = [/^\/(api|media|socket\.io|assets)\//, /^\/(healthz|readyz)(\?|$)/, /^[^?]*\/[^/?]*\.[a-z0-9]+(\?|$)/i];

/**
 * Chromium's static routing: requests for these never wake the worker at all (no start-up on every
 * API call). Browsers without it run the fetch handler, which lets them through untouched.
 */
const NETWORK_ONLY_PATTERNS = ['/api/*', '/media/*', '/socket.io/*'];

/**
 * A page answered with a server error counts as not answered: an instance closing for a new version
 * answers every request 503 (in the API's JSON), a proxy with no instance up 502, and a phone opening
 * the app at that moment would show that instead of the app, which says itself when the server is back.
 */
const serverErrorAsNoAnswer: WorkboxPlugin = {
  fetchDidSucceed: async ({ response }) => {
    if (response.status >= 500) throw new Error(`The page was answered ${response.status}`);
    return response;
  },
};

interface StaticRoutingInstallEvent extends ExtendableEvent {
  addRoutes?: (rules: Array<{ condition: { urlPattern: string }; source: 'network' }>) => Promise<void>;
}

self.addEventListener('install', (event: StaticRoutingInstallEvent) => {
  if (event.addRoutes) {
    event.waitUntil(event.addRoutes(NETWORK_ONLY_PATTERNS.map((urlPattern) => ({ condition: { urlPattern }, source: 'network' as const }))));
  }
  void self.skipWaiting();
});
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// The stored files answer for their own addresses only: by default `/` would be answered with the stored
// `/index.html`, and an online phone opening the landing page would run the build it stored, not the newest.
precacheAndRoute(self.__WB_MANIFEST, { directoryIndex: '' });
cleanupOutdatedCaches();

registerRoute(
  new NavigationRoute(new NetworkOnly({ networkTimeoutSeconds: NAVIGATION_TIMEOUT_S, plugins: [serverErrorAsNoAnswer, new PrecacheFallbackPlugin({ fallbackURL: '/index.html' })] }), {
    denylist: SERVER_PATHS,
  }),
);
