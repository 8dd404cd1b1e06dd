import { inArray, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import { reports, uploads } from '../../db/schema';
import { photosShown } from './service';
import { isOwnKey, type MediaStore, mediaUrl } from './store';

/**
 * How long a stored file with nothing naming it is left alone. Every writer stores the file first and
 * the row that names it after, in the same request: an upload (`saveImage`: file, then its `uploads`
 * row), a data: URI in a profile save (the same, inside the save's transaction), a report's evidence
 * (the copies, then the report row in the same transaction). A file younger than this may be such a
 * file whose row is not committed yet; an hour is far longer than any of those requests.
 */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/** Keys per database lookup: few enough bind parameters, and a short statement. */
const LOOKUP_BATCH = 500;

/** Removals in flight at once: a bucket (or a disk) is not sent thousands of deletes together. */
const REMOVALS_AT_ONCE = 8;

/** Of these keys, the ones that something in the database still names. */
export type ReferencedKeys = (db: DbOrTx, keys: string[]) => Promise<Set<string>>;

/**
 * Photos named by an `uploads` row, or shown by a profile without one: deleting an account keeps the
 * files that another profile still shows (`removePhotoFiles`: the seeded demo profiles share the demo
 * account's photos) though their rows went with the account. The profiles are only read (a pass over
 * them) for keys that have no row, which is rare.
 */
export const photosReferenced: ReferencedKeys = async (db, keys) => {
  const rows = await db.select({ key: uploads.key }).from(uploads).where(inArray(uploads.key, keys));
  const referenced = new Set(rows.map((row) => row.key));
  const rowless = keys.filter((key) => !referenced.has(key));
  if (rowless.length > 0) {
    const shown = rowsOf<{ url: string }>(
      await db.execute(sql`
        select distinct named.url from (${photosShown}) named
        where named.url in (${sql.join(rowless.map((key) => sql`${mediaUrl(key)}`), sql`, `)})`),
    );
    const byUrl = new Map(rowless.map((key) => [mediaUrl(key), key]));
    for (const { url } of shown) referenced.add(byUrl.get(url)!);
  }
  return referenced;
};

/**
 * Evidence named by a report's snapshot (`snapshot.profile.photos`, the copies `report` made). A
 * resolved report's copies are taken out of its snapshot and removed (the resolve route); one whose
 * removal failed is left here, named by no report.
 */
export const evidenceReferenced: ReferencedKeys = async (db, keys) => {
  const photos = sql`${reports.snapshot} -> 'profile' -> 'photos'`;
  const rows = rowsOf<{ key: string }>(
    await db.execute(sql`
      select distinct photo.key from ${reports}
      cross join lateral jsonb_array_elements_text(case when jsonb_typeof(${photos}) = 'array' then ${photos} else '[]'::jsonb end) photo(key)
      where photo.key in (${sql.join(keys.map((key) => sql`${key}`), sql`, `)})`),
  );
  return new Set(rows.map((row) => row.key));
};

export interface OrphanSweep {
  /** Files removed. */
  removed: number;
  /** Files whose removal failed (left for the next run), and the first failure's error. */
  failed: number;
  firstFailure?: unknown;
}

/**
 * Removes the store's files written before `before` that nothing in the database names: what a
 * removal that failed, or a process that died between a commit and its removals, left behind (an
 * account deleted, a photo taken out of a profile, an upload swept, a report resolved: each deletes its
 * rows, commits, then removes the files once). Such a file would otherwise stay readable at its URL
 * for good. Lists the store, looks the old keys up `LOOKUP_BATCH` at a time, removes at most
 * `REMOVALS_AT_ONCE` at once. A removal that fails is counted and left for the next run; a store or a
 * database that fails ends the run (the job logs it and runs again later). `stopping` ends it between
 * keys.
 */
export async function sweepOrphans(
  db: DbOrTx,
  store: MediaStore,
  referenced: ReferencedKeys,
  { before, stopping }: { before: Date; stopping?: AbortSignal },
): Promise<OrphanSweep> {
  const outcome: OrphanSweep = { removed: 0, failed: 0 };
  let batch: string[] = [];
  const sweep = async () => {
    const keys = batch;
    batch = [];
    const named = await referenced(db, keys);
    await atMostAtOnce(
      REMOVALS_AT_ONCE,
      keys.filter((key) => !named.has(key)),
      async (key) => {
        try {
          await store.remove(key);
          outcome.removed += 1;
        } catch (error) {
          outcome.failed += 1;
          outcome.firstFailure ??= error;
        }
      },
    );
  };
  for await (const { key, lastModified } of store.list()) {
    if (stopping?.aborted) return outcome;
    // Only the keys this store issues: anything else beside them was not put there by us.
    if (lastModified >= before || !isOwnKey(store, key)) continue;
    batch.push(key);
    if (batch.length >= LOOKUP_BATCH) await sweep();
  }
  if (batch.length > 0 && !stopping?.aborted) await sweep();
  return outcome;
}

/** `work` on every item, never more than `limit` at once. */
async function atMostAtOnce<T>(limit: number, items: T[], work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
