import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { ageOn } from '../../../shared/schemas/common';
import {
  type CurrentUser,
  GENDER_LABELS,
  IMAGE_FIELDS,
  type ImageField,
  type OwnProfile,
  type ProfileInput,
  type PublicProfile,
} from '../../../shared/schemas/users';
import { type Db, type DbOrTx, PreparedStatement, rowsOf, type Tx } from '../../db/client';
import { profiles, uploads, users } from '../../db/schema';
import { Conflict, type FieldMessages, SessionEnded, ValidationError } from '../../errors';
import { decodeDataUri, isDataUri, photosShown, type ProcessedImage, processImage, saveImage } from '../media/service';
import type { MediaStore } from '../media/store';
import { visibleTo } from '../safety/visibility';
import { serverText } from '../../../shared/i18n/server-messages';

type ProfileRow = typeof profiles.$inferSelect;

export const INVALID_IMAGE_REFERENCE = serverText('invalid_image');

const imagesOf = (row: ProfileRow): Record<ImageField, string | null> => ({
  image: row.image,
  image2: row.image2,
  image3: row.image3,
  image4: row.image4,
  image5: row.image5,
  image6: row.image6,
});

/**
 * The signed-in user's record (`GET /api/users/me/`): every load of the app asks for it first, so its
 * text is built and parsed once (`PreparedStatement`) rather than at every call.
 */
const currentUserStatement = new PreparedStatement<{ userId: number }>(sql`
  select u.id, u.email, u.first_name, u.last_name, p.image, p.is_completed as is_profile_completed,
    u.has_subscription, u.email_verified_at is not null as email_verified,
    u.password_hash is not null as has_password, u.role = 'moderator' as is_moderator, u.language
  from ${users} u join ${profiles} p on p.user_id = u.id
  where u.id = ${sql.placeholder('userId')}::int`);

export async function getCurrentUser(db: Db, userId: number): Promise<CurrentUser | null> {
  const [row] = await currentUserStatement.run<CurrentUser>(db, { userId });
  return row ?? null;
}

function presentOwnProfile(row: ProfileRow): OwnProfile {
  const fields = {
    name: row.name,
    bio: row.bio,
    gender: row.gender,
    date_of_birth: row.dateOfBirth,
    ...imagesOf(row),
    genders_to_match: row.gendersToMatch as OwnProfile['genders_to_match'],
    min_matching_age: row.minMatchingAge,
    max_matching_age: row.maxMatchingAge,
  };
  return { ...fields, version: versionOf(fields) };
}

/** A hash of what a profile holds (not when it was last active): equal for two reads with no save between that changed anything. */
const versionOf = (fields: Omit<OwnProfile, 'version'>) => createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 16);

/** A save from a version of the profile other than `row`'s: another device saved since the form was loaded. */
function refuseIfChanged(row: ProfileRow | undefined, version: string | undefined) {
  if (version !== undefined && row && presentOwnProfile(row).version !== version) {
    throw new Conflict(serverText('profile_changed'), 'profile_changed');
  }
}

export async function getOwnProfile(db: Db, userId: number): Promise<OwnProfile | null> {
  const [row] = await db.select().from(profiles).where(eq(profiles.userId, userId));
  return row ? presentOwnProfile(row) : null;
}

/**
 * The image fields that hold a URL (not a data URI), each to the URL to store: one of the owner's own
 * uploads or one already in their profile (kept as it is: seeded demo profiles share photos). Any other
 * URL is a field of `errors`, and so is a photo an earlier field already holds (as a path or as an
 * absolute URL, or the same data URI): the profile would show it twice.
 */
async function checkImageReferences(db: Db, store: MediaStore, userId: number, images: Partial<Record<ImageField, string | null>>) {
  const resolved: Partial<Record<ImageField, string>> = {};
  const errors: FieldMessages = {};
  const keys = new Map<ImageField, string>();
  const twice = (earlier: ImageField) => [serverText('photo_twice', { n: IMAGE_FIELDS.indexOf(earlier) + 1 })];
  // A photo sent inline, the same as an earlier field's: it would be stored twice, and shown twice.
  const inline = new Map<string, ImageField>();

  for (const field of IMAGE_FIELDS) {
    const value = images[field] ?? null;
    if (value === null) continue;
    if (isDataUri(value)) {
      const earlier = inline.get(value);
      if (earlier) errors[field] = twice(earlier);
      else inline.set(value, field);
      continue;
    }
    const key = store.keyOf(value);
    if (key) keys.set(field, key);
    else errors[field] = [INVALID_IMAGE_REFERENCE];
  }

  if (keys.size > 0) {
    const [owned, [current]] = await Promise.all([
      db
        .select({ key: uploads.key })
        .from(uploads)
        .where(and(eq(uploads.ownerId, userId), inArray(uploads.key, [...keys.values()]))),
      db.select().from(profiles).where(eq(profiles.userId, userId)),
    ]);
    const allowed = new Set(owned.map((row) => row.key));
    for (const url of current ? Object.values(imagesOf(current)) : []) {
      const key = url && store.keyOf(url);
      if (key) allowed.add(key);
    }
    const firstField = new Map<string, ImageField>();
    for (const [field, key] of keys) {
      const earlier = firstField.get(key);
      if (!allowed.has(key)) errors[field] = [INVALID_IMAGE_REFERENCE];
      else if (earlier) errors[field] = twice(earlier);
      else {
        firstField.set(key, field);
        resolved[field] = store.url(key);
      }
    }
  }
  return { resolved, errors };
}

