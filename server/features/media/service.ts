import { sql } from 'drizzle-orm';
import sharp, { type Metadata } from 'sharp';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants';
import type { PhotoSize } from '../../../shared/schemas/users';
import { type Db, type DbOrTx, rowsOf } from '../../db/client';
import { profiles, uploads } from '../../db/schema';
import { PayloadTooLarge, SessionEnded, ValidationError } from '../../errors';
import { sniffImageFormat } from '../../lib/image-type';
import { isForeignKeyViolation } from '../../lib/pg-errors';
import { MEDIA_PREFIX, type MediaStore, newMediaKey } from './store';
import { serverText } from '../../../shared/i18n/server-messages';

const MAX_DIMENSION = 1600;
// A decompression bomb is refused before it is decoded.
const MAX_INPUT_PIXELS = 40_000_000;
/**
 * And one side: a PNG is decoded a row at a time, and a strip within the pixel cap (a 76 KB file of
 * 1 × 39 000 000 pixels) took a core 16 s to decode and shrink, holding one of the few threads that
 * sharp, file reads and password hashing share. The widest phone panoramas are about half this.
 */
const MAX_INPUT_SIDE = 32_768;

export const INVALID_IMAGE = serverText('not_an_image');
export const UNSUPPORTED_IMAGE = serverText('unsupported_image');
export const IMAGE_TOO_LARGE = serverText('image_too_large');
export const TOO_MANY_PIXELS = serverText('too_many_pixels', { megapixels: MAX_INPUT_PIXELS / 1_000_000 });
export const TOO_LONG_A_SIDE = serverText('image_side_too_long', { pixels: MAX_INPUT_SIDE });

/**
 * Decode, auto-rotate, bound and re-encode an image. The output carries no metadata at all:
 * sharp drops EXIF, GPS, ICC and XMP unless asked to keep them.
 */
