/**
 * Photos and report evidence in an S3-compatible bucket (`S3_BUCKET`), through the real AWS SDK, against
 * a local fake of S3's HTTP API. The store is the same for both databases, so one backend is enough.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { profiles, uploads } from '../../server/db/schema';
import { ORPHAN_GRACE_MS } from '../../server/features/media/orphans';
import { sweepUnusedUploads } from '../../server/features/media/service';
import { newMediaKey, type StoredKey } from '../../server/features/media/store';
import { runJob } from '../../server/jobs';
import { orphanFileSweep } from '../../server/jobs/orphan-file-sweep';
import { type FakeS3, startFakeS3 } from '../fakes/s3';
import { makeCompletedUser, makeUser, type TestUser, validProfile } from '../helpers/factories';
import { client } from '../helpers/http';
import { imageBytes, imageDataUri } from '../helpers/images';
import { makeModerator } from '../helpers/safety';
import { serverPerSuite } from '../helpers/server';
import { unzip } from '../helpers/zip';

const UNAVAILABLE = { detail: 'Photos are unavailable right now. Please try again in a moment.' };

describe('photos in an S3-compatible bucket', () => {
  let s3: FakeS3;
  beforeAll(async () => {
    s3 = await startFakeS3();
  });
  afterAll(() => s3?.close());
  const server = serverPerSuite(() => ({
    config: {
      s3: {
        bucket: s3.bucket,
        endpoint: s3.url,
        region: 'eu-west-1',
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      },
    },
  }));
  beforeEach(() => {
    s3.failing = false;
    s3.listPageSize = 1000;
  });

  const api = () => client(server.url);
  const keyOf = (url: string) => url.replace('/media/', '');
  const inBucket = (url: string) => s3.objects.get(`media/${keyOf(url)}`);

  async function upload(user: TestUser, headers: Record<string, string> = {}) {
    const form = new FormData();
    form.append('file', new Blob([await imageBytes('png')], { type: 'image/png' }), 'me.png');
    return api().request('POST', '/api/uploads/', { token: user.token, body: form, headers });
  }

  const photoOf = async (user: TestUser) => (await api().get('/api/users/me/profile/', { token: user.token })).body.image as string;

  it('keeps an upload in the bucket, signed with its key, and serves it under /media/ with its cache headers', async () => {
    const user = await makeUser(server);
    const uploaded = await upload(user);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const stored = inBucket(uploaded.body.url);
    expect(stored).toMatchObject({ contentType: 'image/webp', cacheControl: 'public, max-age=3600, must-revalidate' });
    // Nothing on this machine's disk: another instance on another machine serves it as well.
    expect(existsSync(path.join(server.config.dataDir, 'media'))).toBe(false);

    const served = await fetch(`${server.url}${uploaded.body.url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
    expect(served.headers.get('cache-control')).toBe('public, max-age=3600, must-revalidate');
    expect(Buffer.from(await served.arrayBuffer()).equals(stored!.body)).toBe(true);

    // A cache revalidating after its hour hears "still good" without the bytes leaving the bucket.
    const etag = served.headers.get('etag')!;
    s3.requests.length = 0;
    const revalidated = await fetch(`${server.url}${uploaded.body.url}`, { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(s3.requests).toEqual([`HEAD media/${keyOf(uploaded.body.url)}`]);
    expect((await fetch(`${server.url}${uploaded.body.url}`, { method: 'HEAD' })).status).toBe(200);

    // Its thumbnail is made from the bucket's copy once; asked again, only the photo's presence is.
    s3.requests.length = 0;
    const thumb = await fetch(`${server.url}${uploaded.body.url}?size=thumb`);
    expect([thumb.status, thumb.headers.get('content-type')]).toEqual([200, 'image/webp']);
    const bytes = Buffer.from(await thumb.arrayBuffer());
    expect((await fetch(`${server.url}${uploaded.body.url}?size=thumb`)).status).toBe(200);
    const key = keyOf(uploaded.body.url);
    expect(s3.requests).toEqual([`HEAD media/${key}`, `GET media/${key}`, `HEAD media/${key}`]);
    expect((await sharp(bytes).metadata()).format).toBe('webp');
  });

  it('takes a replaced photo out of the bucket, and /media/ stops serving it at once', async () => {
    const user = await makeCompletedUser(server);
    const before = await photoOf(user);
    expect(inBucket(before)).toBeDefined();
    const etag = (await fetch(`${server.url}${before}`)).headers.get('etag')!;

    const saved = await api().put('/api/users/me/profile/', { token: user.token, json: await validProfile({ image: await imageDataUri('jpeg') }) });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const after = await photoOf(user);
    expect(after).not.toBe(before);
    expect(inBucket(after)).toBeDefined();
    expect(inBucket(before)).toBeUndefined();
    for (const headers of [{}, { 'if-none-match': etag }] as Array<Record<string, string>>) {
      const gone = await api().get(before, { headers });
      expect([gone.status, gone.body]).toEqual([404, { detail: 'Not found.' }]);
    }
    const thumb = await api().get(`${before}?size=thumb`);
    expect([thumb.status, thumb.body]).toEqual([404, { detail: 'Not found.' }]);
  });

  it('answers a save that took a photo out 200 though the bucket fails to remove it: the profile changed, the sweep removes the file', async () => {
    const user = await makeCompletedUser(server);
    const kept = await photoOf(user);
    const second = (await upload(user)).body.url as string;
    const withTwo = await api().put('/api/users/me/profile/', { token: user.token, json: await validProfile({ image: kept, image2: second }) });
    expect(withTwo.status, JSON.stringify(withTwo.body)).toBe(200);

    // Only the removal needs the bucket: the save's change is committed before it.
    s3.failing = true;
    const saved = await api().put('/api/users/me/profile/', {
      token: user.token,
      json: await validProfile({ name: 'Fewer photos', image: kept, image2: null, version: withTwo.body.version }),
    });
    expect([saved.status, saved.body.name, saved.body.image2]).toEqual([200, 'Fewer photos', null]);
    expect(await server.app.db.select().from(uploads).where(eq(uploads.key, keyOf(second)))).toEqual([]);
    expect(inBucket(second)).toBeDefined();

    s3.failing = false;
    age(`media/${keyOf(second)}`);
    expect(await runJob(server.app, orphanFileSweep)).toMatchObject({ status: 'done' });
    expect(inBucket(second)).toBeUndefined();
    expect((await fetch(`${server.url}${second}`)).status).toBe(404);
    expect(inBucket(kept)).toBeDefined();
  });

  it('sweeps uploads no profile took up from the bucket, and keeps the ones shown', async () => {
    const user = await makeCompletedUser(server);
    const shown = await photoOf(user);
    const spare = (await upload(user)).body.url as string;
    expect(inBucket(spare)).toBeDefined();

    const swept = await sweepUnusedUploads(server.app.db, server.app.media, new Date(Date.now() + 1000));
    expect(swept).toContain(keyOf(spare));
    expect(inBucket(spare)).toBeUndefined();
    expect(inBucket(shown)).toBeDefined();
  });

  it('copies a reported profile’s photos into the evidence, shows them only to moderators, and drops them once resolved', async () => {
    const moderator = await makeModerator(server);
    const reporter = await makeCompletedUser(server);
    const reported = await makeCompletedUser(server);
    const photo = await photoOf(reported);
    const evidenceBefore = [...s3.objects.keys()].filter((key) => key.startsWith('evidence/'));

    const report = await api().post('/api/reports/', { token: reporter.token, json: { user_id: reported.id, reason: 'fake_profile' } });
    expect(report.status, JSON.stringify(report.body)).toBe(201);
    const copies = [...s3.objects.keys()].filter((key) => key.startsWith('evidence/') && !evidenceBefore.includes(key));
    expect(copies).toHaveLength(1);
    expect(s3.objects.get(copies[0]!)!.body.equals(inBucket(photo)!.body)).toBe(true);

    const seen = await fetch(`${server.url}/api/moderation/reports/${report.body.id}/photos/0/`, {
      headers: { authorization: `Token ${moderator.token}` },
    });
    expect(seen.status).toBe(200);
    expect(Buffer.from(await seen.arrayBuffer()).equals(s3.objects.get(copies[0]!)!.body)).toBe(true);
    // The evidence's key is not a photo anyone can fetch.
    expect((await api().get(`/media/${copies[0]!.replace('evidence/', '')}`)).status).toBe(404);

    const resolved = await api().post(`/api/moderation/reports/${report.body.id}/resolve/`, {
      token: moderator.token,
      json: { action: 'dismiss' },
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(s3.objects.has(copies[0]!)).toBe(false);
  });

  it('exports the account’s photos from the bucket, and deleting the account empties it of them', async () => {
    const user = await makeCompletedUser(server);
    const photo = await photoOf(user);
    const spare = (await upload(user)).body.url as string;

    const exported = await fetch(`${server.url}/api/users/me/export/`, { headers: { authorization: `Token ${user.token}` } });
    expect(exported.status).toBe(200);
    const files = await unzip(Buffer.from(await exported.arrayBuffer()));
    for (const url of [photo, spare]) expect(files.get(`photos/${keyOf(url)}`)!.equals(inBucket(url)!.body)).toBe(true);

    const deleted = await api().delete('/api/users/me/', { token: user.token, json: { password: user.password } });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    expect(inBucket(photo)).toBeUndefined();
    expect(inBucket(spare)).toBeUndefined();
  });

  it('answers a bucket that fails with a 503 to retry, in the reader’s language, and stores nothing half-way', async () => {
    const user = await makeCompletedUser(server);
    const photo = await photoOf(user);
    const profileBefore = (await api().get('/api/users/me/profile/', { token: user.token })).body;
    const rowsBefore = await server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id));
    const objectsBefore = [...s3.objects.keys()].sort();
    s3.failing = true;

    const refused = await upload(user);
    expect([refused.status, refused.body]).toEqual([503, UNAVAILABLE]);
    expect((await upload(user, { 'accept-language': 'es' })).body).toEqual({
      detail: 'Las fotos no están disponibles ahora. Inténtalo de nuevo en un momento.',
    });
    const changed = await api().put('/api/users/me/profile/', {
      token: user.token,
      json: await validProfile({ name: 'Changed', image: await imageDataUri('jpeg') }),
    });
    expect([changed.status, changed.body]).toEqual([503, UNAVAILABLE]);
    const served = await api().get(photo);
    expect([served.status, served.body]).toEqual([503, UNAVAILABLE]);
    // Reported, not required: the people at a party can still match and chat without photos.
    const readiness = await api().get('/readyz');
    expect([readiness.status, readiness.body.checks.media]).toEqual([200, 'failing']);

    expect((await api().get('/api/users/me/profile/', { token: user.token })).body).toEqual(profileBefore);
    expect(await server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id))).toEqual(rowsBefore);
    expect([...s3.objects.keys()].sort()).toEqual(objectsBefore);

    s3.failing = false;
    expect((await api().get('/readyz')).body.checks.media).toBe('ok');
    expect((await fetch(`${server.url}${photo}`)).status).toBe(200);
    expect((await upload(user)).status).toBe(201);
  });

  const listRequests = () => s3.requests.filter((request) => request.startsWith('GET ?') && request.includes('list-type=2'));
  /** An object as one whose row is gone leaves it: put in the bucket, aged past the sweep's grace unless `fresh`. */
  async function strayObject(prefix: 'media/' | 'evidence/', { fresh = false, key = newMediaKey() } = {}) {
    const body = await imageBytes('webp');
    s3.objects.set(`${prefix}${key}`, { body, contentType: 'image/webp', cacheControl: undefined, lastModified: new Date() });
    if (!fresh) age(`${prefix}${key}`);
    return key;
  }
  const age = (object: string) => {
    s3.objects.get(object)!.lastModified = new Date(Date.now() - ORPHAN_GRACE_MS - 60_000);
  };

  it('lists the keys under its prefix with their times, a page at a time (ListObjectsV2 through the SDK)', async () => {
    const keys = [newMediaKey(), newMediaKey(), newMediaKey(), newMediaKey(), newMediaKey()];
    for (const key of keys) await server.app.media.put(key, await imageBytes('webp'));
    const evidence = newMediaKey();
    await server.app.evidence.put(evidence, await imageBytes('webp'));
    s3.listPageSize = 2;
    s3.requests.length = 0;

    const listed: StoredKey[] = [];
    for await (const stored of server.app.media.list()) listed.push(stored);
    const all = [...s3.objects.keys()].filter((key) => key.startsWith('media/'));
    expect(listed.map((stored) => stored.key).sort()).toEqual(all.map((key) => key.slice('media/'.length)).sort());
    expect(listed.map((stored) => stored.key)).toEqual(expect.arrayContaining(keys));
    expect(listed.map((stored) => stored.key)).not.toContain(evidence);
    for (const { key, lastModified } of listed) expect(lastModified).toEqual(s3.objects.get(`media/${key}`)!.lastModified);
    // Every page asked for, each after the one before.
    expect(listRequests()).toHaveLength(Math.ceil(all.length / 2));
    expect(listRequests()[0]).toContain('prefix=media%2F');
    expect(listRequests().slice(1).every((request) => request.includes('continuation-token='))).toBe(true);
  });

  it('sweeps the bucket of old objects nothing names, photos and evidence, and keeps every other', async () => {
    const owner = await makeCompletedUser(server);
    const uploaded = keyOf((await upload(owner)).body.url);
    age(`media/${uploaded}`);
    const orphan = await strayObject('media/');
    expect((await fetch(`${server.url}/media/${orphan}`)).status).toBe(200);
    const shown = await strayObject('media/');
    await server.app.db.update(profiles).set({ image4: `/media/${shown}` }).where(eq(profiles.userId, owner.id));
    const fresh = await strayObject('media/', { fresh: true });
    const foreign = await strayObject('media/', { key: 'notes/README.txt' });

    const evidenceBefore = [...s3.objects.keys()].filter((key) => key.startsWith('evidence/'));
    const reporter = await makeCompletedUser(server);
    const report = await api().post('/api/reports/', { token: reporter.token, json: { user_id: owner.id, reason: 'fake_profile' } });
    expect(report.status, JSON.stringify(report.body)).toBe(201);
    const copies = [...s3.objects.keys()].filter((key) => key.startsWith('evidence/') && !evidenceBefore.includes(key));
    expect(copies).toHaveLength(2);
    copies.forEach(age);
    const strayCopy = await strayObject('evidence/');
    const freshCopy = await strayObject('evidence/', { fresh: true });

    // Small pages: the sweep goes through all of them.
    s3.listPageSize = 3;
    expect(await runJob(server.app, orphanFileSweep)).toMatchObject({ status: 'done', report: { photos: 1, evidence: 1, failed: 0 } });
    expect(s3.objects.has(`media/${orphan}`)).toBe(false);
    expect((await fetch(`${server.url}/media/${orphan}`)).status).toBe(404);
    for (const key of [uploaded, shown, fresh, foreign]) expect(s3.objects.has(`media/${key}`), key).toBe(true);
    expect(s3.objects.has(`evidence/${strayCopy}`)).toBe(false);
    for (const key of [...copies, `evidence/${freshCopy}`]) expect(s3.objects.has(key), key).toBe(true);
  });

  it('fails the sweep, removing nothing, while the bucket fails; the next run does it', async () => {
    const orphan = await strayObject('media/');
    s3.failing = true;
    expect(await runJob(server.app, orphanFileSweep)).toMatchObject({ status: 'failed' });
    s3.failing = false;
    expect(s3.objects.has(`media/${orphan}`)).toBe(true);
    expect(await runJob(server.app, orphanFileSweep)).toMatchObject({ status: 'done', report: { photos: 1 } });
    expect(s3.objects.has(`media/${orphan}`)).toBe(false);
  });
});
