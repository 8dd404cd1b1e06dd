import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { access, opendir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A key in a store, and when its bytes were written (`MediaStore.list`). */
export interface StoredKey {
  key: string;
  lastModified: Date;
}

/**
 * Where processed images live: local disk by default (`localMediaStore`), an S3-compatible bucket when
 * configured (`s3MediaStore`). Either way the app serves them itself under `/media/<key>`, so the URLs
 * stored in profiles do not depend on the store.
 */
export interface MediaStore {
  put(key: string, data: Buffer): Promise<void>;
  /** A stored key's bytes, or null when it is not there. */
  read(key: string): Promise<Buffer | null>;
  /** Whether a key is stored, without reading its bytes (a cache revalidating a photo). */
  exists(key: string): Promise<boolean>;
  /** Delete a stored key; a key already gone is not an error. */
  remove(key: string): Promise<void>;
  /**
   * Every stored key, with when it was written, a page at a time (the orphan sweep). Anything else
   * under the store's folder or prefix (a key this store would never issue) is listed too: the caller
   * picks its own keys out (`isOwnKey`).
   */
  list(): AsyncIterable<StoredKey>;
  /** The URL a client uses for a stored key. */
  url(key: string): string;
  /** The key of a URL this store issued, or null. */
  keyOf(url: string): string | null;
}

export const MEDIA_PREFIX = '/media/';

/**
 * How long a browser or a proxy may keep a photo without asking again. A photo's bytes never change
 * under its key, but a photo can be deleted (taken out of a profile, an account deleted): a year's
 * `immutable` would keep it showing from caches long after. An hour bounds that; after it, a cache
 * asks again (a cheap 304 while the photo exists, a 404 once it is gone).
 */
export const MEDIA_CACHE_CONTROL = 'public, max-age=3600, must-revalidate';
const KEY_PATTERN = /^[A-Za-z0-9_-]{16,64}\.webp$/;

/** A fresh, unguessable key for a processed (WebP) image. */
export const newMediaKey = () => `${randomBytes(18).toString('base64url')}.webp`;

/** The URL a client uses for a stored key, whichever store holds it. */
export const mediaUrl = (key: string) => `${MEDIA_PREFIX}${key}`;

/** The key of a URL `mediaUrl` made (relative, or the same path on any absolute address of ours), or null. */
export function mediaKeyOf(url: string): string | null {
  let pathname = url;
  if (/^https?:\/\//i.test(url)) {
    try {
      pathname = new URL(url).pathname;
    } catch {
      return null;
    }
  }
  if (!pathname.startsWith(MEDIA_PREFIX)) return null;
  const key = pathname.slice(MEDIA_PREFIX.length);
  return KEY_PATTERN.test(key) ? key : null;
}

/** Whether a listed key is one this store issues (`newMediaKey`'s shape), not something else kept beside them. */
export const isOwnKey = (store: MediaStore, key: string) => store.keyOf(store.url(key)) === key;

export function localMediaStore(root: string): MediaStore {
  // Made at once (not on the first upload): a missing folder would be the first photo's error.
  mkdirSync(root, { recursive: true });
  return {
    async put(key, data) {
      await writeFile(path.join(root, key), data, { flag: 'wx' });
    },
    async read(key) {
      try {
        return await readFile(path.join(root, key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async exists(key) {
      try {
        await access(path.join(root, key));
        return true;
      } catch {
        return false;
      }
    },
    async remove(key) {
      await rm(path.join(root, key), { force: true });
    },
    async *list() {
      for await (const entry of await opendir(root)) {
        if (!entry.isFile()) continue;
        try {
          yield { key: entry.name, lastModified: (await stat(path.join(root, entry.name))).mtime };
        } catch (error) {
          // Removed since the folder was read: nothing to list.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
    },
    url: mediaUrl,
    keyOf: mediaKeyOf,
  };
}