export async function processImage(input: Buffer, field = 'file') {
  if (input.length > MAX_UPLOAD_BYTES) throw new PayloadTooLarge(IMAGE_TOO_LARGE);
  const sniffed = sniffImageFormat(input);
  if (sniffed === null) throw ValidationError.field(field, INVALID_IMAGE);
  if (sniffed === 'unsupported') throw ValidationError.field(field, UNSUPPORTED_IMAGE);
  let metadata: Metadata;
  try {
    // Reads the header only: the pixel count is known before anything is decoded.
    metadata = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw ValidationError.field(field, INVALID_IMAGE);
  }
  // The decoder must agree with the signature: anything else is a disguised or broken file.
  if (metadata.format !== sniffed) throw ValidationError.field(field, INVALID_IMAGE);
  if ((metadata.width ?? 0) * (metadata.height ?? 0) > MAX_INPUT_PIXELS) throw ValidationError.field(field, TOO_MANY_PIXELS);
  if (Math.max(metadata.width ?? 0, metadata.height ?? 0) > MAX_INPUT_SIDE) throw ValidationError.field(field, TOO_LONG_A_SIDE);
  try {
    const { data, info } = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize({ width: MAX_DIMENSION, height: MAX_DIMENSION, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch {
    throw ValidationError.field(field, INVALID_IMAGE);
  }
}

export type ProcessedImage = Awaited<ReturnType<typeof processImage>>;

/** Each smaller copy's shorter side in pixels, at most: one for every size the media route accepts. */
const PHOTO_SIDES = { thumb: 320, card: 640 } satisfies Record<PhotoSize, number>;

/**
 * A stored photo made smaller (`GET /media/<key>?size=`): `thumb` for an avatar or a tile (320 px: a
 * 96-pixel avatar on a screen of three pixels to the point), `card` for a grid of cards. A list of
 * matches on a party's network loads a few KB a face, not the whole photo. Its shorter side is the
 * size's (the avatar or the card crops it), never enlarged.
 */
export async function resizedPhoto(photo: Buffer, size: PhotoSize): Promise<Buffer> {
  const side = PHOTO_SIDES[size];
  return sharp(photo).resize({ width: side, height: side, fit: 'outside', withoutEnlargement: true }).webp({ quality: 75 }).toBuffer();
}

/**
 * Store an already processed image for its owner; returns its key. The file is written first, so that a
 * row never names a missing file; a row that cannot be written takes its file with it. An owner whose
 * account was deleted while the image was on its way (another device, as the photo was decoded) has no
 * row to name: their session ended with the account, a 401 as for any request after it.
 */
export async function saveImage(db: DbOrTx, store: MediaStore, ownerId: number, image: ProcessedImage) {
  const key = newMediaKey();
  await store.put(key, image.data);
  try {
    await db.insert(uploads).values({ key, ownerId, width: image.width, height: image.height });
  } catch (error) {
    await store.remove(key);
    if (isForeignKeyViolation(error)) throw new SessionEnded();
    throw error;
  }
  return key;
}

/** Process and store an image for its owner; returns the URL to put in a profile. */
export async function storeImage(db: DbOrTx, store: MediaStore, ownerId: number, input: Buffer, field = 'file') {
  return store.url(await saveImage(db, store, ownerId, await processImage(input, field)));
}

const DATA_URI = /^data:image\/[a-z0-9.+-]+;base64,/i;

export const isDataUri = (value: string) => DATA_URI.test(value);

/** The bytes of a `data:image/...;base64,` URI; the declared type is ignored (the bytes decide). */
export function decodeDataUri(value: string, field: string): Buffer {
  const base64 = value.replace(DATA_URI, '');
  // Four base64 characters carry three bytes: refuse before decoding what would be too large.
  if ((base64.length * 3) / 4 > MAX_UPLOAD_BYTES + 3) throw new PayloadTooLarge(IMAGE_TOO_LARGE);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw ValidationError.field(field, INVALID_IMAGE);
  return Buffer.from(base64, 'base64');
}

/** Every photo URL that some profile shows, one row each time it is shown (a pass over the profiles). */
export const photosShown = sql`
  select shown.url from ${profiles} p
  cross join lateral (values (p.image), (p.image2), (p.image3), (p.image4), (p.image5), (p.image6)) shown(url)
  where shown.url is not null`;

/** How long a photo may wait, uploaded, for the profile save that puts it in the profile. */
export const UNUSED_UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Delete the uploads made before `before` that no profile shows: photos uploaded and then taken out
 * before the profile was saved, or left by a page closed without saving (the client uploads each photo
 * as soon as it is picked). Rows first, then their files (a file whose removal fails is left to the
 * `orphan-file-sweep` job). Returns the keys deleted.
 *
 * A profile save may be taking one of these photos up at this very moment: its check of the upload
 * ran before its transaction, the photo a day old by now. One DELETE whose condition is "no profile
 * shows it" cannot stop it, even with the save holding the row: the statement judges every profile by
 * the snapshot it took as it started. PostgreSQL, in READ COMMITTED, waits for the holder of a row it
 * is deleting, then re-evaluates its WHERE only if the holder had updated the row, and even then reads
 * every other table (the profiles) by that first snapshot; a row that was only locked is deleted as it
 * stands. So a save that committed after the snapshot kept a URL whose row and file were gone.
 * Hence two statements in one READ COMMITTED transaction, and the save's part:
 *
 * 1. The candidates (old, shown by no profile in this statement's snapshot) are locked FOR UPDATE,
 *    skipping any row that someone holds: a save in flight holds each upload it takes up FOR KEY SHARE
 *    from before it writes the profile until it commits (`lockTakenUploads`, users/service.ts).
 * 2. Only those locked rows are deleted, and only if no profile shows them, judged again by this
 *    second statement's own snapshot, taken once all of them were ours.
 *
 * For every candidate, either our lock came first, and a save that wants the row waits until we
 * commit, then finds it deleted (and refuses the photo with its 400) or kept; or the save's lock came
 * first, and the save is still running (the row is skipped: next hour's sweep looks again) or has
 * committed before we took the row, and then before statement 2 began, whose snapshot shows the
 * profile with the photo. Never a profile naming a deleted upload. SKIP LOCKED also keeps the sweep
 * from waiting on any request: a row a request holds is left for the next run.
 *
 * On PGlite (one backend) a transaction runs alone: the sweep runs wholly before the save's
 * transaction (which then finds the row gone) or wholly after it (and sees the profile).
 * Each statement is one pass over the profiles, hashed against the uploads (the single DELETE this
 * replaces ran 0.3 s at 100,000 profiles on the bench machine); the second runs only when there are
 * candidates.
 */
export async function sweepUnusedUploads(db: Db, store: MediaStore, before: Date): Promise<string[]> {
  const keys = await db.transaction(
    async (tx) => {
      const candidates = rowsOf<{ key: string }>(
        await tx.execute(sql`
          with named as (${photosShown})
          select u.key from ${uploads} u
          where u.created_at < ${before.toISOString()}::timestamptz
            and not exists (select 1 from named where named.url = ${MEDIA_PREFIX} || u.key)
          for update of u skip locked`),
      ).map((row) => row.key);
      if (candidates.length === 0) return [];
      const deleted = rowsOf<{ key: string }>(
        await tx.execute(sql`
          with named as (${photosShown})
          delete from ${uploads} u
          where u.key = any(${textArray(candidates)}::text[])
            and not exists (select 1 from named where named.url = ${MEDIA_PREFIX} || u.key)
          returning u.key`),
      );
      return deleted.map((row) => row.key);
    },
    // The design above needs a fresh snapshot per statement.
    { isolationLevel: 'read committed' },
  );
  await Promise.all(keys.map((key) => store.remove(key)));
  return keys;
}

/**
 * Strings as the text of a PostgreSQL array (`{"a","b"}`), to send as one parameter however many
 * there are (cast `::text[]`; the driver sees a plain string).
 */
const textArray = (values: string[]) => `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
