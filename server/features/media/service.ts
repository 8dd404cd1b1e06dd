import { sql } from 'drizzle-orm';
import sharp, { type Metadata } from 'sharp';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants';
import { type DbOrTx, rowsOf } from '../../db/client';
import { profiles, uploads } from '../../db/schema';
import { PayloadTooLarge, ValidationError } from '../../errors';
import { sniffImageFormat } from '../../lib/image-type';
import { MEDIA_PREFIX, type MediaStore, newMediaKey } from './store';
import { serverText } from '../../../shared/i18n/server-messages';

const MAX_DIMENSION = 1600;
// A decompression bomb is refused before it is decoded.
const MAX_INPUT_PIXELS = 40_000_000;

export const INVALID_IMAGE =
  'Upload a valid image. The file you uploaded was either not an image or a corrupted image.';
export const UNSUPPORTED_IMAGE = serverText('unsupported_image');
export const IMAGE_TOO_LARGE = serverText('image_too_large');
export const TOO_MANY_PIXELS = serverText('too_many_pixels', { megapixels: MAX_INPUT_PIXELS / 1_000_000 });

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

/**
 * Store an already processed image for its owner; returns its key. The file is written first, so that a
 * row never names a missing file; a row that cannot be written takes its file with it.
 */
export async function saveImage(db: DbOrTx, store: MediaStore, ownerId: number, image: ProcessedImage) {
  const key = newMediaKey();
  await store.put(key, image.data);
  try {
    await db.insert(uploads).values({ key, ownerId, width: image.width, height: image.height });
  } catch (error) {
    await store.remove(key);
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
 * as soon as it is picked). One pass over the profiles, hashed against the uploads (0.3 s at 100,000
 * profiles on the bench machine); rows first, then their files. Returns the keys deleted.
 */
export async function sweepUnusedUploads(db: DbOrTx, store: MediaStore, before: Date): Promise<string[]> {
  const rows = rowsOf<{ key: string }>(
    await db.execute(sql`
      with named as (${photosShown})
      delete from ${uploads} u
      where u.created_at < ${before.toISOString()}::timestamptz
        and not exists (select 1 from named where named.url = ${MEDIA_PREFIX} || u.key)
      returning u.key`),
  );
  const keys = rows.map((row) => row.key);
  await Promise.all(keys.map((key) => store.remove(key)));
  return keys;
}
