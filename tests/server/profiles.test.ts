import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { blocks, profiles, uploads } from '../../server/db/schema';
import { sweepUnusedUploads, UNUSED_UPLOAD_TTL_MS } from '../../server/features/media/service';
import { saveProfile } from '../../server/features/users/service';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import type { ProfileInput } from '../../shared/schemas/users';
import { birthDateForAge, makeCompletedUser, makeUser, type TestUser, validProfile } from '../helpers/factories';
import { type ApiResponse, type Client, client } from '../helpers/http';
import { imageBytes, imageDataUri } from '../helpers/images';
import { racesOnPostgres } from '../helpers/lock-holder';
import { backends, serverPerSuite, type TestServer } from '../helpers/server';
import { hasPostgres } from '../helpers/services';

const DATE_OF_BIRTH_REQUIRED = 'Please select a date of birth';
const PRIMARY_PHOTO_REQUIRED = 'Please upload a primary profile picture';
const DATE_FORMAT = 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.';
const TOO_YOUNG = 'You must be at least 18 years old.';
const TOO_OLD = 'Enter a date of birth within the last 100 years.';
const BAD_IMAGE_REFERENCE = 'Upload a valid image.';

/**
 * `YYYY-MM-DD` of today (UTC) shifted by whole years and days. On 29 February, a year without one
 * has its 28th: the last date of birth old enough today (1 March is a day short of it).
 */
function dateFromToday(years: number, days = 0) {
  const today = new Date();
  const year = today.getUTCFullYear() + years;
  const monthDays = new Date(Date.UTC(year, today.getUTCMonth() + 1, 0)).getUTCDate();
  const date = new Date(Date.UTC(year, today.getUTCMonth(), Math.min(today.getUTCDate(), monthDays) + days));
  return date.toISOString().slice(0, 10);
}

/**
 * What `attempt` gives, from an attempt that began and ended on one UTC day: one across a midnight
 * (dates written from one day, checked by the server on the next) is made again. Once at most.
 */
async function onOneDay<T>(attempt: () => Promise<T>): Promise<T> {
  const day = () => new Date().toISOString().slice(0, 10);
  const began = day();
  const result = await attempt();
  return day() === began ? result : attempt();
}

const mediaKey = (url: string) => url.replace('/media/', '');

