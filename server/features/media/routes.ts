import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

/** A whole form at most: the file's 10 MB and what wraps it (boundaries, part headers, a few small fields). */
const MAX_FORM_BYTES = MAX_UPLOAD_BYTES + 64 * 1024;

/**
 * The bytes of the multipart field `file`, at most 10 MB; every way a body can be malformed is a 4xx.
 * The form is read to its end: a limit on its fields or parts is told between parts, and may come
 * after the file (the form is refused whichever way its parts arrived). The body as a whole is bounded
 * too: the parser reads and drops whatever comes before the first part or after the last, which would
 * otherwise be read without end (a small photo behind gigabytes of filler was a 201).
 */
async function readUpload(request: FastifyRequest, reply: FastifyReply): Promise<Buffer> {
  // A declared length is the client's to send in full: read and dropped after the 413, as a file past
  // the limit is, so that a browser still sending its photo gets to read the answer.
  if (Number(request.headers['content-length']) > MAX_FORM_BYTES) throw new PayloadTooLarge(IMAGE_TOO_LARGE);
  const parts = request.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } })[Symbol.asyncIterator]();
  // The first step pipes the body into the parser; the bytes are counted from then on. Only a chunked
  // body, which says no length, can pass the limit here: nothing more of it is read, the connection
  // closes once the 413 is sent.
  const first = parts.next();
  let received = 0;
  let overflowed: () => void = () => {};
  const overflow = new Promise<never>((_resolve, reject) => {
    overflowed = () => {
      reply.header('connection', 'close');
      reject(new PayloadTooLarge(IMAGE_TOO_LARGE));
    };
  });
  overflow.catch(() => {});
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_FORM_BYTES) {
      request.raw.off('data', count);
      request.raw.unpipe();
      overflowed();
    }
  };
  request.raw.on('data', count);
  const bounded = <T>(step: Promise<T>) => Promise.race([step, overflow]);
  try {
    let bytes: Buffer | null = null;
    for (let step = await bounded(first); !step.done; step = await bounded(parts.next())) {
      const part = step.value;
      if (part.type !== 'file') continue;
      if (part.fieldname !== 'file') throw ValidationError.field('file', NO_FILE);
      bytes = await bounded(part.toBuffer());
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
  } finally {
    request.raw.off('data', count);
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
      const bytes = await readUpload(request, reply);
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