/**
 * The photo URLs of a save its schema refused, that are none of the user's (`checkImageReferences`):
 * named beside the other fields' problems, every bad field at once, not only once those are mended.
 * `body` is as sent; a field the schema refused already, or that is not text, is its business.
 */
export async function refusedImageReferences(db: Db, store: MediaStore, userId: number, body: unknown, refused: FieldMessages) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const images: Partial<Record<ImageField, string>> = {};
  for (const field of IMAGE_FIELDS) {
    const value = (body as Record<string, unknown>)[field];
    if (!(field in refused) && typeof value === 'string' && value !== '') images[field] = value;
  }
  return (await checkImageReferences(db, store, userId, images)).errors;
}

/**
 * Each image field to the URL to store (`checkImageReferences`); a data URI is processed and stored
 * like an upload. Every bad field is reported at once.
 */
async function resolveImages(db: Db, store: MediaStore, userId: number, input: ProfileInput) {
  const checked = await checkImageReferences(db, store, userId, input);
  if (Object.keys(checked.errors).length > 0) throw new ValidationError(checked.errors);
  const resolved = {} as Record<ImageField, string | null>;
  for (const field of IMAGE_FIELDS) resolved[field] = checked.resolved[field] ?? null;

  // Only once every reference is good are new images decoded, and only once every one of them
  // decoded is any stored: a refused save leaves no upload behind.
  const processed = new Map<ImageField, ProcessedImage>();
  for (const field of IMAGE_FIELDS) {
    const value = input[field];
    if (value && isDataUri(value)) processed.set(field, await processImage(decodeDataUri(value, field), field));
  }
  return { resolved, processed };
}

/**
 * Save the whole profile. A photo the save takes out of the profile is deleted, row and file, so that
 * its URL stops working: someone who removes a photo from a dating profile expects it gone.
 */
export async function saveProfile(db: Db, store: MediaStore, userId: number, input: ProfileInput, log?: Pick<FastifyBaseLogger, 'warn'>) {
  // Before its photos are checked: a photo the other device took out would read as a bad reference.
  if (input.version !== undefined) refuseIfChanged((await db.select().from(profiles).where(eq(profiles.userId, userId)))[0], input.version);
  const { resolved, processed } = await resolveImages(db, store, userId, input);
  const stored: string[] = [];
  let outcome: { profile: OwnProfile; removed: string[] };
  try {
    outcome = await db.transaction(async (tx) => {
      // The account first, as its deletion takes it (FOR UPDATE, then the profile by cascade): a save
      // that held the profile and then needed the account (a new photo's row names it) deadlocked
      // with a deletion in between. Deleted meanwhile: this session has ended with it.
      const [account] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('key share');
      if (!account) throw new SessionEnded();
      // Locked, so that two saves at once agree on which photos the profile had.
      const [before] = await tx.select().from(profiles).where(eq(profiles.userId, userId)).for('update');
      refuseIfChanged(before, input.version);
      await lockTakenUploads(tx, store, userId, before ? imagesOf(before) : null, resolved);
      const images = { ...resolved };
      for (const [field, image] of processed) {
        const key = await saveImage(tx, store, userId, image);
        stored.push(key);
        images[field] = store.url(key);
      }
      const profile = await updateProfile(tx, userId, input, images);
      const removed = before ? await deleteRemovedPhotos(tx, store, userId, imagesOf(before), images) : [];
      return { profile, removed };
    });
  } catch (error) {
    // The rows rolled back with the transaction; the files written for them go too.
    await Promise.all(stored.map((key) => store.remove(key)));
    throw error;
  }
  // Only once the profile no longer names them: a save that fails keeps every photo it had.
  await removeTakenOut(store, userId, outcome.removed, log);
  return outcome.profile;
}

/**
 * The files of the photos a committed save took out. The save stands whatever happens here: a file
 * that cannot be removed (the bucket down) is logged and left to the `orphan-file-sweep` job, its row
 * already gone. Failing the request instead would tell the client a change it made was not made, and
 * its retry, from the form's version, would be refused as another device's change.
 */