async function upload(server: TestServer, token: string) {
  const form = new FormData();
  form.append('file', new Blob([await imageBytes('png')], { type: 'image/png' }), 'photo.png');
  const response = await fetch(`${server.url}/api/uploads/`, {
    method: 'POST',
    headers: { authorization: `Token ${token}` },
    body: form,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { url: string }).url;
}

describe.each(backends)('profiles on %s', (backend) => {
  const server = serverPerSuite({ backend });
  const api = client(server);

  describe('own profile', () => {
    it('starts with the first name, nulls, no genders and ages 18–50', async () => {
      const user = await makeUser(server, { firstName: 'Lucía' });
      const response = await api.get('/api/users/me/profile/', { token: user.token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        name: 'Lucía',
        bio: null,
        gender: null,
        date_of_birth: null,
        image: null,
        image2: null,
        image3: null,
        image4: null,
        image5: null,
        image6: null,
        genders_to_match: [],
        min_matching_age: 18,
        max_matching_age: 50,
        version: expect.stringMatching(/^[\w-]{16}$/),
      });
    });

    it('starts with as much of a long first name as a name holds: whole characters, no space at the end', async () => {
      // A first name may be 150 long, a profile's name 50: cut at 50, the emoji's second half went
      // alone to the database, which stored U+FFFD.
      for (const [firstName, name] of [
        [`${'a'.repeat(49)}😀 López`, 'a'.repeat(49)],
        [`${'b'.repeat(49)} López`, 'b'.repeat(49)],
        [`${'c'.repeat(48)}😀 López`, `${'c'.repeat(48)}😀`],
      ]) {
        const user = await makeUser(server, { firstName });
        expect((await api.get('/api/users/me/profile/', { token: user.token })).body.name).toBe(name);
      }
    });

    it('refuses a save from a version another device has changed since, and keeps that device’s photo', async () => {
      const user = await makeCompletedUser(server);
      const opened = (await api.get('/api/users/me/profile/', { token: user.token })).body;
      // Both phones open the form; the first adds a photo.
      const added = await upload(server, user.token);
      const { version: _version, ...asOpened } = opened;
      const first = await api.put('/api/users/me/profile/', { token: user.token, json: { ...asOpened, image2: added, version: opened.version } });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.version).not.toBe(opened.version);
      // The second, still as opened, changes the bio.
      const second = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: { ...asOpened, bio: 'Changed on the other phone', version: opened.version },
      });
      expect([second.status, second.body]).toEqual([409, { detail: expect.stringContaining('another device'), code: 'profile_changed' }]);
      const now = (await api.get('/api/users/me/profile/', { token: user.token })).body;
      expect(now).toEqual(first.body);
      expect((await fetch(`${server.url}${added}`)).status).toBe(200);
      // From the version as it is now, or from a client that names none, the save goes through.
      const third = await api.put('/api/users/me/profile/', { token: user.token, json: { ...asOpened, image2: added, bio: 'Now', version: now.version } });
      expect([third.status, third.body.bio]).toEqual([200, 'Now']);
      const unversioned = await api.put('/api/users/me/profile/', { token: user.token, json: { ...asOpened, image2: added, bio: 'Again' } });
      expect([unversioned.status, unversioned.body.bio]).toEqual([200, 'Again']);
      // Nothing changed since, nothing new: the version is the profile's content, read after read.
      expect((await api.get('/api/users/me/profile/', { token: user.token })).body.version).toBe(unversioned.body.version);
    });

    it('saves a valid profile, returns it, shows it on GET and marks the profile completed', async () => {
      const user = await makeUser(server);
      const photo = await upload(server, user.token);
      const input = await validProfile({
        name: 'Lucía M.',
        bio: 'DJ booth regular.',
        gender: 'non_binary',
        date_of_birth: '1994-07-09',
        image2: photo,
        genders_to_match: ['female', 'non_binary'],
        min_matching_age: 25,
        max_matching_age: 40,
      });
      const saved = await api.put('/api/users/me/profile/', { token: user.token, json: input });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      expect(saved.body).toEqual({
        name: 'Lucía M.',
        bio: 'DJ booth regular.',
        gender: 'non_binary',
        date_of_birth: '1994-07-09',
        image: expect.stringMatching(/^\/media\/[A-Za-z0-9_-]+\.webp$/),
        image2: photo,
        image3: null,
        image4: null,
        image5: null,
        image6: null,
        genders_to_match: ['female', 'non_binary'],
        min_matching_age: 25,
        max_matching_age: 40,
        version: expect.any(String),
      });
      const again = await api.get('/api/users/me/profile/', { token: user.token });
      expect(again.body).toEqual(saved.body);

      const me = await api.get('/api/users/me/', { token: user.token });
      expect(me.body).toMatchObject({ is_profile_completed: true, image: saved.body.image });

      // The data: URI became an upload of this user.
      const key = mediaKey(String(saved.body.image));
      const [row] = await server.app.db.select().from(uploads).where(eq(uploads.key, key));
      expect(row?.ownerId).toBe(user.id);
    });

    it('keeps its own upload given as an absolute URL and removes an image set to null', async () => {
      const user = await makeCompletedUser(server);
      const [photo, other] = [await upload(server, user.token), await upload(server, user.token)];
      const first = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: `${server.url}${photo}`, image3: other }),
      });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body).toMatchObject({ image: photo, image3: other });

      const second = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: photo, image3: null }),
      });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ image: photo, image3: null });
    });

    it('deletes a photo taken out of the profile or replaced: its URL stops working and its upload is gone', async () => {
      const user = await makeCompletedUser(server);
      const [first, second] = [await upload(server, user.token), await upload(server, user.token)];
      const saved = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: first, image2: second }),
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const cached = await fetch(`${server.url}${second}`);
      expect(cached.status).toBe(200);
      // What a browser or proxy that fetched it may keep: an hour at most, then it must ask again.
      expect(cached.headers.get('cache-control')).toBe('public, max-age=3600, must-revalidate');
      // A revalidation as a browser sends it (fetch itself would add `no-cache` to a conditional request).
      const revalidate = { 'if-none-match': cached.headers.get('etag')!, 'cache-control': 'max-age=0' };
      expect((await fetch(`${server.url}${second}`, { headers: revalidate })).status).toBe(304);

      // image2 taken out, the primary replaced by a new photo sent inline.
      const replacement = `data:image/png;base64,${(await imageBytes('png')).toString('base64')}`;
      const changed = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: replacement, image2: null }),
      });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(changed.body.image).toMatch(/^\/media\//);
      // A cache asking again about the photo it holds is told it is gone.
      expect((await fetch(`${server.url}${second}`, { headers: revalidate })).status).toBe(404);
      for (const gone of [first, second]) {
        expect((await fetch(`${server.url}${gone}`)).status).toBe(404);
        expect(await server.app.db.select().from(uploads).where(eq(uploads.key, mediaKey(gone)))).toEqual([]);
      }
      expect((await fetch(`${server.url}${changed.body.image}`)).status).toBe(200);
    });

    it('keeps a photo taken out of the profile while another profile still shows it (the seeded demo pool)', async () => {
      const owner = await makeCompletedUser(server);
      const shared = await upload(server, owner.token);
      const ownerProfile = await validProfile({ image2: shared });
      expect((await api.put('/api/users/me/profile/', { token: owner.token, json: ownerProfile })).status).toBe(200);
      const other = await makeCompletedUser(server);
      await server.app.db.update(profiles).set({ image3: shared }).where(eq(profiles.userId, other.id));

      const removed = await api.put('/api/users/me/profile/', {
        token: owner.token,
        json: { ...ownerProfile, image2: null },
      });
      expect(removed.status).toBe(200);
      expect((await fetch(`${server.url}${shared}`)).status).toBe(200);
      expect(await server.app.db.select().from(uploads).where(eq(uploads.key, mediaKey(shared)))).toHaveLength(1);
    });

    it('sweeps the uploads older than its cutoff that no profile shows, files too', async () => {
      const startedAt = new Date(Date.now() - 1000);
      const user = await makeCompletedUser(server);
      const [shown, abandoned, lent] = [
        await upload(server, user.token),
        await upload(server, user.token),
        await upload(server, user.token),
      ];
      expect((await api.put('/api/users/me/profile/', { token: user.token, json: await validProfile({ image: shown }) })).status).toBe(200);
      const other = await makeCompletedUser(server);
      await server.app.db.update(profiles).set({ image4: lent }).where(eq(profiles.userId, other.id));
      const mine = [shown, abandoned, lent].map(mediaKey);

      // Made after the cutoff: nothing of this test's is old enough yet.
      const early = await sweepUnusedUploads(server.app.db, server.app.media, startedAt);
      expect(early.filter((key) => mine.includes(key))).toEqual([]);
      expect((await fetch(`${server.url}${abandoned}`)).status).toBe(200);

      const swept = await sweepUnusedUploads(server.app.db, server.app.media, new Date(Date.now() + 1000));
      expect(swept.filter((key) => mine.includes(key))).toEqual([mediaKey(abandoned)]);
      expect((await fetch(`${server.url}${abandoned}`)).status).toBe(404);
      for (const kept of [shown, lent]) expect((await fetch(`${server.url}${kept}`)).status).toBe(200);
      expect(await server.app.db.select().from(uploads).where(inArray(uploads.key, mine))).toHaveLength(2);
    });

    it('leaves no file behind when a save fails after storing its photo', async () => {
      const mediaFiles = async () => (await readdir(path.join(server.config.dataDir, 'media'))).sort();
      const photo = `data:image/png;base64,${(await imageBytes('png')).toString('base64')}`;
      const before = await mediaFiles();

      // No such account: the upload row itself cannot be written.
      await expect(saveProfile(server.app.db, server.app.media, 2_000_000_000, await validProfile({ image: photo }))).rejects.toThrow();
      expect(await mediaFiles()).toEqual(before);

      // An account without its profile row: the upload row is written, then the profile update fails
      // and the transaction rolls back.
      const user = await makeUser(server);
      await server.app.db.delete(profiles).where(eq(profiles.userId, user.id));
      await expect(saveProfile(server.app.db, server.app.media, user.id, await validProfile({ image: photo }))).rejects.toThrow();
      expect(await mediaFiles()).toEqual(before);
      expect(await server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id))).toEqual([]);
    });

    it.each([
      ['turns 18 today', () => dateFromToday(-18)],
      ['is 100', () => birthDateForAge(100)],
      ['turns 101 tomorrow', () => dateFromToday(-101, 1)],
    ])('accepts someone who %s', async (_case, dateOfBirth) => {
      const { response, sent } = await onOneDay(async () => {
        const user = await makeUser(server);
        const sent = dateOfBirth();
        return { response: await api.put('/api/users/me/profile/', { token: user.token, json: await validProfile({ date_of_birth: sent }) }), sent };
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.date_of_birth).toBe(sent);
    });

    it.each([
      ['name of 50 characters', { name: 'n'.repeat(50) }],
      ['bio of 500 characters', { bio: 'b'.repeat(500) }],
      ['a single age', { min_matching_age: 18, max_matching_age: 18 }],
      ['the oldest range', { min_matching_age: 100, max_matching_age: 100 }],
      ['one gender to match', { genders_to_match: ['male'] }],
    ] as [string, Partial<ProfileInput>][])('accepts the bound: %s', async (_case, overrides) => {
      const user = await makeUser(server);
      const response = await api.put('/api/users/me/profile/', { token: user.token, json: await validProfile(overrides) });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body).toMatchObject(overrides);
    });

    const omit = (field: keyof ProfileInput) => (profile: Record<string, unknown>) => {
      delete profile[field];
    };
    const set = (values: Record<string, unknown>) => (profile: Record<string, unknown>) => {
      Object.assign(profile, values);
    };
    type Case = [string, (profile: Record<string, unknown>) => void, Record<string, string[]>];
    const cases: Case[] = [
      ['a blank name', set({ name: '' }), { name: ['This field may not be blank.'] }],
      ['a name of spaces', set({ name: '   ' }), { name: ['This field may not be blank.'] }],
      ['a name of 51 characters', set({ name: 'n'.repeat(51) }), { name: ['Ensure this field has no more than 50 characters.'] }],
      ['no name', omit('name'), { name: ['This field is required.'] }],
      ['a blank bio', set({ bio: '' }), { bio: ['This field may not be blank.'] }],
      ['a bio of 501 characters', set({ bio: 'b'.repeat(501) }), { bio: ['Ensure this field has no more than 500 characters.'] }],
      ['an unknown gender', set({ gender: 'robot' }), { gender: ['"robot" is not a valid choice.'] }],
      ['a null gender', set({ gender: null }), { gender: ['This field may not be null.'] }],
      ['no date of birth', omit('date_of_birth'), { date_of_birth: [DATE_OF_BIRTH_REQUIRED] }],
      ['a null date of birth', set({ date_of_birth: null }), { date_of_birth: [DATE_OF_BIRTH_REQUIRED] }],
      ['an empty date of birth', set({ date_of_birth: '' }), { date_of_birth: [DATE_OF_BIRTH_REQUIRED] }],
      ['the 30th of February', set({ date_of_birth: '2000-02-30' }), { date_of_birth: [DATE_FORMAT] }],
      ['a 13th month', set({ date_of_birth: '1990-13-01' }), { date_of_birth: [DATE_FORMAT] }],
      ['a date in words', set({ date_of_birth: 'last summer' }), { date_of_birth: [DATE_FORMAT] }],
      ['a date with a time', set({ date_of_birth: '1990-01-01T00:00:00Z' }), { date_of_birth: [DATE_FORMAT] }],
      ['a time zone that is not one', set({ time_zone: 'GMT; drop table' }), { time_zone: ['Enter a time zone such as Europe/Madrid.'] }],
      ['a time zone of 65 characters', set({ time_zone: `Europe/${'x'.repeat(58)}` }), { time_zone: ['Ensure this field has no more than 64 characters.'] }],
      ['a time zone as a number', set({ time_zone: 1 }), { time_zone: ['Not a valid string.'] }],
      ['no primary picture', omit('image'), { image: [PRIMARY_PHOTO_REQUIRED] }],
      ['a null primary picture', set({ image: null }), { image: [PRIMARY_PHOTO_REQUIRED] }],
      ['an empty primary picture', set({ image: '' }), { image: [PRIMARY_PHOTO_REQUIRED] }],
      ['a picture from elsewhere', set({ image: 'https://images.example.com/me.png' }), { image: [BAD_IMAGE_REFERENCE] }],
      ['a path outside the media', set({ image2: '/media/../etc/passwd' }), { image2: [BAD_IMAGE_REFERENCE] }],
      ['a media key that does not exist', set({ image3: '/media/AAAAAAAAAAAAAAAAAAAAAAAA.webp' }), { image3: [BAD_IMAGE_REFERENCE] }],
      ['no genders to match', set({ genders_to_match: [] }), { genders_to_match: ['Select at least one gender to match.'] }],
      ['a gender to match twice', set({ genders_to_match: ['male', 'male'] }), { genders_to_match: ['Each gender can be selected once.'] }],
      ['an unknown gender to match', set({ genders_to_match: ['male', 'robot'] }), { genders_to_match: ['"robot" is not a valid choice.'] }],
      ['genders to match as a string', set({ genders_to_match: 'male' }), { genders_to_match: ['Expected a list of items.'] }],
      ['a minimum age of 17', set({ min_matching_age: 17 }), { min_matching_age: ['Ensure this value is greater than or equal to 18.'] }],
      ['a maximum age of 101', set({ max_matching_age: 101 }), { max_matching_age: ['Ensure this value is less than or equal to 100.'] }],
      ['a fractional age', set({ min_matching_age: 20.5 }), { min_matching_age: ['A valid integer is required.'] }],
      ['an age as text', set({ max_matching_age: 'forty' }), { max_matching_age: ['A valid integer is required.'] }],
      [
        'a minimum above the maximum',
        set({ min_matching_age: 40, max_matching_age: 30 }),
        { max_matching_age: ['The maximum age must be greater than or equal to the minimum age.'] },
      ],
    ];

    describe('refuses each bad field alone, with its message, and stores nothing', () => {
      let user: TestUser;
      let before: unknown;
      beforeAll(async () => {
        user = await makeCompletedUser(server, { name: 'Before' });
        before = (await api.get('/api/users/me/profile/', { token: user.token })).body;
      });

      it.each(cases)('%s', async (_case, change, expected) => {
        const profile = (await validProfile({ name: 'After' })) as unknown as Record<string, unknown>;
        change(profile);
        const response = await api.put('/api/users/me/profile/', { token: user.token, json: profile });
        expect(response.status).toBe(400);
        expect(response.body).toEqual(expected);
        expect((await api.get('/api/users/me/profile/', { token: user.token })).body).toEqual(before);
      });

      // Dates of birth said from today's date: written when the case runs, not when the file is read (a
      // midnight may pass between the two), and saved, like any save, on one UTC day (see onOneDay).
      // Each by a user of its own: a save on the day after would have changed the one above.
      it.each([
        ['someone who turns 18 tomorrow', () => ({ date_of_birth: dateFromToday(-18, 1) }), { date_of_birth: [TOO_YOUNG] }],
        ['a date in the future', () => ({ date_of_birth: dateFromToday(1) }), { date_of_birth: [TOO_YOUNG] }],
        ['someone who turns 101 today', () => ({ date_of_birth: dateFromToday(-101) }), { date_of_birth: [TOO_OLD] }],
        // Two days off in any zone: the age is checked whatever the zone says.
        [
          'someone who turns 18 in two days, with a time zone',
          () => ({ date_of_birth: dateFromToday(-18, 2), time_zone: 'Pacific/Kiritimati' }),
          { date_of_birth: [TOO_YOUNG] },
        ],
      ])('%s', async (_case, values, expected) => {
        const { response, was, is } = await onOneDay(async () => {
          const someone = await makeCompletedUser(server, { name: 'Before' });
          const read = async () => (await api.get('/api/users/me/profile/', { token: someone.token })).body;
          const was = await read();
          const response = await api.put('/api/users/me/profile/', { token: someone.token, json: { ...(await validProfile({ name: 'After' })), ...values() } });
          return { response, was, is: await read() };
        });
        expect(response.status).toBe(400);
        expect(response.body).toEqual(expected);
        expect(is).toEqual(was);
      });
    });

    it('does not mark a new account completed after a refused save', async () => {
      const user = await makeUser(server);
      const response = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: undefined }),
      });
      expect(response.status).toBe(400);
      expect((await api.get('/api/users/me/', { token: user.token })).body.is_profile_completed).toBe(false);
    });

    it('lists every bad field at once', async () => {
      const user = await makeUser(server);
      const response = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: {
          name: '',
          bio: 'b'.repeat(501),
          gender: 'robot',
          genders_to_match: [],
          min_matching_age: 60,
          max_matching_age: 30,
        },
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        name: ['This field may not be blank.'],
        bio: ['Ensure this field has no more than 500 characters.'],
        gender: ['"robot" is not a valid choice.'],
        date_of_birth: [DATE_OF_BIRTH_REQUIRED],
        image: [PRIMARY_PHOTO_REQUIRED],
        genders_to_match: ['Select at least one gender to match.'],
        max_matching_age: ['The maximum age must be greater than or equal to the minimum age.'],
      });
    });

    it('refuses another user’s upload on that field, and stores nothing', async () => {
      const owner = await makeUser(server);
      const theirs = await upload(server, owner.token);
      const user = await makeUser(server);
      const mine = await upload(server, user.token);
      const before = (await api.get('/api/users/me/profile/', { token: user.token })).body;
      const response = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: mine, image4: theirs, image5: `${server.url}${theirs}` }),
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ image4: [BAD_IMAGE_REFERENCE], image5: [BAD_IMAGE_REFERENCE] });
      expect((await api.get('/api/users/me/profile/', { token: user.token })).body).toEqual(before);
    });

    it('refuses one photo in two fields, naming the later one, in either language, and stores nothing', async () => {
      const user = await makeCompletedUser(server);
      const [photo, other] = [await upload(server, user.token), await upload(server, user.token)];
      const before = (await api.get('/api/users/me/profile/', { token: user.token })).body;
      // The same upload as a path and as an absolute URL is one photo too.
      for (const [language, json, expected] of [
        ['en', await validProfile({ image: photo, image2: other, image4: photo }), { image4: [SERVER_MESSAGES.photo_twice.en.replace('{n}', '1')] }],
        ['es', await validProfile({ image: other, image3: photo, image6: `${server.url}${photo}` }), { image6: [SERVER_MESSAGES.photo_twice.es.replace('{n}', '3')] }],
        ['en', await validProfile({ bio: '', image: photo, image2: photo, image3: photo }), {
          bio: ['This field may not be blank.'],
          image2: [SERVER_MESSAGES.photo_twice.en.replace('{n}', '1')],
          image3: [SERVER_MESSAGES.photo_twice.en.replace('{n}', '1')],
        }],
      ] as const) {
        const response = await api.put('/api/users/me/profile/', { token: user.token, json, headers: { 'accept-language': language } });
        expect([response.status, response.body]).toEqual([400, expected]);
      }
      expect((await api.get('/api/users/me/profile/', { token: user.token })).body).toEqual(before);
    });

    it('refuses one photo sent inline in two fields, naming the later one, and stores nothing', async () => {
      const user = await makeUser(server);
      const photo = await imageDataUri('png');
      const response = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: photo, image2: await imageDataUri('jpeg'), image5: photo }),
        headers: { 'accept-language': 'es' },
      });
      expect([response.status, response.body]).toEqual([400, { image5: [SERVER_MESSAGES.photo_twice.es.replace('{n}', '1')] }]);
      expect(await server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id))).toEqual([]);
      expect((await api.get('/api/users/me/', { token: user.token })).body.is_profile_completed).toBe(false);
    });

    it('names a photo that is not the user’s beside the other fields’ problems, not once they are mended', async () => {
      const owner = await makeUser(server);
      const theirs = await upload(server, owner.token);
      const user = await makeUser(server);
      const before = (await api.get('/api/users/me/profile/', { token: user.token })).body;
      const response = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ bio: '', image: theirs, image2: 'https://elsewhere.example/x.png', image3: 7 as never }),
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        bio: ['This field may not be blank.'],
        image: [BAD_IMAGE_REFERENCE],
        image2: [BAD_IMAGE_REFERENCE],
        image3: ['Not a valid string.'],
      });
      expect((await api.get('/api/users/me/profile/', { token: user.token })).body).toEqual(before);
    });

    it('keeps a photo that is already in the profile even when another account uploaded it (seeded demo profiles)', async () => {
      const owner = await makeUser(server);
      const shared = await upload(server, owner.token);
      const other = await upload(server, owner.token);
      const user = await makeCompletedUser(server);
      await server.app.db.update(profiles).set({ image2: shared }).where(eq(profiles.userId, user.id));
      const mine = (await api.get('/api/users/me/profile/', { token: user.token })).body;

      const kept = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: mine.image, image2: shared, bio: 'Still here.' }),
      });
      expect(kept.status, JSON.stringify(kept.body)).toBe(200);
      expect(kept.body).toMatchObject({ image: mine.image, image2: shared, bio: 'Still here.' });
      // Being in my profile lends me that photo, not the rest of its owner's uploads.
      const refused = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({ image: mine.image, image2: shared, image3: other }),
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ image3: [BAD_IMAGE_REFERENCE] });
    });

    it('stores no image at all when one of several data: URIs is not an image', async () => {
      const user = await makeUser(server);
      const countUploads = async () =>
        (await server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id))).length;
      const response = await api.put('/api/users/me/profile/', {
        token: user.token,
        json: await validProfile({
          image: await imageDataUri('png'),
          image2: await imageDataUri('jpeg'),
          image3: `data:image/png;base64,${Buffer.from('definitely not a picture').toString('base64')}`,
        }),
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual(['image3']);
      expect(await countUploads()).toBe(0);
      expect((await api.get('/api/users/me/', { token: user.token })).body.is_profile_completed).toBe(false);
    });

    it('says a photo sent inline too large to read is too large, in the primary slot as in the others', async () => {
      const user = await makeUser(server);
      const mine = await validProfile();
      // More base64 than any field takes (some 12 MB of image): refused before it is decoded.
      const huge = `data:image/png;base64,${'A'.repeat(16_000_000)}`;
      for (const [field, json] of [
        ['image', { ...mine, image: huge }],
        ['image2', { ...mine, image2: huge }],
      ] as const) {
        const response = await api.put('/api/users/me/profile/', { token: user.token, json, headers: { 'accept-language': 'es' } });
        expect(response.status, field).toBe(400);
        expect(response.body, field).toEqual({ [field]: [SERVER_MESSAGES.image_too_large.es] });
      }
    });

    it('needs a token', async () => {
      for (const response of [
        await api.get('/api/users/me/profile/'),
        await api.put('/api/users/me/profile/', { json: await validProfile() }),
      ]) {
        expect(response.status).toBe(401);
        expect(response.body).toEqual({ detail: 'Authentication credentials were not provided.' });
      }
    });
  });

  describe('other users’ profiles', () => {
    let viewer: TestUser;
    beforeAll(async () => {
      viewer = await makeCompletedUser(server);
    });

    it('shows the public fields only: never the e-mail or the date of birth', async () => {
      const dateOfBirth = birthDateForAge(33);
      const other = await makeCompletedUser(server, { name: 'Noor', bio: 'Salsa.', gender: 'female', date_of_birth: dateOfBirth });
      const response = await api.get(`/api/users/${other.id}/profile/`, { token: viewer.token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: other.id,
        name: 'Noor',
        age: 33,
        gender: 'female',
        genre: 'Female',
        bio: 'Salsa.',
        image: expect.stringMatching(/^\/media\//),
        image2: null,
        image3: null,
        image4: null,
        image5: null,
        image6: null,
      });
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(other.email);
      expect(text).not.toContain(dateOfBirth);
    });

    it('is 404 for an unknown id and for an incomplete profile', async () => {
      const incomplete = await makeUser(server);
      for (const id of [2_000_000_000, incomplete.id]) {
        const response = await api.get(`/api/users/${id}/profile/`, { token: viewer.token });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ detail: 'Not found.' });
      }
    });

    it.each(['viewer blocked them', 'they blocked the viewer'])('is 404 when the %s', async (direction) => {
      const other = await makeCompletedUser(server);
      expect((await api.get(`/api/users/${other.id}/profile/`, { token: viewer.token })).status).toBe(200);
      const row =
        direction === 'viewer blocked them'
          ? { blockerId: viewer.id, blockedId: other.id }
          : { blockerId: other.id, blockedId: viewer.id };
      await server.app.db.insert(blocks).values(row);
      const response = await api.get(`/api/users/${other.id}/profile/`, { token: viewer.token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Not found.' });
      // A third user still sees them.
      const third = await makeUser(server);
      expect((await api.get(`/api/users/${other.id}/profile/`, { token: third.token })).status).toBe(200);
    });

    it('needs a token', async () => {
      const response = await api.get(`/api/users/${viewer.id}/profile/`);
      expect(response.status).toBe(401);
    });
  });
});

