/**
 * The name of the service worker's store of photos (sw.ts). The app deletes it at every sign-in and
 * sign-out (lib/storage.ts): the faces one account saw are not the next one's to see.
 */
export const PHOTO_CACHE = 'photos';