async function removeTakenOut(store: MediaStore, userId: number, keys: string[], log: Pick<FastifyBaseLogger, 'warn'> | undefined) {
  const failures = (await Promise.allSettled(keys.map((key) => store.remove(key)))).filter((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failures.length > 0) log?.warn({ userId, photos: failures.length, err: failures[0]!.reason as unknown }, 'profile saved, but the files of photos taken out were not removed');
}

/**
 * The uploads this save takes up (photos its profile does not show yet), held FOR KEY SHARE until it
 * commits; one whose row is gone by now is refused with the 400 of `resolveImages`, whose check ran
 * before the transaction: the upload sweep may have deleted it since (a photo picked a day ago, saved
 * just as the sweep runs). Holding the rows is what keeps the sweep off them: it deletes only rows it
 * holds FOR UPDATE, skipping the ones held here, and judges whether a profile shows them only once it
 * holds them (`sweepUnusedUploads` tells the whole race). A photo the profile already shows needs
 * nothing: the profile row, locked above, shows it, and the sweep never deletes a shown photo.
 */
async function lockTakenUploads(
  tx: Tx,
  store: MediaStore,
  userId: number,
  before: Record<ImageField, string | null> | null,
  images: Record<ImageField, string | null>,
) {
  const shown = new Set(Object.values(before ?? {}).map((url) => url && store.keyOf(url)));
  const taken = new Map<ImageField, string>();
  for (const field of IMAGE_FIELDS) {
    const key = images[field] && store.keyOf(images[field]);
    if (key && !shown.has(key)) taken.set(field, key);
  }
  if (taken.size === 0) return;
  const held = await tx
    .select({ key: uploads.key })
    .from(uploads)
    .where(and(eq(uploads.ownerId, userId), inArray(uploads.key, [...new Set(taken.values())])))
    .for('key share');
  const present = new Set(held.map((row) => row.key));
  const errors: FieldMessages = {};
  for (const [field, key] of taken) if (!present.has(key)) errors[field] = [INVALID_IMAGE_REFERENCE];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * The upload rows of the photos a save took out of the profile: only the user's own, and only those no
 * profile names any more (seeded demo profiles share the demo account's photos). Returns their keys,
 * whose files the caller removes once the transaction has committed.
 */
async function deleteRemovedPhotos(
  tx: Tx,
  store: MediaStore,
  userId: number,
  before: Record<ImageField, string | null>,
  after: Record<ImageField, string | null>,
): Promise<string[]> {
  const kept = new Set(Object.values(after));
  const removed = [...new Set(Object.values(before))].filter((url): url is string => url !== null && !kept.has(url));
  if (removed.length === 0) return [];
  // One pass over the profiles (0.13 s at 100,000 on the bench machine), only when a photo was taken out.
  const stillNamed = rowsOf<{ url: string }>(
    await tx.execute(sql`
      select distinct named.url from (${photosShown}) named
      where named.url in (${sql.join(removed.map((url) => sql`${url}`), sql`, `)})`),
  ).map((row) => row.url);
  const keys = removed
    .filter((url) => !stillNamed.includes(url))
    .map((url) => store.keyOf(url))
    .filter((key): key is string => key !== null);
  if (keys.length === 0) return [];
  const deleted = await tx
    .delete(uploads)
    .where(and(eq(uploads.ownerId, userId), inArray(uploads.key, keys)))
    .returning({ key: uploads.key });
  return deleted.map((row) => row.key);
}

async function updateProfile(
  tx: DbOrTx,
  userId: number,
  input: ProfileInput,
  images: Record<ImageField, string | null>,
) {
  const [row] = await tx
    .update(profiles)
    .set({
      name: input.name,
      bio: input.bio,
      gender: input.gender,
      dateOfBirth: input.date_of_birth,
      ...images,
      gendersToMatch: input.genders_to_match,
      minMatchingAge: input.min_matching_age,
      maxMatchingAge: input.max_matching_age,
      isCompleted: true,
      lastActiveAt: sql`now()`,
    })
    .where(eq(profiles.userId, userId))
    .returning();
  // Every account gets its profile row when it is created.
  if (!row) throw new Error(`user ${userId} has no profile row`);
  return presentOwnProfile(row);
}

/** Another user's profile as others see it: never the e-mail or the date of birth. */
export async function getPublicProfile(db: Db, viewerId: number, userId: number): Promise<PublicProfile | null> {
  const [row] = await db
    .select()
    .from(profiles)
    .where(and(eq(profiles.userId, userId), eq(profiles.isCompleted, true), visibleTo(viewerId, profiles.userId)));
  if (!row?.gender || !row.dateOfBirth) return null;
  return {
    id: row.userId,
    name: row.name ?? '',
    age: ageOn(row.dateOfBirth),
    gender: row.gender,
    genre: GENDER_LABELS[row.gender],
    bio: row.bio ?? '',
    ...imagesOf(row),
  };
}