/**
 * A profile save taking up a photo picked a day ago, racing the upload sweep that deletes day-old
 * uploads no profile shows, on PostgreSQL, where the two run on connections of their own. Each order
 * is driven, not hoped for: the test's own transaction holds what one of them needs, so that it stops
 * half-way, and lets go once the other has gone as far as it can. Whichever order, a profile never
 * commits a photo whose upload row and file are gone.
 */
describe.skipIf(!(await hasPostgres()))('a profile save racing the upload sweep, on PostgreSQL', () => {
  /** The test's own connection holds what a request or the sweep waits on. */
  const races = racesOnPostgres();
  const { hold, stuckOrDone } = races;
  let api: Client;
  beforeAll(() => {
    api = client(races.server.url);
  });

  const sweep = () => sweepUnusedUploads(races.server.app.db, races.server.app.media, new Date(Date.now() - UNUSED_UPLOAD_TTL_MS));
  const served = async (url: string) => (await fetch(`${races.server.url}${url}`)).status;
  const uploadRow = (url: string) => races.server.app.db.select().from(uploads).where(eq(uploads.key, mediaKey(url)));

  /** Someone whose profile shows one photo, and who picked another a day ago without saving it. */
  async function scene() {
    const user = await makeUser(races.server);
    const [shown, picked] = [await upload(races.server, user.token), await upload(races.server, user.token)];
    expect((await api.put('/api/users/me/profile/', { token: user.token, json: await validProfile({ image: shown }) })).status).toBe(200);
    await races.server.app.db
      .update(uploads)
      .set({ createdAt: new Date(Date.now() - UNUSED_UPLOAD_TTL_MS - 60_000) })
      .where(eq(uploads.key, mediaKey(picked)));
    // Saved now, in place of the photo the profile shows.
    const save = async () => api.put('/api/users/me/profile/', { token: user.token, json: await validProfile({ image: picked }) });
    return { user, shown, picked, save };
  }

  it('the save first: the sweep leaves the photo it is taking up, and the profile keeps a photo that exists', async () => {
    const { user, shown, picked, save } = await scene();
    // The save stops inside its transaction, its profile written but not committed: deleting the
    // upload row of the photo it replaces waits on the test's hold of that row.
    const release = await hold('select 1 from uploads where key = $1 for key share', [mediaKey(shown)]);
    let saving: Promise<ApiResponse> | undefined;
    let sweeping: Promise<string[]> | undefined;
    try {
      saving = save();
      expect(await stuckOrDone(saving, 1)).toBe(false);
      // The sweep runs meanwhile: no committed profile shows the day-old photo yet. It does not wait
      // for the save either (a sweep that did would delete the photo once the save committed).
      sweeping = sweep();
      expect(await stuckOrDone(sweeping, 2)).toBe(true);
    } finally {
      await release();
    }
    const swept = await sweeping;
    const saved = await saving;
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.image).toBe(picked);
    expect(swept).not.toContain(mediaKey(picked));
    expect(await uploadRow(picked)).toHaveLength(1);
    expect(await served(picked)).toBe(200);
    expect((await api.get('/api/users/me/profile/', { token: user.token })).body.image).toBe(picked);
    // Shown now: the next sweep keeps it too.
    expect(await sweep()).not.toContain(mediaKey(picked));
    expect(await served(picked)).toBe(200);
    expect(await served(shown)).toBe(404);
  });

  it('the sweep first: the save waits for it, finds the photo gone and refuses it, and the profile is as it was', async () => {
    const { user, shown, picked, save } = await scene();
    // The sweep stops between its two statements: it has taken the day-old photo's row (its first
    // statement only reads), and its delete waits for the table lock the test holds.
    const release = await hold('lock table uploads in share mode');
    let sweeping: Promise<string[]> | undefined;
    let saving: Promise<ApiResponse> | undefined;
    try {
      sweeping = sweep();
      expect(await stuckOrDone(sweeping, 1)).toBe(false);
      // The save checks the photo (still there, as far as it can see) and goes as far as it can.
      saving = save();
      expect(await stuckOrDone(saving, 2)).toBe(false);
    } finally {
      await release();
    }
    expect(await sweeping).toContain(mediaKey(picked));
    const refused = await saving;
    expect([refused.status, refused.body]).toEqual([400, { image: [BAD_IMAGE_REFERENCE] }]);
    expect(await uploadRow(picked)).toEqual([]);
    expect(await served(picked)).toBe(404);
    expect((await api.get('/api/users/me/profile/', { token: user.token })).body.image).toBe(shown);
    expect(await served(shown)).toBe(200);
  });
});
