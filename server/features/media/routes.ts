import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LRUCache } from 'lru-cache';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants';
import { MediaFile, MediaNotModified, MediaParams, MediaQuery, type PhotoSize, UploadForm, UploadResponse } from '../../../shared/schemas/users';
import { documentedBody, withoutToken } from '../../plugins/api-docs';
import { ApiError, NotFound, PayloadTooLarge, Throttled, UnsupportedMediaType, ValidationError } from '../../errors';
import { addressOf } from '../../lib/limits';
import { currentUser } from '../../plugins/auth';
import { IMAGE_TOO_LARGE, resizedPhoto, storeImage } from './service';
import { MEDIA_CACHE_CONTROL, MEDIA_PREFIX } from './store';
import { serverText } from '../../../shared/i18n/server-messages';

export const NO_FILE = serverText('no_file');
export const NOT_A_FILE = serverText('not_a_file');
export const UPLOAD_ONE_FILE = serverText('upload_one_file');
const UPLOAD_MULTIPART = serverText('upload_multipart');
/** @fastify/multipart's limits on what a form holds besides its file: the form is wrong, not too large. */
const FORM_LIMITS = new Set(['FST_FIELDS_LIMIT', 'FST_PARTS_LIMIT', 'FST_FILES_LIMIT']);
/** What one instance keeps of smaller copies in memory: some 1,600 thumbnails of ~10 KB, or 400 cards of ~40. */
const RESIZED_KEPT_BYTES = 16 * 1024 * 1024;
/** The photo sent in place of a smaller copy (past `media:copy:ip`): a minute, then the copy is asked for again. */
const PHOTO_INSTEAD_OF_COPY_CACHE_CONTROL = 'public, max-age=60, must-revalidate';

/**
 * The bytes of the multipart field `file`, at most 10 MB; every way a body can be malformed is a 4xx.
 * The form is read to its end: a limit on its fields or parts is told between parts, and may come
 * after the file (the form is refused whichever way its parts arrived).
 */
async function readUpload(request: FastifyRequest): Promise<Buffer> {
  try {
    let bytes: Buffer | null = null;
    for await (const part of request.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } })) {
      if (part.type !== 'file') continue;
      if (part.fieldname !== 'file') throw ValidationError.field('file', NO_FILE);
      bytes = await part.toBuffer();
      // toBuffer() can miss the limit when busboy marks the stream truncated after its last chunk
      // was read: it then hands back the first 10 MB as if that were the whole file.
      if (part.file.truncated) throw new PayloadTooLarge(IMAGE_TOO_LARGE);
    }
    if (!bytes) throw ValidationError.field('file', NO_FILE);
    return bytes;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new PayloadTooLarge(IMAGE_TOO_LARGE);
    if (code && FORM_LIMITS.has(code)) throw ValidationError.field('file', UPLOAD_ONE_FILE);
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw new PayloadTooLarge();
    // Busboy's "Unexpected end of form", "Boundary not found" and the like: the client's body is broken.
    request.log.info({ err: error }, 'malformed multipart body');
    throw ValidationError.field('file', NOT_A_FILE);
  }
}

const mediaRoutes: FastifyPluginAsyncZod = async (app) => {
  // Multipart is read here only: elsewhere such a body is a wrong content type (415).
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });

  app.post('/api/uploads/', {
    // Multipart: read by request.file(), not validated as a body; described for the documentation.
    schema: { ...documentedBody('multipart/form-data', UploadForm), response: { 201: UploadResponse } },
    onRequest: [app.authenticate, app.limits.hook('upload')],
    handler: async (request, reply) => {
      if (!request.isMultipart()) throw new UnsupportedMediaType(UPLOAD_MULTIPART);
      const bytes = await readUpload(request);
      const url = await storeImage(app.db, app.media, currentUser(request).id, bytes);
      return reply.code(201).send({ url });
    },
  });

  // Smaller copies are made when first asked for (some 20–40 ms of a core: the photo decoded at a
  // smaller scale, then encoded) and kept in memory, the most recently used: a face at a party is
  // asked for by every phone that matched it, and made once. Concurrent asks share one making. An
  // address has at most `media:copy:ip` made (`copyOf`).
  // Kept under `<size>:<key>`; the fetch is told both as they are.
  const resized = new LRUCache<string, Buffer, { key: string; size: PhotoSize }>({
    maxSize: RESIZED_KEPT_BYTES,
    sizeCalculation: (bytes) => bytes.length,
    fetchMethod: async (_cacheKey, _stale, { context: { key, size } }) => {
      const photo = await app.media.read(key);
      return photo ? resizedPhoto(photo, size) : undefined;
    },
  });

  // Served by the app from whichever store holds them (a folder, a bucket), so that a photo's URL
  // never changes with the store, and a deleted photo stops being served at once (its smaller copies
  // too: the photo is looked for each time, whatever memory holds).
  const photo = {
    ...withoutToken,
    params: MediaParams,
    querystring: MediaQuery,
    response: { 200: { content: { 'image/webp': { schema: MediaFile } } }, 304: MediaNotModified },
  };
  /** Whether this address may have one more copy made now (`media:copy:ip`). */
  const mayMakeCopy = (request: FastifyRequest) =>
    app.limits.consume('media:copy:ip', `ip:${addressOf(request)}`).then(
      () => true,
      (error: unknown) => {
        if (error instanceof Throttled) return false;
        throw error;
      },
    );

  /**
   * The copy of the photo at `size`, kept or made now; undefined when the photo is not there (any
   * more). `photo` when the copy would have to be made past the address's copies for now: the photo
   * itself is sent instead, which costs nothing to make. A copy being made for another request counts
   * as one to make: it is not kept yet.
   */
  async function copyOf(request: FastifyRequest, key: string, size: PhotoSize): Promise<Buffer | 'photo' | undefined> {
    if (!(await app.media.exists(key))) return undefined;
    const kept = `${size}:${key}`;
    if (!resized.has(kept) && !(await mayMakeCopy(request))) return 'photo';
    return resized.fetch(kept, { context: { key, size } });
  }

  app.get(`${MEDIA_PREFIX}:key`, { schema: photo }, async (request, reply) => {
    const key = app.media.keyOf(`${MEDIA_PREFIX}${request.params.key}`);
    if (!key) throw new NotFound();
    const { size } = request.query;
    // The bytes under a key never change, so the key is their version; a cache revalidating after
    // MEDIA_CACHE_CONTROL's hour only needs to hear that the photo is still there.
    const base = key.slice(0, key.indexOf('.'));
    const etag = `"${base}${size ? `-${size}` : ''}"`;
    if (request.headers['if-none-match'] === etag) {
      if (!(await app.media.exists(key))) throw new NotFound();
      return reply.code(304).header('cache-control', MEDIA_CACHE_CONTROL).header('etag', etag).send(null);
    }
    const copy = size ? await copyOf(request, key, size) : 'photo';
    const bytes = copy === 'photo' ? await app.media.read(key) : copy;
    if (!bytes) throw new NotFound();
    if (size && copy === 'photo') {
      // Instead of the copy: under the photo's own tag, and kept only a minute, after which the copy is asked for again.
      reply.header('cache-control', PHOTO_INSTEAD_OF_COPY_CACHE_CONTROL).header('etag', `"${base}"`);
    } else reply.header('cache-control', MEDIA_CACHE_CONTROL).header('etag', etag);
    // Fastify sends a Buffer as it is; MediaFile only describes it, as a file, for the documentation.
    return reply.type('image/webp').send(bytes as unknown as File);
  });
};

export default mediaRoutes;
