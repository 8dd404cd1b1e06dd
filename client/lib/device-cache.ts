import { readJson, writeJson } from './storage';

/**
 * What the app last showed of the server, kept on the device for an opening with no network: the
 * signed-in user, the event they are checked in to, their conversation lists, the chats they opened
 * last and whether their account still has the free trial. Read only when the server cannot be
 * reached; cleared with the rest of local storage at sign-in and sign-out. Also what the user is
 * writing that the server has not got yet: the reports being written (`reportDrafts`), kept through a
 * reload. `CACHE_VERSION` goes up whenever a kept shape changes, so that a new build never reads what
 * an old one wrote.
 */
const CACHE_VERSION = 2;
export type CacheKind = 'user' | 'conversations' | 'chats' | 'event' | 'trial' | 'reportDrafts';

const cacheKey = (kind: CacheKind, userId?: number) => (userId === undefined ? `cache:${kind}` : `cache:${kind}:${userId}`);

export const readCache = <T>(kind: CacheKind, userId?: number): T | null => keptValue<T>(kind, userId) ?? null;

/** What was kept, a null too; undefined when nothing was (or an older build kept it). */
export function keptValue<T>(kind: CacheKind, userId?: number): T | undefined {
  const parsed = readJson(cacheKey(kind, userId)) as { version?: unknown; value?: T } | null;
  return parsed?.version === CACHE_VERSION ? parsed.value : undefined;
}

// Private mode or a full storage: the app opens with no network as if it had never been open.
export const writeCache = (kind: CacheKind, value: unknown, userId?: number) => writeJson(cacheKey(kind, userId), { version: CACHE_VERSION, value });
