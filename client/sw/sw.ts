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
 * - The smaller copies of photos (`/media/<key>?size=`: avatars, the likes' cards) are asked of the
 *   network first too, and each one that comes is stored (`PHOTO_CACHE`), the latest MAX_PHOTOS_KEPT:
 *   the browser keeps a photo an hour at most, and after that, with no network, the chats, the chat's
 *   header and the match cards showed initials instead of the faces the user had seen. Not cache
 *   first, though a key's bytes never change: a deleted photo stops showing within the hour online
 *   (server/features/media/store.ts), and a 404 takes the stored copy away too. The photos themselves
 *   (a few hundred KB each) only pass through, as a page that shows them says it waits for the network.
 * - The API and the socket never pass through here: what the app shows of them is always the
 *   server's (the app itself says when it cannot reach it).
 */
import { cleanupOutdatedCaches, PrecacheFallbackPlugin, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { NetworkFirst, NetworkOnly } from 'workbox-strategies';
import type { WorkboxPlugin } from 'workbox-core/types';
import { PHOTO_CACHE } from './photo-cache';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<string | { url: string; revision: string | null }> };

/** How long a page waits for the network before the stored one opens. */
const NAVIGATION_TIMEOUT_S = 4;

/** What the server answers itself, never with the app's page (server/plugins/client.ts); matched on path and query. */
const SERVER_PATHS = [/^\/(api|media|socket\.io|assets)\//, /^\/(healthz|readyz)(\?|$)/, /^[^?]*\/[^/?]*\.[a-z0-9]+(\?|$)/i];

/** How long a photo waits for the network before the stored copy shows (the same bytes: its key is its version). */
const PHOTO_TIMEOUT_S = 3;

/**
 * How many smaller copies of photos are stored, the ones the network gave last: a few MB (a thumbnail
 * is some 10 KB, a card some 40), a night's matches and chats many times over, on a phone that has
 * little room to spare.
 */
const MAX_PHOTOS_KEPT = 200;

/**
 * Chromium's static routing: requests for these never wake the worker at all (no start-up on every
 * API call). Browsers without it run the fetch handler, which lets them through untouched. Not the
 * photos: their smaller copies are stored here.
 */
const NETWORK_ONLY_PATTERNS = ['/api/*', '/socket.io/*'];

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

/**
 * Only a photo the server gave in full is stored: not an error, not a redirect, nor an opaque answer
 * whose status cannot be read.
 */
const onlyWholePhotos: WorkboxPlugin = {
  cacheWillUpdate: async ({ response }) => (response.status === 200 && response.type === 'basic' ? response : null),
};

/**
 * Each photo is kept in the store as it was when its request started, not in whichever one PHOTO_CACHE
 * names when the answer comes: the app deletes the store at every sign-in and sign-out, and a photo of
 * the last account still on its way then would start the next one's store with it. A deleted store
 * still takes what is put in it, for nobody to read. So it is stored here, and Workbox, which would
 * open the store by its name, is told not to (null). The store is opened as the request starts, not
 * waited for: the photo is not held up, and a deletion asked for after the opening comes after it.
 *
 * A photo the server no longer has (taken out of a profile, its account deleted) is not kept either.
 * Past MAX_PHOTOS_KEPT, the copies stored longest ago go. A cache lists its entries in the order they
 * were stored, and a copy is stored again each time the network gives it: the faces seen last stay.
 */
const keepInTheStoreOfItsRequest: WorkboxPlugin = {
  requestWillFetch: async ({ request, state }) => {
    state!.store = caches.open(PHOTO_CACHE);
    return request;
  },
  fetchDidSucceed: async ({ request, response, state }) => {
    if (response.status === 404) await (await (state!.store as Promise<Cache>)).delete(request);
    return response;
  },
  cacheWillUpdate: async ({ request, response, state }) => {
    const store = await (state!.store as Promise<Cache>);
    await store.put(request, response);
    const stored = await store.keys();
    await Promise.all(stored.slice(0, Math.max(0, stored.length - MAX_PHOTOS_KEPT)).map((old) => store.delete(old)));
    return null;
  },
};

/** A smaller copy of one of our photos (`/media/<key>?size=thumb`, `card`). */
const isPhotoCopy = (url: URL) => url.origin === self.location.origin && url.pathname.startsWith('/media/') && url.searchParams.has('size');

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

registerRoute(
  ({ url }) => isPhotoCopy(url),
  new NetworkFirst({
    cacheName: PHOTO_CACHE,
    networkTimeoutSeconds: PHOTO_TIMEOUT_S,
    plugins: [onlyWholePhotos, keepInTheStoreOfItsRequest],
  }),
);
