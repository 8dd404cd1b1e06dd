import { existsSync } from 'node:fs';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { profiles, uploads } from '../../server/db/schema';
import { ORPHAN_GRACE_MS } from '../../server/features/media/orphans';
import { newMediaKey } from '../../server/features/media/store';
import { runJob } from '../../server/jobs';
import { orphanFileSweep } from '../../server/jobs/orphan-file-sweep';
import { MAX_UPLOAD_BYTES } from '../../shared/constants';
import { makeCompletedUser, makeUser, type TestUser, validProfile } from '../helpers/factories';
import { client } from '../helpers/http';
import { imageBytes } from '../helpers/images';
import { racesOnPostgres } from '../helpers/lock-holder';
import { rawRequest } from '../helpers/raw-http';
import { makeModerator } from '../helpers/safety';
import { backends, serverPerSuite } from '../helpers/server';
import { hasPostgres } from '../helpers/services';

const INVALID_IMAGE = 'Upload a valid image. The file you uploaded was either not an image or a corrupted image.';
const UNSUPPORTED_IMAGE = 'Unsupported image type. Use PNG, JPG, GIF or WebP.';

/** A 4000×3000 JPEG whose EXIF says "rotate 90° clockwise", with a camera, a GPS position and XMP. */
function jpegWithPrivateMetadata() {
  return sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#2563eb' } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'SecretCamMaker', Model: 'LeakyModel 9000', Copyright: 'Owner Private Name' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '40/1 26/1 4632/100', GPSLongitudeRef: 'W', GPSLongitude: '3/1 42/1 1234/100' },
    })
    .withMetadata({ orientation: 6 })
    .withXmp(
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
        '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Secret Xmp Person</dc:creator>' +
        '</rdf:Description></rdf:RDF></x:xmpmeta>',
    )
    .toBuffer();
}

/** The GPS IFD pointer tag (0x8825), in either byte order. */
const hasGpsTag = (exif: Buffer) => exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]));

/** A tiny PNG whose header claims 50 000 × 50 000 pixels: a decompression bomb's calling card. */
async function pngClaimingHugeSize(width = 50_000, height = 50_000) {
  const png = Buffer.from(await imageBytes('png', { width: 1, height: 1 }));
  // IHDR data starts at byte 16 (8 signature + 4 length + 4 type); its CRC follows its 13 bytes.
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

const TIFF = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).tiff().toBuffer();
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');

