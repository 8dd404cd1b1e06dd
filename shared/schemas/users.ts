import { BIO_MAX_LENGTH, GENDERS, LANGUAGES, MAX_AGE, MIN_AGE, NAME_MAX_LENGTH } from '../constants';
import { ageOn, integerIn, IsoDate, isTimeZone, todayIn } from './common';
import { visibleText } from './text';
import { message, z } from './zod';

export const Gender = z.enum(GENDERS);
export type Gender = z.infer<typeof Gender>;

export const GENDER_LABELS: Record<Gender, string> = {
  male: 'Male',
  female: 'Female',
  non_binary: 'Non-binary',
};


export const CurrentUser = z.object({
  id: z.number(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  image: z.string().nullable(),
  is_profile_completed: z.boolean(),
  has_subscription: z.boolean(),
  /** The address was proved: until then the app shows a banner with Resend. */
  email_verified: z.boolean(),
  /** False for accounts that only ever signed in with Google: they set a password through a reset. */
  has_password: z.boolean(),
  /** Works the report queue (`/app/moderation/`). */
  is_moderator: z.boolean(),
  /**
   * The account's language, its e-mails' (set at sign-up and by the app's language switch, never by a
   * sign-in): a device where no language was chosen shows the app in it.
   */
  language: z.enum(LANGUAGES),
});
export type CurrentUser = z.infer<typeof CurrentUser>;

export const IMAGE_FIELDS = ['image', 'image2', 'image3', 'image4', 'image5', 'image6'] as const;
export type ImageField = (typeof IMAGE_FIELDS)[number];

/**
 * An image field holds a URL this server issued, a `data:image/...;base64,` URI, or null.
 * Which of those it is, and whether the URL is really ours, is decided by the server.
 */
const ImageRef = z.string().min(1).max(16_000_000, message('image_too_large'));

/** The six photo fields as the server answers them: a URL it issued, or null. */
const photoUrls = {
  image: z.string().nullable(),
  image2: z.string().nullable(),
  image3: z.string().nullable(),
  image4: z.string().nullable(),
  image5: z.string().nullable(),
  image6: z.string().nullable(),
};

export const OwnProfile = z.object({
  name: z.string().nullable(),
  bio: z.string().nullable(),
  gender: Gender.nullable(),
  date_of_birth: z.string().nullable(),
  ...photoUrls,
  genders_to_match: z.array(Gender),
  min_matching_age: z.number(),
  max_matching_age: z.number(),
  /** What the profile holds, as a short hash: a save that names the version it started from is refused (409) if it changed since. */
  version: z.string(),
});
export type OwnProfile = z.infer<typeof OwnProfile>;

const MatchingAge = integerIn(MIN_AGE, MAX_AGE);
const BirthDate = z.string(message('date_of_birth_required')).min(1, message('date_of_birth_required')).pipe(IsoDate);
/** An IANA time zone's shape (`Europe/Madrid`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`, `UTC`). */
const TimeZone = z.string().max(64).regex(/^[A-Za-z][A-Za-z0-9_+\-/]*$/, message('time_zone_format'));

/**
 * An age counts from midnight where the user is (the time zone the save names), not from UTC's: in
 * Mexico City, the evening before an 18th birthday is already the birthday in UTC. A save that names
 * no zone, or one this runtime's Intl does not know (a browser's newer zone data), is counted in UTC:
 * the zone only moves the day by hours, and a save is never refused for the phone's own zone.
 * Checked once the date and the zone's shape are valid, beside any other field's problem.
 */
const ageCheck = (valid: (age: number) => boolean, issue: ReturnType<typeof message>) => ({
  check: ({ date_of_birth: dateOfBirth, time_zone: zone }: { date_of_birth: string; time_zone?: string | undefined }) =>
    valid(ageOn(dateOfBirth, zone && isTimeZone(zone) ? todayIn(zone) : new Date())),
  params: {
    path: ['date_of_birth'],
    ...issue,
    when: ({ value }: { value: unknown }) => {
      const fields = (value ?? {}) as { date_of_birth?: unknown; time_zone?: unknown };
      return BirthDate.safeParse(fields.date_of_birth).success && TimeZone.optional().safeParse(fields.time_zone).success;
    },
  },
});
const oldEnough = ageCheck((age) => age >= MIN_AGE, message('min_age', { age: MIN_AGE }));
const youngEnough = ageCheck((age) => age <= MAX_AGE, message('max_age', { years: MAX_AGE }));

export const ProfileInput = z
  .object({
    name: visibleText(NAME_MAX_LENGTH, { oneLine: true }),
    bio: visibleText(BIO_MAX_LENGTH),
    gender: Gender,
    date_of_birth: BirthDate,
    /** The phone's IANA time zone, for the age check (see `ageCheck`); not stored. */
    time_zone: TimeZone.optional(),
    // Longer than a field takes: a photo sent inline, too large (the schema's message is for a missing one).
    image: z.string(message('primary_photo_required')).min(1, message('primary_photo_required')).max(16_000_000, message('image_too_large')),
    image2: ImageRef.nullish(),
    image3: ImageRef.nullish(),
    image4: ImageRef.nullish(),
    image5: ImageRef.nullish(),
    image6: ImageRef.nullish(),
    genders_to_match: z
      .array(Gender)
      .min(1, message('genders_required'))
      // Checked before the items (zod sizes a list first): a list longer than every gender once is
      // refused in one message, not one per item. Only a list: a string has a length too.
      // (`when` is zod's own check option, left out of the parameters' type for the sizes' checks.)
      .max(GENDERS.length, { ...message('genders_once'), when: (payload: { value: unknown }) => Array.isArray(payload.value) } as z.core.$ZodCheckMaxLengthParams)
      .refine((list) => new Set(list).size === list.length, message('genders_once')),
    min_matching_age: MatchingAge,
    max_matching_age: MatchingAge,
    /** The `version` of the profile this save was made from (the form's, as loaded): another device's save since is not overwritten. */
    version: z.string().max(64).optional(),
  })
  .refine((profile) => profile.min_matching_age <= profile.max_matching_age, {
    path: ['max_matching_age'],
    ...message('age_range'),
    // Checked whenever both ages are valid, even if other fields are not: every problem at once.
    when: ({ value }) => {
      const ages = (value ?? {}) as { min_matching_age?: unknown; max_matching_age?: unknown };
      return MatchingAge.safeParse(ages.min_matching_age).success && MatchingAge.safeParse(ages.max_matching_age).success;
    },
  })
  .refine(oldEnough.check, oldEnough.params)
  .refine(youngEnough.check, youngEnough.params);
export type ProfileInput = z.infer<typeof ProfileInput>;

export const PublicProfile = z.object({
  id: z.number(),
  name: z.string(),
  age: z.number(),
  gender: Gender,
  genre: z.string(),
  bio: z.string(),
  ...photoUrls,
});
export type PublicProfile = z.infer<typeof PublicProfile>;

export const DeckCard = z.object({
  id: z.number(),
  name: z.string(),
  age: z.number(),
  bio: z.string(),
  image: z.string().nullable(),
});
export type DeckCard = z.infer<typeof DeckCard>;

/** `POST /api/uploads/`: a multipart form with one field. */
export const UploadForm = z.object({
  file: z.file().describe('PNG, JPEG, GIF or WebP (decided by its bytes), 10 MB at most.'),
});

export const UploadResponse = z.object({ url: z.string() });
export type UploadResponse = z.infer<typeof UploadResponse>;

/** `GET /media/<key>`: a stored photo, by the key in the URL an upload answered with. */
export const MediaParams = z.object({ key: z.string().max(100) });
/** The smaller copies of a photo the server makes (their sides: `PHOTO_SIDES`, server/features/media/service.ts). */
export const PhotoSize = z.enum(['thumb', 'card']);
export type PhotoSize = z.infer<typeof PhotoSize>;
export const MediaQuery = z.object({
  size: PhotoSize.optional()
    .describe('A smaller copy: `thumb` (shorter side 320 px: avatars, tiles), `card` (640 px: a grid of cards); the photo itself without it.'),
});
export const MediaFile = z.file().describe('The WebP image.');
export const MediaNotModified = z.null().describe('The copy the client has is good (an If-None-Match of its ETag).');