describe.each(backends)('uploads on %s', (backend) => {
  const server = serverPerSuite({ backend });
  const api = client(server);
  let user: TestUser;
  const mediaDir = () => path.join(server.config.dataDir, 'media');
  const storedFiles = async () => (existsSync(mediaDir()) ? (await readdir(mediaDir())).sort() : []);
  const uploadRows = () => server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id));

  beforeAll(async () => {
    user = await makeUser(server);
  });

  async function send(bytes: Buffer, name: string, type: string, field = 'file', token: string | null = user.token, language = 'en') {
    const form = new FormData();
    form.append(field, new Blob([new Uint8Array(bytes)], { type }), name);
    const response = await fetch(`${server.url}/api/uploads/`, {
      method: 'POST',
      headers: { 'accept-language': language, ...(token ? { authorization: `Token ${token}` } : {}) },
      body: form,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  async function fetchStored(url: string) {
    const response = await fetch(`${server.url}${url}`);
    expect(response.status).toBe(200);
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  /** Runs a refused upload and checks it left no row and no file. */
  async function expectRefused(bytes: Buffer, name: string, type: string, status: number, body: unknown) {
    const rowsBefore = await uploadRows();
    const filesBefore = await storedFiles();
    const response = await send(bytes, name, type);
    expect(response.status).toBe(status);
    expect(response.body).toEqual(body);
    expect(await uploadRows()).toEqual(rowsBefore);
    expect(await storedFiles()).toEqual(filesBefore);
  }

  it.each([
    ['a PNG named x.jpg and declared image/jpeg', () => imageBytes('png'), 'x.jpg', 'image/jpeg'],
    ['a JPEG named x.gif', () => imageBytes('jpeg'), 'x.gif', 'image/gif'],
    ['a GIF declared as octet-stream', () => imageBytes('gif'), 'upload', 'application/octet-stream'],
    ['a WebP named x.png', () => imageBytes('webp'), 'x.png', 'image/png'],
  ])('accepts %s: the bytes decide, and it is stored as a WebP under DATA_DIR', async (_case, make, name, type) => {
    const response = await send(await make(), name, type);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ url: expect.stringMatching(/^\/media\/[A-Za-z0-9_-]+\.webp$/) });
    const key = response.body.url.slice('/media/'.length);
    expect(existsSync(path.join(mediaDir(), key))).toBe(true);
    const [row] = await server.app.db.select().from(uploads).where(eq(uploads.key, key));
    expect(row).toMatchObject({ ownerId: user.id, width: 64, height: 48 });

    const { response: served, bytes } = await fetchStored(response.body.url);
    expect(served.headers.get('content-type')).toBe('image/webp');
    // Kept an hour at most, then asked again: a deleted photo does not live on in caches.
    expect(served.headers.get('cache-control')).toBe('public, max-age=3600, must-revalidate');
    expect(served.headers.get('etag')).toBeTruthy();
    expect((await sharp(bytes).metadata()).format).toBe('webp');
  });

  it('refuses a text file named x.png, in the reader’s language', async () => {
    const text = Buffer.from('hello, I am not a picture at all');
    await expectRefused(text, 'x.png', 'image/png', 400, { file: [INVALID_IMAGE] });
    expect((await send(text, 'x.png', 'image/png', 'file', user.token, 'es')).body).toEqual({
      file: ['Sube una imagen válida. El archivo que has subido no es una imagen o está dañado.'],
    });
  });

  it('refuses an SVG, even declared as PNG', async () => {
    await expectRefused(SVG, 'x.png', 'image/png', 400, { file: [UNSUPPORTED_IMAGE] });
  });

  it.each([
    ['a TIFF', TIFF, 'x.tiff'],
    ['an AVIF', () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).avif().toBuffer(), 'x.avif'],
    // A BMP header: no decoder of ours reads BMP, so only the signature can name it.
    ['a BMP', async () => Buffer.concat([Buffer.from('BM', 'latin1'), Buffer.alloc(60, 0)]), 'x.bmp'],
    ['an SVG behind a BOM and blank lines', async () => Buffer.concat([Buffer.from('\uFEFF\n\n  '), SVG]), 'x.svg'],
  ])('refuses %s as an unsupported type', async (_case, make, name) => {
    await expectRefused(await make(), name, 'image/png', 400, { file: [UNSUPPORTED_IMAGE] });
  });

  it('refuses JPEG bytes behind a PNG signature', async () => {
    const jpeg = await imageBytes('jpeg');
    const disguised = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), jpeg]);
    await expectRefused(disguised, 'x.png', 'image/png', 400, { file: [INVALID_IMAGE] });
  });

  it('refuses a truncated JPEG', async () => {
    const jpeg = await imageBytes('jpeg', { width: 300, height: 200 });
    await expectRefused(jpeg.subarray(0, 40), 'x.jpg', 'image/jpeg', 400, { file: [INVALID_IMAGE] });
  });

  it('refuses a PNG that claims 2.5 billion pixels, without decoding it', async () => {
    await expectRefused(await pngClaimingHugeSize(), 'bomb.png', 'image/png', 400, {
      file: ['The image has too many pixels: 40 megapixels at most.'],
    });
  });

  // Under the pixel cap, but a PNG is decoded a row at a time: a 76 KB file of 1 × 39 000 000 zeros
  // held a core for 16 s (and one of sharp's few threads, which logins and file reads wait for too).
  it.each([
    ['tall', 1, 39_000_000],
    ['wide', 39_000_000, 1],
  ])('refuses a %s PNG under the pixel cap, without decoding it', async (_shape, width, height) => {
    await expectRefused(await pngClaimingHugeSize(width, height), 'strip.png', 'image/png', 400, {
      file: ['The image is too tall or too wide: 32768 pixels a side at most.'],
    });
  });

  /** A real PNG followed by padding, `total` bytes in all: the padding does not stop it decoding. */
  const paddedPng = async (total: number) => {
    const png = await imageBytes('png');
    return Buffer.concat([png, Buffer.alloc(total - png.length, 7)]);
  };

  it('accepts exactly 10 MB', async () => {
    const response = await send(await paddedPng(MAX_UPLOAD_BYTES), 'big.png', 'image/png');
    expect(response.status).toBe(201);
  });

  // Several sizes: the limit once slipped when busboy flagged truncation after the last chunk.
  it.each([MAX_UPLOAD_BYTES + 1, MAX_UPLOAD_BYTES + 65_536, 3 * MAX_UPLOAD_BYTES])('answers 413 to %i bytes', async (size) => {
    await expectRefused(await paddedPng(size), 'big.png', 'image/png', 413, { detail: 'The image is too large: 10 MB at most.' });
  });

  // The parser reads and drops what comes before the first part and after the last: a small photo
  // wrapped in filler was stored (201) however many bytes came with it.
  it.each([
    ['before the photo, its length declared', 'before', 'declared'],
    ['after the photo, its length declared', 'after', 'declared'],
    ['before the photo, sent in chunks', 'before', 'chunked'],
    ['after the photo, sent in chunks', 'after', 'chunked'],
  ])('answers 413 to a small photo in a body past the limit, filler %s', async (_case, where, framing) => {
    const boundary = 'photo-boundary';
    const filler = Buffer.alloc(MAX_UPLOAD_BYTES + 256 * 1024, 'x');
    const body = Buffer.concat([
      where === 'before' ? filler : Buffer.alloc(0),
      Buffer.from(`\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="x.png"\r\ncontent-type: image/png\r\n\r\n`),
      await imageBytes('png'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
      where === 'after' ? filler : Buffer.alloc(0),
    ]);
    const rowsBefore = await uploadRows();
    const filesBefore = await storedFiles();
    const response = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/uploads/',
      headers: {
        authorization: `Token ${user.token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        ...(framing === 'chunked' ? { 'transfer-encoding': 'chunked' } : {}),
      },
      body,
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({ detail: 'The image is too large: 10 MB at most.' });
    expect(await uploadRows()).toEqual(rowsBefore);
    expect(await storedFiles()).toEqual(filesBefore);
  });

  it('answers 415 to a JSON body and 400 to a form without the file field, or with fields besides it', async () => {
    const uploadsBefore = (await uploadRows()).length;
    const json = await api.post('/api/uploads/', { token: user.token, json: { file: 'data:image/png;base64,AAAA' } });
    expect(json.status).toBe(415);
    expect(json.body).toEqual({ detail: expect.any(String) });
    // Whatever the JSON holds, even none that parses: the content type is what is wrong.
    for (const body of ['{"file": ', '{"file": "\\u0000"}', Buffer.from([0x7b, 0xff, 0x7d])]) {
      const broken = await api.post('/api/uploads/', { token: user.token, body, headers: { 'content-type': 'application/json' } });
      expect([broken.status, broken.body], String(body)).toEqual([415, json.body]);
    }

    const wrongField = await send(await imageBytes('png'), 'x.png', 'image/png', 'photo');
    expect(wrongField.status).toBe(400);
    expect(wrongField.body).toEqual({ file: ['No file was submitted.'] });

    // A form of many small fields is not too large (413): it is not the form asked for, whether its
    // fields come before the file or after it.
    const png = new Uint8Array(await imageBytes('png'));
    for (const fileFirst of [false, true, false, true]) {
      const crowded = new FormData();
      if (fileFirst) crowded.append('file', new Blob([png], { type: 'image/png' }), 'x.png');
      for (let field = 0; field < 20; field += 1) crowded.append(`note${field}`, 'x');
      if (!fileFirst) crowded.append('file', new Blob([png], { type: 'image/png' }), 'x.png');
      const response = await fetch(`${server.url}/api/uploads/`, { method: 'POST', headers: { authorization: `Token ${user.token}` }, body: crowded });
      expect(response.status, fileFirst ? 'file first' : 'fields first').toBe(400);
      expect(await response.json()).toEqual({ file: ['Send the image alone, in the field "file", with no other fields.'] });
    }
    expect(await uploadRows()).toHaveLength(uploadsBefore);
  });

  it('needs a token', async () => {
    const response = await send(await imageBytes('png'), 'x.png', 'image/png', 'file', null);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  describe('what comes out', () => {
    let original: Buffer;
    beforeAll(async () => {
      original = await jpegWithPrivateMetadata();
      // The fixture really carries what must not come out.
      const metadata = await sharp(original).metadata();
      expect(metadata).toMatchObject({ width: 4000, height: 3000, orientation: 6 });
      expect(metadata.exif && hasGpsTag(metadata.exif)).toBe(true);
      expect(metadata.xmp).toBeDefined();
      for (const secret of ['SecretCamMaker', 'Owner Private Name', 'Secret Xmp Person']) {
        expect(original.includes(secret)).toBe(true);
      }
    });

    async function expectClean(bytes: Buffer) {
      const metadata = await sharp(bytes).metadata();
      expect(metadata.exif).toBeUndefined();
      expect(metadata.xmp).toBeUndefined();
      expect(metadata.iptc).toBeUndefined();
      expect(metadata.orientation).toBeUndefined();
      for (const marker of ['Exif', 'EXIF', 'XMP ', 'xmpmeta', 'SecretCamMaker', 'LeakyModel', 'Owner Private Name', 'Secret Xmp Person']) {
        expect(bytes.includes(marker), marker).toBe(false);
      }
      // Auto-rotated (orientation 6 turns 4000×3000 upright) and bounded to 1600 px.
      expect([metadata.width, metadata.height]).toEqual([1200, 1600]);
    }

    it('strips EXIF, GPS and XMP from an upload, rotates it upright and bounds it', async () => {
      const response = await send(original, 'holiday.jpg', 'image/jpeg');
      expect(response.status).toBe(201);
      await expectClean((await fetchStored(response.body.url)).bytes);
      const key = response.body.url.slice('/media/'.length);
      const [row] = await server.app.db.select().from(uploads).where(eq(uploads.key, key));
      expect(row).toMatchObject({ width: 1200, height: 1600 });
    });

    it('does the same to a data: URI saved in the profile', async () => {
      const profileUser = await makeUser(server);
      const saved = await api.put('/api/users/me/profile/', {
        token: profileUser.token,
        json: await validProfile({ image: `data:image/jpeg;base64,${original.toString('base64')}` }),
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      await expectClean((await fetchStored(saved.body.image)).bytes);
    });

    it('bounds a landscape image without rotating it, and never enlarges a small one', async () => {
      const landscape = await send(await imageBytes('png', { width: 4000, height: 3000 }), 'wide.png', 'image/png');
      expect(landscape.status).toBe(201);
      const wide = await sharp((await fetchStored(landscape.body.url)).bytes).metadata();
      expect([wide.width, wide.height]).toEqual([1600, 1200]);

      const small = await send(await imageBytes('png', { width: 30, height: 20 }), 'small.png', 'image/png');
      const tiny = await sharp((await fetchStored(small.body.url)).bytes).metadata();
      expect([tiny.width, tiny.height]).toEqual([30, 20]);
    });

    /** A photo with detail in it (noise), which does not shrink to nothing as a flat colour would. */
    const detailedPhoto = (width: number, height: number) =>
      sharp({ create: { width, height, channels: 3, background: '#777', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
        .jpeg()
        .toBuffer();

    it('serves a thumbnail for avatars (shorter side 320 px) and a card (640), a fraction of the bytes, each with its own ETag', async () => {
      const uploaded = await send(await detailedPhoto(3000, 4000), 'portrait.jpg', 'image/jpeg');
      expect(uploaded.status).toBe(201);
      const full = await fetchStored(uploaded.body.url);
      const thumb = await fetchStored(`${uploaded.body.url}?size=thumb`);
      expect(thumb.response.headers.get('content-type')).toBe('image/webp');
      expect(thumb.response.headers.get('cache-control')).toBe('public, max-age=3600, must-revalidate');
      const metadata = await sharp(thumb.bytes).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual(['webp', 320, 427]);
      expect(thumb.bytes.length).toBeLessThan(full.bytes.length / 5);
      // A copy of its own in caches: its ETag is not the photo's, and it revalidates to a 304.
      const etag = thumb.response.headers.get('etag')!;
      expect(etag).not.toBe(full.response.headers.get('etag'));
      const again = await fetch(`${server.url}${uploaded.body.url}?size=thumb`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      // Asked again, it is the same bytes (kept, not made anew differently).
      expect((await fetchStored(`${uploaded.body.url}?size=thumb`)).bytes.equals(thumb.bytes)).toBe(true);
      // The card, for a grid of cards: twice the side, still well under the photo, an ETag of its own.
      const card = await fetchStored(`${uploaded.body.url}?size=card`);
      const cardMetadata = await sharp(card.bytes).metadata();
      expect([cardMetadata.format, cardMetadata.width, cardMetadata.height]).toEqual(['webp', 640, 853]);
      expect(card.bytes.length).toBeLessThan(full.bytes.length / 2);
      expect(new Set([etag, card.response.headers.get('etag'), full.response.headers.get('etag')]).size).toBe(3);

      // A small photo's thumbnail is not enlarged.
      const small = await send(await imageBytes('png', { width: 30, height: 20 }), 'small.png', 'image/png');
      const tiny = await sharp((await fetchStored(`${small.body.url}?size=thumb`)).bytes).metadata();
      expect([tiny.width, tiny.height]).toEqual([30, 20]);
    });

    it('stops serving a thumbnail the moment its photo is deleted, though one was made', async () => {
      const uploaded = await send(await detailedPhoto(800, 600), 'gone.jpg', 'image/jpeg');
      const thumb = await fetchStored(`${uploaded.body.url}?size=thumb`);
      await server.app.media.remove(uploaded.body.url.slice('/media/'.length));
      const after = await fetch(`${server.url}${uploaded.body.url}?size=thumb`);
      expect(after.status).toBe(404);
      expect(await after.json()).toEqual({ detail: 'Not found.' });
      const revalidated = await fetch(`${server.url}${uploaded.body.url}?size=thumb`, { headers: { 'if-none-match': thumb.response.headers.get('etag')! } });
      expect(revalidated.status).toBe(404);
    });

    it('refuses a size it does not make with a 400 that names the field', async () => {
      const uploaded = await send(await imageBytes('png'), 'x.png', 'image/png');
      const response = await fetch(`${server.url}${uploaded.body.url}?size=huge`, { headers: { 'accept-language': 'en' } });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ size: [expect.any(String)] });
    });
  });

  it.each([
    '/media/AAAAAAAAAAAAAAAAAAAAAAAA.webp',
    '/media/../package.json',
    '/media/..%2f..%2fpackage.json',
    '/media/%2e%2e/%2e%2e/etc/passwd',
    '/media/',
  ])('%s is refused with a JSON 403/404 and reveals nothing', async (url) => {
    // Raw HTTP: fetch would normalise the dots away before they reach the server.
    const response = await rawRequest(server.url, { path: url });
    expect([403, 404]).toContain(response.status);
    expect(JSON.parse(response.body)).toEqual({ detail: response.status === 404 ? 'Not found.' : expect.any(String) });
    expect(response.body).not.toMatch(/eventmatch|root:/);
  });

  describe('the orphan file sweep', () => {
    const evidenceDir = () => path.join(server.config.dataDir, 'evidence');
    /** Past the sweep's grace: a file this old with nothing naming it goes. */
    const old = () => new Date(Date.now() - ORPHAN_GRACE_MS - 60_000);
    const age = (file: string) => utimes(file, old(), old());
    /** A file written straight into a folder, as one whose row is gone leaves it; aged unless `fresh`. */
    async function strayFile(dir: string, { fresh = false, name = newMediaKey() } = {}) {
      const file = path.join(dir, name);
      await writeFile(file, await imageBytes('webp'));
      if (!fresh) await age(file);
      return name;
    }
    const served = async (key: string) => (await fetch(`${server.url}/media/${key}`)).status;

    it('removes the old files nothing names, photos and evidence, and keeps every other', async () => {
      const owner = await makeCompletedUser(server);
      // An upload, its row there: kept however old its file.
      const uploaded = (await send(await imageBytes('png'), 'x.png', 'image/png', 'file', owner.token)).body.url.slice('/media/'.length);
      await age(path.join(mediaDir(), uploaded));
      // A file whose row went (a sweep, an account deletion) and whose removal then failed: public until now.
      const orphan = await strayFile(mediaDir());
      expect(await served(orphan)).toBe(200);
      // A row-less file that a profile still shows (a deleted demo account's photo in seeded profiles).
      const shown = await strayFile(mediaDir());
      await server.app.db.update(profiles).set({ image4: `/media/${shown}` }).where(eq(profiles.userId, owner.id));
      // Younger than the grace: maybe an upload whose row is being written.
      const fresh = await strayFile(mediaDir(), { fresh: true });
      // Not a key the store issues: not ours to judge.
      const foreign = await strayFile(mediaDir(), { name: 'README.txt' });

      // A report's copies of the reported photos, named by its snapshot; and a copy no report names.
      const evidenceBefore = await readdir(evidenceDir());
      const reporter = await makeCompletedUser(server);
      const reported = await api.post('/api/reports/', { token: reporter.token, json: { user_id: owner.id, reason: 'fake_profile' } });
      expect(reported.status, JSON.stringify(reported.body)).toBe(201);
      const copies = (await readdir(evidenceDir())).filter((name) => !evidenceBefore.includes(name));
      expect(copies).toHaveLength(2);
      for (const copy of copies) await age(path.join(evidenceDir(), copy));
      const strayCopy = await strayFile(evidenceDir());
      const freshCopy = await strayFile(evidenceDir(), { fresh: true });

      expect(await runJob(server.app, orphanFileSweep)).toMatchObject({ status: 'done', report: { photos: 1, evidence: 1, failed: 0 } });
      const media = await storedFiles();
      expect(media).not.toContain(orphan);
      expect(await served(orphan)).toBe(404);
      expect(media).toEqual(expect.arrayContaining([uploaded, shown, fresh, foreign]));
      for (const key of [uploaded, shown, fresh]) expect(await served(key)).toBe(200);
      const evidence = await readdir(evidenceDir());
      expect(evidence).not.toContain(strayCopy);
      expect(evidence).toEqual(expect.arrayContaining([...copies, freshCopy]));
      const moderator = await makeModerator(server);
      const photo = await api.get(`/api/moderation/reports/${reported.body.id}/photos/0/`, { token: moderator.token });
      expect(photo.status).toBe(200);
    });

    it('looks the keys up a batch at a time, however many there are', async () => {
      const orphans = await Promise.all(Array.from({ length: 1201 }, () => strayFile(mediaDir())));
      expect(await runJob(server.app, orphanFileSweep)).toMatchObject({ status: 'done', report: { photos: 1201, failed: 0 } });
      const left = new Set(await storedFiles());
      expect(orphans.filter((key) => left.has(key))).toEqual([]);
    });

    it('stops when the process stops its jobs, and the next run does the rest', async () => {
      const orphan = await strayFile(mediaDir());
      const stopped = new AbortController();
      stopped.abort();
      expect(await runJob(server.app, orphanFileSweep, stopped.signal)).toMatchObject({ status: 'done', report: { photos: 0 } });
      expect(await storedFiles()).toContain(orphan);
      expect(await runJob(server.app, orphanFileSweep)).toMatchObject({ status: 'done', report: { photos: 1 } });
      expect(await storedFiles()).not.toContain(orphan);
    });
  });
});

describe('smaller copies past an address’s allowance', () => {
  const COPIES_A_MINUTE = 2;
  const server = serverPerSuite({ config: { limits: { 'media:copy:ip': { max: COPIES_A_MINUTE, windowMs: 60_000 } } } });
  let user: TestUser;
  beforeAll(async () => {
    user = await makeUser(server);
  });

  async function upload(): Promise<string> {
    const form = new FormData();
    const bytes = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#2563eb' } }).jpeg().toBuffer();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'photo.jpg');
    const response = await fetch(`${server.url}/api/uploads/`, { method: 'POST', headers: { authorization: `Token ${user.token}` }, body: form });
    expect(response.status).toBe(201);
    return ((await response.json()) as { url: string }).url;
  }
  async function served(url: string) {
    const response = await fetch(`${server.url}${url}`);
    expect(response.status).toBe(200);
    const { width } = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    return { width, etag: response.headers.get('etag'), cacheControl: response.headers.get('cache-control') };
  }
  const tagOf = (url: string) => `"${url.slice('/media/'.length, url.indexOf('.'))}"`;

  it('sends the photo itself, briefly kept, in place of a copy it would have to make; kept copies and photos go on', async () => {
    const [first, second, third] = [await upload(), await upload(), await upload()];
    const copy = { cacheControl: 'public, max-age=3600, must-revalidate' };
    expect(await served(`${first}?size=thumb`)).toEqual({ ...copy, width: 427, etag: tagOf(first).replace(/"$/, '-thumb"') });
    expect(await served(`${second}?size=thumb`)).toEqual({ ...copy, width: 427, etag: tagOf(second).replace(/"$/, '-thumb"') });

    // A third copy to make this minute: the photo, under its own tag, for a minute.
    const instead = { cacheControl: 'public, max-age=60, must-revalidate' };
    expect(await served(`${third}?size=thumb`)).toEqual({ ...instead, width: 800, etag: tagOf(third) });
    expect(await served(`${first}?size=card`)).toEqual({ ...instead, width: 800, etag: tagOf(first) });

    // What is kept costs nothing to make, and the photos themselves are never counted.
    expect(await served(`${first}?size=thumb`)).toMatchObject({ width: 427, etag: tagOf(first).replace(/"$/, '-thumb"') });
    expect(await served(third)).toEqual({ ...copy, width: 800, etag: tagOf(third) });
  });
});

/**
 * An upload on its way while the account is deleted from another device, on PostgreSQL, where the
 * deletion runs on a connection of its own: the test's transaction deletes the account and holds it
 * uncommitted while the upload's row, which names the account, waits for it.
 */
describe.skipIf(!(await hasPostgres()))('an upload racing its account’s deletion, on PostgreSQL', () => {
  const races = racesOnPostgres();

  it('answers 401, as after the deletion, and leaves no file behind', async () => {
    const { server, hold, stuckOrDone } = races;
    const user = await makeUser(server);
    const mediaDir = path.join(server.config.dataDir, 'media');
    const filesBefore = await readdir(mediaDir);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await imageBytes('png'))], { type: 'image/png' }), 'photo.png');
    const commit = await hold('delete from users where id = $1', [user.id]);
    let uploading: Promise<Response> | undefined;
    try {
      uploading = fetch(`${server.url}/api/uploads/`, { method: 'POST', headers: { authorization: `Token ${user.token}` }, body: form });
      // Authenticated before the deletion commits; its row waits for the account the deletion holds.
      expect(await stuckOrDone(uploading, 1)).toBe(false);
    } finally {
      await commit('commit');
    }
    const response = await uploading;
    expect([response.status, await response.json()]).toEqual([401, { detail: 'This account has been deleted.', code: 'account_deleted' }]);
    expect(await readdir(mediaDir)).toEqual(filesBefore);
    expect(await server.app.db.select().from(uploads).where(eq(uploads.ownerId, user.id))).toEqual([]);
  });
});
